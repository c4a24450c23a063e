"""Positional constructors of the model values, for the engines' hot paths.

A frozen dataclass's generated ``__init__`` parses keywords and sets every field through the
frozen ``object.__setattr__`` path: about 1.2 µs for a ``Span``. The engines build about 13,000
spans and 10,000 other values per MB of transcript, so they use these constructors instead: each
takes every field positionally, in declaration order, and sets the slots through their descriptors
(about 0.5 µs for a ``Span``). The values are the same objects in every respect (type, fields,
equality, hash, immutability); ``tests/test_construct.py`` checks that for every constructor.
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
    "new_completion",
    "new_reasoning",
    "new_span",
    "new_text",
    "new_tool_call",
    "new_tool_response",
    "new_turn",
    "positional",
]


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
    namespace: dict[str, Any] = {"_new": object.__new__, "_cls": cls}
    lines = [f"def make({', '.join(names)}):", "    o = _new(_cls)"]
    for name in names:
        namespace[f"_set_{name}"] = cls.__dict__[name].__set__  # the slot's member descriptor
        lines.append(f"    _set_{name}(o, {name})")
    lines.append("    return o")
    exec("\n".join(lines), namespace)
    return cast(Callable[..., Any], namespace["make"])


new_span = cast(Callable[[int, int, int, int], Span], positional(Span))

#: The setters of Span's slots (start, end, line, column), as ``positional`` uses them: for the two
#: line trackers that build their spans inline, one Python call per span instead of two
#: (``positions.LineIndex``, ``statemachine.buffer.Lines``).
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
