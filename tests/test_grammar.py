"""The Lark grammar itself: totality of every start rule and variant, contextual tokens, structure."""

from __future__ import annotations

import re

import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from helpers import VARIANTS, soup
from hermes_toolcall.grammar import GRAMMAR, Variant, parse_tree, tokens
from hermes_toolcall.grammar._parser import START_RULES, a_text_pattern
from hermes_toolcall.testing._strategies import adversarial_texts, plain_texts

DEFAULT = Variant()


def types(text: str, start: str = "completion", variant: Variant = DEFAULT) -> list[str]:
    return [t[0] for t in tokens(text, start, variant)]


def test_grammar_file_is_loaded_once_and_names_its_start_rules() -> None:
    for rule in START_RULES:
        assert re.search(rf"^{rule}:", GRAMMAR, re.M), rule


def test_default_a_text_pattern_matches_the_grammar_file() -> None:
    line = next(line for line in GRAMMAR.splitlines() if line.startswith("A_TEXT:"))
    assert line == f"A_TEXT: /{a_text_pattern(('think', 'scratch_pad'))}/"


@settings(max_examples=200)
@given(
    text=st.one_of(soup, adversarial_texts(), st.text()),
    v=st.sampled_from(VARIANTS),
    start=st.sampled_from(START_RULES),
)
@example(text='<think>a<tool_call>{"name":"f","arguments":{}}</tool_call>b', v=VARIANTS[2], start="completion")
@example(text="<|im_start|>\n", v=VARIANTS[0], start="transcript")
@example(text="</think>x", v=VARIANTS[2], start="resume_think_t")
@example(text='<tool_call>{"a": "\\<|im_start|>', v=VARIANTS[0], start="completion")
def test_every_start_rule_is_total_and_tokens_tile_the_input(text: str, v: Variant, start: str) -> None:
    # the resume-in-reasoning rules only exist for calls inside reasoning of an enabled kind
    kind = "think" if "think" in start else "scratch_pad" if "scratch" in start else None
    assume(kind is None or (v.calls_in_reasoning and kind in v.kinds))
    toks = tokens(text, start, v)
    pos = 0
    for _, s, e in toks:
        assert s == pos and e > s
        pos = e
    assert pos == len(text)


def test_regression_call_inside_reasoning_followed_by_text() -> None:
    # LALR merged the states after a call block inside and outside reasoning, so the contextual
    # lexer offered A_TEXT inside reasoning: calls inside reasoning have their own rule context.
    v = Variant(calls_in_reasoning=True)
    s = '<think>a<tool_call>{"name":"f","arguments":{}}</tool_call>b</think>c'
    assert types(s, variant=v) == ["THINK_OPEN", "THINK_TEXT", "CALL_DONE", "THINK_TEXT", "THINK_CLOSE", "A_TEXT"]


def test_role_decides_the_markers() -> None:
    s = (
        "<|im_start|>user\n<tool_call>x</tool_call><tool_response>r</tool_response><|im_end|>"
        "<|im_start|>system\n<tool_response><tools>t</tools></tools><|im_end|>"
        "<|im_start|>assistant\n<tools><tool_response></tool_call><|im_end|>"
        "<|im_start|>robot\n<think><|im_end|>"
    )
    assert types(s, "transcript") == [
        *("U_HEAD", "U_TEXT", "RESP_DONE"),
        *("S_LINK", "S_TEXT", "TOOLS_BLOCK", "STRAY_TOOLS"),
        *("A_LINK", "A_TEXT", "FAB", "STRAY_CALL"),
        *("O_LINK", "O_TEXT", "IM_END"),
    ]


def test_json_mode_is_decided_by_the_first_non_ws_character() -> None:
    assert types('<tool_call> \n{"a": "</tool_call>"}</tool_call>') == ["CALL_DONE"]
    assert types('<tool_call>x{"a": "</tool_call>"}</tool_call>') == ["CALL_DONE", "A_TEXT", "STRAY_CALL"]
    assert types("<tool_call>\u00a0{</tool_call>") == ["CALL_DONE"]  # NBSP is not ws: plain mode
    assert types('<tool_call>["</tool_call>') == ["CALL_JSON"]


def test_escapes_and_control_tokens_in_strings() -> None:
    assert types('<tool_call>{"a": "\\"</tool_call>"}</tool_call>') == ["CALL_DONE"]
    assert types('<tool_call>{"a": "\\\\"}</tool_call>') == ["CALL_DONE"]
    assert types('<tool_call>{"a": "x<|im_end|>"}') == ["CALL_JSON", "IM_END", "AFTER"]
    assert types('<tool_call>{"a": "\\<|im_start|>"}') == ["CALL_JSON", "HEAD_UNTERM"]
    assert types('<tool_call>{"a": "\\<|im_start|>\n"}') == ["CALL_JSON", "O_HEAD", "AFTER"]


def test_header_terminals() -> None:
    assert types("<|im_start|>assistant\n", "transcript") == ["A_HEAD"]
    assert types("<|im_start|>assistant \n", "transcript") == ["O_HEAD"]
    assert types("<|im_start|>developer\n<tools></tools>", "transcript") == ["S_HEAD", "TOOLS_BLOCK"]
    assert types("<|im_start|>as<b>\nx", "transcript") == ["O_HEAD", "O_TEXT"]
    assert types("<|im_start|>assistant<|im_start|>user\n", "transcript") == ["HEAD_UNTERM", "U_HEAD"]
    assert types("x<|im_end|>y<|im_start|>", "transcript") == ["GAP", "HEAD_UNTERM"]
    assert types("<|im_start|>a<|im_end|>y<|im_end|><|im_start|>", "transcript") == ["HEAD_UNTERM", "UNTERM_LINK"]
    assert types("<|im_start|>user\n<|im_end|>\n", "transcript") == ["U_HEAD", "IM_END", "GAP"]


def test_stop_variant_swallows_the_rest() -> None:
    v = Variant(stop_at_fabricated=True)
    assert types("a<tool_response>b<|im_end|>c", variant=v) == ["A_TEXT", "FAB"]


def test_missing_reasoning_kind_is_text() -> None:
    v = Variant(kinds=("think",))
    assert types("<scratch_pad>x</scratch_pad><think>y</think>", variant=v) == ["A_TEXT", "THINK_BLOCK"]


def test_parse_tree_structure() -> None:
    tree = parse_tree("<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n", "transcript", Variant())
    assert [c.data for c in tree.children] == ["turn", "turn"]  # type: ignore[union-attr]
    assert [t.type for t in tree.children[1].children] == ["A_LINK"]  # type: ignore[union-attr]
    tree = parse_tree("<think>a<tool_call>x", "completion", Variant(calls_in_reasoning=True))
    assert [c.data for c in tree.children] == ["open_reasoning"]  # type: ignore[union-attr]


@pytest.mark.parametrize("v", VARIANTS)
def test_every_variant_builds(v: Variant) -> None:
    assert tokens("x", "completion", v) == [("A_TEXT", 0, 1)]


def test_the_grammar_quotes_the_fab_pattern_of_stop_at_fabricated_response() -> None:
    from hermes_toolcall.grammar._parser import FAB_STOP

    assert f"/{FAB_STOP}/ (grammar/_parser.py's FAB_STOP" in GRAMMAR


def test_python_changes_only_the_terminals_the_grammar_says_it_changes() -> None:
    # hermes.lark's header lists each option's edits; everything else is the grammar verbatim
    from lark import Lark

    from hermes_toolcall.grammar._parser import _KIND_TERMINALS, _REST_TERMINALS, lark_parser

    verbatim = Lark(GRAMMAR, parser="lalr", lexer="contextual", start=list(START_RULES))
    plain = {t.name: t.pattern for t in verbatim.terminals}
    assert plain["A_TEXT"].to_regexp() == a_text_pattern(("think", "scratch_pad"))
    for v in VARIANTS:
        changed = {t.name for t in lark_parser(v).terminals if t.pattern != plain[t.name]}
        allowed = {"A_TEXT"} if set(v.kinds) != {"think", "scratch_pad"} else set()
        allowed |= {"FAB"} if v.stop_at_fabricated else set()
        for kind, names in _KIND_TERMINALS.items():
            if kind not in v.kinds:
                allowed |= set(names) | {_REST_TERMINALS[kind]}  # the kind's terminals are disabled
            elif v.calls_in_reasoning:  # split: no whole-block token, no whole-rest token
                allowed |= {names[0], _REST_TERMINALS[kind]}
            else:
                allowed |= set(names[1:4])  # one token
        assert changed == allowed, v


@given(
    st.one_of(plain_texts(max_size=300), adversarial_texts(), st.text(max_size=60)),
    st.sampled_from([{}, {"dialect": "qwq"}, {"strict": True}, {"dialect": "qwen3.5"}, {"starts_in_reasoning": True}]),
)
@example("", {})
@example("\r\n\u2028 x\ud800\n", {})
@example("Hi", {"dialect": "qwq"})
def test_build_completion_s_guard_gives_the_builder_s_completion(text: str, keywords: dict[str, object]) -> None:
    """``build_completion``'s guard (a completion with no ``<`` is one text run, when it does not start
    inside reasoning) gives what the grammar's tokens read by the builder give: parts, spans,
    diagnostics, end."""
    from hermes_toolcall._ids import sequential_ids
    from hermes_toolcall._options import ParseOptions
    from hermes_toolcall.grammar._build import _read_completion, build_completion

    options = ParseOptions.make(ids=sequential_ids(), **keywords)  # type: ignore[arg-type]
    got = build_completion(text, options)
    want = _read_completion(text, options, options.reasoning_at_start)
    assert got == want
    assert [p.span for p in got.parts] == [p.span for p in want.parts]
    assert (got.end, got.stopped_at, got.diagnostics) == (want.end, want.stopped_at, want.diagnostics)
