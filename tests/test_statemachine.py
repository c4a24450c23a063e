"""The streaming engine's machine, buffering and events (hermes_toolcall.statemachine)."""

from __future__ import annotations

import dataclasses
import itertools
import random

import pytest

from helpers import merge_events
from hermes_toolcall._ids import sequential_ids
from hermes_toolcall._model import Completion, InvalidToolCall, ToolCall, Transcript
from hermes_toolcall.errors import StreamError, UsageError
from hermes_toolcall.statemachine import (
    ArgumentsDelta,
    DiagnosticEvent,
    ReasoningDelta,
    StreamParser,
    TextDelta,
    ToolCallEnd,
    ToolCallStart,
)
from hermes_toolcall.statemachine._assembler import Block
from hermes_toolcall.statemachine._buffer import Lines, MarkerSet, held_from
from hermes_toolcall.statemachine._table import (
    NEXT,
    ROWS,
    CheckedMachine,
    MachineBug,
    Marker,
    State,
    allowed_by_machine,
    build_machine,
    config_of,
    configs,
    next_table,
)


def stream(chunks: list[str] | tuple[str, ...], **options: object) -> tuple[Completion | Transcript, list[object]]:
    options.setdefault("ids", sequential_ids())
    parser = StreamParser(**options)  # type: ignore[arg-type]
    events: list[object] = []
    for chunk in chunks:
        events += parser.feed(chunk)
    events += parser.close()
    return parser.result(), events


def completion(chunks: list[str] | tuple[str, ...], **options: object) -> Completion:
    result, _ = stream(chunks, **options)
    assert isinstance(result, Completion)
    return result


# ---------------------------------------------------------------------------------- the machine


def test_derived_table_agrees_with_the_machine_on_every_pair() -> None:
    checked = 0
    for config in configs():
        machine, model = build_machine(config)
        table = next_table(config)
        for state in State:
            for marker in Marker:
                assert allowed_by_machine(machine, model, state, marker) == table.get((state, marker)), (state, marker)
                checked += 1
    assert checked == len(configs()) * len(State) * len(Marker)


def _applies(when: str, config: object) -> bool:
    flags = config.flags  # type: ignore[attr-defined]
    return not when or (when[4:] not in flags if when.startswith("not ") else when in flags)


def test_the_rows_and_the_machine_agree() -> None:
    """Every row that moves is a transition of the library machine, with the row's destination, and
    the machine has no other: (state, marker) -> next is the table's in every configuration."""
    for config in configs():
        from_rows: dict[tuple[State, Marker], State | None] = {}
        for row in ROWS:
            if _applies(row.when, config):
                for state in row.states:
                    for marker in row.markers:
                        assert (state, marker) not in from_rows, (state, marker, config)
                        from_rows[(state, marker)] = row.next
        moving = {pair: dest for pair, dest in from_rows.items() if dest is not None}
        assert next_table(config) == moving, config


def test_machine_has_no_auto_transitions() -> None:
    config = config_of("transcript", ("think",))
    _, model = build_machine(config)
    assert not hasattr(model, "to_call")
    assert len(next_table(config)) == sum(
        len(row.states) * len(row.markers) for row in ROWS if row.next is not None and _applies(row.when, config)
    )


def test_moves_outside_the_table_are_machine_bugs() -> None:
    config = config_of("completion", ("think",))
    assert next_table(config)[(State.ASSISTANT, Marker.CALL_OPEN)] is State.CALL
    assert (State.GAP, Marker.CALL_CLOSE) not in next_table(config)
    with pytest.raises(MachineBug):
        CheckedMachine(config, State.GAP).move(State.GAP, Marker.CALL_CLOSE, State.ASSISTANT)
    with pytest.raises(MachineBug, match="not the table's move"):
        CheckedMachine(config, State.ASSISTANT).move(State.ASSISTANT, Marker.CALL_OPEN, State.TOOLS)


def test_every_state_is_reachable_and_can_end() -> None:
    reached = {State.GAP, State.ASSISTANT}
    frontier = list(reached)
    while frontier:
        s = frontier.pop()
        for (src, _), dests in NEXT.items():
            for dst in dests:
                if src is s and dst not in reached:
                    reached.add(dst)
                    frontier.append(dst)
    assert reached == set(State)
    assert all((s, Marker.EOF) in NEXT for s in State if s is not State.DONE)


# ---------------------------------------------------------------------------------- buffering


def test_held_from_keeps_only_the_longest_proper_marker_prefix() -> None:
    markers = MarkerSet(["<tool_call>", "</tool_call>", "<|im_end|>"])
    assert held_from("text <tool_ca", 0, markers) == 5
    assert held_from("text <", 0, markers) == 5
    assert held_from("text </", 0, markers) == 5
    assert held_from("a <tool_call", 0, markers) == 2
    assert held_from("a <x", 0, markers) == 4  # disproved: released
    assert held_from("a <tool_call>", 0, markers) == 13  # a whole marker is not a proper prefix
    assert held_from("<<tool", 0, markers) == 1
    assert held_from("<tool", 3, markers) == 5  # never before start


def test_lines_give_line_and_column_across_chunks() -> None:
    lines = Lines()
    lines.extend("ab\nc", 0)
    lines.extend("d\n\nef", 4)
    assert lines.span(0, 1).line == 1
    assert (lines.span(3, 4).line, lines.span(3, 4).column) == (2, 1)
    assert (lines.span(8, 9).line, lines.span(8, 9).column) == (4, 2)


def test_nothing_that_could_be_a_marker_is_released_and_nothing_more_is_held() -> None:
    parser = StreamParser()
    assert parser.feed("Hi <tool") == [TextDelta(text="Hi ")]
    assert parser.feed("s>") == [TextDelta(text="<tools>")]  # not a marker in an assistant body
    assert parser.feed("<") == []
    assert parser.feed("x") == [TextDelta(text="<x")]
    assert parser.feed("<|im_e") == []
    assert parser.close() == [TextDelta(text="<|im_e")]


def test_block_size_bound_gives_a_diagnostic_not_unbounded_memory() -> None:
    parser = StreamParser(max_block_chars=64, ids=sequential_ids())
    parser.feed('<tool_call>{"name": "f", "arguments": {"data": "')
    for _ in range(1000):
        parser.feed("x" * 50)
        el = parser._asm.element
        held = sum(map(len, parser._buf.deferred)) + (sum(map(len, el.pieces)) if isinstance(el, Block) else 0)
        assert held <= 64 + 50  # the open block never holds more than bound + chunk
    parser.close()
    result = parser.result()
    assert isinstance(result, Completion)
    assert [d.code for d in result.diagnostics] == ["HT114"]
    assert isinstance(result.parts[0], InvalidToolCall) and result.parts[0].code == "HT114"


# ---------------------------------------------------------------------------------- API


def test_usage_errors() -> None:
    with pytest.raises(UsageError):
        StreamParser(level="chat")  # type: ignore[arg-type]
    with pytest.raises(UsageError):
        StreamParser(dialect="nope")
    parser = StreamParser()
    with pytest.raises(StreamError):
        parser.result()
    parser.close()
    with pytest.raises(StreamError):
        parser.feed("x")
    with pytest.raises(StreamError):
        parser.close()


def test_strict_close_raises_with_every_error_and_keeps_the_result() -> None:
    parser = StreamParser(strict=True, ids=sequential_ids())
    parser.feed("<tool_call>{'name': 'f', 'arguments': {}}</tool_call> <tool_call>")
    with pytest.raises(StreamError) as info:
        parser.close()
    assert [d.code for d in info.value.diagnostics] == ["HT202", "HT106"]
    assert all(d.severity == "error" for d in info.value.diagnostics)
    assert isinstance(parser.result(), Completion)
    assert any(isinstance(e, ToolCallEnd) for e in parser.closing_events)


def test_events_are_frozen_values() -> None:
    event = TextDelta(text="x")
    with pytest.raises(dataclasses.FrozenInstanceError):
        event.text = "y"  # type: ignore[misc]
    assert TextDelta(text="x") == event


def test_empty_chunks_are_ignored() -> None:
    assert completion(["", "hi", ""]).parts[0].text == "hi"  # type: ignore[union-attr]


# ---------------------------------------------------------------------------------- call start / arguments


def test_call_start_is_announced_as_soon_as_the_name_is_a_complete_string() -> None:
    parser = StreamParser(ids=sequential_ids())
    assert parser.feed('<tool_call>\n{"name": "get_wea') == []
    assert parser.feed("ther") == []
    assert parser.feed('"') == [ToolCallStart(ordinal=0, id="call_0", name="get_weather")]
    events = parser.feed(', "arguments": {"city": "Paris"}}\n</tool_call>')
    assert [type(e) for e in events] == [ToolCallEnd]


def test_escaped_name_is_decoded_before_announcing() -> None:
    _, events = stream(['<tool_call>{"name": "a\\"b\\u00e9", "arguments": {}}</tool_call>'])
    assert events[0] == ToolCallStart(ordinal=0, id="call_0", name='a"bé')


@pytest.mark.parametrize(
    "body",
    [
        '{"arguments": {"symbol": "TSLA"}, "name": "quote"}',  # arguments first (HT109)
        "{'name': 'quote', 'arguments': {}}",  # Python literal (HT202)
        '[{"name": "quote", "arguments": {}}]',  # array of calls (HT206)
    ],
)
def test_calls_that_cannot_be_announced_early_are_announced_at_the_end(body: str) -> None:
    parser = StreamParser(ids=sequential_ids())
    assert parser.feed("<tool_call>" + body) == []
    events = parser.feed("</tool_call>")
    kinds = [type(e) for e in events if not isinstance(e, DiagnosticEvent)]
    assert kinds == [ToolCallStart, ToolCallEnd]
    assert events[-1].call is not None and events[-1].call.name == "quote"  # type: ignore[union-attr]


def test_truncated_name_is_never_announced() -> None:
    _, events = stream(['<tool_call>{"name": "get_wea'])
    assert not any(isinstance(e, ToolCallStart) for e in events)
    end = [e for e in events if isinstance(e, ToolCallEnd)]
    assert end[0].invalid is not None and end[0].invalid.code == "HT102"


def test_argument_deltas_concatenate_to_the_final_arguments_json() -> None:
    text = '<tool_call>\n{"name": "write", "arguments": {"path": "a.txt", "body": "x}\\"{<tool_call>"}}\n</tool_call>'
    for size in (1, 2, 3, 7, len(text)):
        chunks = [text[i : i + size] for i in range(0, len(text), size)]
        result, events = stream(chunks, stream_arguments=True)
        deltas = [e.text for e in events if isinstance(e, ArgumentsDelta)]
        assert isinstance(result, Completion)
        assert "".join(deltas) == result.tool_calls[0].arguments_json
        if size == 1:
            assert len(deltas) > 10  # really incremental
            start = next(i for i, e in enumerate(events) if isinstance(e, ToolCallStart))
            assert start < next(i for i, e in enumerate(events) if isinstance(e, ArgumentsDelta))


def test_recovered_arguments_are_sent_whole_when_the_call_was_not_announced() -> None:
    result, events = stream(["<tool_call>{'name': 'f', 'arguments': {'a': True}}</tool_call>"], stream_arguments=True)
    deltas = [e.text for e in events if isinstance(e, ArgumentsDelta)]
    assert isinstance(result, Completion)
    assert deltas == [result.tool_calls[0].arguments_json] == ['{"a": true}']


# ---------------------------------------------------------------------------------- field-failure seeds


def test_seed_closing_braces_batched_in_one_chunk() -> None:
    """vllm#32152: `}⏎}⏎</tool_call>` arrives in one delta; the last value is not a string."""
    chunks = ['<tool_call>\n{"name": "get", "arguments": {"id": 42', "}\n}\n</tool_call>"]
    result, events = stream(chunks, stream_arguments=True)
    assert isinstance(result, Completion)
    assert result.tool_calls[0].arguments == {"id": 42}
    assert "".join(e.text for e in events if isinstance(e, ArgumentsDelta)) == '{"id": 42}'


def test_seed_parameterless_call_streams_empty_object() -> None:
    """vllm#28806: `{}` arguments must stream as `{}`, never `""`."""
    text = '<tool_call>\n{"name": "current_time", "arguments": {}}\n</tool_call>'
    for chunks in ([text], list(text)):
        for stream_arguments in (False, True):
            result, events = stream(chunks, stream_arguments=stream_arguments)
            assert isinstance(result, Completion)
            assert result.tool_calls[0].arguments_json == "{}"
            if stream_arguments:
                assert "".join(e.text for e in events if isinstance(e, ArgumentsDelta)) == "{}"


def test_seed_tags_split_at_every_position() -> None:
    """vllm PR #34101: fragments like `</tool_` at chunk ends; every two-way split gives the same result."""
    text = 'I will check.<think>hm</think><tool_call>{"name": "w", "arguments": {"c": "NYC"}}</tool_call> Done.'
    whole, whole_events = stream([text])
    for cut in range(1, len(text)):
        result, events = stream([text[:cut], text[cut:]])
        assert result == whole, cut
        assert merge_events(events) == merge_events(whole_events), cut


def test_seed_ids_and_names_are_not_duplicated() -> None:
    """hermes-agent#6841: names/arguments duplicated by accumulation; one start per call, one name."""
    text = '<tool_call>{"name": "web_search", "arguments": {"q": "x"}}</tool_call>' * 2
    _, events = stream(list(text), stream_arguments=True)
    starts = [e for e in events if isinstance(e, ToolCallStart)]
    assert [(s.id, s.name) for s in starts] == [("call_0", "web_search"), ("call_1", "web_search")]
    ends = [e for e in events if isinstance(e, ToolCallEnd)]
    assert [e.id for e in ends] == ["call_0", "call_1"]


def test_seed_sglang_random_splits_of_two_parallel_calls_lose_nothing() -> None:
    """sglang#31915: 71% (qwen2.5) / 91% (hermes) of random 1-4-chunk splits lost data there; here none."""
    text = (
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris", "unit": "c"}}\n</tool_call>\n'
        '<tool_call>\n{"name": "get_time", "arguments": {"tz": "Europe/Paris"}}\n</tool_call>'
    )
    whole = completion([text])
    assert [c.name for c in whole.tool_calls] == ["get_weather", "get_time"]
    rng = random.Random(31915)
    for _ in range(300):
        cuts = sorted(rng.sample(range(1, len(text)), rng.randint(0, 3)))
        bounds = [0, *cuts, len(text)]
        chunks = [text[a:b] for a, b in itertools.pairwise(bounds)]
        assert completion(chunks) == whole, cuts


def test_seed_end_tag_inside_a_string_value() -> None:
    """vllm#45167: `</tool_call>` inside a JSON string does not close the block, in any chunking."""
    text = '<tool_call>{"name":"bash","arguments":{"cmd":"echo </tool_call> test"}}</tool_call>'
    for chunks in ([text], list(text)):
        result = completion(chunks)
        assert result.tool_calls[0].arguments == {"cmd": "echo </tool_call> test"}
        assert result.diagnostics == ()


def test_seed_unbalanced_brace_inside_a_string() -> None:
    """vllm#21544: `mkdir -p test/{test1,test2` inside a string value."""
    text = '<tool_call>{"name": "run", "arguments": {"cmd": "mkdir -p test/{test1,test2"}}</tool_call>'
    result, events = stream(list(text), stream_arguments=True)
    assert isinstance(result, Completion)
    assert result.tool_calls[0].arguments == {"cmd": "mkdir -p test/{test1,test2"}
    assert "".join(e.text for e in events if isinstance(e, ArgumentsDelta)) == result.tool_calls[0].arguments_json


def test_seed_truncated_call_is_reported_never_dropped() -> None:
    """sglang#35565 / Dynamo 5.e: keep the first call, report the truncated second one with its raw text."""
    text = '<tool_call>{"name": "a", "arguments": {}}</tool_call><tool_call>{"name": "b", "arguments": {"x": "y'
    result = completion(list(text))
    assert [type(p) for p in result.parts] == [ToolCall, InvalidToolCall]
    assert result.parts[1].raw.endswith('"y')  # type: ignore[union-attr]
    assert "HT102" in [d.code for d in result.diagnostics]


def test_reasoning_is_streamed_as_it_arrives() -> None:
    parser = StreamParser()
    parser.feed("<think>Let me")
    assert parser.feed(" see") == [ReasoningDelta(kind="think", text=" see")]


def test_the_scanners_look_for_exactly_the_markers_of_the_table() -> None:
    """_markers is derived from _table.ROWS: every scanned marker has one move in every configuration."""
    from hermes_toolcall.statemachine._markers import block_scans, text_scans
    from hermes_toolcall.statemachine._table import key_state, markers_of, moves
    from hermes_toolcall.tags import CLOSE

    names = {m.value for m in Marker}  # the markers that are not scanned: roles, cut, eof
    in_completions = {State.ASSISTANT, State.CALL}  # and reasoning: what a completion reaches
    for kinds in [(), ("think",), ("scratch_pad",), ("think", "scratch_pad")]:
        scanned = {key: set(scan.held.markers) for key, scan in text_scans(kinds).items()}
        blocks = block_scans()
        scanned.update(
            {
                key: set(blocks[key_state(key)].plain.held.markers)
                for key in markers_of(kinds)
                if key_state(key) in blocks
            }
        )
        for key in scanned:  # a held block's reasoning closer is looked for by its WatchReader
            if key_state(key) is State.HELD:
                scanned[key].add(CLOSE[str(key).partition(":")[2]])  # type: ignore[index]
        assert scanned == {key: set(m) for key, m in markers_of(kinds).items() if m}
        for level in ("completion", "transcript"):
            for calls in (False, True):
                for stop in (False, True):
                    table = moves(config_of(level, kinds, calls, stop))
                    reached = {
                        key: ms
                        for key, ms in scanned.items()
                        if level == "transcript" or key in in_completions or not isinstance(key, State)
                    }
                    assert {key: set(table[key]) - names for key in reached} == reached
