"""grammar/_driver.py runs the tables Lark compiled (grammar/_tables.py) treeless: same tokens as Lark's parser."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from helpers import VARIANTS, soup
from hermes_toolcall.conformance import load_cases
from hermes_toolcall.grammar import GrammarBug, Variant, tokens, tree_tokens
from hermes_toolcall.grammar import _tables as tables
from hermes_toolcall.grammar._driver import Driver, DriverError
from hermes_toolcall.grammar._parser import START_RULES
from hermes_toolcall.testing._strategies import adversarial_texts, completions, rendered_transcripts

CASES = load_cases(Path(__file__).parent.parent / "conformance" / "cases")


def _applies(start: str, v: Variant) -> bool:
    # the resume-in-reasoning rules only exist for calls inside reasoning of an enabled kind
    kind = "think" if "think" in start else "scratch_pad" if "scratch" in start else None
    return kind is None or (v.calls_in_reasoning and kind in v.kinds)


@settings(max_examples=300)
@given(
    text=st.one_of(soup, adversarial_texts(), completions(), rendered_transcripts(), st.text()),
    v=st.sampled_from(VARIANTS),
    start=st.sampled_from(START_RULES),
)
@example(text="", v=VARIANTS[0], start="transcript")
@example(text="<|im_end|>x", v=VARIANTS[0], start="completion")
@example(text='<think>a<tool_call>{"name":"f","arguments":{}}</tool_call>b', v=VARIANTS[2], start="completion")
def test_driver_tokens_are_the_leaves_of_larks_tree(text: str, v: Variant, start: str) -> None:
    assume(_applies(start, v))
    assert tokens(text, start, v) == tree_tokens(text, start, v)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_driver_agrees_with_lark_on_the_corpus(case: object) -> None:
    text = case.input  # type: ignore[attr-defined]
    for v in VARIANTS:
        for start in ("transcript", "completion"):
            assert tokens(text, start, v, 5) == tree_tokens(text, start, v, 5)


def test_driver_is_shared_by_texts_and_remembers_few_stacks() -> None:
    driver = Driver(tables.VARIANT_LEXERS[Variant().key])
    text = "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n<think>a</think>b<tool_call>{}</tool_call>"
    driver.tokens(text * 50, "transcript")
    stacks = len(driver._stacks)
    driver.tokens(text * 500, "transcript")
    assert len(driver._stacks) == stacks  # left-recursive lists: the stack depth does not grow


def test_driver_rejects_what_the_table_rejects() -> None:
    driver = Driver(tables.VARIANT_LEXERS[Variant().key])
    # resume_think_t exists only with calls in reasoning: the default table starts it but its lexer
    # has no terminal for plain text, which is reported, not looped on
    with pytest.raises(DriverError):
        driver.tokens("x", "resume_think_t")


def test_a_rejection_surfaces_as_grammar_bug() -> None:
    with pytest.raises(GrammarBug):
        tokens("x", "resume_think_t", Variant())
