"""The events a ``StreamParser`` emits: frozen, slotted, keyword-only values.

Adjacent ``TextDelta``, ``ReasoningDelta`` and ``ArgumentsDelta`` events of the same stream element
may be split differently by different chunkings; every other event is emitted at a position fixed by
the input alone, so the merged event list does not depend on where the chunks split.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import cast

from ._construct import positional
from ._model import (
    Diagnostic,
    InvalidToolCall,
    Reasoning,
    ReasoningKind,
    Span,
    Text,
    ToolCall,
    ToolResponse,
    ToolsBlock,
    Turn,
)

__all__ = [
    "ArgumentsDelta",
    "DiagnosticEvent",
    "Event",
    "GapText",
    "ReasoningDelta",
    "ReasoningEnd",
    "ReasoningStart",
    "TextDelta",
    "ToolCallEnd",
    "ToolCallStart",
    "ToolResponseEvent",
    "ToolsEvent",
    "TurnEnd",
    "TurnStart",
    "new_arguments_delta",
    "new_diagnostic_event",
    "new_gap_text",
    "new_reasoning_delta",
    "new_reasoning_end",
    "new_reasoning_start",
    "new_text_delta",
    "new_tool_call_end",
    "new_tool_call_start",
    "new_tool_response_event",
    "new_tools_event",
    "new_turn_end",
    "new_turn_start",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class TurnStart:
    """Transcript level: a turn's header was read (``header`` covers ``<|im_start|>role\\n``)."""

    role: str
    header: Span


@dataclass(frozen=True, slots=True, kw_only=True)
class TurnEnd:
    """Transcript level: a turn ended; ``turn`` is the finished value (as in ``Transcript.turns``)."""

    turn: Turn


@dataclass(frozen=True, slots=True, kw_only=True)
class GapText:
    """Transcript level: text between turns (as in ``Transcript.gaps``)."""

    text: Text


@dataclass(frozen=True, slots=True, kw_only=True)
class TextDelta:
    """More plain text of the current body (stray closers and fabricated tags included)."""

    text: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ReasoningStart:
    """A reasoning segment starts (``opened`` is False for a segment continued after a call)."""

    kind: ReasoningKind
    opened: bool = True


@dataclass(frozen=True, slots=True, kw_only=True)
class ReasoningDelta:
    """More reasoning text."""

    kind: ReasoningKind
    text: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ReasoningEnd:
    """A reasoning segment ended; ``part`` is the segment, or None when it gives no part (empty, untagged).

    From ``StreamParser(retain=False)`` the part's ``text`` is empty: the text went out as the
    ``ReasoningDelta`` events since its ``ReasoningStart``, and is not kept.
    """

    kind: ReasoningKind
    closed: bool
    part: Reasoning | None


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolCallStart:
    """A call is announced: its block ordinal, id and complete name.

    Emitted as soon as the top-level ``"name"`` of a JSON body is a complete JSON string (and no
    ``arguments`` key came before it); otherwise when the block ends, for each valid call. Exactly
    one ``ToolCallEnd`` with the same id follows: a valid call with this name, or the invalid block
    (the announcement was wrong: the body failed later, e.g. ``HT115`` for a second ``name`` key).
    """

    ordinal: int
    id: str
    name: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ArgumentsDelta:
    """With ``stream_arguments``: more raw text of the call's ``arguments`` value (append-only).

    Guarantee: when the block needs no JSON recovery (strict JSON body), the concatenation of a
    call's deltas is exactly its final ``arguments_json``. A call announced early streams the raw
    text of its top-level ``"arguments"`` object as it arrives; a call announced at its end gets one
    delta with the whole ``arguments_json``. If an announced call's body then needs a recovery, the
    final ``arguments_json`` is a canonical dump that may not extend the streamed text: no further
    delta is sent and ``ToolCallEnd.call.arguments_json`` is authoritative. An XML body
    (``<function=…>``) streams its first function's ``arguments`` JSON text: a string value as it
    arrives (JSON-escaped), any other value when it ends.
    """

    ordinal: int
    id: str
    text: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolCallEnd:
    """A call block ended: ``call`` is a valid call, or ``invalid`` is the block that gave none.

    A block that yields several calls (an array, concatenated objects) gives one ``ToolCallEnd`` per call.
    """

    ordinal: int
    id: str
    call: ToolCall | None = None
    invalid: InvalidToolCall | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolResponseEvent:
    """A ``<tool_response>`` block of a user or tool turn ended."""

    response: ToolResponse


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolsEvent:
    """A ``<tools>`` block of a system or developer turn ended."""

    block: ToolsBlock


@dataclass(frozen=True, slots=True, kw_only=True)
class DiagnosticEvent:
    """A diagnostic was found (the result lists it too, sorted by position)."""

    diagnostic: Diagnostic


Event = (
    TurnStart
    | TurnEnd
    | GapText
    | TextDelta
    | ReasoningStart
    | ReasoningDelta
    | ReasoningEnd
    | ToolCallStart
    | ArgumentsDelta
    | ToolCallEnd
    | ToolResponseEvent
    | ToolsEvent
    | DiagnosticEvent
)


# Positional constructors of the events the parser emits on its hot paths (``construct.positional``:
# the same frozen values, built without the keyword-parsing ``__init__``). Every field is passed, in
# declaration order.
new_turn_start = cast(Callable[[str, Span], TurnStart], positional(TurnStart))
new_turn_end = cast(Callable[[Turn], TurnEnd], positional(TurnEnd))
new_gap_text = cast(Callable[[Text], GapText], positional(GapText))
new_text_delta = cast(Callable[[str], TextDelta], positional(TextDelta))
new_reasoning_start = cast(Callable[[ReasoningKind, bool], ReasoningStart], positional(ReasoningStart))
new_reasoning_delta = cast(Callable[[ReasoningKind, str], ReasoningDelta], positional(ReasoningDelta))
new_reasoning_end = cast(Callable[[ReasoningKind, bool, Reasoning | None], ReasoningEnd], positional(ReasoningEnd))
new_tool_call_start = cast(Callable[[int, str, str], ToolCallStart], positional(ToolCallStart))
new_arguments_delta = cast(Callable[[int, str, str], ArgumentsDelta], positional(ArgumentsDelta))
new_tool_call_end = cast(
    Callable[[int, str, ToolCall | None, InvalidToolCall | None], ToolCallEnd], positional(ToolCallEnd)
)
new_tool_response_event = cast(Callable[[ToolResponse], ToolResponseEvent], positional(ToolResponseEvent))
new_tools_event = cast(Callable[[ToolsBlock], ToolsEvent], positional(ToolsEvent))
new_diagnostic_event = cast(Callable[[Diagnostic], DiagnosticEvent], positional(DiagnosticEvent))
