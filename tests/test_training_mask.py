"""``train_mask`` and ``token_labels``: what is trained, per policy and option, on generated conversations.

Properties (every dialect): the intervals are sorted, disjoint, merged and inside assistant turns;
they never touch a header, another role's text, the newline after ``<|im_end|>`` or the generation
prompt; ``all_assistant`` ⊇ ``last_assistant`` ⊇ ``completion``; turning an option off removes exactly
the reasoning blocks (and the separator after each) or the ``<|im_end|>``. Token labels against a
brute-force labelling of every token, with both straddle policies.
"""

from __future__ import annotations

import itertools
import sys
import warnings
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hermes_toolcall import RenderError, TokenBoundaryWarning, UsageError, render, token_labels, train_mask
from hermes_toolcall._profiles import DIALECTS
from hermes_toolcall.training._tokens import IGNORE_INDEX, label_tokens
from hypothesis_stats import count, examples
from training_strategies import conversations

pytest_plugins = ["hypothesis_stats"]
ALL = sorted(DIALECTS)


def chars(intervals: tuple[tuple[int, int], ...]) -> set[int]:
    return {k for s, e in intervals for k in range(s, e)}


def _rendered(rec: dict[str, Any], dialect: str, add_generation_prompt: bool = False) -> Any:
    try:
        return render(rec["messages"], tools=rec["tools"], dialect=dialect, return_spans=True,
                      add_generation_prompt=add_generation_prompt, **rec["kwargs"])
    except RenderError:
        return None


@pytest.mark.parametrize("dialect", ALL)
@settings(max_examples=examples(60))
@given(rec=conversations(), add_generation_prompt=st.booleans())
def test_mask_properties(dialect: str, rec: dict[str, Any], add_generation_prompt: bool) -> None:
    r = _rendered(rec, dialect, add_generation_prompt)
    if r is None:
        return
    by_char = {k: s for s in r.spans for k in range(s.start, s.end)}
    masks = {}
    for policy in ("all_assistant", "last_assistant", "completion"):
        try:
            intervals = train_mask(r, policy)
        except RenderError:
            assert policy == "completion"  # the final turn does not start with the generation prompt
            intervals = ()
        prev = -1
        for s, e in intervals:
            assert prev < s < e, intervals  # sorted, disjoint, merged (a gap between neighbours)
            prev = e
        for k in chars(intervals):
            span = by_char[k]
            assert span.role == "assistant" and span.message_index is not None
            assert span.kind in ("content", "reasoning", "tool_call", "separator", "end_of_turn")
        masks[policy] = chars(intervals)
    assert masks["completion"] <= masks["last_assistant"] <= masks["all_assistant"]
    every = masks["all_assistant"]
    turns = {s.message_index for s in r.spans if s.role == "assistant" and s.kind == "header"}
    for i in turns:  # each assistant turn: its body and <|im_end|>, all of it
        own = [s for s in r.spans if s.message_index == i]
        header = next(s for s in own if s.kind == "header")
        end = next(s for s in own if s.kind == "end_of_turn")
        assert set(range(header.end, end.end)) <= every
        assert not set(range(header.start, header.end)) & every
    no_eot = chars(train_mask(r, include_end_of_turn=False))
    assert every - no_eot == {k for s in r.spans if s.kind == "end_of_turn" and s.role == "assistant"
                              for k in range(s.start, s.end)}
    no_reasoning = chars(train_mask(r, include_reasoning=False))
    dropped = every - no_reasoning
    for k in dropped:
        assert by_char[k].kind in ("reasoning", "separator")
    assert {k for s in r.spans if s.kind == "reasoning" for k in range(s.start, s.end)} <= dropped
    count("train_mask: properties")


def test_policies_on_a_conversation() -> None:
    msgs = [{"role": "user", "content": "q"},
            {"role": "assistant", "content": "", "reasoning_content": "plan",
             "tool_calls": [{"name": "f", "arguments": {"a": 1}}]},
            {"role": "tool", "content": "r"},
            {"role": "assistant", "content": "done", "reasoning_content": "ok"}]
    r = render(msgs, dialect="qwen3", return_spans=True)
    texts = {p: [r.text[s:e] for s, e in train_mask(r, p)] for p in ("all_assistant", "last_assistant", "completion")}
    call = '<tool_call>\n{"name": "f", "arguments": {"a": 1}}\n</tool_call><|im_end|>'
    assert texts["all_assistant"] == ["<think>\nplan\n</think>\n\n" + call, "<think>\nok\n</think>\n\ndone<|im_end|>"]
    assert texts["last_assistant"] == texts["completion"] == ["<think>\nok\n</think>\n\ndone<|im_end|>"]
    assert [r.text[s:e] for s, e in train_mask(r, include_reasoning=False, include_end_of_turn=False)] == [
        call[: -len("<|im_end|>")], "done"]
    # served with enable_thinking=False, the prompt holds the empty think block: the completion is after it
    r = render([*msgs[:3], {"role": "assistant", "content": "done"}], dialect="qwen3", return_spans=True,
               enable_thinking=False)
    assert [r.text[s:e] for s, e in train_mask(r, "completion")] == ["done<|im_end|>"]
    assert [r.text[s:e] for s, e in train_mask(r, "last_assistant")] == ["<think>\n\n</think>\n\ndone<|im_end|>"]


def test_completion_needs_the_generation_prompt() -> None:
    """QwQ is served ``…assistant\\n<think>\\n``: a final turn that does not start so has no completion."""
    msgs = [{"role": "user", "content": "q"}, {"role": "assistant", "content": "plain answer"}]
    r = render(msgs, dialect="qwq", return_spans=True)
    with pytest.raises(RenderError, match="HT700") as info:
        train_mask(r, "completion")
    assert info.value.offset == r.text.index("plain answer")
    msgs[1]["content"] = "<think>\nhm\n</think>\n\nanswer"
    try:
        r = render(msgs, dialect="qwq", return_spans=True)
    except RenderError:  # the round-trip guard now refuses a think block written in content (issue 30)
        msgs[1]["content"] = "answer"
    else:
        assert [r.text[s:e] for s, e in train_mask(r, "completion")] == ["hm\n</think>\n\nanswer<|im_end|>"]
    # a conversation that does not end with an assistant turn has no completion
    r = render([*msgs, {"role": "user", "content": "more"}], dialect="qwq", return_spans=True)
    assert train_mask(r, "completion") == ()
    r = render(msgs, dialect="qwen2.5", return_spans=True, add_generation_prompt=True)
    assert train_mask(r, "completion") == ()


def test_bad_arguments() -> None:
    r = render([{"role": "user", "content": "q"}], dialect="qwen3", return_spans=True)
    with pytest.raises(UsageError, match="policy"):
        train_mask(r, "everything")  # type: ignore[arg-type]
    with pytest.raises(UsageError, match="return_spans"):
        train_mask(r.text, "all_assistant")  # type: ignore[arg-type]
    with pytest.raises(UsageError, match="straddle"):
        token_labels(r, _Chars(), straddle="half")  # type: ignore[arg-type]
    with pytest.raises(UsageError, match="not a tokenizer"):
        token_labels(r, 5)
    with pytest.raises(UsageError, match="slow tokenizer"):
        token_labels(r, _Chars(is_fast=False))


# ---- token labels -------------------------------------------------------------------------------------------


def brute(offsets: list[tuple[int, int]], intervals: list[tuple[int, int]],
          straddle: str) -> tuple[list[int], list[int]]:
    trained = chars(tuple(intervals))
    mask, straddling = [], []
    for t, (s, e) in enumerate(offsets):
        if s == e:
            mask.append(1 if any(a < s < b for a, b in intervals) else 0)
            continue
        inside = sum(k in trained for k in range(s, e))
        if 0 < inside < e - s:
            straddling.append(t)
            mask.append(1 if straddle == "train" else 0)
        else:
            mask.append(1 if inside else 0)
    return mask, straddling


@st.composite
def tokens_and_intervals(draw: st.DrawFn) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    cuts = sorted(set(draw(st.lists(st.integers(0, 60), max_size=30))) | {0, 60})
    offsets = list(itertools.pairwise(cuts))
    for _ in range(draw(st.integers(0, 3))):  # zero-width tokens, and a character split over two tokens
        p = draw(st.integers(0, 60))
        offsets.append((p, p) if draw(st.booleans()) else (p, min(60, p + 1)))
    offsets.sort()
    bounds = sorted(set(draw(st.lists(st.integers(0, 60), max_size=8))))
    intervals = [(a, b) for a, b in zip(bounds[::2], bounds[1::2], strict=False) if a < b]
    merged: list[tuple[int, int]] = []
    for a, b in intervals:
        if merged and merged[-1][1] == a:
            merged[-1] = (merged[-1][0], b)
        else:
            merged.append((a, b))
    return offsets, merged


@given(case=tokens_and_intervals(), straddle=st.sampled_from(["train", "ignore"]))
def test_label_tokens_is_the_brute_force(case: tuple[list[tuple[int, int]], list[tuple[int, int]]],
                                          straddle: str) -> None:
    offsets, intervals = case
    assert label_tokens(offsets, intervals, straddle=straddle) == brute(offsets, intervals, straddle)  # type: ignore[arg-type]
    count("token labels: brute force")


class _Chars:
    """A transformers-like fast tokenizer with one token per character, or per two for pairs in ``merge``."""

    def __init__(self, merge: tuple[str, ...] = (), is_fast: bool = True) -> None:
        self.merge = merge
        self.is_fast = is_fast

    def __call__(self, text: str, add_special_tokens: bool = True, return_offsets_mapping: bool = False) -> Any:
        assert add_special_tokens is False and return_offsets_mapping
        ids, offsets, k = [], [], 0
        while k < len(text):
            step = 2 if text[k : k + 2] in self.merge else 1
            ids.append(sum(map(ord, text[k : k + step])))
            offsets.append((k, k + step))
            k += step
        return {"input_ids": ids, "offset_mapping": offsets}


def test_straddling_tokens_warn_with_token_and_offset() -> None:
    msgs = [{"role": "user", "content": "q"}, {"role": "assistant", "content": "Hi"}]
    r = render(msgs, dialect="qwen2.5", return_spans=True)
    at = r.text.index("\nHi")  # the header's newline and the reply's first letter: one token
    with pytest.warns(TokenBoundaryWarning, match=rf"token \d+ \(id \d+, '\\nH'\) at offset {at}") as record:
        t = token_labels(r, _Chars(merge=("\nH",)))
    assert "HT703" in str(record[0].message) and "trained (straddle='train')" in str(record[0].message)
    k = t.offsets.index((at, at + 2))
    assert t.straddling == (k,) and t.labels[k] == t.input_ids[k] and t.mask[k] == 1
    with pytest.warns(TokenBoundaryWarning, match="not trained"):
        t2 = token_labels(r, _Chars(merge=("\nH",)), straddle="ignore")
    assert t2.labels[k] == IGNORE_INDEX and t2.mask[k] == 0
    assert [i for i, m in zip(t2.input_ids, t2.mask, strict=True) if m] == [ord("i"), *map(ord, "<|im_end|>")]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        t3 = token_labels(r, _Chars())  # no straddler: no warning
    assert t3.as_dict()["labels"][-11:] == [*map(ord, "Hi<|im_end|>"), IGNORE_INDEX][-11:]
    assert t3.as_dict()["attention_mask"] == [1] * len(t3.input_ids)


def test_tokenizer_json_path(tmp_path: Any) -> None:
    tokenizers = pytest.importorskip("tokenizers")
    tok = tokenizers.Tokenizer(tokenizers.models.WordLevel({"[UNK]": 0}, unk_token="[UNK]"))
    tok.pre_tokenizer = tokenizers.pre_tokenizers.Split("", "isolated")
    path = tmp_path / "tokenizer.json"
    tok.save(str(path))
    r = render([{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}], dialect="qwq",
               return_spans=True)
    t = token_labels(r, str(path))
    assert len(t.input_ids) == len(r.text) and sum(t.mask) == len("a<|im_end|>")
    with pytest.raises(UsageError, match="cannot read the tokenizer"):
        token_labels(r, str(tmp_path / "missing.json"))


def test_tokenizer_path_without_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "tokenizers", None)  # the import fails, as without the extra
    r = render([{"role": "user", "content": "q"}], dialect="qwq", return_spans=True)
    with pytest.raises(UsageError, match=r"the `training` extra .*pip install 'hermes-toolcall\[training\]'"):
        token_labels(r, "tokenizer.json")
