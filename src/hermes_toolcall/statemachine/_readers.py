"""The readers: what the unread input holds, per kind of state, said as values.

A reader is asked about the unread input ``data`` (its first character at absolute offset ``pos``)
from an index ``i``, and answers with one value ``(j, op, arg)``: ``data[i:j]`` is text of the
current state (it holds no marker of it), and ``op`` says what is at ``j``:

- ``END`` (the value ``REST``, with ``j = -1``): nothing; the rest of the data is text of the state.
- ``HOLD``: ``data[j:]`` may be the start of a marker (or an escape): it waits for the next chunk.
- ``MARK``: the marker ``arg`` starts at ``j`` (its move is the table's, ``_table.moves``).
- ``CUT``: the open block reached its size bound at ``j`` (``max_block_chars``).
- ``DEFER``: ``data[j:]`` cannot end the block and need not be read yet: it waits, and is read in one
  step with the first chunk that may end the block (``arg``: the offset up to which the buffer may
  defer new chunks without asking, or -1).
- ``NAME``: the call's top-level ``name`` (``arg``) is complete at ``j`` (``ToolCallStart``).
- ``ARGS``: the streamed ``arguments`` object starts (``arg`` True) or ends (False) at ``j``.
- ``BODY``: a block's body starts at ``j``; ``arg`` is the reader of its kind, which reads on.
- ``DELTA``: ``arg`` is the next piece of the call's ``arguments`` JSON text (a body whose raw text is
  not that JSON, an XML body: ``ArgumentsDelta``).
- ``AGAIN``: a held state is decided at ``j`` (the whole data was its text): ``arg`` is ``(marker, tag,
  at, again)``, the marker met (its move is the table's), the text the move's action takes as its tag
  and where that starts, and the held text after it, which is read again in the state the move enters
  (``BareReader``).

A reader never writes another object's fields: ``StreamParser``'s loop applies the values (the
assembler folds the text, markers and names; the buffer holds and defers). What a reader keeps is its
own scanning state: the text readers keep nothing, a block's readers (made anew for each block) keep
where the body's JSON structure stands.

**Guards.** Each reader may have a ``guard``: a bulk shortcut asked before ``read`` at every step,
which returns what ``read`` would return (or ``DEFER`` when nothing can be said yet, see below), or
None to let ``read`` scan. The guards are the fast paths; there is no other copy of a reader's
behaviour. ``UNGUARDED`` holds the same readers without their guards, for the property tests that
compare the two (tests/test_statemachine_paths.py).

**Adding a block reader** (a new body kind, e.g. XML bodies inside ``<tool_call>``): write a subclass
of ``BodyReader`` with

1. ``opens(data, k)``: whether a body whose first non-blank character is ``data[k]`` is of this kind
   (True / False; None: cannot tell yet, the start is held back until it can);
2. ``read(data, i, pos, final)``: the scanner, returning the values above (``MARK`` at the block's end
   markers of ``scans.plain``, a control token wherever it is; ``CUT`` at ``limit``; ``NAME`` when the
   call's name is known, so that ``ToolCallStart`` goes out as soon as the input decides it; ``HOLD``
   for a partial marker at the end of ``data``);
3. optionally ``guard(data, i, pos)``, a shortcut returning the same values;

then add it to ``BODY_READERS`` under its body kind (the profile field that names the kind selects the
tuple of readers tried, in order, at a block's first character; ``PlainBody`` is always the last). The
loop, the assembler and the table need no change.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, ClassVar

from .. import _jsonio as jsonio
from ..tags import CALL_CLOSE, CALL_OPEN, CONTROL, FUNCTION_OPEN
from ._buffer import MarkerSet, held_from
from ._markers import BlockScan, Scan
from ._table import Marker
from ._xmlstream import XmlStream

__all__ = [
    "AGAIN",
    "ARGS",
    "BODY",
    "BODY_READERS",
    "CUT",
    "DEFER",
    "DELTA",
    "END",
    "GUARDED",
    "HOLD",
    "MARK",
    "NAME",
    "REST",
    "UNGUARDED",
    "BareReader",
    "BlockStart",
    "BodyReader",
    "BoundReader",
    "HeaderReader",
    "HeldAfterReader",
    "JsonBody",
    "PlainBody",
    "Reader",
    "Readers",
    "TailReader",
    "TextReader",
    "Value",
    "WatchReader",
    "XmlBody",
]

END, HOLD, MARK, CUT, DEFER, NAME, ARGS, BODY, DELTA, AGAIN = range(10)
#: What a reader says: (end of the state's text, what is there, its argument).
Value = tuple[int, int, Any]
#: The rest of the data is text of the state.
REST: Value = (-1, END, None)

_WS = " \t\n\r"
# The characters of a name read in one step (plain: no escapes, no "<", no quote).
_NAME_CHAR = r"[\w.\-]"
# The usual start of a call body: the top-level name first, plain (no escapes).
_NAME_PREFIX = re.compile(rf'\{{[ \t\n\r]*"name"[ \t\n\r]*:[ \t\n\r]*"({_NAME_CHAR}+)"')
# The usual start as the templates write it, up to the name: while a call body is still a start of
# that (leading blanks allowed) with the name open (``_NAME_SO_FAR``: name characters only), nothing
# can be announced yet, so ``BlockStart``'s guard defers it, to be read in one step with the chunk
# that closes the name.
_CANONICAL_HEAD = '{"name": "'
# The name so far: only what ``_NAME_PREFIX`` reads in one step; anything else (a "<" that may begin a
# marker, an escape, a quote) is read as it comes, since the scanners may have something to say about it.
_NAME_SO_FAR = re.compile(rf"{_NAME_CHAR}*\Z").match
_HEAD_MAX = 64  # a longer start is read as it comes (deferring it would re-join it at every chunk)


# The same for an XML body: ``<function=`` and a name that no ``>``, line end or ``<`` has closed yet
# (``_xmlstream``'s name end), so ``XmlBody`` has nothing to announce yet.
_XML_NAME_SO_FAR = re.compile(r"[^>\r\n<]*\Z").match


def _head_so_far(text: str, i: int) -> bool:
    """Whether ``text[i:]`` can still become the usual start of a call body (``{"name": "`` or
    ``<function=``), its name not closed yet."""
    head = text[i:].lstrip(_WS) if i else text.lstrip(_WS)
    if head[:1] == "<":
        if len(head) <= len(FUNCTION_OPEN):
            return FUNCTION_OPEN.startswith(head)
        return head.startswith(FUNCTION_OPEN) and _XML_NAME_SO_FAR(head, len(FUNCTION_OPEN)) is not None
    if len(head) <= len(_CANONICAL_HEAD):
        return _CANONICAL_HEAD.startswith(head)
    return head.startswith(_CANONICAL_HEAD) and _NAME_SO_FAR(head, len(_CANONICAL_HEAD)) is not None


# The inside of a JSON string with no quote, no "<" and no escape left open: it cannot end the string.
_STRING_BODY = re.compile(r'[^"\\<]*(?:\\[^<][^"\\<]*)*', re.DOTALL)
_SKIP_STRING = _STRING_BODY.match

# What a JSON body still looks for (``JsonBody.phase``).
PHASE_NAME = 0  # the top-level "name" (full structure tracking)
PHASE_ARGS = 1  # name announced, streaming arguments: looking for / inside the "arguments" value
PHASE_MIN = 2  # only strings matter (the block's end)

#: Keys that carry the arguments (the aliases are lenient recoveries, HT205).
ARGUMENT_KEYS = frozenset({"arguments", "parameters", "args"})


class Reader:
    """A reader of one kind of state: ``read`` scans; ``guard`` (None here) is its shortcut."""

    __slots__ = ()

    #: the end of the input decides the state (``read`` is asked with ``final`` even with no data left)
    decides_at_end: ClassVar[bool] = False

    def guard(self, data: str, i: int, pos: int) -> Value | None:
        """What ``read(data, i, pos, final=False)`` would say, found in bulk; None: let ``read`` scan."""
        return None

    def read(self, data: str, i: int, pos: int, final: bool) -> Value:
        """What ``data`` holds from ``i`` (``final``: no more input follows, nothing may be held)."""
        raise NotImplementedError


# ---------------------------------------------------------------------------------------- text states


class TextReader(Reader):
    """Bodies, reasoning and gaps: scans with the state's compiled alternation of markers (all start
    with ``<``) and holds back a possible partial marker."""

    __slots__ = ("held", "longest", "prefixes", "search")

    def __init__(self, scan: Scan) -> None:
        self.search = scan.pattern.search
        self.held = scan.held
        self.prefixes = scan.held.prefixes
        self.longest = scan.held.longest

    def guard(self, data: str, i: int, pos: int) -> Value | None:
        if "<" not in data:
            return REST
        p = data.find("<", i)
        if p < 0:
            return REST
        if len(data) - p < self.longest and data[p:] in self.prefixes:
            return (p, HOLD, None)  # text, then the start of a marker the next chunks may complete
        return None

    def read(self, data: str, i: int, pos: int, final: bool) -> Value:
        m = self.search(data, i)
        if m is not None:
            tag = m.group()
            if not final and m.end() == len(data) and tag in self.prefixes:
                return (m.start(), HOLD, None)  # a marker the next chunk may still extend ("\r" of "\r\n")
            return (m.start(), MARK, tag)
        h = len(data) if final else held_from(data, i, self.held)
        return REST if h == len(data) else (h, HOLD, None)


_LINE_END_OR_TAG = re.compile(r"[\n\r<]").search


class HeaderReader(TextReader):
    """A role header: its text is kept; a line end ends it (the markers of its scanner)."""

    __slots__ = ()

    def guard(self, data: str, i: int, pos: int) -> Value | None:
        return REST if _LINE_END_OR_TAG(data, i) is None else None


class TailReader(Reader):
    """After the end of a completion, and after ``close()``: nothing is scanned (only whether text
    follows matters, to the assembler)."""

    __slots__ = ()

    def guard(self, data: str, i: int, pos: int) -> Value | None:
        return REST

    def read(self, data: str, i: int, pos: int, final: bool) -> Value:
        return REST


# ---------------------------------------------------------------------------------------- blocks


class BlockStart(Reader):
    """The start of a block body: blanks, then the first character picks the body's reader.

    One per block: ``limit`` is the block's size bound (absolute offset of the cut), ``call`` whether
    it is a call block (its name is looked for), ``args`` whether its arguments are streamed,
    ``bodies`` the body readers tried in order (the last one is ``PlainBody``).
    """

    __slots__ = ("args", "bodies", "call", "limit", "scans", "tools")

    def __init__(
        self,
        scans: BlockScan,
        limit: int,
        call: bool,
        args: bool,
        bodies: tuple[type[BodyReader], ...],
        tools: Mapping[str, Any] | None = None,
    ) -> None:
        self.scans = scans
        self.limit = limit
        self.call = call
        self.args = args
        self.bodies = bodies
        self.tools = tools

    def guard(self, data: str, i: int, pos: int) -> Value | None:
        # a call body that can still begin as usual ({"name": "… or <function=…), its name not closed
        # yet: nothing to announce, so it waits (deferred) until the name is complete, and is read in one step
        if self.call and len(data) - i <= _HEAD_MAX and pos + len(data) <= self.limit and _head_so_far(data, i):
            return (i, DEFER, -1)
        return None

    def read(self, data: str, i: int, pos: int, final: bool) -> Value:
        n = len(data)
        k = i
        while k < n and data[k] in _WS:
            k += 1
        if pos + k > self.limit:  # blanks past the bound
            return (self.limit - pos, CUT, None)
        if k == n:
            return REST
        for body in self.bodies:  # the last one, ``PlainBody``, opens any body
            opens = body.opens(data, k)
            if opens is None and not final:
                return (k, HOLD, None)
            if opens:
                break
        return (k, BODY, body(self.scans, self.limit, self.call, self.args, self.tools))


class BodyReader(Reader):
    """A block body of one kind, from its first non-blank character (see the module docstring)."""

    __slots__ = ("limit", "scans")

    def __init__(
        self, scans: BlockScan, limit: int, call: bool, args: bool, tools: Mapping[str, Any] | None = None
    ) -> None:
        self.scans = scans
        self.limit = limit

    @classmethod
    def opens(cls, data: str, k: int) -> bool | None:
        """Whether a body whose first non-blank character is ``data[k]`` is of this kind (None: cannot tell yet)."""
        raise NotImplementedError


class PlainBody(BodyReader):
    """A block body read for its end markers only (not JSON, or a catalogue)."""

    __slots__ = ()

    @classmethod
    def opens(cls, data: str, k: int) -> bool:
        return True

    def guard(self, data: str, i: int, pos: int) -> Value | None:
        if pos + len(data) > self.limit:
            return None
        p = data.find("<", i)
        if p < 0:  # only the block's end is looked for: the text waits, and so will the next chunks without "<"
            return (i, DEFER, self.limit)
        if data[p:] in self.scans.plain.held.prefixes:
            return (p, HOLD, None)
        return None

    def read(self, data: str, i: int, pos: int, final: bool) -> Value:
        plain = self.scans.plain
        limit = self.limit
        n = len(data)
        endpos = min(n, limit - pos + 16)
        m = plain.pattern.search(data, i, endpos)
        if m is not None and pos + m.start() <= limit:
            return (m.start(), MARK, m.group())
        if m is not None or final or endpos < n:
            h = n
        else:
            h = held_from(data, i, plain.held)
        if pos + h > limit:
            return (limit - pos, CUT, None)
        return REST if h == n else (h, HOLD, None)


class JsonBody(BodyReader):
    """A JSON block body, following its structure as far as the events need: the top-level ``name``
    (``NAME``: ``ToolCallStart``) and, with streamed arguments, where the ``arguments`` object starts
    and ends (``ARGS``: ``ArgumentsDelta``). A marker inside a JSON string does not end the block; a
    control token always does (R2). Each token is seen once, so reading is linear in the body's size
    whatever the chunking.

    Its fields are its scanning state: ``in_string``; ``depth`` (nesting outside strings, 1 = inside
    the top-level object); ``phase`` (what is still looked for); the key being read and whether a value
    follows (``key``, ``key_expected``, ``after_colon``, ``gap_ok``); the raw text of a top-level string
    being read (``pieces``); where the arguments stand (``in_args``, ``args_done``); and ``read_to``,
    the absolute offset up to which it has read (a value returned at an opening bracket is read on
    from after it).
    """

    __slots__ = (
        "after_colon",
        "args_done",
        "args_wanted",
        "depth",
        "gap_ok",
        "in_args",
        "in_string",
        "key",
        "key_expected",
        "phase",
        "pieces",
        "read_to",
        "top",
    )

    def __init__(
        self, scans: BlockScan, limit: int, call: bool, args: bool, tools: Mapping[str, Any] | None = None
    ) -> None:
        self.scans = scans
        self.limit = limit
        self.in_string = False
        self.depth = 0
        self.phase = PHASE_NAME if call else PHASE_MIN  # set from the first character in ``read``
        self.args_wanted = args
        self.key_expected = False
        self.after_colon = False
        self.gap_ok = True  # only whitespace since the last colon
        self.key: str | None = None
        self.pieces: list[str] | None = None  # raw text of a depth-1 string being read
        self.top = False  # the string being read is at depth 1
        self.in_args = False
        self.args_done = False
        self.read_to = -1

    #: the guard takes a run inside the streamed arguments in bulk (a subclass without that shortcut,
    #: for the tests that compare it with the rest of the guard and the scanner, sets it False)
    bulk_arguments: ClassVar[bool] = True

    @classmethod
    def opens(cls, data: str, k: int) -> bool:
        return data[k] in "{["

    # ------------------------------------------------------------------ the guard

    def guard(self, data: str, i: int, pos: int) -> Value | None:
        if pos + len(data) > self.limit or pos + i < self.read_to:
            return None
        if self.phase == PHASE_MIN:  # (never inside the streamed arguments: they are PHASE_ARGS)
            p = data.find("<", i)
            if p < 0:  # only the block's end is looked for: the text waits, as will the next chunks
                return (i, DEFER, self.limit)
            if data[p:] in self.scans.plain.held.prefixes:
                # the run ends with what may become the block's end (or a control token): all of it waits,
                # to be read in one step with the chunk that decides it
                return (i, DEFER, -1)
            return None
        chunk = data[i:] if i else data
        if self.in_args and self.depth >= 2 and self.bulk_arguments:
            if "<" in chunk:
                return None
            if "\\" not in chunk and self._arguments_run(chunk):
                return REST
        elif self.depth == 0 and self.read_to < 0:  # the body's first character, its name looked for
            return self._usual_start(data, i, pos)
        elif "<" in chunk:
            return None
        return self._string_run(data, i, chunk)

    def _arguments_run(self, chunk: str) -> bool:
        """Take a run without ``<`` or a backslash inside the streamed ``arguments`` object, below its top
        level, in bulk; False: it may end the arguments (the string guard or the scanner reads it).

        There the structure needs only whether the scan is inside a string and the depth (colons,
        commas and the text between tokens change nothing, and no string is kept). The quotes toggle
        ``in_string`` by their parity; the brackets outside strings (the even pieces between quotes, or
        the odd ones from inside a string) move the depth. When the closers could bring it down to 1,
        the run is left to the scanner.
        """
        in_string = self.in_string
        if '"' not in chunk:
            if in_string:
                return True  # inside a string, a run without a quote changes nothing
            outside = chunk
        else:
            pieces = chunk.split('"')
            outside = "".join(pieces[1::2] if in_string else pieces[::2])
            if not len(pieces) & 1:  # an odd number of quotes
                in_string = not in_string
        depth = self.depth
        if outside:
            if "}" in outside or "]" in outside:
                depth -= outside.count("}") + outside.count("]")
            if depth >= 2 and ("{" in outside or "[" in outside):
                depth += outside.count("{") + outside.count("[")
        if depth < 2:
            return False
        self.depth = depth
        self.in_string = in_string
        return True

    def _usual_start(self, data: str, i: int, pos: int) -> Value | None:
        """The body began with ``{"name": "<name>"`` (a plain non-empty name without escapes): read in
        one step, to the state the token-by-token reading of that start ends in."""
        m = _NAME_PREFIX.match(data, i)
        if m is None or pos + m.end() - 1 >= self.limit:
            return None
        name = m.group(1)
        self.depth = 1
        self.key = "name"
        self.phase = PHASE_ARGS if self.args_wanted else PHASE_MIN
        self.read_to = pos + m.end()
        return (m.end(), NAME, name)

    def _string_run(self, data: str, i: int, chunk: str) -> Value | None:
        """A run without ``<`` (``chunk``, ``data[i:]``) while the name or the arguments are followed,
        when it holds no token: inside a string, no quote that ends it (a backslash at its end is held
        back). None if it may (the scanner reads it)."""
        if not self.in_string:
            return None
        n = len(data)
        k = n
        if '"' in chunk or "\\" in chunk:
            body = _SKIP_STRING(data, i)
            assert body is not None  # it matches the empty string
            k = body.end()
            if k < n and (k < n - 1 or data[k] != "\\"):
                return None  # the string may end here
        if self.pieces is not None and k > i:
            self.pieces.append(data[i:k] if k < n else chunk)
        if k < n:  # an escape cut by the end of the data: the backslash waits, as the scanner holds it
            return (k, HOLD, None)
        return REST

    # ------------------------------------------------------------------ the scanner

    def read(self, data: str, i: int, pos: int, final: bool) -> Value:
        if pos + i < self.read_to:
            i = self.read_to - pos  # the bracket a value was returned at is read already
        limit = self.limit
        n = len(data)
        endpos = min(n, limit - pos + 16)
        room = pos + n <= limit  # no cut can fall inside the data
        str_from = i if self.pieces is not None else -1  # where the raw text of a top-level string goes on
        while True:
            m, i, scan = self._search(data, i, endpos, room)
            if m is None:
                return self._end_of_data(data, i, pos, final, str_from, scan, endpos)
            j = m.start()
            tok = m.group()
            if tok[0] == '"' and len(tok) > 1:  # whole strings (quotes-only scanning)
                if pos + m.end() - 1 < limit:
                    i = m.end()
                    continue
                tok = '"'
            if pos + j > limit or (pos + j == limit and len(tok) == 1):
                return (limit - pos, CUT, None)
            if not self.in_string and self.phase != PHASE_MIN and j > i:
                self._other_text(data, i, j)
            if len(tok) > 2:  # a marker: the block ends here
                return (j, MARK, tok)
            if tok == "\\":
                held, i = self._escape(data, j, pos, final, str_from)
                if held is not None:
                    return held
                continue
            i = j + 1
            value, str_from = self._token(tok, data, j, pos, str_from)
            if value is not None:
                return value

    def _search(self, data: str, i: int, endpos: int, room: bool) -> tuple[re.Match[str] | None, int, Scan]:
        """The next token from ``i`` with the scanner of where the body stands (inside a string, the
        plain text and escapes are stepped over first when no cut can fall in the data)."""
        scans = self.scans
        if self.in_string:
            if room:
                skip = _SKIP_STRING(data, i)
                assert skip is not None  # it matches the empty string
                i = skip.end()
            scan = scans.in_string
        else:
            scan = scans.out_min if self.phase == PHASE_MIN else scans.out_full
        return scan.pattern.search(data, i, endpos), i, scan

    def _escape(self, data: str, j: int, pos: int, final: bool, str_from: int) -> tuple[Value | None, int]:
        """A backslash at ``j`` inside a string: where reading goes on; or, at the end of the data, the
        value that holds it back until the character it escapes comes."""
        if j + 1 < len(data):
            # the escaped character is literal, but a control token still ends the block (R2)
            return None, (j + 1 if data[j + 1] == "<" else j + 2)
        if final:
            return None, j + 2
        if str_from >= 0 and self.pieces is not None:
            self.pieces.append(data[str_from:j])
        self.read_to = pos + j
        return (j, HOLD, None), j

    def _token(self, tok: str, data: str, j: int, pos: int, str_from: int) -> tuple[Value | None, int]:
        """A quote or a structural character at ``j``: the value it gives, if any, and where the raw
        text of a top-level string now starts."""
        if tok == '"':
            name, str_from = self._quote(data, str_from, j + 1)
            if name is not None:
                self.read_to = pos + j + 1
                return (j + 1, NAME, name), str_from
            return None, str_from
        return self._structure(tok, j, pos), str_from

    def _end_of_data(
        self, data: str, i: int, pos: int, final: bool, str_from: int, scan: Scan, endpos: int
    ) -> Value:
        """No token before the end of the data (or of the search window near the bound)."""
        n = len(data)
        h = n if (final or endpos < n) else held_from(data, i, scan.held)
        if not self.in_string and self.phase != PHASE_MIN and h > i:
            self._other_text(data, i, h)
        if str_from >= 0 and self.pieces is not None:
            self.pieces.append(data[str_from:h])
        if pos + h > self.limit:
            return (self.limit - pos, CUT, None)
        self.read_to = pos + h
        return REST if h == n else (h, HOLD, None)

    def _quote(self, data: str, str_from: int, i: int) -> tuple[str | None, int]:
        """A quote outside or inside a string (``data[:i]`` ends with it): the name to announce, if this
        string was the top-level name, and where the raw text of a top-level string now starts."""
        if self.in_string:
            if str_from >= 0 and self.pieces is not None:
                self.pieces.append(data[str_from:i])
            return self._close_string(), -1
        self._open_string()
        return None, (i if self.pieces is not None else -1)

    def _structure(self, tok: str, j: int, pos: int) -> Value | None:
        """A structural character outside strings at ``j``; the value it gives, if any."""
        if tok == ":":
            self._colon()
        elif tok == ",":
            if self.depth == 1:
                self.key_expected = True
                self.after_colon = False
        elif tok in "{[":
            if self._open_container(tok):
                self.read_to = pos + j + 1
                return (j, ARGS, True)  # the arguments text starts with this bracket
        elif self._close_container():
            self.read_to = pos + j + 1
            return (j + 1, ARGS, False)
        return None

    # ------------------------------------------------------------------ structure

    def _open_string(self) -> None:
        self.in_string = True
        if self.phase != PHASE_MIN and self.depth == 1:
            self.pieces = ['"']
            self.top = True
        else:
            self.top = False

    def _close_string(self) -> str | None:
        """The string ended; the name to announce when this string was the top-level name."""
        self.in_string = False
        if not self.top or self.pieces is None:
            return None
        raw = "".join(self.pieces)
        self.pieces = None
        self.top = False
        if self.key_expected:
            self.key_expected = False
            decoded = jsonio.loads_or_none(raw)
            self.key = decoded if isinstance(decoded, str) else None
            return None
        if self.after_colon and self.gap_ok and self.key == "name" and self.phase == PHASE_NAME:
            self.after_colon = False
            value = jsonio.loads_or_none(raw)
            if isinstance(value, str) and value:
                self.phase = PHASE_ARGS if self.args_wanted else PHASE_MIN
                return value
            self.phase = PHASE_MIN
            return None
        self.after_colon = False
        return None

    def _colon(self) -> None:
        if self.depth != 1:
            return
        self.after_colon = True
        self.gap_ok = True
        if self.phase == PHASE_NAME and self.key in ARGUMENT_KEYS:
            self.phase = PHASE_MIN  # arguments before name: announced at the end

    def _open_container(self, char: str) -> bool:
        """``{`` or ``[`` outside strings; True when it starts the streamed ``arguments`` object."""
        starts_args = False
        if self.depth == 0:
            self.key_expected = char == "{"
            if char == "[" and self.phase == PHASE_NAME:
                self.phase = PHASE_MIN  # an array body: announced at its end
        elif self.depth == 1:
            starts_args = (
                self.phase == PHASE_ARGS
                and self.after_colon
                and self.gap_ok
                and self.key == "arguments"
                and char == "{"
                and not self.in_args
                and not self.args_done
            )
            self.in_args = self.in_args or starts_args
            self.after_colon = False
        self.depth += 1
        return starts_args

    def _close_container(self) -> bool:
        """``}`` or ``]`` outside strings; True when it ends the streamed ``arguments`` object."""
        self.depth -= 1
        if self.depth == 1 and self.in_args:
            self.in_args = False
            self.args_done = True
            self.phase = PHASE_MIN
            return True
        if self.depth <= 0:
            self.phase = PHASE_MIN
        return False

    def _other_text(self, data: str, i: int, j: int) -> None:
        """Text between tokens outside strings (whitespace, numbers, literals)."""
        if self.after_colon and self.gap_ok and data[i:j].strip():
            self.gap_ok = False


# ---------------------------------------------------------------------------------------- bare functions

_BARE_CALL = Marker.BARE_CALL.value
_BARE_TEXT = Marker.BARE_TEXT.value


class BareReader(Reader):
    """A ``<function=`` in assistant text (the marker was read): held, with no event, until the input
    decides whether a complete bare function starts there (docs/parsing.md §4, ``HT234``).

    Its streaming reader (``_xmlstream.XmlStream`` with ``bare=True``) is fed the text as it comes and
    says where the function ends, with a ``</tool_call>`` after it and whitespace, or that it is none;
    the rule of ``_xmlbody.bare_extent`` bounds it by ``limit`` (``max_block_chars``), so no more than
    that is held. Decided, it says ``AGAIN``: ``bare_call`` with the function's text, or ``bare_text``
    with the tag alone; either way the held text after it is read again as assistant text. Made anew
    at each entry; ``pieces`` is the text held since the tag (its own copy, read again when decided).
    """

    __slots__ = ("limit", "pieces", "start", "tools", "xml")

    decides_at_end: ClassVar[bool] = True

    def __init__(self, limit: int, tools: Mapping[str, Any] | None) -> None:
        self.limit = limit
        self.tools = tools
        self.xml: XmlStream | None = None  # made at the first read, which starts right after the tag
        self.start = -1  # where the tag starts (absolute)
        self.pieces: list[str] = []

    def read(self, data: str, i: int, pos: int, final: bool) -> Value:
        xml = self.xml
        if xml is None:
            self.start = pos + i - len(FUNCTION_OPEN)
            xml = self.xml = XmlStream(self.start, tools=self.tools, bare=True, args=False)
            self.pieces.append(FUNCTION_OPEN)
            xml.feed(FUNCTION_OPEN)
        text = data[i:] if i else data
        if text:
            self.pieces.append(text)
        xml.feed(text, final=final)
        n = len(data)
        end = self._end(xml, pos + n)
        if end is None:
            return REST
        held = "".join(self.pieces)
        self.pieces = []
        if end < 0:
            return (n, AGAIN, (_BARE_TEXT, FUNCTION_OPEN, self.start, held[len(FUNCTION_OPEN) :]))
        k = end - self.start
        return (n, AGAIN, (_BARE_CALL, held[:k], self.start, held[k:]))

    def _end(self, xml: XmlStream, read_to: int) -> int | None:
        """Where the bare function ends (-1: it is text), or None while undecided (``bare_extent``'s bound)."""
        start, limit = self.start, self.limit
        if xml.done:
            if xml.how != "closed":
                return -1
            if xml.end - start <= limit:
                return xml.end
        elif read_to - start <= limit:
            return None
        fn_end = xml.function_end  # past the bound: the function alone, if its `</function>` is within it
        return fn_end if 0 <= fn_end and fn_end - start <= limit else -1


# ---------------------------------------------------------------------------------------- held calls in reasoning

_HELD_TEXT = Marker.HELD_TEXT.value


class WatchReader(Reader):
    """A ``<tool_call>`` block held inside reasoning (docs/parsing.md §4.2, ``HT242``): ``inner``, the
    block's own readers (``BlockStart``, then its body's reader), finds its extent as for any call; but
    the reasoning's ``closer`` anywhere in it (inside a JSON string too: the reasoning block ends at
    its first closer) ends the hold first, and a body that is neither JSON nor XML is reasoning text
    (``held_text``): only a block that may hold a call is held. ``inner``'s values for the text before
    the closer are said as they are; the body reader it picks replaces it (its own field).
    """

    __slots__ = ("closer", "held", "inner")

    def __init__(self, inner: Reader, closer: str) -> None:
        self.inner = inner
        self.closer = closer
        self.held = MarkerSet([closer])

    def read(self, data: str, i: int, pos: int, final: bool) -> Value:
        d = data.find(self.closer, i)
        n = len(data)
        h = d if d >= 0 else n if final else held_from(data, i, self.held)
        view = data if h == n else data[:h]
        while True:
            j, op, arg = self.inner.read(view, i, pos, final and h == n)
            if op == BODY:
                if isinstance(arg, PlainBody):  # not a call body: reasoning text
                    return (j, AGAIN, (_HELD_TEXT, "", pos + j, ""))
                self.inner = arg
                i = j
                continue
            if j >= 0 and op in (MARK, CUT):
                return (j, op, arg)
            if d >= 0:  # nothing decided before the closer: it ends the hold
                return (d, MARK, self.closer)
            if j < 0:
                return REST if h == n else (h, HOLD, None)
            return (j, op, arg)


class HeldAfterReader(TextReader):
    """After a held block in reasoning: whitespace is held with it; a call opener, the reasoning's
    closer or a control token is the table's marker; anything else is reasoning text (``held_text``)."""

    __slots__ = ("match",)

    def __init__(self, scan: Scan) -> None:
        super().__init__(scan)
        self.match = scan.pattern.match

    def guard(self, data: str, i: int, pos: int) -> Value | None:
        return None

    def read(self, data: str, i: int, pos: int, final: bool) -> Value:
        n = len(data)
        k = i
        while k < n and data[k] in _WS:
            k += 1
        if k == n:
            return REST
        m = self.match(data, k)
        if m is not None:
            return (k, MARK, m.group())
        if not final and data[k:] in self.prefixes:
            return (k, HOLD, None)
        return (k, AGAIN, (_HELD_TEXT, "", pos + k, ""))


_HELD_LONG = Marker.HELD_LONG.value
_HELD_TAGS = (CALL_OPEN, CALL_CLOSE)  # the markers a held run keeps (the others end the hold)


class BoundReader(Reader):
    """The reader of a held state (``held``, ``held_after``: ``inner``) under the held run's bound
    (docs/parsing.md §4.2, ``HT242``): the run, from its first ``<tool_call>``, keeps at most
    ``bound`` (an absolute offset: one block's room, tags included). A value that would keep text past
    it is ``held_long`` there instead (everything held is reasoning text, read on from there); a call
    tag that straddles the bound is kept whole first (a tag is never split), so the held text stays
    within ``bound`` plus one tag.
    """

    __slots__ = ("bound", "inner")

    def __init__(self, inner: Reader, bound: int) -> None:
        self.inner = inner
        self.bound = bound

    def read(self, data: str, i: int, pos: int, final: bool) -> Value:
        value = self.inner.read(data, i, pos, final)
        j, op, arg = value
        bound = self.bound
        if j < 0:  # REST: all of it is held
            return value if pos + len(data) <= bound else (bound - pos, AGAIN, (_HELD_LONG, "", bound, ""))
        if op == MARK and arg in _HELD_TAGS:
            end = pos + j + len(arg)
            if end <= bound:
                return value
            if pos + j < bound:  # the tag straddles the bound: kept whole, then given back
                return (j + len(arg), AGAIN, (_HELD_LONG, "", end, ""))
        elif pos + j <= bound:
            return value
        return (bound - pos, AGAIN, (_HELD_LONG, "", bound, ""))


# ---------------------------------------------------------------------------------------- reader sets

class XmlBody(BodyReader):
    """An XML block body (``<function=NAME>`` … ``</function>``, docs/parsing.md §8.2), read by its
    streaming reader (``_xmlstream.XmlStream``, its scanning state): the block ends at a
    ``</tool_call>`` or ``<tool_call>`` only where the body's reading stands between parameters or
    after a function (inside a value they are text), at a control token anywhere. ``NAME`` when the
    first function's name is complete; with streamed arguments, ``DELTA`` for each piece of its
    ``arguments`` JSON text (string values as they arrive). ``fed`` is the absolute offset up to which
    the input went to the stream reader; the text before what it has not decided yet (and before the
    size cut) is block text, the rest is held.
    """

    __slots__ = ("args", "fed", "named", "tools", "unfed", "xml")

    def __init__(
        self, scans: BlockScan, limit: int, call: bool, args: bool, tools: Mapping[str, Any] | None = None
    ) -> None:
        self.scans = scans
        self.limit = limit
        self.tools = tools
        self.args = args and call
        self.named = not call
        self.xml: XmlStream | None = None  # made at the body's first character
        self.fed = -1
        self.unfed: list[str] = []  # block text taken by the guard, not given to ``xml`` yet

    def guard(self, data: str, i: int, pos: int) -> Value | None:
        # without streamed arguments, once the name is out, only the block's end is looked for, and
        # each ender starts with "<t", "</t" or "<|": text without one is block text. A short run waits
        # in the buffer (and the next chunks without "<" with it), and so does a short run that ends in
        # the start of an ender, until that ender may be whole; a longer run is kept, and read with the
        # first data that may end the block. (Before the name, ``BlockStart``'s guard defers the start.)
        if not self.named or self.xml is None or pos + len(data) > self.limit:
            return None
        if self.args:  # a run of a value's text: its delta (a streamed string's), read in bulk
            k = self.fed - pos
            if k < i or k >= len(data):
                return None
            piece = self.xml.value_run(data[k:])
            if piece is None:
                return None
            self.fed = pos + len(data)
            return (len(data), DELTA, piece) if piece else REST
        if data.find("<", i) < 0:  # it waits, and so will the next chunks without "<" (the buffer's)
            return (i, DEFER, self.limit)
        m = _ENDER_HINT.search(data, i)
        if m is None:
            h = len(data)
        else:  # an ender may start here: ``read`` decides it once it may be whole
            h = m.start()
            if data[h:] not in _ENDER_PREFIXES:
                return None
        k = max(i, self.fed - pos)
        if h - k <= _HEAD_MAX:  # (deferring no more than this bounds the re-reading)
            return (i, DEFER, self.limit if h == len(data) else -1)
        if k < h:
            self.unfed.append(data[k:h])
            self.fed = pos + h
        return REST if h == len(data) else (h, DEFER, -1)  # the start of an ender waits for the next chunk

    @classmethod
    def opens(cls, data: str, k: int) -> bool | None:
        if data.startswith(FUNCTION_OPEN, k):
            return True
        rest = data[k : k + len(FUNCTION_OPEN)]
        return None if FUNCTION_OPEN.startswith(rest) else False

    def read(self, data: str, i: int, pos: int, final: bool) -> Value:
        xml = self.xml
        if xml is None:
            xml = self.xml = XmlStream(pos + i, tools=self.tools, args=self.args)
            self.fed = pos + i
        n = len(data)
        k = self.fed - pos
        stop = min(n, self.limit - pos + _XML_LOOK)  # what lies past the cut cannot end the block
        if not xml.done and (k < stop or self.unfed or (final and stop == n)):  # (final: the held back too)
            text = data[k:stop] if k < stop else ""
            if self.unfed:
                text = "".join(self.unfed) + text
                self.unfed = []
            xml.feed(text, final=final and stop == n)
            self.fed = max(self.fed, pos + stop)
        if not self.named and xml.name is not None:
            self.named = True
            return (i, NAME, xml.name)
        if self.args:
            piece = xml.take_arguments()
            if piece:
                return (i, DELTA, piece)
        return self._extent(data, i, pos, final, xml)

    def _extent(self, data: str, i: int, pos: int, final: bool, xml: XmlStream) -> Value:
        """Where the block ends in ``data``, or how much of it is surely block text."""
        limit = self.limit
        if xml.done:
            if xml.end > limit:
                return (limit - pos, CUT, None)
            if xml.how == "end":
                return REST
            e = xml.end - pos
            if e < i:  # an ender is decided once it is read whole, and nothing after one is given away
                raise AssertionError(f"XML block end {xml.end} before the unread data at {pos + i}")
            return (e, MARK, _ender_at(data, e))
        if final or self.fed >= limit + _XML_LOOK:  # the body goes on past the cut
            return (limit - pos, CUT, None)
        h = min(xml.at, limit) - pos  # past the cut, text waits until the end is known
        if h >= len(data):
            return REST
        return (max(h, i), HOLD, None)


_XML_ENDERS = (CALL_CLOSE, CALL_OPEN, *CONTROL)
#: where an ender may start: each starts with "<t", "</t" or "<|" (a "<" or "</" at the end may become one)
_ENDER_HINT = re.compile(r"<(?:/?t|\||/?\Z)")
_XML_LOOK = max(map(len, _XML_ENDERS))  # an ender at the cut is seen whole
_ENDER_PREFIXES = frozenset(tag[:k] for tag in _XML_ENDERS for k in range(1, len(tag)))


def _ender_at(data: str, e: int) -> str:
    """The block ender (``</tool_call>``, ``<tool_call>``, a control token) at ``data[e]``."""
    for tag in _XML_ENDERS:
        if data.startswith(tag, e):
            return tag
    raise AssertionError(f"no block ender at {e}")  # pragma: no cover


#: The body readers tried, in order, at a block's first non-blank character, by body kind (the
#: profile's); ``PlainBody`` reads whatever none of them opens.
BODY_READERS: dict[str, tuple[type[BodyReader], ...]] = {"json": (JsonBody, XmlBody), "xml": (XmlBody, JsonBody)}


def _unguarded(cls: type[Any]) -> type[Any]:
    """``cls`` without its guard (every step goes through ``read``)."""
    return type(f"Unguarded{cls.__name__}", (cls,), {"__slots__": (), "guard": Reader.guard})


class Readers:
    """The reader classes a parser makes its readers from: with their guards, or without them.

    >>> GUARDED.text.__name__, UNGUARDED.text.__name__
    ('TextReader', 'UnguardedTextReader')
    """

    __slots__ = ("after", "bare", "block", "bodies", "bound", "header", "tail", "text", "watch")

    text: type[TextReader]
    header: type[HeaderReader]
    tail: type[TailReader]
    block: type[BlockStart]
    bare: type[BareReader]
    watch: type[WatchReader]
    after: type[HeldAfterReader]
    bound: type[BoundReader]
    bodies: dict[str, tuple[type[BodyReader], ...]]

    def __init__(self, *, guarded: bool) -> None:
        wrap = (lambda cls: cls) if guarded else _unguarded
        self.text = wrap(TextReader)
        self.header = wrap(HeaderReader)
        self.tail = wrap(TailReader)
        self.block = wrap(BlockStart)
        self.bare = wrap(BareReader)
        self.watch = wrap(WatchReader)
        self.after = wrap(HeldAfterReader)
        self.bound = wrap(BoundReader)
        self.bodies = {kind: tuple(wrap(cls) for cls in classes) for kind, classes in BODY_READERS.items()}
        self.bodies["plain"] = (wrap(PlainBody),)

    guarded: ClassVar[bool]


GUARDED = Readers(guarded=True)
UNGUARDED = Readers(guarded=False)
