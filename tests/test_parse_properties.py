"""Properties of the grammar engine: totality, only HermesError, the partition (R1), round trips."""

from __future__ import annotations

import importlib
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from hermes_toolcall import (
    Completion,
    HermesError,
    ParseError,
    Transcript,
    parse_completion,
    parse_transcript,
    sequential_ids,
)
from hermes_toolcall._model import Span
from hermes_toolcall.conformance._generate import MARKERS
from hermes_toolcall.testing._strategies import adversarial_texts, conversations

_PIECES = (
    *MARKERS,
    "<|im_start|>assistant\n",
    "<|im_start|>user\n",
    "<|im_start|>tool\n",
    "<|im_start|>system\n",
    "<|im_start|>robot\n",
    "<tool_",
    "</tool",
    "<|im_",
    '{"name": "f", "arguments": {"a": "',
    '"}}',
    "{",
    "}",
    "[",
    "]",
    '"',
    "\\",
    "'",
    "\n",
    " ",
    "\t",
    "\r",
    "é",
    "東京",
    "\x00",
    "True",
    ",",
    ":",
)

marker_soup = st.lists(st.one_of(st.sampled_from(_PIECES), st.text(max_size=5)), max_size=25).map("".join)
any_text = st.one_of(marker_soup, adversarial_texts(), st.text())

OPTION_SETS: tuple[dict[str, Any], ...] = (
    {},
    {"calls_in_reasoning": True},
    {"stop_at_fabricated_response": True},
    {"max_block_chars": 5},
    {"calls_in_reasoning": True, "max_block_chars": 3, "stop_at_fabricated_response": True},
    {"dialect": "qwen3"},
)


def _tile(spans: list[Span], start: int, end: int) -> None:
    """The spans, sorted, cover ``[start, end)`` exactly: contiguous, no overlap, no hole."""
    pos = start
    for s in sorted(spans, key=lambda x: (x.start, x.end)):
        assert s.start == pos, f"hole or overlap at {pos}: next span {s}"
        assert s.end >= s.start
        pos = s.end
    assert pos == end, f"spans end at {pos}, expected {end}"


def _unique_spans(parts: Any) -> list[Span]:
    seen: dict[tuple[int, int], Span] = {}
    for p in parts:
        seen.setdefault((p.span.start, p.span.end), p.span)  # calls of one block share its span
    return list(seen.values())


def check_completion_partition(c: Completion) -> None:
    n = len(c.source)
    spans = _unique_spans(c.parts)
    if c.end is not None:
        spans.append(c.end)
    if c.stopped_at is not None:
        spans.append(Span(start=c.stopped_at, end=n, line=1, column=1))
    _tile(spans, 0, n)
    for p in c.parts:
        assert p.span.end > p.span.start, f"empty part {p}"
        raw = getattr(p, "raw", None)
        if raw is not None:
            assert raw == c.source[p.span.start : p.span.end]
    for d in c.diagnostics:
        assert 0 <= d.start <= d.end <= n
    assert [d.start for d in c.diagnostics] == sorted(d.start for d in c.diagnostics)


def check_transcript_partition(t: Transcript) -> None:
    n = len(t.source)
    limit = n if t.stopped_at is None else t.stopped_at
    _tile([turn.span for turn in t.turns] + [g.span for g in t.gaps], 0, limit)
    for turn in t.turns:
        inner = [turn.header, *_unique_spans(turn.parts)]
        if turn.end is not None:
            inner.append(turn.end)
        _tile(inner, turn.span.start, turn.span.end)
    for d in t.diagnostics:
        assert 0 <= d.start <= d.end <= n


@settings(max_examples=200)
@given(text=any_text, which=st.integers(0, len(OPTION_SETS) - 1))
@example(text="<think>a<tool_call>{}</tool_call>", which=1)
@example(text='<tool_call>{"a": "\\', which=0)
@example(text="<|im_start|>", which=0)
@example(text='<tool_call>{"name": "f", "arguments": {"a": "xxxxxxxx"}}</tool_call>tail', which=3)
@example(text="<think>ab<tool_call>{}</tool_call>cd</think>", which=4)
def test_completion_lenient_never_raises_and_partitions(text: str, which: int) -> None:
    c = parse_completion(text, ids=sequential_ids(), **OPTION_SETS[which])
    check_completion_partition(c)


@settings(max_examples=200)
@given(text=any_text, which=st.integers(0, len(OPTION_SETS) - 1))
@example(text="<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n", which=0)
@example(text="<|im_end|>", which=0)  # regression: a lone <|im_end|> was lexed as a turn end, not a gap
@example(text="<|im_end|><|im_start|>", which=5)  # regression: a *_LINK opened the first turn
@example(text="x<|im_end|><|im_start|>foo<|im_start|>assistant\n<tool_response>z", which=2)
@example(text="<|im_start|>tool\n<tool_response>abcdefgh</tool_response><|im_end|>", which=3)
@example(text="<|im_start|>system\n<tools>abcdefgh</tools><|im_end|>", which=3)
@example(text="<|im_start|>assistant\n<scratch_pad>ab<tool_call>xyz</tool_call>q<|im_end|>z", which=4)
def test_transcript_lenient_never_raises_and_partitions(text: str, which: int) -> None:
    t = parse_transcript(text, ids=sequential_ids(), **OPTION_SETS[which])
    check_transcript_partition(t)


@settings(max_examples=150)
@given(text=any_text, transcript=st.booleans())
def test_strict_raises_only_parse_error_with_the_errors(text: str, transcript: bool) -> None:
    fn = parse_transcript if transcript else parse_completion
    try:
        result = fn(text, strict=True, ids=sequential_ids())
    except ParseError as exc:
        assert isinstance(exc, HermesError)
        assert exc.diagnostics and all(d.severity == "error" for d in exc.diagnostics)
        lenient = fn(text, strict=False, ids=sequential_ids())
        assert lenient is not None
    else:
        assert all(d.severity != "error" for d in result.diagnostics)


def test_non_str_input_is_a_usage_error() -> None:
    with pytest.raises(HermesError):
        parse_completion(b"bytes")  # type: ignore[arg-type]


# ---------------------------------------------------------------- round trip through the renderer

# What each template itself drops or changes, so the parse cannot give it back:
# * hermes, hermes-vllm: the template writes its own system prompt when tools are given and drops a
#   user system message then; assistant content beside calls is dropped (content_before_calls).
# * every dialect: call ids are not on the wire (parsing mints new ones; tool results bind by
#   position), so ids are compared by binding, not by value.
# * hermes-vllm, qwen2.5, qwq: arguments are tojson-encoded; they still decode to the same object.
# * qwen3, qwq: reasoning handling aside (the generated conversations carry none), content is
#   rendered stripped; the generated texts are already stripped.
# * omp: the system turn is the in-band tool prompt plus the user's system text.
DIALECTS = ("hermes", "hermes-vllm", "qwen3", "qwen2.5", "qwq", "omp")


def _normal(messages: list[dict[str, Any]], *, skip_system: bool) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    ids: dict[str, int] = {}
    for m in messages:
        role = m["role"]
        if role in ("system", "developer") and skip_system:
            continue
        entry: dict[str, Any] = {"role": role}
        calls = m.get("tool_calls") or []
        if calls:
            entry["tool_calls"] = []
            for c in calls:
                args = c["function"]["arguments"]
                if isinstance(args, str):
                    from hermes_toolcall import _jsonio as jsonio

                    args = jsonio.loads(args)
                ids[c["id"]] = len(ids)
                entry["tool_calls"].append((c["function"]["name"], args))
        else:
            entry["content"] = m.get("content") or ""
        if role == "tool":
            entry["binds"] = ids.get(m.get("tool_call_id") or "", -1)
        out.append(entry)
    return out


@pytest.mark.parametrize("dialect", DIALECTS)
@settings(max_examples=40)
@given(data=st.data())
def test_round_trip_render_then_parse(dialect: str, data: st.DataObject) -> None:
    render_mod = importlib.import_module("hermes_toolcall.render")  # the package: its name is shadowed by ht.render
    from hermes_toolcall.errors import RenderError

    messages, declared = data.draw(conversations(dialect))
    try:
        text = render_mod.render(messages, tools=declared, dialect=dialect)
    except RenderError:
        return
    parsed = parse_transcript(text, dialect=dialect, ids=sequential_ids())
    assert parsed.errors == ()
    got = parsed.to_openai_messages()
    assert _normal(got, skip_system=True) == _normal(messages, skip_system=True)
