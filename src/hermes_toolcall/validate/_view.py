"""One conversation view for every input the validator takes: parsed text, OpenAI messages, ShareGPT.

Each message of the view keeps where its pieces come from (``Source``), so that every finding points
at the parsed text (a span of the source) or at a string of a JSON record (a JSON path plus a span
inside that string).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, cast

from .._construct import new_span, positional
from .._diagnostics import make
from .._locate import JsonPath, locate
from .._model import Diagnostic, Span
from .._positions import LineIndex

__all__ = [
    "Finding",
    "Piece",
    "Source",
    "VCall",
    "VMessage",
    "VReasoning",
    "VResult",
    "Where",
    "finding",
    "new_call",
    "new_message",
    "new_piece",
    "new_reasoning",
    "new_result",
    "value_where",
]

_ZERO = Span(start=0, end=0, line=1, column=1)


@dataclass(frozen=True, slots=True, kw_only=True)
class Where:
    """Where a finding points: ``path`` None means ``span`` is into the parsed source text; otherwise
    ``span`` is into the string at the JSON ``path`` of the record (``in_value``) or covers the value."""

    span: Span
    path: JsonPath | None = None
    in_value: bool = True


class Source:
    """A text that findings point into: the parsed input (path None) or a string of a JSON record."""

    __slots__ = ("_index", "path", "text")

    def __init__(self, text: str, path: JsonPath | None = None) -> None:
        self.text = text
        self.path = path
        self._index: LineIndex | None = None

    def where(self, start: int, end: int) -> Where:
        """The location of ``[start, end)`` of this text.

        A span from the start of the text (a whole string: a result, a reasoning field) is at 1:1,
        without a line index (most sources are asked nothing else).

        >>> Source("ab\\ncd").where(0, 5).span, Source("ab\\ncd").where(3, 5).span
        (Span(start=0, end=5, line=1, column=1), Span(start=3, end=5, line=2, column=1))
        """
        n = len(self.text)
        start = max(0, min(start, n))
        end = max(start, min(end, n))
        if start == 0:
            return _new_where(new_span(0, end, 1, 1), self.path, True)
        if self._index is None:
            self._index = LineIndex(self.text)
        return _new_where(self._index.span(start, end), self.path, True)

    def where_span(self, span: Span) -> Where:
        """A span already computed against this text."""
        return _new_where(span, self.path, True)


# The view's values are built per message of every record (ten or more per record of a dataset): their
# positional constructors (``_construct.positional``: the same values, a third of the keyword
# constructor's cost) serve the builders; ``tests/test_validate_view.py`` checks they give equal values.
_new_where = cast(Callable[[Span, "JsonPath | None", bool], Where], positional(Where))

_VALUE_WHERE: dict[JsonPath, Where] = {}
_VALUE_WHERE_MAX = 4096


def value_where(path: JsonPath) -> Where:
    """The location of a whole JSON value of a record.

    The same path gives the same (immutable) value, kept in a bounded table: the records of a dataset
    share their paths (``("messages", 2)``), so most records build none. A path holds object keys
    (strings) and array indices (ints, from ``enumerate`` or a schema error's path), never a bool or a
    float that would equal an int key.

    >>> value_where(("messages", 2)) is value_where(("messages", 2))
    True
    """
    found = _VALUE_WHERE.get(path)
    if found is None:
        if len(_VALUE_WHERE) >= _VALUE_WHERE_MAX:
            _VALUE_WHERE.clear()
        found = _VALUE_WHERE[path] = _new_where(_ZERO, path, False)
    return found


@dataclass(frozen=True, slots=True, kw_only=True)
class Piece:
    """A piece of text to scan for markers: message content, reasoning, a result, call arguments.

    ``parsed`` is True when the piece came out of the parser (markers in it were already read as
    structure), False when it is a string of a JSON message written as is.
    """

    kind: Literal["content", "reasoning", "result", "arguments"]
    text: str
    source: Source
    base: int
    parsed: bool

    def where(self, start: int, end: int) -> Where:
        """Location of ``[start, end)`` of the piece."""
        return self.source.where(self.base + start, self.base + end)


@dataclass(frozen=True, slots=True, kw_only=True)
class VCall:
    """A call: name, decoded arguments (None when they could not be decoded), their encoding."""

    name: str
    id: str | None
    arguments: Any
    encoding: Literal["object", "string"]
    where: Where
    json_source: Source | None = None  # text holding the call's JSON (to point into the arguments)
    json_base: int = 0  # offset of that JSON in json_source
    json_text: str = ""  # the JSON text itself
    json_prefix: JsonPath = ()  # path of the arguments inside json_text
    object_path: JsonPath | None = None  # JSON path of an arguments object of a record

    def argument_where(self, path: tuple[str | int, ...]) -> Where:
        """Where the arguments value at ``path`` lies (falls back to the whole call)."""
        if self.object_path is not None:
            return value_where(self.object_path + path)
        if self.json_source is not None:
            found = locate(self.json_text, self.json_prefix + path)
            if found is not None:
                return self.json_source.where(self.json_base + found[0], self.json_base + found[1])
        return self.where


@dataclass(frozen=True, slots=True, kw_only=True)
class VResult:
    """A result: its content, the Hermes ``name`` when the body is ``{"name", "content"}``, its id."""

    content: str
    name: str | None
    tool_call_id: str | None
    where: Where


@dataclass(frozen=True, slots=True, kw_only=True)
class VReasoning:
    """A reasoning block (or ``reasoning_content``)."""

    kind: str
    text: str
    where: Where


@dataclass(frozen=True, slots=True, kw_only=True)
class VMessage:
    """One message of the view.

    ``from_text`` is True when the message was read from the wire format (a parsed turn or a ShareGPT
    value), so its role is the turn's role; ``order`` lists the call and reasoning parts in order;
    ``raw`` holds record strings that were parsed, scanned only for control tokens.
    """

    role: str
    where: Where
    from_text: bool
    calls: tuple[VCall, ...] = ()
    results: tuple[VResult, ...] = ()
    reasoning: tuple[VReasoning, ...] = ()
    pieces: tuple[Piece, ...] = ()
    order: tuple[Literal["call", "reasoning"], ...] = ()
    raw: tuple[Piece, ...] = ()


#: A catalogue diagnostic and where it is.
Finding = tuple[Diagnostic, Where]


def finding(code: str, message: str, where: Where, *, hint: str | None = None) -> Finding:
    """A catalogue diagnostic located at ``where``."""
    return make(code, message, where.span, strict=False, hint=hint), where


new_piece = cast(Callable[[str, str, Source, int, bool], Piece], positional(Piece))
"""``Piece(kind=, text=, source=, base=, parsed=)``, positionally."""

new_message = cast(
    Callable[
        [
            str,
            Where,
            bool,
            tuple[VCall, ...],
            tuple[VResult, ...],
            tuple[VReasoning, ...],
            tuple[Piece, ...],
            tuple[Literal["call", "reasoning"], ...],
            tuple[Piece, ...],
        ],
        VMessage,
    ],
    positional(VMessage),
)
"""``VMessage(role=, where=, from_text=, calls=, results=, reasoning=, pieces=, order=, raw=)``, positionally."""

new_call = cast(
    Callable[
        [str, "str | None", Any, Literal["object", "string"], Where, "Source | None", int, str, JsonPath,
         "JsonPath | None"],
        VCall,
    ],
    positional(VCall),
)
"""``VCall(name=, id=, arguments=, encoding=, where=, json_source=, json_base=, json_text=, json_prefix=,
object_path=)``, positionally (every field given)."""

new_result = cast(Callable[[str, "str | None", "str | None", Where], VResult], positional(VResult))
"""``VResult(content=, name=, tool_call_id=, where=)``, positionally."""

new_reasoning = cast(Callable[[str, str, Where], VReasoning], positional(VReasoning))
"""``VReasoning(kind=, text=, where=)``, positionally."""
