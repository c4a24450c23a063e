"""The parser and renderer entry points the validator uses (imported on first use)."""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Sequence
from typing import Any

from .._ids import sequential_ids
from .._model import Completion, Diagnostic, Message, ToolsBlock, Transcript
from ..tags import FUNCTION_OPEN

__all__ = ["parse_completion", "parse_transcript", "render", "without_unknown_tool"]

_IDS = sequential_ids()  # the validator never shows call ids of parsed text: cheap, deterministic ones


def _typing(text: str, tools: Sequence[Any] | None) -> dict[str, Any]:
    """The ``tools=`` that types an XML body's values, when ``text`` may hold one (docs/parsing.md §8.2).

    A JSON body is typed by itself; an XML body (``<function=…>``) is typed by the tools' schemas, so
    the checks see ``"42"`` for a string parameter and ``42`` for an integer one. The parse's own
    ``HT301`` is left to the validator's check of the names (``without_unknown_tool``).
    """
    if tools is None or not isinstance(tools, list) or FUNCTION_OPEN not in text:
        return {}
    return {"tools": tools}


def without_unknown_tool(diagnostics: Sequence[Diagnostic]) -> list[Diagnostic]:
    """The parse's diagnostics less ``HT301`` (the validator reports undeclared tools itself)."""
    return [d for d in diagnostics if d.code != "HT301"]


def parse_completion(text: str, *, dialect: str, tools: Sequence[Any] | None = None) -> Completion:
    """``hermes_toolcall._parse.parse_completion`` in lenient mode (sequential ids).

    A stored assistant message is a whole body: it starts outside reasoning whatever the dialect's
    generation prompt does (``starts_in_reasoning=False``). ``tools`` type the values of XML bodies.
    """
    module = importlib.import_module("hermes_toolcall._parse")
    result: Completion = module.parse_completion(
        text, dialect=dialect, ids=_IDS, starts_in_reasoning=False, **_typing(text, tools)
    )
    return result


def parse_transcript(text: str, *, dialect: str, tools: Sequence[Any] | None = None) -> Transcript:
    """``hermes_toolcall._parse.parse_transcript`` in lenient mode (sequential ids); ``tools`` type XML
    bodies' values (default: those of the transcript's own ``<tools>`` blocks, read by a first pass)."""
    module = importlib.import_module("hermes_toolcall._parse")
    result: Transcript = module.parse_transcript(text, dialect=dialect, ids=_IDS)
    if FUNCTION_OPEN in text:
        declared = list(tools) if tools is not None else [t for turn in result.turns for p in turn.parts
                                                           if isinstance(p, ToolsBlock) for t in p.tools]
        if declared:
            typed: Transcript = module.parse_transcript(text, dialect=dialect, ids=_IDS, tools=declared)
            result = dataclasses.replace(typed, diagnostics=tuple(without_unknown_tool(typed.diagnostics)))
    return result


def render(messages: Sequence[Message], *, dialect: str) -> str:
    """``hermes_toolcall.render.render`` with an empty tool list, injection allowed (to see what it does)."""
    module = importlib.import_module("hermes_toolcall.render")
    result: str = module.render(tuple(messages), tools=[], dialect=dialect, allow_injection=True)
    return result
