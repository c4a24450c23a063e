"""The streaming engine: a ``transitions`` state machine fed chunk by chunk (``StreamParser``).

``result()`` equals the whole-text parse of the grammar engine for every chunking; events are
emitted as soon as the input decides them. See ``docs/statemachine.md`` and ``docs/parsing.md``.
"""

from __future__ import annotations

from ._events import (
    ArgumentsDelta,
    DiagnosticEvent,
    Event,
    GapText,
    ReasoningDelta,
    ReasoningEnd,
    ReasoningStart,
    TextDelta,
    ToolCallEnd,
    ToolCallStart,
    ToolResponseEvent,
    ToolsEvent,
    TurnEnd,
    TurnStart,
)
from ._parser import StreamParser

__all__ = [
    "ArgumentsDelta",
    "DiagnosticEvent",
    "Event",
    "GapText",
    "ReasoningDelta",
    "ReasoningEnd",
    "ReasoningStart",
    "StreamParser",
    "TextDelta",
    "ToolCallEnd",
    "ToolCallStart",
    "ToolResponseEvent",
    "ToolsEvent",
    "TurnEnd",
    "TurnStart",
]
