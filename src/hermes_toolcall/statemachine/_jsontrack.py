"""Incremental JSON structure tracking inside a call block: strings, depth, the top-level ``name``.

Pure bookkeeping, fed token by token by the parser's block scanner (which finds the tokens with the
compiled scanners of ``markers``). It never re-reads text: each token is seen once, so tracking is
linear in the block size whatever the chunking.
"""

from __future__ import annotations

from .. import _jsonio as jsonio

__all__ = ["ARGUMENT_KEYS", "JsonTrack"]

#: Keys that carry the arguments (the aliases are lenient recoveries, HT205).
ARGUMENT_KEYS = frozenset({"arguments", "parameters", "args"})

PHASE_NAME = 0  # looking for the top-level "name" (full structure tracking)
PHASE_ARGS = 1  # name announced, streaming arguments: looking for / inside the "arguments" value
PHASE_MIN = 2  # only strings matter (block end detection)


class JsonTrack:
    """Structure of a JSON-aware block body as far as it has been scanned.

    Attributes:
        in_string: inside a JSON string.
        phase: what is still looked for (``PHASE_NAME``, ``PHASE_ARGS``, ``PHASE_MIN``).
        depth: nesting depth outside strings (1 = inside the top-level object).
        name: the announced name, once known.
        args_start / args_end: inner offsets of the ``arguments`` object (end exclusive), once known.
    """

    __slots__ = (
        "after_colon",
        "args_end",
        "args_start",
        "args_wanted",
        "depth",
        "gap_ok",
        "in_string",
        "key",
        "key_expected",
        "name",
        "phase",
        "str_pieces",
        "str_top",
    )

    def __init__(self, *, first: str, want_name: bool, want_args: bool) -> None:
        self.in_string = False
        self.depth = 0
        self.phase = PHASE_NAME if (want_name and first == "{") else PHASE_MIN
        self.args_wanted = want_args
        self.key_expected = False
        self.after_colon = False
        self.gap_ok = True  # only whitespace since the last colon
        self.key: str | None = None
        self.name: str | None = None
        self.str_pieces: list[str] | None = None  # raw text of a depth-1 string being read
        self.str_top = False
        self.args_start = -1
        self.args_end = -1

    def open_string(self) -> None:
        """A string starts (the opening quote was just read)."""
        self.in_string = True
        if self.phase != PHASE_MIN and self.depth == 1:
            self.str_pieces = ['"']
            self.str_top = True
        else:
            self.str_top = False

    def close_string(self) -> str | None:
        """The string ended; returns the name to announce when this string was the top-level name."""
        self.in_string = False
        if not self.str_top or self.str_pieces is None:
            return None
        raw = "".join(self.str_pieces)
        self.str_pieces = None
        self.str_top = False
        if self.key_expected:
            self.key_expected = False
            decoded = jsonio.loads_or_none(raw)
            self.key = decoded if isinstance(decoded, str) else None
            return None
        if self.after_colon and self.gap_ok and self.key == "name" and self.phase == PHASE_NAME:
            self.after_colon = False
            value = jsonio.loads_or_none(raw)
            if isinstance(value, str) and value:
                self.name = value
                self.phase = PHASE_ARGS if self.args_wanted else PHASE_MIN
                return value
            self.phase = PHASE_MIN
            return None
        self.after_colon = False
        return None

    def read_name_prefix(self, name: str) -> None:
        """The body began with ``{"name": "<name>"`` (a plain non-empty name without escapes): the
        state the token-by-token reading of that prefix ends in, name announced."""
        self.in_string = False
        self.depth = 1
        self.key_expected = False
        self.after_colon = False
        self.gap_ok = True
        self.key = "name"
        self.name = name
        self.str_pieces = None
        self.str_top = False
        self.phase = PHASE_ARGS if self.args_wanted else PHASE_MIN

    def colon(self) -> None:
        """A ``:`` outside strings."""
        if self.depth != 1:
            return
        self.after_colon = True
        self.gap_ok = True
        if self.phase == PHASE_NAME and self.key in ARGUMENT_KEYS:
            self.phase = PHASE_MIN  # arguments before name: announced at the end

    def comma(self) -> None:
        """A ``,`` outside strings."""
        if self.depth == 1:
            self.key_expected = True
            self.after_colon = False

    def open_container(self, char: str, inner_offset: int) -> bool:
        """``{`` or ``[`` outside strings; True when it starts the streamed ``arguments`` object."""
        starts_args = False
        if self.depth == 0:
            self.key_expected = char == "{"
        elif self.depth == 1:
            if (
                self.phase == PHASE_ARGS
                and self.after_colon
                and self.gap_ok
                and self.key == "arguments"
                and char == "{"
                and self.args_start < 0
            ):
                self.args_start = inner_offset
                starts_args = True
            self.after_colon = False
        self.depth += 1
        return starts_args

    def close_container(self, inner_offset: int) -> bool:
        """``}`` or ``]`` outside strings; True when it ends the streamed ``arguments`` object."""
        self.depth -= 1
        if self.depth == 1 and self.args_start >= 0 and self.args_end < 0:
            self.args_end = inner_offset + 1
            self.phase = PHASE_MIN
            return True
        if self.depth <= 0:
            self.phase = PHASE_MIN
        return False

    def other_text(self, text: str) -> None:
        """Text between tokens outside strings (whitespace, numbers, literals)."""
        if self.after_colon and self.gap_ok and text.strip():
            self.gap_ok = False
