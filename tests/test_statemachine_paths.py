"""The readers' guards change nothing: each ``feed`` returns exactly the events the scanners give when
every step goes through them (statemachine/_readers.py: ``guard`` in front of ``read``).

``Scanned`` is the reference: its readers are the same classes without their guards
(``_readers.UNGUARDED``), so every chunk, with the held-back tail and any deferred block text, is read
by the scanners. The guards (plain text, reasoning, deferred block text, string bodies, held-back marker
prefixes, the usual start of a call) must give the same events chunk by chunk, the same result and the
same diagnostics, for every chunking.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from helpers import stream_options, xml_dialect
from hermes_toolcall._ids import sequential_ids
from hermes_toolcall.errors import StreamError
from hermes_toolcall.statemachine import Event, StreamParser, TextDelta
from hermes_toolcall.statemachine._parser import places
from hermes_toolcall.statemachine._readers import (
    GUARDED,
    UNGUARDED,
    BareReader,
    BlockStart,
    BoundReader,
    HeaderReader,
    HeldAfterReader,
    TailReader,
    TextReader,
    WatchReader,
)
from hermes_toolcall.statemachine._table import STATE_KINDS, State, configs, key_state
from hermes_toolcall.testing import adversarial_texts, chunkings, completions, rendered_transcripts
from hermes_toolcall.testing._xml import XmlCase, xml_completion_cases

OPTIONS = stream_options(64)


class Scanned(StreamParser):
    """A parser without guards: every step is read by the scanners (call starts as they come too)."""

    readers = UNGUARDED


def run(cls: type[StreamParser], chunks: list[str] | tuple[str, ...], level: str, options: dict[str, Any]) -> Any:
    """Every feed's events, the strict errors and the result."""
    parser = cls(level=level, ids=sequential_ids(), **options)  # type: ignore[arg-type]
    per_feed: list[list[Event]] = [parser.feed(c) for c in chunks]
    errors = None
    try:
        per_feed.append(parser.close())
    except StreamError as exc:
        errors = exc.diagnostics
        per_feed.append(parser.closing_events)
    return per_feed, errors, parser.result()


def check(text: str, chunks: list[str] | tuple[str, ...], level: str, options: dict[str, Any]) -> None:
    assert "".join(chunks) == text
    assert run(StreamParser, chunks, level, options) == run(Scanned, chunks, level, options)


def fixed_sizes(text: str) -> list[list[str]]:
    return [[text[i : i + size] for i in range(0, len(text), size)] for size in (1, 2, 3, 4, 7, 16)]


@given(st.data(), adversarial_texts(), st.sampled_from(["completion", "transcript"]), OPTIONS)
@settings(max_examples=150)
@example(None, '<tool_call>{"name": "f", "arguments": {"s": "a\\"</tool_call>\\\\"}}</tool_call>', "completion", {})
@example(None, '<tool_call>{"a": "x\\<|im_start|>user\nhi', "transcript", {})
@example(None, '<tool_call>{"name": "f", "arguments": {"s": "</tool_call>"}}', "completion", {"max_block_chars": 30})
@example(None, '<tool_call>\n{"name": "<|im_start|>', "completion", {})  # CI 2026-12-04 (head deferral)
def test_fast_paths_give_the_scanners_events_chunk_by_chunk(
    data: Any, text: str, level: str, options: dict[str, Any]
) -> None:
    for chunks in fixed_sizes(text):
        check(text, chunks, level, options)
    if data is not None:
        check(text, data.draw(chunkings(text)), level, options)


@given(st.data(), completions(), OPTIONS)
@settings(max_examples=60)
def test_fast_paths_on_generated_completions(data: Any, text: str, options: dict[str, Any]) -> None:
    check(text, data.draw(chunkings(text)), "completion", options)
    for chunks in fixed_sizes(text)[2:4]:
        check(text, chunks, "completion", options)


@given(st.data(), rendered_transcripts())
@settings(max_examples=20)
def test_fast_paths_on_rendered_transcripts(data: Any, text: str) -> None:
    check(text, data.draw(chunkings(text)), "transcript", {})
    check(text, fixed_sizes(text)[3], "transcript", {})


BODY = '{"name": "write", "arguments": {"path": "a.py", "body": "x = \\"</tool_call>\\"\\n\\\\ <b>"}}'


@pytest.mark.parametrize("stream_arguments", [False, True])
@pytest.mark.parametrize("max_block_chars", [16, 40, 75, 10_000])
def test_block_bodies_deferred_held_and_cut(stream_arguments: bool, max_block_chars: int) -> None:
    text = f"Hi <tool_call>\n{BODY}\n</tool_call> after <tool_call>{BODY}"
    options = {"stream_arguments": stream_arguments, "max_block_chars": max_block_chars}
    for chunks in fixed_sizes(text):
        check(text, chunks, "completion", options)


def test_a_name_read_in_one_step_or_token_by_token_is_announced_the_same() -> None:
    text = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
    whole, _, _ = run(StreamParser, [text], "completion", {"stream_arguments": True})
    split, _, _ = run(StreamParser, list(text), "completion", {"stream_arguments": True})
    merged = [e for feed in whole for e in feed]
    assert [type(e).__name__ for e in merged][:2] == ["ToolCallStart", "ArgumentsDelta"]
    assert [e for feed in split for e in feed if type(e).__name__ == "ToolCallStart"] == merged[:1]


def test_text_chunks_become_one_delta_each_and_marker_prefixes_are_held() -> None:
    parser = StreamParser()
    assert parser.feed("plain") == [TextDelta(text="plain")]
    assert parser.feed("text <tool_c") == [TextDelta(text="text ")]
    assert parser.feed("al") == []  # still a prefix of <tool_call>
    assert parser.feed("l>") == []  # the call opens; nothing to announce yet
    assert parser._buf.pending == ""


def test_line_numbers_are_counted_lazily_but_exactly() -> None:
    text = "a\n<think>\nb\n</think>\n<tool_call>\n{}\n</tool_call>\nc\n"
    for chunks in fixed_sizes(text):
        _, _, result = run(StreamParser, chunks, "completion", {})
        for part in result.parts:
            before = text[: part.span.start]
            assert part.span.line == before.count("\n") + 1
            assert part.span.column == len(before) - (before.rfind("\n") + 1) + 1


def test_every_state_key_has_the_reader_of_its_kind_with_and_without_guards() -> None:
    readers = {
        State.ASSISTANT: TextReader,
        State.RESULTS: TextReader,
        State.CATALOGUE: TextReader,
        State.PLAIN: TextReader,
        State.REASONING: TextReader,
        State.GAP: TextReader,
        State.HEADER: HeaderReader,
        State.CALL: BlockStart,
        State.REASONING_CALL: BlockStart,
        State.RESPONSE: BlockStart,
        State.TOOLS: BlockStart,
        State.BARE: BareReader,
        State.HELD: BlockStart,
        State.HELD_AFTER: HeldAfterReader,
        State.TAIL: TailReader,
        State.DONE: TailReader,
    }
    assert set(STATE_KINDS) == set(State) == set(readers)
    for config in configs():
        for guarded, made in ((True, GUARDED), (False, UNGUARDED)):
            for key, place in places(config, made).items():
                state = key_state(key)
                assert place.state is state
                if readers[state] is BlockStart:
                    assert place.reader is None and place.block is not None
                    assert issubclass(made.block, BlockStart) and (made.block is BlockStart) == guarded
                elif readers[state] is BareReader:  # made at each entry
                    assert place.reader is None and place.block is None
                    assert issubclass(made.bare, BareReader) and (made.bare is BareReader) == guarded
                else:
                    assert isinstance(place.reader, readers[state])
                    assert (type(place.reader) is readers[state]) == guarded
    parser = Scanned(level="transcript")
    parser.feed("<|im_start|>assistant\nHi <tool_call>")
    assert isinstance(parser._reader, BlockStart) and type(parser._reader) is not BlockStart
    parser = Scanned(level="transcript")
    parser.feed("<|im_start|>assistant\nHi <function=f>")
    assert isinstance(parser._reader, BareReader) and type(parser._reader) is not BareReader
    parser = Scanned(level="transcript")
    parser.feed("<|im_start|>assistant\n<think>Hi <tool_call>")
    bounded = parser._reader  # a held state's reader, under the held run's room (HT242)
    assert isinstance(bounded, BoundReader) and type(bounded) is not BoundReader
    assert isinstance(bounded.inner, WatchReader) and type(bounded.inner) is not WatchReader
    assert isinstance(bounded.inner.inner, BlockStart) and type(bounded.inner.inner) is not BlockStart
    parser.feed("{}</tool_call>")
    assert isinstance(parser._reader, BoundReader) and isinstance(parser._reader.inner, HeldAfterReader)


_HEAD_NAMES = st.one_of(
    st.sampled_from(
        ["f", "get_weather", "a.b-c", "", "x" * 70, "na me", 'a\\"b', "é漢", "a<b", "a<|im_end|>", "f\\u0041"]
    ),
    st.text(alphabet='ab _.-"\\<\n', max_size=12),
)


@st.composite
def call_heads(draw: st.DrawFn) -> str:
    """A call block whose body starts as the templates write it, or nearly so (the deferred start of
    ``BlockReader``): blanks, ``{"name": "…``, a name of any kind, then the rest, cut anywhere."""
    lead = draw(st.sampled_from(["", "\n", " \n", "\r\n", "\n\n\t"]))
    heads = ['{"name": "', '{"name":"', '{ "name": "', '{"name" : "', '{"nam', '{"arguments": {}, "name": "']
    head = draw(st.sampled_from(heads))
    name = draw(_HEAD_NAMES)
    rest = draw(st.sampled_from(['", "arguments": {"a": [1, "]}"]}}', '"}', '", "arguments": {}}\n', "", '"']))
    tail = draw(st.sampled_from(["</tool_call>", "\n</tool_call> after", "", "<tool_call>", "<|im_end|>"]))
    text = "<tool_call>" + lead + head + name + rest + tail
    cut = draw(st.integers(min_value=0, max_value=len(text)))
    return draw(st.sampled_from([text, text[:cut], "Hi " + text + text]))


@given(st.data(), call_heads(), OPTIONS)
@settings(max_examples=300)
@example(None, '<tool_call>\n{"name": "f", "arguments": {}}</tool_call>', {})
@example(None, '<tool_call>\n{"name": "' + "x" * 70 + '", "arguments": {}}</tool_call>', {})
@example(None, '<tool_call>\n{"name": "f", "arguments": {}}</tool_call>', {"max_block_chars": 12})
@example(None, '<tool_call>{"name": "f<|im_end|>', {})  # CI 2026-12-04: a "<" in the open name was deferred
@example(None, '<tool_call>\n{"name": "<|im_start|>', {})  # so the marker's events came a chunk late
def test_call_starts_deferred_until_the_name_closes_give_the_scanners_events(
    data: Any, text: str, options: dict[str, Any]
) -> None:
    """``BlockReader`` defers a call body while it is still the usual start with its name open, and
    reads it in one step when the name closes: the events of every feed, the diagnostics and the
    result are the scanners' (every chunking, 1-char included; names with blanks, escapes, ``<``,
    control tokens, long names; block cuts; truncation)."""
    for chunks in fixed_sizes(text):
        check(text, chunks, "completion", options)
    if data is not None:
        check(text, data.draw(chunkings(text)), "completion", options)


@given(
    st.data(),
    xml_completion_cases(),
    st.booleans(),
    st.sampled_from([30, 200, 10_000]),
    st.sampled_from(["hermes", xml_dialect("qwen3-coder")]),
)
@settings(max_examples=120)
@example(
    None,
    XmlCase(
        text="<tool_call>\n<function=" + "x" * 70 + ">\n</function>\n</tool_call>", tools=(), calls=(), malformed=()
    ),
    False,
    10_000,
    "hermes",
)
@example(
    None, XmlCase(text="<tool_call><function=f<|im_end|>", tools=(), calls=(), malformed=()), False, 10_000, "hermes"
)
@example(
    None,
    XmlCase(
        text="<tool_call>\n<function=f\n<parameter=a>\n1\n</parameter>\n</function>\n</tool_call>",
        tools=(),
        calls=(),
        malformed=(),
    ),
    False,
    30,
    "hermes",
)
@example(
    None,
    XmlCase(
        text="<tool_call>\n<function=f>\n<parameter=a>\n</tool_c\n</parameter>\n</function>\n</tool_call><|im_e",
        tools=(),
        calls=(),
        malformed=(),
    ),
    False,
    200,
    "hermes",
)
def test_xml_body_guard_gives_the_scanner_s_events(data: Any, case: Any, args: bool, limit: int, dialect: Any) -> None:
    """The XML body's guards (the start deferred until the function's name closes; block text with no
    ender in it kept for the stream reader, text without ``<`` deferred, a short run ending in the
    start of an ender deferred with it) give the scanner's events chunk by chunk."""
    chunks = data.draw(chunkings(case.text)) if data is not None else [case.text]
    tools = list(case.tools) or None
    options = {"stream_arguments": args, "max_block_chars": limit, "tools": tools, "dialect": dialect}
    check(case.text, chunks, "completion", options)
    for sized in fixed_sizes(case.text):
        check(case.text, sized, "completion", options)
