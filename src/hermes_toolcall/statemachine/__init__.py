"""The streaming engine: a ``transitions`` state machine fed chunk by chunk (``StreamParser``).

``result()`` equals the whole-text parse of the grammar engine for every chunking; events are
emitted as soon as the input decides them. See ``docs/statemachine.md`` and ``docs/parsing.md``.
The events are ``hermes_toolcall._events``' (re-exported here); ``State`` is the type of
``StreamParser.state``.
"""

from __future__ import annotations

from .._events import (
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
from ._table import State

__all__ = [
    "ArgumentsDelta",
    "DiagnosticEvent",
    "Event",
    "GapText",
    "ReasoningDelta",
    "ReasoningEnd",
    "ReasoningStart",
    "State",
    "StreamParser",
    "TextDelta",
    "ToolCallEnd",
    "ToolCallStart",
    "ToolResponseEvent",
    "ToolsEvent",
    "TurnEnd",
    "TurnStart",
]
