"""The values a parse is made of, below its results: parts (text, reasoning, calls, results, tool
catalogues), turns, and the span-free messages of the OpenAI view; with the positions-on-demand
machinery they share (``_model``'s docstring: "Positions on demand").

``_model`` re-exports every name here beside ``Completion`` and ``Transcript``, whose conveniences
(the OpenAI view, the request, the HTML views) import layers that themselves read these values:
keeping these below those layers is what keeps the package free of import cycles.
"""

from __future__ import annotations

import copy
import dataclasses
import enum
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from ._jsonio import dumps_pretty
from ._span import Span
from .html import Shown
from .tags import ReasoningKind

__all__ = [
    "FunctionCall",
    "InvalidToolCall",
    "Message",
    "Part",
    "Reasoning",
    "Text",
    "ToolCall",
    "ToolResponse",
    "ToolsBlock",
    "Turn",
    "as_dict",
    "public_fields",
    "span_of",
]


_V = TypeVar("_V")
_set = object.__setattr__


def _positioned(*names: str) -> Callable[[type[_V]], type[_V]]:
    """Give a class that stores positions on demand the public view's ``__eq__``, ``__hash__``,
    ``__repr__`` and ``__reduce__``, as the dataclass would for the fields ``names``.

    ``names`` are the public attributes in the old field order (the ``Span`` ones are properties).
    Two values whose positions come from the same place compare their offsets (the line:column
    follow from them); otherwise their spans are built and compared.
    """

    def decorate(cls: type[_V]) -> type[_V]:
        private = [f for f in cls.__slots__ if f.startswith("_") and f != "_pos"]  # type: ignore[attr-defined]
        plain = [n for n in names if n not in _SPAN_PROPERTIES]
        fast = ", ".join(f"o.{n}" for n in [*plain, *private])
        slow = ", ".join(f"o.{n}" for n in names)
        shown = ", ".join(f"{n}={{o.{n}!r}}" for n in names)
        code = f"""
def key(o): return ({fast},)
def view(o): return ({slow},)
def __eq__(self, other):
    if other.__class__ is not self.__class__:
        return NotImplemented
    if self._pos is other._pos:
        return key(self) == key(other)
    return view(self) == view(other)
def __hash__(self): return hash(key(self))
def __repr__(o): return f"{cls.__name__}({shown})"
def __reduce__(self): return (_restore, (self.__class__, view(self)))
"""
        namespace: dict[str, Any] = {"_restore": _restore}
        exec(code, namespace)
        for name in ("__eq__", "__hash__", "__repr__", "__reduce__"):
            namespace[name].__qualname__ = f"{cls.__name__}.{name}"
            setattr(cls, name, namespace[name])
        _PUBLIC[cls] = names
        return cls

    return decorate


_SPAN_PROPERTIES = frozenset({"span", "header", "end"})
_PUBLIC: dict[type[Any], tuple[str, ...]] = {}


def _restore(cls: type[Any], values: tuple[Any, ...]) -> Any:
    """Rebuild a pickled or copied value from its public view (its positions then held as spans)."""
    return cls(**dict(zip(_PUBLIC[cls], values, strict=True)))


def public_fields(value: Any) -> tuple[str, ...]:
    """The public field names of a model value, in declaration order (``span`` etc. included).

    ``dataclasses.fields`` lists what a value stores (``_start``, ``_end``, ``_pos`` in place of the
    spans of parts and turns); this lists what it shows.

    Args:
        value: A model value or class (any dataclass: its fields when it stores no positions).

    Returns:
        The names, in the order ``repr`` shows them.

    >>> public_fields(Text(text="x", span=Span(start=0, end=1, line=1, column=1)))
    ('text', 'span')
    """
    cls = value if isinstance(value, type) else type(value)
    found = _PUBLIC.get(cls)
    return found if found is not None else tuple(f.name for f in dataclasses.fields(cls))


def as_dict(value: Any) -> Any:
    """``dataclasses.asdict`` over the public fields: spans as ``Span`` dicts, not ``_start``/``_pos``.

    Dataclass values (nested in lists, tuples and dicts too) become dicts of their
    ``public_fields``; other values are deep-copied, as ``dataclasses.asdict`` does.

    Args:
        value: A model value (or an event, a result), or a container of them.

    Returns:
        Plain dicts, lists, tuples and copied leaves.

    >>> as_dict(Text(text="x", span=Span(start=0, end=1, line=1, column=1)))
    {'text': 'x', 'span': {'start': 0, 'end': 1, 'line': 1, 'column': 1}}
    """
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {name: as_dict(getattr(value, name)) for name in public_fields(value)}
    if isinstance(value, tuple | list):
        return type(value)(as_dict(v) for v in value)
    if isinstance(value, dict):
        return {as_dict(k): as_dict(v) for k, v in value.items()}
    return copy.deepcopy(value)


def _one_span(self: Any, span: Span | None, start: int, end: int, pos: Any) -> None:
    """Set the position slots of a single-span value from a given ``span`` or from stored ones."""
    if span is not None:
        _set(self, "_start", span.start)
        _set(self, "_end", span.end)
        _set(self, "_pos", span)
    elif pos is None:
        raise TypeError(f"{type(self).__name__}.__init__() missing required keyword argument: 'span'")
    else:
        _set(self, "_start", start)
        _set(self, "_end", end)
        _set(self, "_pos", pos)


def span_of(pos: Any, start: int, end: int) -> Span:
    """The span ``[start, end)`` from a value's position source (a ``Span`` or a line index)."""
    if pos.__class__ is Span:
        span: Span = pos
        return span
    made: Span = pos.span(start, end)
    return made


class _Located:
    """The ``span`` of a value that stores one position (``_start``, ``_end`` and its ``_pos`` source).

    A slot-less base: the dataclasses below declare the three fields themselves.
    """

    __slots__ = ()
    _start: int
    _end: int
    _pos: Any

    @property
    def span(self) -> Span:
        """Where the value is in the input, tags included (built on demand from the stored offsets)."""
        return span_of(self._pos, self._start, self._end)


class _Unset(enum.Enum):
    UNSET = 0


_UNSET = _Unset.UNSET


@_positioned("text", "span")
@dataclass(frozen=True, slots=True, kw_only=True, init=False, repr=False, eq=False)
class Text(_Located):
    """Plain text (prose) inside a body, or between turns of a transcript.

    >>> Text(text="hi", span=Span(start=0, end=2, line=1, column=1)).span.length
    2
    """

    text: str
    _start: int
    _end: int
    _pos: Any = field(compare=False)

    def __init__(
        self, *, text: str, span: Span | None = None, _start: int = 0, _end: int = 0, _pos: Any = None
    ) -> None:
        _set(self, "text", text)
        _one_span(self, span, _start, _end, _pos)

    def _shown(self) -> Shown:
        """How a view shows it (``hermes_toolcall.html``): the text as written."""
        return Shown(kind="text", title="text", body=self.text)


@_positioned("kind", "text", "span", "opened", "closed")
@dataclass(frozen=True, slots=True, kw_only=True, init=False, repr=False, eq=False)
class Reasoning(_Located):
    """A reasoning segment: ``<think>…</think>`` or ``<scratch_pad>…</scratch_pad>``.

    ``text`` is the inner text, untouched. ``opened``/``closed`` say whether the segment starts with
    the opening tag and ends with the closing tag (a segment split by a call when
    ``calls_in_reasoning`` is on, or cut off by the end of the turn, lacks one of them).
    """

    kind: ReasoningKind
    text: str
    _start: int
    _end: int
    _pos: Any = field(compare=False)
    opened: bool
    closed: bool

    def __init__(
        self,
        *,
        kind: ReasoningKind,
        text: str,
        span: Span | None = None,
        opened: bool = True,
        closed: bool = True,
        _start: int = 0,
        _end: int = 0,
        _pos: Any = None,
    ) -> None:
        _set(self, "kind", kind)
        _set(self, "text", text)
        _one_span(self, span, _start, _end, _pos)
        _set(self, "opened", opened)
        _set(self, "closed", closed)

    def _shown(self) -> Shown:
        """How a view shows it (``hermes_toolcall.html``): folded, under its tag's name."""
        missing = [w for w, ok in (("no opening tag", self.opened), ("not closed", self.closed)) if not ok]
        return Shown(kind="reasoning", title=self.kind, body=self.text, detail=", ".join(missing) or None)


@_positioned("index", "id", "name", "arguments", "arguments_json", "raw", "span", "closed")
@dataclass(frozen=True, slots=True, kw_only=True, init=False, repr=False, eq=False)
class ToolCall(_Located):
    """A tool call decoded from one ``<tool_call>`` block.

    ``arguments`` is the decoded object; ``arguments_json`` is the OpenAI ``function.arguments``
    string (the raw source text of the arguments value when it was strict JSON, otherwise the
    canonical ``json.dumps(..., ensure_ascii=False)`` of the recovered object). ``index`` is the
    call's position among the valid calls of its completion or turn (the OpenAI delta index).
    ``raw`` is the whole block as written, tags included; several calls recovered from one block
    (an array of calls) share the block's raw text and span.
    """

    index: int
    id: str
    name: str
    arguments: dict[str, Any]
    arguments_json: str
    raw: str
    _start: int
    _end: int
    _pos: Any = field(compare=False)
    closed: bool

    def __init__(
        self,
        *,
        index: int,
        id: str,
        name: str,
        arguments: dict[str, Any],
        arguments_json: str,
        raw: str,
        span: Span | None = None,
        closed: bool = True,
        _start: int = 0,
        _end: int = 0,
        _pos: Any = None,
    ) -> None:
        _set(self, "index", index)
        _set(self, "id", id)
        _set(self, "name", name)
        _set(self, "arguments", arguments)
        _set(self, "arguments_json", arguments_json)
        _set(self, "raw", raw)
        _one_span(self, span, _start, _end, _pos)
        _set(self, "closed", closed)

    def to_openai(self) -> dict[str, Any]:
        """The OpenAI ``tool_calls`` entry.

        >>> c = ToolCall(index=0, id="call_0", name="f", arguments={}, arguments_json="{}",
        ...              raw="", span=Span(start=0, end=0, line=1, column=1))
        >>> c.to_openai()
        {'id': 'call_0', 'type': 'function', 'function': {'name': 'f', 'arguments': '{}'}}
        """
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": self.arguments_json},
        }

    def _shown(self) -> Shown:
        """How a view shows it (``hermes_toolcall.html``): the name, the id and the pretty-printed arguments."""
        return Shown(kind="call", title=self.name, body=dumps_pretty(self.arguments), call_id=self.id, name=self.name,
                     detail=None if self.closed else "not closed")


@_positioned("id", "raw", "span", "code", "message", "name", "closed")
@dataclass(frozen=True, slots=True, kw_only=True, init=False, repr=False, eq=False)
class InvalidToolCall(_Located):
    """A ``<tool_call>`` block that gave no call: truncated, undecodable, nameless, or bad arguments.

    It is never listed in ``tool_calls``; its raw text is kept so nothing is lost. ``code`` is the
    diagnostic code that explains why; ``name`` is the tool name when it could still be read.
    """

    id: str
    raw: str
    _start: int
    _end: int
    _pos: Any = field(compare=False)
    code: str
    message: str
    name: str | None
    closed: bool

    def __init__(
        self,
        *,
        id: str,
        raw: str,
        span: Span | None = None,
        code: str,
        message: str,
        name: str | None = None,
        closed: bool = True,
        _start: int = 0,
        _end: int = 0,
        _pos: Any = None,
    ) -> None:
        _set(self, "id", id)
        _set(self, "raw", raw)
        _one_span(self, span, _start, _end, _pos)
        _set(self, "code", code)
        _set(self, "message", message)
        _set(self, "name", name)
        _set(self, "closed", closed)

    def _shown(self) -> Shown:
        """How a view shows it (``hermes_toolcall.html``): the name if read, why it gave no call, the raw block."""
        return Shown(kind="invalid", title=self.name if self.name is not None else "(no name)", body=self.raw,
                     call_id=self.id, name=self.name, detail=f"{self.code}: {self.message}")


@_positioned("content", "raw", "span", "name", "closed")
@dataclass(frozen=True, slots=True, kw_only=True, init=False, repr=False, eq=False)
class ToolResponse(_Located):
    """A ``<tool_response>`` block. ``content`` is the inner text less one leading and one trailing
    line end of the same kind; ``name`` is set when the body is a classic Hermes ``{"name": …, "content": …}``
    object."""

    content: str
    raw: str
    _start: int
    _end: int
    _pos: Any = field(compare=False)
    name: str | None
    closed: bool

    def __init__(
        self,
        *,
        content: str,
        raw: str,
        span: Span | None = None,
        name: str | None = None,
        closed: bool = True,
        _start: int = 0,
        _end: int = 0,
        _pos: Any = None,
    ) -> None:
        _set(self, "content", content)
        _set(self, "raw", raw)
        _one_span(self, span, _start, _end, _pos)
        _set(self, "name", name)
        _set(self, "closed", closed)

    def _shown(self) -> Shown:
        """How a view shows it (``hermes_toolcall.html``): the content, bound to its call by the viewer."""
        return Shown(kind="result", title=self.name or "result", body=self.content, name=self.name,
                     detail=None if self.closed else "not closed")


@_positioned("text", "tools", "span", "closed")
@dataclass(frozen=True, slots=True, kw_only=True, init=False, repr=False, eq=False)
class ToolsBlock(_Located):
    """A ``<tools>…</tools>`` block of a system turn.

    ``tools`` holds the tool objects that could be read (one JSON object per line, a JSON array, or
    the Hermes template's pseudo-JSON lines); ``text`` is the inner text, untouched.
    """

    text: str
    tools: tuple[dict[str, Any], ...]
    _start: int
    _end: int
    _pos: Any = field(compare=False)
    closed: bool

    def __init__(
        self,
        *,
        text: str,
        tools: tuple[dict[str, Any], ...],
        span: Span | None = None,
        closed: bool = True,
        _start: int = 0,
        _end: int = 0,
        _pos: Any = None,
    ) -> None:
        _set(self, "text", text)
        _set(self, "tools", tools)
        _one_span(self, span, _start, _end, _pos)
        _set(self, "closed", closed)

    def _shown(self) -> Shown:
        """How a view shows it (``hermes_toolcall.html``): the tools' names, their JSON pretty-printed."""
        names = []
        for tool in self.tools:
            fn = tool.get("function") if isinstance(tool.get("function"), dict) else tool
            name = fn.get("name") if isinstance(fn, dict) else None
            names.append(name if isinstance(name, str) else "?")
        body = dumps_pretty(list(self.tools)) if self.tools else self.text
        return Shown(kind="tools", title=", ".join(names) or "(no tool read)", body=body,
                     detail=None if self.closed else "not closed")


Part = Text | Reasoning | ToolCall | InvalidToolCall | ToolResponse | ToolsBlock


@_positioned("role", "parts", "span", "header", "end")
@dataclass(frozen=True, slots=True, kw_only=True, init=False, repr=False, eq=False)
class Turn:
    """One ChatML turn ``<|im_start|>{role}\\n{body}<|im_end|>``.

    ``header`` covers ``<|im_start|>role\\n``; ``end`` covers ``<|im_end|>`` or is None when the
    turn was not closed (ended by the next ``<|im_start|>``, or by the end of the input). The three
    spans are built on demand (see the module docstring).

    >>> s = Span(start=0, end=29, line=1, column=1)
    >>> t = Turn(role="user", parts=(), span=s, header=Span(start=0, end=17, line=1, column=1), end=None)
    >>> t.span == s, t.closed
    (True, False)
    """

    role: str
    parts: tuple[Part, ...]
    _start: int
    _end: int
    _hend: int  # the header's end (it starts where the turn does)
    _estart: int | None  # where ``<|im_end|>`` starts (the end span ends where the turn does), or None
    _pos: Any = field(compare=False)  # a line index, or the tuple (span, header, end) as given

    def __init__(
        self,
        *,
        role: str,
        parts: tuple[Part, ...],
        span: Span | None = None,
        header: Span | None = None,
        end: Span | _Unset | None = _UNSET,
        _start: int = 0,
        _end: int = 0,
        _hend: int = 0,
        _estart: int | None = None,
        _pos: Any = None,
    ) -> None:
        _set(self, "role", role)
        _set(self, "parts", parts)
        if span is None and header is None and end is _UNSET:
            if _pos is None:
                raise TypeError("Turn.__init__() missing required keyword arguments: 'span', 'header' and 'end'")
            _set(self, "_start", _start)
            _set(self, "_end", _end)
            _set(self, "_hend", _hend)
            _set(self, "_estart", _estart)
            _set(self, "_pos", _pos)
            return
        if _pos is not None:  # dataclasses.replace of some of the spans: the others as stored
            old = _turn_spans(_pos, _start, _end, _hend, _estart)
            span = old[0] if span is None else span
            header = old[1] if header is None else header
            end = old[2] if end is _UNSET else end
        if span is None or header is None or end is _UNSET:
            raise TypeError("Turn.__init__() missing required keyword arguments: 'span', 'header' and 'end'")
        _set(self, "_start", span.start)
        _set(self, "_end", span.end)
        _set(self, "_hend", header.end)
        _set(self, "_estart", None if end is None else end.start)
        _set(self, "_pos", (span, header, end))

    @property
    def span(self) -> Span:
        """The whole turn, header and end included (built on demand)."""
        p = self._pos
        if p.__class__ is tuple:
            given: Span = p[0]
            return given
        made: Span = p.span(self._start, self._end)
        return made

    @property
    def header(self) -> Span:
        """``<|im_start|>role\\n`` (built on demand)."""
        p = self._pos
        if p.__class__ is tuple:
            given: Span = p[1]
            return given
        made: Span = p.span(self._start, self._hend)
        return made

    @property
    def end(self) -> Span | None:
        """``<|im_end|>`` (or the link that ended the turn), None when the turn was not closed."""
        p = self._pos
        if p.__class__ is tuple:
            given: Span | None = p[2]
            return given
        e = self._estart
        if e is None:
            return None
        made: Span = p.span(e, self._end)
        return made

    @property
    def closed(self) -> bool:
        return self._estart is not None

    @property
    def tool_calls(self) -> tuple[ToolCall, ...]:
        return tuple(p for p in self.parts if isinstance(p, ToolCall))


def _turn_spans(pos: Any, start: int, end: int, hend: int, estart: int | None) -> tuple[Span, Span, Span | None]:
    if pos.__class__ is tuple:
        spans: tuple[Span, Span, Span | None] = pos
        return spans
    return pos.span(start, end), pos.span(start, hend), None if estart is None else pos.span(estart, end)


@dataclass(frozen=True, slots=True, kw_only=True)
class FunctionCall:
    """A call in a span-free message. ``arguments`` is kept as given: a dict, or a JSON string."""

    name: str
    arguments: dict[str, Any] | str
    id: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Message:
    """A span-free chat message: the OpenAI view as a value.

    ``reasoning`` is the OpenAI ``reasoning_content``; ``tool_call_id`` binds a tool result to its call.
    """

    role: str
    content: str | None = None
    reasoning: str | None = None
    tool_calls: tuple[FunctionCall, ...] = ()
    tool_call_id: str | None = None
    name: str | None = None
