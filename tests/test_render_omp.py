"""The omp dialect: renderTranscript, renderThinking, the tool catalogue and the in-band prompt."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from conftest import DATA
from hermes_toolcall import RenderError, render
from hermes_toolcall.render import (
    omp_guide,
    render_inband_tool_prompt,
    render_thinking,
    render_tool_call,
    render_tool_catalog,
    render_tool_responses,
)

GOLDEN = DATA / "render"

# omp-dialect.md §1 example: system, a user with an image, an assistant with thinking + prose + two calls,
# two results merged into one tool turn, a final answer.
TRANSCRIPT: list[dict[str, Any]] = [
    {"role": "system", "content": "Be terse."},
    {"role": "user", "content": [{"type": "text", "text": "Read a.ts"},
                                 {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}]},
    {"role": "assistant", "reasoning_content": "plan", "content": "On it.", "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "read", "arguments": '{"path":"a.ts"}'}},
        {"id": "c2", "type": "function", "function": {"name": "read", "arguments": {"path": "b.ts", "n": 2}}}]},
    {"role": "tool", "tool_call_id": "c1", "content": "AAA"},
    {"role": "tool", "tool_call_id": "c2", "content": "BBB"},
    {"role": "assistant", "content": "Done."},
]

PROMPTS = {
    "prompt-template.md": (301, "9da12e59a7f2b6de07899711d105df8a597352391c803d0ebf55a56d01ac9ca1"),
    "hermes.md": (993, "8464494512263a5097ba28eb44441e98374e05f58161c5d4451e8ae0ac1e18ae"),
    "qwen3.md": (1123, "7cd115650a5504313c93dd24655f5678a9b8cb14bd7dcdc9485e5839e5855325"),
}


def test_render_transcript_example_is_exact() -> None:
    expected = (GOLDEN / "omp-transcript.txt").read_text(encoding="utf-8")
    assert render(TRANSCRIPT, dialect="omp") == expected
    assert "</think>On it.<tool_call>" in expected


@pytest.mark.parametrize(("name", "size_and_hash"), sorted(PROMPTS.items()))
def test_prompt_texts_are_byte_exact(name: str, size_and_hash: tuple[int, str]) -> None:
    data = omp_guide(name).encode("utf-8")
    size, digest = size_and_hash
    assert len(data) == size
    assert hashlib.sha256(data).hexdigest() == digest
    assert data.endswith(b"\n")


@pytest.mark.parametrize(
    ("thinking", "expected"),
    [
        ("  plain  ", "<think>\n  plain  \n</think>"),
        ("<think>a</think> tail", "<think>\n<think>a</think> tail\n</think>"),
        (" <think> a </think>\n<think>b<think>c</think></think> ", "<think>\na\nb<think>c</think>\n</think>"),
        ("", ""),
    ],
)
def test_render_thinking_unwrap_rule(thinking: str, expected: str) -> None:
    assert render_thinking(thinking, allow_injection=True) == expected  # the rule itself, unguarded


def test_catalog_and_prompt() -> None:
    tools = [{"type": "function", "function": {"name": "ls", "parameters": {"type": "object", "properties": {}}}}]
    catalog = render_tool_catalog(tools)
    assert catalog == (
        '{"type":"function","function":{"name":"ls","description":"","parameters":{"type":"object","properties":{}}}}')
    prompt = render_inband_tool_prompt(tools)
    template = omp_guide("prompt-template.md")
    guide = omp_guide("hermes.md").strip()
    assert prompt == template.replace("{{TOOLS}}", catalog).replace("{{DIALECT}}", guide)
    assert prompt.endswith("halt.\n") and not prompt.endswith("\n\n")
    assert '"name":"function_name","arguments"' in prompt  # what omp's agent-loop test looks for


def test_dialect_placeholder_in_a_description_receives_the_guide() -> None:
    tools = [{"name": "t", "description": "see {{DIALECT}} and $1", "parameters": {}}]
    prompt = render_inband_tool_prompt(tools)
    assert "see ## Format guide" in prompt and "$1" in prompt
    assert prompt.rstrip("\n").endswith("{{DIALECT}}")  # the template's own placeholder stays: first one only


def test_tools_join_the_leading_system_message() -> None:
    tools = [{"name": "ls", "parameters": {}}]
    with_system = render([{"role": "developer", "content": "Be terse."}, {"role": "user", "content": "hi"}],
                         tools=tools, dialect="omp", add_generation_prompt=True)
    assert with_system.startswith("<|im_start|>system\nBe terse.\n\n# Tools\n")
    assert with_system.count("<|im_start|>system") == 1
    assert with_system.endswith("<|im_end|>\n<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n")
    alone = render([{"role": "user", "content": "hi"}], tools=tools, dialect="omp")
    assert alone.startswith("<|im_start|>system\n# Tools\n")
    assert render([{"role": "user", "content": "hi"}], tools=[], dialect="omp") == "<|im_start|>user\nhi<|im_end|>\n"


def test_reference_request_golden() -> None:
    from test_render import REQUEST

    expected = (GOLDEN / "omp-request-B.txt").read_text(encoding="utf-8")
    assert render(REQUEST["messages"], tools=REQUEST["tools"], dialect="omp", add_generation_prompt=True) == expected


def test_pieces_and_edge_cases() -> None:
    assert render_tool_call({"name": "read", "arguments": '{"path":"ü"}'}, dialect="omp") == (
        '<tool_call>\n{"name":"read","arguments":{"path":"ü"}}\n</tool_call>')
    assert render_tool_responses([""]) == "<tool_response>\n\n</tool_response>"
    assert render([], dialect="omp") == ""
    with pytest.raises(RenderError, match="not JSON"):
        render([{"role": "assistant", "tool_calls": [{"name": "f", "arguments": "{oops"}]}], dialect="omp")
    out = render([{"role": "user", "content": [{"type": "image"}]}], dialect="omp")
    assert out == "<|im_start|>user\n[Image]<|im_end|>\n"
