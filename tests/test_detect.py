"""Tests of dialect detection (`hermes_toolcall._detect`) on real renders of every template and on omp text."""

from __future__ import annotations

import doctest
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import hermes_toolcall._detect as detect_module
from helpers import TIME, jinja_render, shared_file, template_source
from hermes_toolcall import _jsonio as jsonio
from hermes_toolcall._detect import DialectGuess, detect_dialect
from hermes_toolcall._profiles import DIALECTS
from hypothesis_stats import count, examples

pytest_plugins = ["hypothesis_stats"]

SYSTEM = {"role": "system", "content": "You are a helpful assistant."}
USER = {"role": "user", "content": "What time is it in Tokyo?"}
CALL = {
    "role": "assistant",
    "content": "Let me check.",
    "tool_calls": [{"id": "call_1", "type": "function",
                    "function": {"name": "get_time", "arguments": {"timezone": "Asia/Tokyo"}}}],
}
RESULT = {"role": "tool", "content": '{"time": "21:04"}', "tool_call_id": "call_1"}
ANSWER = {"role": "assistant", "content": "It is 21:04."}
THOUGHT = {"role": "assistant", "content": "It is 21:04.", "reasoning_content": "The tool said 21:04."}

# (variant name, messages, add_generation_prompt)
CONVERSATIONS: list[tuple[str, list[dict[str, Any]], bool]] = [
    ("system-only-prompt", [SYSTEM, USER], True),
    ("no-system-prompt", [USER], True),
    ("full-with-prompt", [SYSTEM, USER, CALL, RESULT, ANSWER], True),
    ("full-no-prompt", [SYSTEM, USER, CALL, RESULT, ANSWER], False),
    ("no-system-full", [USER, CALL, RESULT, ANSWER], False),
    ("after-results", [SYSTEM, USER, CALL, RESULT], True),
]
TEMPLATES = {
    "hermes": ("NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use.jinja", {"bos_token": "<|begin_of_text|>"}),
    "hermes-vllm": ("tool_chat_template_hermes.jinja", {"bos_token": "<|begin_of_text|>"}),
    "qwen3": ("Qwen-Qwen3-0.6B.jinja", None),
    "qwen2.5": ("Qwen-Qwen2.5-7B-Instruct.jinja", None),
    "qwq": ("Qwen-QwQ-32B.jinja", None),
    "qwen3-coder": ("Qwen3-Coder.jinja", None),
    "qwen3.5": ("Qwen3.5-4B.jinja", None),
    "nemotron-3": ("NVIDIA-Nemotron-3-Nano-30B-A3B-BF16.jinja", None),
    "step-3.5": ("StepFun3.5-Flash.jinja", None),
}
# templates of the same family that are no profile: detection says "unknown" on their renders
FOREIGN = ["GLM-4.6.jinja", "GLM-4.7-Flash.jinja", "MiMo-VL.jinja", "Bielik-11B-v3.0-Instruct.jinja",
           "ibm-granite-granite-4.0.jinja", "ibm-granite-granite-4.1.jinja", "unsloth-Apriel-1.5.jinja",
           "Reka-Edge.jinja"]


def render(dialect: str, messages: list[dict[str, Any]], prompt: bool, **kwargs: Any) -> str:
    template, tokens = TEMPLATES[dialect]
    return jinja_render(template_source(template), messages, [TIME], prompt, tokens, **kwargs)


def test_doctests() -> None:
    assert doctest.testmod(detect_module).failed == 0


def test_guess_is_a_frozen_value() -> None:
    guess = detect_dialect("")
    assert guess == DialectGuess(dialect="unknown", confidence=0.1, evidence=(), scores=guess.scores)
    with pytest.raises(AttributeError):
        guess.dialect = "omp"  # type: ignore[misc]
    assert {name for name, _ in guess.scores} == set(DIALECTS)


# ---- real template renders -------------------------------------------------------------------------------


@pytest.mark.parametrize("dialect", list(TEMPLATES))
@pytest.mark.parametrize(("variant", "messages", "prompt"), CONVERSATIONS, ids=[c[0] for c in CONVERSATIONS])
def test_template_renders(dialect: str, variant: str, messages: list[dict[str, Any]], prompt: bool) -> None:
    """The guess is the template, or one that renders the very same bytes (then confidence stays low)."""
    text = render(dialect, messages, prompt)
    same = {d for d in TEMPLATES if render(d, messages, prompt) == text}
    guess = detect_dialect(text)
    assert guess.dialect in same, (same, guess)
    if len(same) == 1:
        assert guess.confidence >= 0.8, guess
    else:
        assert guess.confidence <= 0.5, guess


@pytest.mark.parametrize("dialect", ["hermes", "hermes-vllm"])
def test_hermes_evidence(dialect: str) -> None:
    guess = detect_dialect(render(dialect, [SYSTEM, USER, CALL, RESULT, ANSWER], True))
    assert guess.dialect == dialect
    assert any("Hermes system prompt" in e for e in guess.evidence)


def test_qwen3_thinking_disabled_and_reasoning() -> None:
    text = render("qwen3", [SYSTEM, USER], True, enable_thinking=False)
    guess = detect_dialect(text)
    assert guess.dialect == "qwen3" and guess.confidence >= 0.8
    guess = detect_dialect(render("qwen3", [SYSTEM, USER, CALL, RESULT, THOUGHT], False))
    assert guess.dialect == "qwen3" and guess.confidence >= 0.8


def test_qwen3_final_turn_decides_against_qwen25() -> None:
    text = render("qwen3", [SYSTEM, USER, CALL, RESULT, ANSWER], False)
    guess = detect_dialect(text)
    assert guess.dialect == "qwen3" and guess.confidence >= 0.8
    assert any("opens with <think>" in e for e in guess.evidence)


def test_qwen25_default_system_prompt_is_decisive() -> None:
    guess = detect_dialect(render("qwen2.5", [USER, CALL, RESULT, ANSWER], True))
    assert guess.dialect == "qwen2.5" and guess.confidence >= 0.8
    assert any("You are Qwen" in e for e in guess.evidence)


def test_string_arguments_double_encoded_point_to_vllm() -> None:
    call = {**CALL, "tool_calls": [{"type": "function",
                                    "function": {"name": "get_time", "arguments": '{"timezone": "UTC"}'}}]}
    text = render("hermes-vllm", [USER, call, RESULT, ANSWER], True)
    guess = detect_dialect(text)
    assert guess.dialect == "hermes-vllm"
    assert any("double-encoded" in e for e in guess.evidence)


# ---- omp ---------------------------------------------------------------------------------------------


def _omp_doc() -> str:
    return shared_file("reference/omp-dialect.md").read_text(encoding="utf-8")


def omp_system_prompt(tools: list[dict[str, Any]]) -> str:
    """renderInbandToolPrompt: prompt-template.md with the catalog and hermes.md (from omp-dialect.md §2)."""
    blocks = re.findall(r"````text\n(.*?\n)````", _omp_doc(), re.S)
    template: str = blocks[0]
    guide: str = blocks[1]
    assert template.startswith("# Tools") and guide.startswith("## Format guide")
    catalog = "\n".join(jsonio.dumps_compact(t) for t in tools)
    return template.replace("{{TOOLS}}", catalog, 1).replace("{{DIALECT}}", guide.strip(), 1)


def omp_transcript_example() -> str:
    """The renderTranscript example of omp-dialect.md §1 (`\\n` in that code span is a newline)."""
    match = re.search(r"Example \(checked by running the original source\):\n\s+`(<\|im_start\|>.*?)`\n", _omp_doc())
    assert match is not None
    return match.group(1).replace("\\n", "\n")


def test_omp_transcript_example() -> None:
    text = omp_transcript_example()
    assert '{"name":"read","arguments":{"path":"a.ts"}}' in text
    guess = detect_dialect(text)
    assert guess.dialect == "omp" and guess.confidence >= 0.8, guess
    assert any("compact call JSON" in e for e in guess.evidence)
    assert any("glued to </think>" in e for e in guess.evidence)


def test_omp_system_prompt() -> None:
    prompt = omp_system_prompt([TIME])
    guess = detect_dialect(f"<|im_start|>system\nBe terse.\n\n{prompt}<|im_end|>\n<|im_start|>user\nhi<|im_end|>\n")
    assert guess.dialect == "omp" and guess.confidence >= 0.9
    assert any("omp in-band tool prompt" in e for e in guess.evidence)
    assert any("omp format guide" in e for e in guess.evidence)


def test_omp_completion() -> None:
    completion = 'Reading.<tool_call>\n{"name":"read","arguments":{"path":"src/a.ts","count":2}}\n</tool_call>'
    guess = detect_dialect(completion)
    assert guess.dialect == "omp" and 0.1 < guess.confidence < 0.8


# ---- completions and weak evidence ----------------------------------------------------------------------


def test_spaced_completion_is_hermes_family_weakly() -> None:
    guess = detect_dialect('<tool_call>\n{"name": "get_time", "arguments": {"timezone": "UTC"}}\n</tool_call>')
    assert guess.dialect == "hermes" and guess.confidence < 0.5


def test_qwq_generation_prompt_alone() -> None:
    guess = detect_dialect("<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n<think>\n")
    assert guess.dialect == "qwq"


def test_scratch_pad_points_to_hermes() -> None:
    guess = detect_dialect("<scratch_pad>\nGoal: x\n</scratch_pad>")
    assert guess.dialect == "hermes" and guess.evidence == ("<scratch_pad> reasoning (Hermes 3)",)


@pytest.mark.parametrize("text", ["", "hello", "<|im_start|>user\nhi<|im_end|>\n"])
def test_nothing_known_is_unknown(text: str) -> None:
    """Issue 29 item 7: no profile fits: a low-confidence "unknown", not the closest wrong profile."""
    guess = detect_dialect(text)
    assert (guess.dialect, guess.confidence, guess.evidence) == ("unknown", 0.1, ())


@pytest.mark.parametrize("template", FOREIGN)
def test_a_template_that_is_no_profile_is_unknown(template: str) -> None:
    """Issue 29 item 7: renders of family members that are no profile (GLM, MiMo, Bielik, Granite, Apriel, Reka)
    are "unknown" with a low confidence, unless the render is byte-identical to a profile's."""
    rendered = 0
    for _, messages, prompt in CONVERSATIONS:
        try:
            text = jinja_render(template_source(template), messages, [TIME], prompt, None)
        except Exception:
            continue
        rendered += 1
        same = {d for d in TEMPLATES if _renders(d, messages, prompt) == text}
        guess = detect_dialect(text)
        assert guess.dialect in same or (guess.dialect == "unknown" and guess.confidence <= 0.3), (guess, text[:300])
    assert rendered >= 2


def _renders(dialect: str, messages: list[dict[str, Any]], prompt: bool) -> str | None:
    try:
        return render(dialect, messages, prompt)
    except Exception:
        return None


@settings(max_examples=examples(100))
@given(st.lists(st.sampled_from(["<|im_start|>", "<|im_end|>", "assistant\n", "user\n", "tool\n", "<think>",
                                 "</think>", "\n", "<tool_call>", '{"name":"', '{"name": "', "x", "system\n",
                                 "<tool_response>", "</tool_response>", "# Tools"]), max_size=30).map("".join))
def test_property_total_and_bounded(text: str) -> None:
    count("detect: total and bounded")
    guess = detect_dialect(text)
    assert guess.dialect in DIALECTS or guess.dialect == "unknown"
    assert 0.1 <= guess.confidence <= 0.99
    assert guess.scores[0][0] == guess.dialect or (guess.confidence <= 0.3 and guess.dialect == "unknown")
