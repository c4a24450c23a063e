"""The parser and renderer entry points the validator uses (imported on first use)."""

from __future__ import annotations

import importlib
from collections.abc import Sequence

from .._ids import sequential_ids
from .._model import Completion, Message, Transcript

__all__ = ["parse_completion", "parse_transcript", "render"]

_IDS = sequential_ids()  # the validator never shows call ids of parsed text: cheap, deterministic ones


def parse_completion(text: str, *, dialect: str) -> Completion:
    """``hermes_toolcall._parse.parse_completion`` in lenient mode (sequential ids).

    A stored assistant message is a whole body: it starts outside reasoning whatever the dialect's
    generation prompt does (``starts_in_reasoning=False``).
    """
    module = importlib.import_module("hermes_toolcall._parse")
    result: Completion = module.parse_completion(text, dialect=dialect, ids=_IDS, starts_in_reasoning=False)
    return result


def parse_transcript(text: str, *, dialect: str) -> Transcript:
    """``hermes_toolcall._parse.parse_transcript`` in lenient mode (sequential ids)."""
    module = importlib.import_module("hermes_toolcall._parse")
    result: Transcript = module.parse_transcript(text, dialect=dialect, ids=_IDS)
    return result


def render(messages: Sequence[Message], *, dialect: str) -> str:
    """``hermes_toolcall.render.render`` with an empty tool list, injection allowed (to see what it does)."""
    module = importlib.import_module("hermes_toolcall.render")
    result: str = module.render(tuple(messages), tools=[], dialect=dialect, allow_injection=True)
    return result
