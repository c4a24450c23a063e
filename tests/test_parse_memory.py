"""The whole-text parse's memory (issue 10): tokens read in batches, shared ints and strings, linear size cuts.

The figures are in bench/parse.py and docs/performance.md; these tests pin the mechanisms that make
them, each of which fails on the revision before it.
"""

from __future__ import annotations

import gc
import tracemalloc
from collections.abc import Iterator
from contextlib import contextmanager
from itertools import pairwise
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from helpers import soup
from hermes_toolcall import parse_completion, parse_transcript, sequential_ids
from hermes_toolcall.grammar import _build as build
from hermes_toolcall.grammar import _driver as driver
from hermes_toolcall.grammar._parser import token_batches
from hermes_toolcall.testing._strategies import adversarial_texts, completions, rendered_transcripts


def _exchange(n: int) -> str:
    return (
        f"<|im_start|>assistant\n<tool_call>\n"
        f'{{"name": "get_weather", "arguments": {{"city": "City {n}", "days": {n % 7}}}}}\n</tool_call>\n'
        f'<tool_call>\n{{"name": "get_time", "arguments": {{"tz": "UTC"}}}}\n</tool_call><|im_end|>\n'
        f'<|im_start|>tool\n<tool_response>\n{{"temp": {n}}}\n</tool_response>\n'
        f"<tool_response>\n12:00\n</tool_response><|im_end|>\n"
    )


def call_dense(exchanges: int) -> str:
    """bench/parse.py's call-dense transcript: two calls and two results per exchange."""
    return "".join(_exchange(n) for n in range(exchanges))


@contextmanager
def batch_size(chars: int) -> Iterator[None]:
    """Every token pass of the whole-text parse in batches of about ``chars`` characters."""
    saved = driver.BATCH_CHARS, driver.FIRST_BATCH_CHARS
    driver.BATCH_CHARS = driver.FIRST_BATCH_CHARS = chars
    try:
        yield
    finally:
        driver.BATCH_CHARS, driver.FIRST_BATCH_CHARS = saved


_OPTIONS = st.fixed_dictionaries(
    {},
    optional={
        "strict": st.booleans(),
        "calls_in_reasoning": st.booleans(),
        "stop_at_fabricated_response": st.booleans(),
        "max_block_chars": st.integers(min_value=1, max_value=40),
        "dialect": st.sampled_from(["hermes", "qwen3", "omp"]),
    },
)


def _parse(level: str, text: str, options: dict[str, Any]) -> object:
    """The value of a parse, or the exception type of a strict parse that raised."""
    parse: Any = parse_transcript if level == "transcript" else parse_completion
    try:
        return parse(text, ids=sequential_ids(), **options)
    except Exception as exc:  # strict mode: compare what was raised
        return type(exc), str(exc)


@settings(max_examples=300)
@given(
    text=st.one_of(soup, adversarial_texts(), completions(), rendered_transcripts(), st.text()),
    level=st.sampled_from(["transcript", "completion"]),
    options=_OPTIONS,
    chars=st.integers(min_value=1, max_value=8),
)
@example(text=call_dense(3), level="transcript", options={}, chars=1)
@example(text=call_dense(3), level="transcript", options={"max_block_chars": 20}, chars=2)
@example(text='a<think>b<tool_call>{"name": "f"}</tool_call>c', level="completion", options={}, chars=1)
def test_the_parse_does_not_depend_on_where_token_batches_end(
    text: str, level: str, options: dict[str, Any], chars: int
) -> None:
    """Tokens are read batch by batch: a batch may end after any token, the values are the same."""
    whole = _parse(level, text, options)
    with batch_size(chars):
        assert _parse(level, text, options) == whole


def test_batches_are_the_tokens_of_the_text_in_order() -> None:
    text = call_dense(40)
    batches = list(token_batches(text, "transcript", build.Variant()))
    assert len(batches) > 1 and all(batches)
    flat = [tok for batch in batches for tok in batch]
    assert flat == driver.Driver(driver.tables.VARIANT_LEXERS[build.Variant().key]).tokens(text, "transcript")
    assert [b[0] for b in batches[1:]] == [(b[0][0], p[-1][2], b[0][2]) for p, b in pairwise(batches)]


def test_the_parse_holds_one_batch_of_tokens_at_a_time() -> None:
    """Regression: the whole token list of the input lived beside the values built from it, 1.9x the
    input at the peak on call-dense text (the result itself is about 12x)."""
    text = call_dense(1500)  # 475 KB
    parse_transcript(text[:5000], ids=sequential_ids())  # caches warm
    gc.collect()
    tracemalloc.start()
    try:
        result = parse_transcript(text, ids=sequential_ids())
        retained, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(result.turns) == 3000
    assert peak - retained < 0.3 * len(text)


def test_adjacent_spans_share_their_offsets() -> None:
    """A span starts with the int object its neighbour ends with (an int above 256 is 28 bytes)."""
    text = call_dense(2) + "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\nx<tool_call>\n{}\n</tool_call>y"
    t = parse_transcript(text, ids=sequential_ids())
    assert t.turns[-1].span.start > 256
    for turn in t.turns[1:]:
        assert turn.span.start is turn.header.start
        assert turn.header.end is turn.parts[0].span.start
        for left, right in pairwise(turn.parts):
            assert left.span.end is right.span.start
        if turn.end is not None:
            assert turn.parts[-1].span.end is turn.end.start
            assert turn.end.end is turn.span.end
    for gap, (turn, after) in zip(t.gaps, pairwise(t.turns), strict=False):
        assert gap.span.start is turn.span.end
        assert gap.span.end is after.span.start


def test_roles_and_tool_names_are_one_string_each() -> None:
    """Regression: each turn's role and each call's name was a new string (58 bytes and more)."""
    text = call_dense(3) + "<|im_start|>critic\nok<|im_end|>\n<|im_start|>critic\nno"
    t = parse_transcript(text, ids=sequential_ids())
    roles: dict[str, set[int]] = {}
    names: dict[str, set[int]] = {}
    for turn in t.turns:
        roles.setdefault(turn.role, set()).add(id(turn.role))
        for call in turn.tool_calls:
            names.setdefault(call.name, set()).add(id(call.name))
    assert set(roles) == {"assistant", "tool", "critic"}
    assert all(len(objects) == 1 for objects in (roles["assistant"], roles["tool"], *names.values()))
    assert set(names) == {"get_weather", "get_time"}


def test_size_cuts_lex_the_input_about_once() -> None:
    """Regression: each size cut (§5.4) parsed a copy of the whole rest of the input again, so a text
    with many cuts was quadratic (a 0.5 MB call-dense transcript with ``max_block_chars=40``: 33-46 s,
    now 0.5 s). Each resume now lexes one first batch past the cut, however long the rest is."""
    text = call_dense(200)
    lexed = 0
    passes = 0

    def counting(*args: Any, **kwargs: Any) -> Iterator[list[tuple[str, int, int]]]:
        nonlocal lexed, passes
        passes += 1
        for batch in token_batches(*args, **kwargs):
            lexed += batch[-1][2] - batch[0][1]
            yield batch

    saved = build.token_batches
    build.token_batches = counting  # type: ignore[assignment]
    try:
        result = parse_transcript(text, ids=sequential_ids(), max_block_chars=40)
    finally:
        build.token_batches = saved  # type: ignore[assignment]
    cuts = sum(1 for d in result.diagnostics if d.code == "HT114")
    assert cuts >= 400 and passes == cuts + 1
    # every pass lexes at most its first batch and one token past where it is abandoned
    assert lexed <= len(text) + passes * (driver.FIRST_BATCH_CHARS + 200)
