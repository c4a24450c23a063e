"""Regression tests of issue 10 ("guarantees at the edges"): each reproduction of the issue, by name."""

from __future__ import annotations

import pickle
import sys
from typing import Any

import pytest

import hermes_toolcall as ht
from hermes_toolcall import _jsonio as jsonio
from hermes_toolcall.statemachine import StreamParser

pytest_plugins = ["hypothesis_stats"]

BIG = "1" * 4301  # one digit over Python's default int/str conversion limit (4,300)
BIG_CALL = '<tool_call>{"name": "f", "arguments": {"n": ' + BIG + "}}</tool_call>"


def _stream(text: str, *, size: int = 1, **options: Any) -> ht.Completion | ht.Transcript:
    p = StreamParser(**options)
    for i in range(0, len(text), size):
        p.feed(text[i : i + size])
    p.close()
    return p.result()


# ------------------------------------------------------------------ issue item 1: integers of any length


@pytest.mark.parametrize("strict", [False, True])
def test_issue10_repro1_big_integer_whole_text_and_stream(strict: bool) -> None:
    whole = ht.parse_completion(BIG_CALL, strict=strict, ids=ht.sequential_ids())
    streamed = _stream(BIG_CALL, size=7, strict=strict, ids=ht.sequential_ids())
    assert whole == streamed
    call = whole.tool_calls[0]
    assert str(call.arguments["n"]) == BIG and call.arguments["n"] == int("1" * 4300) * 10 + 1
    assert call.arguments_json == '{"n": ' + BIG + "}"
    assert whole.to_openai()["tool_calls"][0]["function"]["arguments"] == '{"n": ' + BIG + "}"


def test_issue10_repro1_big_integer_python_literal_body() -> None:
    text = "<tool_call>{'name': 'f', 'arguments': {'n': -" + BIG + "}}</tool_call>"
    call = ht.parse_completion(text).tool_calls[0]
    assert call.arguments_json == '{"n": -' + BIG + "}"
    assert call.arguments["n"] < 0


def test_issue10_repro1_big_integer_result_and_tools_blocks() -> None:
    text = (
        '<|im_start|>system\n<tools>\n{"type": "function", "function": {"name": "f", "x": ' + BIG + "}}\n"
        "</tools><|im_end|>\n"
        '<|im_start|>user\n<tool_response>\n{"name": "f", "content": ' + BIG + "}\n</tool_response><|im_end|>\n"
    )
    t = ht.parse_transcript(text)
    tools = t.turns[0].parts[0]
    assert isinstance(tools, ht.ToolsBlock) and str(tools.tools[0]["function"]["x"]) == BIG
    response = t.turns[1].parts[0]
    assert isinstance(response, ht.ToolResponse) and response.name == "f"
    assert ht.parse_transcript(text, ids=ht.sequential_ids()) == _stream(
        text, size=5, level="transcript", ids=ht.sequential_ids()
    )


def test_issue10_big_integer_as_name_is_a_diagnostic() -> None:
    c = ht.parse_completion('<tool_call>{"name": ' + BIG + ', "arguments": {}}</tool_call>')
    assert [d.code for d in c.diagnostics] == ["HT104"]


def test_exact_int_round_trips_without_touching_the_limit() -> None:
    before = sys.get_int_max_str_digits()
    n = jsonio.loads(BIG)
    assert isinstance(n, jsonio.ExactInt) and repr(n) == BIG
    assert pickle.loads(pickle.dumps(n)) == n and str(pickle.loads(pickle.dumps(n))) == BIG
    assert jsonio.dumps_spaced({"a": [n, -n, 10**5000]}) == '{"a": [' + BIG + ", -" + BIG + ", 1" + "0" * 5000 + "]}"
    assert jsonio.dumps_compact([n]) == "[" + BIG + "]"
    assert jsonio.dumps_fast([n]) == "[" + BIG + "]"
    assert sys.get_int_max_str_digits() == before


def test_dumps_marker_collision_is_retried() -> None:
    value = {"s": "\x00hermes-int-", "n": jsonio.loads(BIG)}
    assert jsonio.loads(jsonio.dumps_spaced(value)) == value


# ------------------------------------------------------------------ issue item 2: wrong argument types


def test_issue10_repro2_feed_bytes_is_a_usage_error() -> None:
    with pytest.raises(ht.UsageError, match="chunk must be a str"):
        StreamParser().feed(b"x")  # type: ignore[arg-type]


def test_issue10_repro2_detect_dialect_none_is_a_usage_error() -> None:
    with pytest.raises(ht.UsageError, match="text must be a str"):
        ht.detect_dialect(None)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("call", "argument"),
    [
        (lambda: ht.parse_completion(None), "text"),  # type: ignore[arg-type]
        (lambda: ht.parse_transcript(b"x"), "text"),  # type: ignore[arg-type]
        (lambda: ht.parse_completion("x", strict="yes"), "strict"),  # type: ignore[arg-type]
        (lambda: ht.parse_completion("x", max_block_chars="9"), "max_block_chars"),  # type: ignore[arg-type]
        (lambda: ht.parse_completion("x", dialect=["hermes"]), "dialect"),  # type: ignore[arg-type]
        (lambda: ht.parse_completion("x", ids=5), "ids"),  # type: ignore[arg-type]
        (lambda: ht.parse_completion_with("x", None), "options"),  # type: ignore[arg-type]
        (lambda: StreamParser(stream_arguments=1), "stream_arguments"),  # type: ignore[arg-type]
        (lambda: StreamParser(level=None), "level"),  # type: ignore[arg-type]
        (lambda: StreamParser(options={}), "options"),  # type: ignore[arg-type]
    ],
)
def test_wrong_argument_types_are_usage_errors(call: Any, argument: str) -> None:
    with pytest.raises(ht.UsageError, match=argument):
        call()


# ------------------------------------------------------------------ issue item 3: duplicate keys

DUP_NAME = '<tool_call>{"name": "read_file", "arguments": {"p": "x"}, "name": "delete_file"}</tool_call>'


def test_issue10_repro3_duplicate_name_is_invalid_in_lenient_mode() -> None:
    c = ht.parse_completion(DUP_NAME)
    assert c.tool_calls == () and [d.code for d in c.diagnostics] == ["HT115"]
    assert [p.code for p in c.parts if isinstance(p, ht.InvalidToolCall)] == ["HT115"]
    assert '"read_file", then "delete_file"' in c.diagnostics[0].message


def test_issue10_repro3_duplicate_name_is_an_error_in_strict_mode() -> None:
    with pytest.raises(ht.ParseError, match="HT115"):
        ht.parse_completion(DUP_NAME, strict=True)


def test_issue10_repro3_stream_announcement_is_taken_back() -> None:
    from hermes_toolcall._events import DiagnosticEvent, ToolCallEnd, ToolCallStart

    p = StreamParser()
    events = [e for ch in DUP_NAME for e in p.feed(ch)] + p.close()
    starts = [e for e in events if isinstance(e, ToolCallStart)]
    ends = [e for e in events if isinstance(e, ToolCallEnd)]
    assert [s.name for s in starts] == ["read_file"]
    assert len(ends) == 1 and ends[0].id == starts[0].id and ends[0].call is None
    assert ends[0].invalid is not None and ends[0].invalid.code == "HT115"
    assert any(isinstance(e, DiagnosticEvent) and e.diagnostic.code == "HT115" for e in events)


@pytest.mark.parametrize(
    "body",
    [
        "{'name': 'a', 'arguments': {}, 'arguments': {'x': 1}}",  # Python literal
        '{"name": "a", "parameters": {}, "parameters": {"x": 1}}',  # an alias
        '[{"name": "a", "arguments": {}}, {"name": "a", "name": "b", "arguments": {}}]',  # in an array
        '{"name": "a", "arguments": {"d": ' + "[" * 300 + "]" * 300 + '}, "name": "b"}',  # too deep for positions
    ],
)
def test_duplicate_keys_in_every_body_shape(body: str) -> None:
    text = f"<tool_call>{body}</tool_call>"
    c = ht.parse_completion(text, ids=ht.sequential_ids())
    assert c.tool_calls == () and [p.code for p in c.parts if isinstance(p, ht.InvalidToolCall)] == ["HT115"]
    assert c == _stream(text, size=3, ids=ht.sequential_ids())


def test_duplicate_keys_inside_arguments_are_the_arguments_business() -> None:
    c = ht.parse_completion('<tool_call>{"name": "a", "arguments": {"x": 1, "x": 2}}</tool_call>')
    assert c.tool_calls[0].arguments == {"x": 2}


# ------------------------------------------------------------------ issue items 4-5: OpenAI chunks = message

from hermes_toolcall.testing import accumulate_chunks, check_openai_chunks, openai_accumulate  # noqa: E402

TRUNCATED_CALL = '<tool_call>\n{"name": "final_answer", "arguments": {"trigger": true}'
STRING_ARGUMENTS = '<tool_call>\n{"name": "final_answer", "arguments": "hello"}</tool_call>'
TEXT_AFTER_CALL = '<tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call>\n\nDone.'


def _chunks(text: str, *, eager: bool | None = None, **options: Any) -> list[dict[str, Any]]:
    p = StreamParser(**options)
    c = ht.OpenAIChunker() if eager is None else ht.OpenAIChunker(eager=eager)
    out = c.start()
    for ch in text:
        out += c.feed(p.feed(ch))
    return out + c.feed(p.close()) + c.finish()


@pytest.mark.parametrize(("text", "code"), [(TRUNCATED_CALL, "HT102"), (STRING_ARGUMENTS, "HT105")])
def test_issue10_repro4_default_chunker_sends_no_rejected_call(text: str, code: str) -> None:
    want = ht.parse_completion(text).to_openai()
    assert want["tool_calls"] == []
    for stream_arguments in (False, True):
        out = _chunks(text, stream_arguments=stream_arguments)
        message, finish = accumulate_chunks(out)
        assert "tool_calls" not in message and finish == "stop"
        theirs = openai_accumulate(out)
        assert theirs is not None and theirs[0]["tool_calls"] == [] and theirs[1] == "stop"


@pytest.mark.parametrize(("text", "code"), [(TRUNCATED_CALL, "HT102"), (STRING_ARGUMENTS, "HT105")])
def test_issue10_repro4_eager_chunker_names_the_rejected_call_in_its_last_chunk(text: str, code: str) -> None:
    out = _chunks(text, eager=True)
    message, _ = accumulate_chunks(out)
    assert message["tool_calls"][0]["function"]["name"] == "final_answer"  # announced: cannot be taken back
    rejected = out[-1]["rejected_tool_calls"]
    assert [(r["index"], r["name"], r["code"]) for r in rejected] == [(0, "final_answer", code)]
    assert out[-1]["choices"][0]["finish_reason"] == "stop"
    check_openai_chunks(list(text), eager=True, options={})  # after dropping it: the message


def test_issue10_repro5_content_after_a_call_matches_to_openai() -> None:
    want = ht.parse_completion(TEXT_AFTER_CALL).to_openai()
    assert want["content"] == "Done."
    for eager in (False, True):
        message, _ = accumulate_chunks(_chunks(TEXT_AFTER_CALL, eager=eager))
        assert message["content"] == "Done."


def test_to_openai_keeps_leading_whitespace_of_text_before_the_first_call() -> None:
    # the rule a stream can keep: leading ws is dropped only when a valid call came before the text
    text = '  Hi <tool_call>{"name": "f", "arguments": {}}</tool_call>\n'
    assert ht.parse_completion(text).to_openai()["content"] == "  Hi"
    message, _ = accumulate_chunks(_chunks(text))
    assert message["content"] == "  Hi"


def test_chunker_default_is_not_eager_and_rejects_wrong_arguments() -> None:
    assert ht.OpenAIChunker().eager is False
    with pytest.raises(ht.UsageError, match="eager"):
        ht.OpenAIChunker(eager="yes")  # type: ignore[arg-type]
    with pytest.raises(ht.UsageError, match="events"):
        ht.OpenAIChunker().feed("text")  # type: ignore[arg-type]
    with pytest.raises(ht.UsageError, match="events"):
        ht.OpenAIChunker().feed([1])  # type: ignore[list-item]


# ------------------------------------------------------------------ issue item 6: bounded streaming memory

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from hermes_toolcall._events import ReasoningDelta, ReasoningEnd, ReasoningStart, TurnEnd  # noqa: E402
from hermes_toolcall.testing import adversarial_texts, chunkings  # noqa: E402
from hypothesis_stats import count, examples  # noqa: E402


def _events(chunks: Any, forget_at: int = 0, **options: Any) -> list[Any]:
    p = StreamParser(ids=ht.sequential_ids(), **options)
    if forget_at:
        p.forget_lines_at = forget_at  # forget old line starts at once
    out = [e for c in chunks for e in p.feed(c)]
    try:
        out += p.close()
    except ht.StreamError:
        out += p.closing_events
    return out


def _without_turn_parts(events: list[Any]) -> list[Any]:
    """The events less what ``retain=False`` does not keep: a ``TurnEnd``'s parts, and a ``ReasoningEnd``
    part's text (as a tuple of the part's other fields), which went out as ``ReasoningDelta`` events."""
    import dataclasses

    def lean(e: Any) -> Any:
        if isinstance(e, TurnEnd):
            return dataclasses.replace(e, turn=dataclasses.replace(e.turn, parts=()))
        if isinstance(e, ReasoningEnd):
            p = e.part
            return (e.kind, e.closed, None if p is None else (p.kind, p.span, p.opened, p.closed))
        return e

    return [lean(e) for e in events]


def _reasoning_texts(events: list[Any]) -> list[str | None]:
    """Each ``ReasoningEnd`` part's text (None: no part) as the ``ReasoningDelta`` events since its
    ``ReasoningStart`` give it (a retaining parser's part holds exactly that text: checked with it)."""
    out: list[str | None] = []
    pieces: list[str] = []
    for e in events:
        if isinstance(e, ReasoningStart):
            pieces = []
        elif isinstance(e, ReasoningDelta):
            pieces.append(e.text)
        elif isinstance(e, ReasoningEnd):
            out.append(None if e.part is None else "".join(pieces))
    return out


def _part_texts(events: list[Any]) -> list[str | None]:
    return [None if e.part is None else e.part.text for e in events if isinstance(e, ReasoningEnd)]


@settings(max_examples=examples(200))
@given(data=st.data(), text=adversarial_texts(), level=st.sampled_from(["completion", "transcript"]),
       strict=st.booleans())
def test_retain_false_gives_the_same_events(data: st.DataObject, text: str, level: str, strict: bool) -> None:
    chunks = data.draw(chunkings(text), label="chunks")
    kept = _events(chunks, level=level, strict=strict, stream_arguments=True)
    lean = _events(chunks, level=level, strict=strict, stream_arguments=True, retain=False, forget_at=2)
    assert _without_turn_parts(lean) == _without_turn_parts(kept)
    # the reasoning a lean parser does not keep went out whole as deltas: its parts' text is empty
    assert _reasoning_texts(lean) == _part_texts(kept)
    assert all(t in (None, "") for t in _part_texts(lean))
    count("stream: retain=False gives the same events")


@settings(max_examples=examples(200))
@given(
    data=st.data(),
    text=adversarial_texts(),
    undeclared=st.sampled_from(["keep", "text", "drop"]),
    stream_arguments=st.booleans(),
)
def test_retain_false_gives_the_same_events_under_a_tools_policy(
    data: st.DataObject, text: str, undeclared: str, stream_arguments: bool
) -> None:
    """The serving adapters' engine (``integrations.stream_parser``: retain=False, tools declared, either
    mode): the same events as a retaining parser, blocks that become text (``undeclared="text"``) included."""
    chunks = data.draw(chunkings(text), label="chunks")
    options: dict[str, Any] = {
        "level": "completion",
        "tools": [{"type": "function", "function": {"name": "f"}}],
        "undeclared": undeclared,
        "stream_arguments": stream_arguments,
    }
    lean, kept = _events(chunks, retain=False, forget_at=2, **options), _events(chunks, **options)
    assert _without_turn_parts(lean) == _without_turn_parts(kept) and _reasoning_texts(lean) == _part_texts(kept)
    count("stream: retain=False gives the same events under a tools policy")


def test_regression_retain_false_keeps_no_text_of_a_reasoning_block_never_closed() -> None:
    """Regression (smallfix 2): ``StreamParser(retain=False)`` kept the whole text of an open reasoning
    segment until it ended, for its ``ReasoningEnd`` part (5 MB never-closed ``<think>`` fed in 4 KB chunks:
    peak 10.6 MB; now 0.01 MB). Its text goes out as deltas only; the part keeps its span, kind and
    opened/closed, with an empty text. With line ends, what remains is the line table of the open element
    (docs/statemachine.md, "Memory"): the same as for plain text of that length."""
    import tracemalloc

    def peak(text: str, **options: Any) -> tuple[int, list[Any]]:
        tracemalloc.start()
        p = StreamParser(retain=False, ids=ht.sequential_ids(), **options)
        ends = [e for i in range(0, len(text), 4096) for e in p.feed(text[i : i + 4096]) if isinstance(e, ReasoningEnd)]
        ends += [e for e in p.close() if isinstance(e, ReasoningEnd)]
        top = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        return top, ends

    size = 5 << 20
    words = ("plan the next step " * (size // 19 + 1))[:size]
    peak("<think>x", level="completion")  # warm-up: one-off global allocations fall here
    for level, head in (("completion", ""), ("transcript", "<|im_start|>assistant\n")):
        for tag, close in (("<think>", ""), ("<scratch_pad>", ""), ("<think>", "</think>\nhi")):
            top, (end,) = peak(head + tag + words + close, level=level)
            assert top < 1_000_000, (level, tag, close, top)  # was 2x the text: 10.6 MB
            assert end.part is not None and end.part.text == "" and end.closed == bool(close)
            assert (end.part.span.start, end.part.span.end) == (len(head), len(head + tag + words) + len(close[:8]))
    lines = ("plan the next step\n" * (size // 19 + 1))[:size]
    with_lines, _ = peak("<think>" + lines)
    plain, _ = peak(lines)
    assert with_lines < 1.1 * plain + 100_000, (with_lines, plain)  # reasoning adds nothing to the line table


def test_retain_false_result_is_a_usage_error() -> None:
    p = StreamParser(retain=False)
    p.feed("hi")
    p.close()
    with pytest.raises(ht.UsageError, match="retain"):
        p.result()


def test_retain_false_strict_close_still_raises_with_the_errors() -> None:
    p = StreamParser(retain=False, strict=True)
    p.feed("<tool_call>{'name': 'f', 'arguments': {}}</tool_call> hi")
    with pytest.raises(ht.StreamError, match="HT202"):
        p.close()


def test_issue10_repro6_retain_false_memory_does_not_grow_with_the_stream() -> None:
    import tracemalloc

    unit = 'Checking.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Zürich"}}\n</tool_call>\n'

    def peak(repeats: int) -> int:
        tracemalloc.start()
        p = StreamParser(retain=False, ids=ht.sequential_ids())
        for _ in range(repeats):
            p.feed(unit[:40])
            p.feed(unit[40:])
        p.close()
        top = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        return top

    # A warm-up first: one-off global allocations fall there, not in the measure (found 2026-12-04: after a
    # property test had interned thousands of call names, interning "get_weather" again resized CPython's
    # interned-strings table, one 1.9 MB allocation inside the 1 MB run; the stream itself stayed flat).
    peak(2_000)
    small, big = peak(2_000), peak(10_000)  # 0.2 MB and 1 MB of calls
    assert big < 1.2 * small + 50_000, (small, big)
    assert big < 1_000_000


# ------------------------------------------------------------------ errors split by fault


@pytest.mark.parametrize(
    ("cls", "fault", "base"),
    [
        (ht.UsageError, "caller", ht.CallerError),
        (ht.StreamStateError, "caller", ht.CallerError),
        (ht.ParseError, "input", ht.InputError),
        (ht.StreamError, "input", ht.InputError),
        (ht.ValidationError, "input", ht.InputError),
        (ht.DecodeError, "input", ht.InputError),
        (ht.RenderError, "input", ht.InputError),
        (ht.ConformanceError, "input", ht.InputError),
        (ht.InternalError, "internal", ht.HermesError),
    ],
)
def test_errors_are_split_by_fault(cls: type[ht.HermesError], fault: str, base: type[ht.HermesError]) -> None:
    assert cls.fault == fault and issubclass(cls, base) and issubclass(cls, ht.HermesError)


def test_stream_out_of_order_is_a_caller_fault_and_still_a_stream_error() -> None:
    p = StreamParser()
    p.close()
    with pytest.raises(ht.StreamStateError) as info:
        p.feed("x")
    assert isinstance(info.value, ht.StreamError) and isinstance(info.value, ht.UsageError)
    assert info.value.fault == "caller"


def test_a_bug_inside_a_public_call_is_an_internal_error(monkeypatch: pytest.MonkeyPatch) -> None:
    import hermes_toolcall._parse as parse_module

    def boom(*args: Any, **kwargs: Any) -> Any:
        raise RecursionError("simulated bug")

    monkeypatch.setattr(parse_module, "build_completion", boom)
    with pytest.raises(ht.InternalError, match="parse_completion: RecursionError") as info:
        ht.parse_completion("x")
    assert isinstance(info.value.__cause__, RecursionError)
    monkeypatch.setattr(StreamParser, "_run", boom)
    with pytest.raises(ht.InternalError, match=r"StreamParser\.feed"):
        StreamParser().feed("<tool_call>")
