"""The public testing kit: chunking helpers, engine comparison, span tiling, and the strategies."""

from __future__ import annotations

import importlib
import sys
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import hermes_toolcall.testing._helpers as helpers
from hermes_toolcall._model import Completion, Diagnostic, InvalidToolCall, Span, Text, ToolCall, Transcript, Turn
from hermes_toolcall._positions import LineIndex
from hermes_toolcall._profiles import DIALECTS
from hermes_toolcall.errors import ParseError, UsageError
from hermes_toolcall.testing import (
    adversarial_texts,
    all_chunkings,
    assert_engines_agree,
    assert_spans_tile,
    check_argument_deltas,
    chunk_at,
    chunkings,
    completion_cases,
    conversations,
    describe,
    feed_in_chunks,
    json_values,
    merge_deltas,
    mutations,
    plain_texts,
    truncations,
)

# ---- chunking helpers ------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["", "a", "ab", "abcde", "<tool_call>"])
def test_all_chunkings_is_exhaustive(text: str) -> None:
    found = list(all_chunkings(text))
    assert len(found) == max(1, 2 ** (len(text) - 1))
    assert len(set(found)) == len(found)
    assert all("".join(c) == text for c in found)
    assert all(all(found_chunk for found_chunk in c) for c in found if text)


def test_chunk_at() -> None:
    assert chunk_at("abcdef", [0, 6, 3, 3, 9, -1]) == ("abc", "def")
    assert chunk_at("", [1]) == ("",)


class _FakeParser:
    """Records the chunks it is fed; the result is their concatenation."""

    def __init__(self) -> None:
        self.fed: list[str] = []

    def feed(self, chunk: str) -> list[str]:
        self.fed.append(chunk)
        return [chunk.upper()]

    def close(self) -> list[str]:
        return ["<close>"]

    def result(self) -> Any:
        return tuple(self.fed)


def test_feed_in_chunks_strings_sizes_and_chars() -> None:
    events, result = feed_in_chunks(_FakeParser, "abcdef", ["ab", "", "cdef"])  # type: Any, Any
    assert result == ("ab", "", "cdef") and events == ["AB", "", "CDEF", "<close>"]
    fed: Any = feed_in_chunks(_FakeParser, "abcdef", [2, 3])[1]
    assert fed == ("ab", "cde", "f")
    fed = feed_in_chunks(_FakeParser, "abc")[1]
    assert fed == ("a", "b", "c")
    with pytest.raises(UsageError, match="concatenate"):
        feed_in_chunks(_FakeParser, "abc", ["ab"])


# ---- describe and span tiling -------------------------------------------------------------------------


def _completion(source: str, parts: list[tuple[int, int]], end: int | None = None) -> Completion:
    idx = LineIndex(source)
    made = tuple(Text(text=source[a:b], span=idx.span(a, b)) for a, b in parts)
    end_span = idx.span(end, len(source)) if end is not None else None
    return Completion(parts=made, diagnostics=(), source=source, end=end_span)


def test_assert_spans_tile_completion() -> None:
    assert_spans_tile(_completion("hello", [(0, 5)]))
    assert_spans_tile(_completion("hi<|im_end|>", [(0, 2)], end=2))
    with pytest.raises(AssertionError, match="starts at 3, expected 2"):
        assert_spans_tile(_completion("hello", [(0, 2), (3, 5)]))
    with pytest.raises(AssertionError, match="spans end at 4, expected 5"):
        assert_spans_tile(_completion("hello", [(0, 4)]))
    idx = LineIndex("abc")
    wrong = Completion(parts=(Text(text="xyz", span=idx.span(0, 3)),), diagnostics=(), source="abc")
    with pytest.raises(AssertionError, match="is not its slice"):
        assert_spans_tile(wrong)
    block = InvalidToolCall(id="call_0", raw="ab", span=idx.span(0, 3), code="HT103", message="m")
    with pytest.raises(AssertionError, match="raw 'ab' is not its slice"):
        assert_spans_tile(Completion(parts=(block,), diagnostics=(), source="abc"))


def test_assert_spans_tile_transcript() -> None:
    source = "<|im_start|>user\nhi<|im_end|>\n"
    idx = LineIndex(source)
    turn = Turn(
        role="user",
        parts=(Text(text="hi", span=idx.span(17, 19)),),
        span=idx.span(0, 29),
        header=idx.span(0, 17),
        end=idx.span(19, 29),
    )
    gap = Text(text="\n", span=idx.span(29, 30))
    assert_spans_tile(Transcript(turns=(turn,), gaps=(gap,), diagnostics=(), source=source))
    with pytest.raises(AssertionError, match="turns and gaps"):
        assert_spans_tile(Transcript(turns=(turn,), gaps=(), diagnostics=(), source=source))


def test_describe_lists_parts_and_diagnostics() -> None:
    idx = LineIndex("a\nb")
    diag = Diagnostic(code="HT121", severity="warning", message="m", span=idx.span(2, 3))
    c = Completion(parts=(Text(text="a\nb", span=idx.span(0, 3)),), diagnostics=(diag,), source="a\nb")
    lines = describe(c)
    assert lines[1] == "  Text(text='a\\nb', span=[0,3) 1:1)"
    assert lines[2].startswith("  diag Diagnostic(code='HT121', severity='warning'")


# ---- assert_engines_agree (with stand-in engines) ---------------------------------------------------------


def _fake_engines(monkeypatch: pytest.MonkeyPatch, machine_text: Any, events: Any = None) -> None:
    def grammar(text: str, *, level: str, **options: Any) -> Completion:
        if options.get("strict"):
            span = Span(start=0, end=1, line=1, column=1)
            raise ParseError("bad", [Diagnostic(code="HT103", severity="error", message="m", span=span)])
        return _completion(text, [(0, len(text))] if text else [])

    def feed(options: Any, text: str, chunks: Any) -> tuple[Completion, list[Any]]:
        made = events(chunks) if events else []
        if options.get("strict"):
            return _completion(text, [(0, len(text))]), made
        return (_completion(machine_text(chunks), [(0, len(text))]) if text else _completion("", [])), made

    monkeypatch.setattr(helpers, "grammar_parse", grammar)
    monkeypatch.setattr(helpers, "_feed", feed)


def test_assert_engines_agree_passes_and_reports_a_readable_diff(monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_engines(monkeypatch, lambda chunks: "".join(chunks))
    result = assert_engines_agree("hello", chunkings=[("he", "llo")])
    assert isinstance(result, Completion) and result.parts[0].text == "hello"  # type: ignore[union-attr]
    _fake_engines(monkeypatch, lambda chunks: "".join(chunks) if len(chunks) < 3 else "HELLO")
    with pytest.raises(AssertionError) as info:
        assert_engines_agree("hello")
    message = str(info.value)
    assert "engines disagree on 'hello'" in message and "+++ machine, char by char" in message
    assert "-  Text(text='hello'" in message and "+  Text(text='HELLO'" in message
    with pytest.raises(UsageError, match="concatenate"):
        assert_engines_agree("hello", chunkings=[("he",)])


def test_assert_engines_agree_compares_merged_events(monkeypatch: pytest.MonkeyPatch) -> None:
    from hermes_toolcall.statemachine import TextDelta, ToolCallStart

    _fake_engines(monkeypatch, "".join, lambda chunks: [TextDelta(text=c) for c in chunks])
    assert_engines_agree("hello", chunkings=[("he", "", "llo")])  # deltas merge to the same list
    extra = ToolCallStart(ordinal=0, id="call_0", name="f")
    def events(chunks: Any) -> list[Any]:
        return [TextDelta(text=c) for c in chunks] + [extra] * (len(chunks) > 3)

    _fake_engines(monkeypatch, "".join, events)
    with pytest.raises(AssertionError, match="events, machine, char by char"):
        assert_engines_agree("hello")


def test_merge_deltas_and_argument_deltas() -> None:
    from hermes_toolcall.statemachine import ArgumentsDelta, ReasoningDelta, TextDelta

    events = [
        ReasoningDelta(kind="think", text="a"),
        ReasoningDelta(kind="scratch_pad", text="b"),
        ArgumentsDelta(ordinal=0, id="c", text="{"),
        ArgumentsDelta(ordinal=0, id="c", text="}"),
        TextDelta(text=""),
    ]
    assert merge_deltas(events) == [events[0], events[1], ArgumentsDelta(ordinal=0, id="c", text="{}")]
    idx = LineIndex("x")
    call = ToolCall(index=0, id="c", name="f", arguments={}, arguments_json="{}", raw="x", span=idx.span(0, 1))
    done = Completion(parts=(call,), diagnostics=(), source="x")
    check_argument_deltas(events, done)
    with pytest.raises(AssertionError, match="!= final"):
        check_argument_deltas(events[2:3], done)
    with pytest.raises(AssertionError, match="!= final"):
        check_argument_deltas([ArgumentsDelta(ordinal=0, id="c", text="[")], done)
    recovered = Diagnostic(code="HT203", severity="warning", message="m", span=idx.span(0, 1))
    check_argument_deltas(events[2:3], Completion(parts=(call,), diagnostics=(recovered,), source="x"))


def test_assert_engines_agree_strict_must_reject_together(monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_engines(monkeypatch, lambda chunks: "".join(chunks))
    with pytest.raises(AssertionError, match="raised \\(strict\\) with"):
        assert_engines_agree("x", strict=True)


# ---- strategies ---------------------------------------------------------------------------------------


@settings(max_examples=60)
@given(st.data(), st.text(max_size=30))
def test_chunkings_concatenate(data: st.DataObject, text: str) -> None:
    assert "".join(data.draw(chunkings(text))) == text


@settings(max_examples=60)
@given(plain_texts())
def test_plain_texts_cannot_form_markers(text: str) -> None:
    assert "<" not in text and "\x00" not in text


@settings(max_examples=40)
@given(st.sampled_from(sorted(DIALECTS)), st.data())
def test_completion_cases_follow_the_dialect(dialect: str, data: st.DataObject) -> None:
    case = data.draw(completion_cases(dialect))
    assert case.text.count("<tool_call>") >= len(case.calls)  # arguments may quote markers too
    for name, _ in case.calls:
        spaced = f'{{"name": "{name}", "arguments": '
        compact = f'{{"name":"{name}","arguments":'
        assert (compact if dialect == "omp" else spaced) in case.text


@settings(max_examples=40)
@given(st.sampled_from(sorted(DIALECTS)), st.data())
def test_conversations_pair_each_call_with_a_result(dialect: str, data: st.DataObject) -> None:
    messages, tools = data.draw(conversations(dialect))
    names = {t["function"]["name"] for t in tools}
    pending = 0
    for m in messages:
        if m["role"] == "assistant" and m.get("tool_calls"):
            assert pending == 0
            pending = len(m["tool_calls"])
            assert {c["function"]["name"] for c in m["tool_calls"]} <= names
        elif m["role"] == "tool":
            pending -= 1
    assert pending == 0 and any(m["role"] == "user" for m in messages)


@settings(max_examples=60)
@given(adversarial_texts())
def test_adversarial_texts_are_strings(text: str) -> None:
    assert isinstance(text, str)


def test_adversarial_texts_reach_the_markers() -> None:
    seen: set[str] = set()

    @settings(max_examples=200, database=None)
    @given(adversarial_texts())
    def collect(text: str) -> None:
        seen.update(m for m in ("<tool_call>", "</tool_call>", "<|im_end|>", "<think>", "'", "\\") if m in text)

    collect()
    assert seen == {"<tool_call>", "</tool_call>", "<|im_end|>", "<think>", "'", "\\"}


@settings(max_examples=40)
@given(st.data(), st.text(max_size=20))
def test_truncations_and_mutations(data: st.DataObject, text: str) -> None:
    assert text.startswith(data.draw(truncations(text)))
    assert isinstance(data.draw(mutations(text)), str)


@settings(max_examples=40)
@given(json_values())
def test_json_values_round_trip(value: Any) -> None:
    from hermes_toolcall import _jsonio as jsonio

    assert jsonio.loads(jsonio.dumps_spaced(value)) == value


def test_strategies_need_hypothesis(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "hypothesis", None)
    monkeypatch.delitem(sys.modules, "hermes_toolcall.testing._strategies")
    with pytest.raises(UsageError, match="needs hypothesis"):
        importlib.import_module("hermes_toolcall.testing._strategies")


def test_regression_conversations_never_draw_an_unterminated_json_result() -> None:
    """Hypothesis found conversations('qwq') drawing the tool result '["', which the renderer refuses (an
    unterminated JSON string would swallow '</tool_response>'); the strategy promises renderable conversations."""
    from hermes_toolcall import render
    from hermes_toolcall.errors import RenderError
    from hermes_toolcall.testing._strategies import ends_at_its_closer

    assert not ends_at_its_closer('["')
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "0"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"id": "call_1_0", "type": "function", "function": {"name": "a", "arguments": {"a": "0"}}}],
        },
        {"role": "tool", "tool_call_id": "call_1_0", "content": '["'},
        {"role": "assistant", "content": "0"},
    ]
    with pytest.raises(RenderError):
        render(messages, dialect="qwq")
    messages[2]["content"] = '[""]'
    assert ends_at_its_closer('[""]')
    render(messages, dialect="qwq")
