"""Positional constructors of the model values, for the engines' hot paths.

A frozen dataclass's generated ``__init__`` parses keywords and sets every field through the
frozen ``object.__setattr__`` path: about 1.2 µs for a ``Span``. The engines build about 13,000
spans and 10,000 other values per MB of transcript, so they use these constructors instead: each
takes every field positionally, in declaration order, fills a *draft* (a plain class with the same
bases and slots, ``draft``) with plain attribute writes and makes it a value of the class by
assigning its ``__class__``, which CPython allows between classes of one layout (about 0.3 µs for a
``Span``; through the slots' descriptors, 0.7 µs). The values are the same objects in every respect
(type, fields, equality, hash, immutability); ``tests/test_construct.py`` checks that for every
constructor.
Parts and turns store offsets and a position source instead of ``Span`` objects (``_model``): their
constructors take ``start, end, pos`` where the dataclass takes ``span``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, cast

from ._model import Completion, Reasoning, Span, Text, ToolCall, ToolResponse, Turn

__all__ = [
    "SPAN_SETTERS",
    "SpanDraft",
    "draft",
    "new_completion",
    "new_reasoning",
    "new_span",
    "new_text",
    "new_tool_call",
    "new_tool_response",
    "new_turn",
    "positional",
]


def draft(cls: type[Any]) -> type[Any]:
    """A mutable twin of the slotted dataclass ``cls``: the same bases and slots, no methods; an
    instance whose slots are all written becomes a ``cls`` value by ``obj.__class__ = cls``.

    Raises:
        TypeError: ``cls`` has no slots of its own, or CPython refuses the class assignment.

    >>> d = draft(Span)()
    >>> d.start, d.end, d.line, d.column = 0, 3, 1, 1
    >>> d.__class__ = Span
    >>> d == Span(start=0, end=3, line=1, column=1)
    True
    """
    slots = cls.__dict__.get("__slots__")
    if not slots:
        raise TypeError(f"{cls.__name__} has no slots of its own")
    twin = type(f"{cls.__name__}Draft", cls.__bases__, {"__slots__": tuple(slots)})
    trial = twin()
    for name in slots:
        setattr(trial, name, None)
    trial.__class__ = cls  # TypeError if the layouts differ
    return twin


def positional(cls: type[Any]) -> Callable[..., Any]:
    """A constructor of the slotted dataclass ``cls`` taking every field positionally.

    Args:
        cls: A ``slots=True`` dataclass without ``__post_init__``.

    Returns:
        A function ``(field1, field2, …) -> cls`` with the fields in declaration order.

    >>> positional(Span)(0, 3, 1, 1) == Span(start=0, end=3, line=1, column=1)
    True
    """
    if hasattr(cls, "__post_init__"):
        raise TypeError(f"{cls.__name__} has __post_init__; a positional constructor would skip it")
    names = [f.name for f in dataclasses.fields(cls)]
    if sorted(names) != sorted(cls.__dict__.get("__slots__", ())):
        raise TypeError(f"{cls.__name__}'s fields are not its own slots")
    namespace: dict[str, Any] = {"_draft": draft(cls), "_cls": cls}
    lines = [f"def make({', '.join(names)}):", "    o = _draft()"]
    lines += [f"    o.{name} = {name}" for name in names]
    lines += ["    o.__class__ = _cls", "    return o"]
    exec("\n".join(lines), namespace)
    return cast(Callable[..., Any], namespace["make"])


new_span = cast(Callable[[int, int, int, int], Span], positional(Span))

#: Span's draft, for a line tracker that builds its spans inline (``statemachine._buffer.Lines``):
#: one Python call per span instead of two.
SpanDraft = draft(Span)
#: The setters of Span's slots (start, end, line, column): for the line tracker of
#: ``_positions.LineIndex``, which builds its spans inline.
SPAN_SETTERS: tuple[Callable[[Span, int], None], ...] = tuple(
    Span.__dict__[name].__set__ for name in ("start", "end", "line", "column")
)
# The part and turn constructors take the offsets and the position source (``_pos``: the parse's
# line index, or a Span given eagerly) in place of the Span objects (``_model``, positions on demand).
new_text = cast(Callable[[str, int, int, Any], Text], positional(Text))
new_reasoning = cast(Callable[[str, str, int, int, Any, bool, bool], Reasoning], positional(Reasoning))
new_tool_call = cast(
    Callable[[int, str, str, dict[str, Any], str, str, int, int, Any, bool], ToolCall], positional(ToolCall)
)
new_tool_response = cast(
    Callable[[str, str, int, int, Any, str | None, bool], ToolResponse], positional(ToolResponse)
)
new_turn = cast(Callable[[str, tuple[Any, ...], int, int, int, int | None, Any], Turn], positional(Turn))
#: A whole completion (parts, diagnostics, source, end, stopped_at): one per ``parse_completion``, where
#: the keyword constructor cost as much as parsing an empty completion (``bench/parse.py`` records).
new_completion = cast(
    Callable[[tuple[Any, ...], tuple[Any, ...], str, Span | None, int | None], Completion], positional(Completion)
)
