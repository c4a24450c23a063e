"""The parser and renderer entry points the validator uses."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from .. import _parse
from .. import render as _render
from .._ids import sequential_ids
from .._model import Completion, Diagnostic, Message, Transcript
from ..tags import FUNCTION_OPEN

__all__ = ["parse_completion", "parse_transcript", "render", "without_unknown_tool"]

_IDS = sequential_ids()  # the validator never shows call ids of parsed text: cheap, deterministic ones


def _typing(text: str, tools: Sequence[Any] | None) -> dict[str, Any]:
    """The ``tools=`` that types an XML body's values, when ``text`` may hold one (docs/parsing.md §8.2).

    A JSON body is typed by itself; an XML body (``<function=…>``) is typed by the tools' schemas, so
    the checks see ``"42"`` for a string parameter and ``42`` for an integer one. The parse's own
    ``HT301`` is left to the validator's check of the names (``without_unknown_tool``).
    """
    if not isinstance(tools, (list, tuple)) or FUNCTION_OPEN not in text:  # (a record's malformed tools type nothing)
        return {}
    return {"tools": list(tools)}


def without_unknown_tool(diagnostics: Sequence[Diagnostic]) -> list[Diagnostic]:
    """The parse's diagnostics less ``HT301`` (the validator reports undeclared tools itself)."""
    return [d for d in diagnostics if d.code != "HT301"]


def parse_completion(text: str, *, dialect: str, tools: Sequence[Any] | None = None) -> Completion:
    """``hermes_toolcall._parse.parse_completion`` in lenient mode (sequential ids).

    A stored assistant message is a whole body: it starts outside reasoning whatever the dialect's
    generation prompt does (``starts_in_reasoning=False``). ``tools`` type the values of XML bodies.
    """
    return _parse.parse_completion(text, dialect=dialect, ids=_IDS, starts_in_reasoning=False, **_typing(text, tools))


def parse_transcript(text: str, *, dialect: str, tools: Sequence[Any] | None = None) -> Transcript:
    """``hermes_toolcall._parse.parse_transcript_typed`` in lenient mode (sequential ids): ``tools`` type XML
    bodies' values (None: those of the transcript's own ``<tools>`` blocks, read by a first pass; ``[]``: no
    tool is declared, the values are read without a schema), less the parse's ``HT301``."""
    result = _parse.parse_transcript_typed(text, dialect=dialect, ids=_IDS, **_typing(text, tools))
    kept = without_unknown_tool(result.diagnostics)
    if len(kept) != len(result.diagnostics):
        result = dataclasses.replace(result, diagnostics=tuple(kept))
    return result


def render(messages: Sequence[Message], *, dialect: str) -> str:
    """``hermes_toolcall.render.render`` with an empty tool list, injection allowed (to see what it does)."""
    return _render.render(tuple(messages), tools=[], dialect=dialect, allow_injection=True)
