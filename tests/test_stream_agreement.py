"""Chunking invariance of the streaming engine and agreement with the grammar engine (docs/parsing.md)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from helpers import merge_events, stream_options
from hermes_toolcall._ids import sequential_ids
from hermes_toolcall._model import Completion, Transcript
from hermes_toolcall._parse import parse_completion, parse_transcript
from hermes_toolcall.errors import ParseError, StreamError
from hermes_toolcall.statemachine import StreamParser
from hermes_toolcall.testing import adversarial_texts, all_chunkings, chunkings, completions, rendered_transcripts

OPTIONS = stream_options(48)


def feed(chunks: tuple[str, ...] | list[str], level: str, options: dict[str, Any]) -> tuple[Any, Any, list[object]]:
    """(result, strict error diagnostics or None, events) of the streaming engine."""
    parser = StreamParser(level=level, ids=sequential_ids(), **options)  # type: ignore[arg-type]
    events: list[object] = []
    for chunk in chunks:
        events += parser.feed(chunk)
    errors = None
    try:
        events += parser.close()
    except StreamError as exc:
        errors = exc.diagnostics
        events += parser.closing_events
    return parser.result(), errors, events


def grammar(text: str, level: str, options: dict[str, Any]) -> tuple[Completion | Transcript | None, Any]:
    options = {k: v for k, v in options.items() if k != "stream_arguments"}
    parse = parse_transcript if level == "transcript" else parse_completion
    try:
        return parse(text, ids=sequential_ids(), **options), None
    except ParseError as exc:
        return None, exc.diagnostics


def check(text: str, chunks: tuple[str, ...] | list[str], level: str, options: dict[str, Any]) -> None:
    result, errors, events = feed(chunks, level, options)
    whole, whole_errors, whole_events = feed([text], level, options)
    assert result == whole
    assert errors == whole_errors
    assert merge_events(events) == merge_events(whole_events)
    expected, expected_errors = grammar(text, level, options)
    if expected is None:
        assert errors == expected_errors
    else:
        assert errors is None
        assert result == expected


@given(st.data(), adversarial_texts(), st.sampled_from(["completion", "transcript"]), OPTIONS)
@settings(max_examples=200)
@example(None, '<tool_call>{"a": "\\', "completion", {})  # escape at the very end of the input
@example(
    None, '<tool_call>{"a": "x\\<|im_start|>user\nhi', "transcript", {}
)  # regression: escaped `<` of a control token
@example(  # regression: an argument delta was emitted past the cut of a too-large block in one chunking only
    None,
    '<tool_call>{"name": "a", "arguments": {}}</tool_call>',
    "completion",
    {"max_block_chars": 28, "stream_arguments": True},
)
@example(None, "<think><tool_call>{}", "completion", {"calls_in_reasoning": True})  # HT111 of an empty segment
@example(None, '<tool_call>{"name": "f", "x', "completion", {"max_block_chars": 5})  # cut before a string ends
@example(None, '<|im_start|>user\n<tool_response>{"a": "</tool_response>"}', "transcript", {})
def test_adversarial_inputs_agree_for_any_chunking(data: Any, text: str, level: str, options: dict[str, Any]) -> None:
    chunks = tuple(text) if data is None else data.draw(chunkings(text))
    check(text, chunks, level, options)


@given(st.data(), completions(), OPTIONS)
@settings(max_examples=100)
def test_generated_completions_agree_for_any_chunking(data: Any, text: str, options: dict[str, Any]) -> None:
    check(text, data.draw(chunkings(text)), "completion", options)


@given(st.data(), rendered_transcripts())
@settings(max_examples=40)
def test_rendered_transcripts_agree_for_any_chunking(data: Any, text: str) -> None:
    check(text, data.draw(chunkings(text)), "transcript", {})


SHORT = [  # all 2**(n-1) chunkings each: keep them short
    '<think>"\\',
    "a</think>b",
    "<tools>x<|",
    '{"<tool_',
]


@pytest.mark.parametrize("text", SHORT)
def test_every_split_of_short_inputs(text: str) -> None:
    count = 0
    for chunks in all_chunkings(text):
        check(text, chunks, "transcript" if text.startswith("<|im_start|>") else "completion", {})
        count += 1
    assert count == 2 ** (len(text) - 1)
