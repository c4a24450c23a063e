"""The renderer: reference-conversation goldens per dialect, the pieces on their own, template crashes."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from conftest import DATA, REPO
from helpers import template_source
from hermes_toolcall import FunctionCall, Message, RenderError, UsageError, render
from hermes_toolcall._jsonio import dumps_compact, loads
from hermes_toolcall._profiles import DIALECTS
from hermes_toolcall.render import (
    call_json,
    hermes_tool_line,
    python_type,
    render_system_prompt,
    render_tool_call,
    render_tool_calls,
    render_tool_response,
    render_tool_responses,
)
from hermes_toolcall.render._oracle import oracle_render

GOLDEN = DATA / "render"
REQUEST = loads((REPO / "examples" / "request.json").read_text(encoding="utf-8"))
BOS: dict[str, Any] = {"bos_token": "<|begin_of_text|>"}
VARIANTS = ["A", "B", "C", "D", "E2", "G"]


def variant(name: str) -> tuple[list[dict[str, Any]], bool, dict[str, Any]]:
    """The reference conversation variants of official-templates.md §3."""
    msgs = copy.deepcopy(REQUEST["messages"])
    agp, kw = False, {}
    if name == "B":
        agp = True
    elif name == "C":
        for c in msgs[2]["tool_calls"]:
            c["function"]["arguments"] = dumps_compact(c["function"]["arguments"])
    elif name == "D":
        msgs[2]["tool_calls"][0]["function"]["arguments"]["location"] = "Zürich"
    elif name == "E2":
        msgs[2]["content"] = ""
    elif name == "G":
        msgs, agp = msgs[:5], True
    elif name == "F":
        agp, kw = True, {"enable_thinking": False}
    return msgs, agp, kw


XML_DIALECTS = ("qwen3-coder", "qwen3.5", "nemotron-3", "step-3.5")
CASES = ([(d, v) for d in ("hermes", "hermes-vllm", "qwen3", "qwen2.5", "qwq") for v in VARIANTS] + [("qwen3", "F")]
         + [(d, v) for d in XML_DIALECTS for v in [*VARIANTS, "F"]])


def _oracle_messages(dialect: str, msgs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What the oracle is given: the XML-body dialects decode a JSON-string ``arguments`` (docs/dialects.md)."""
    if DIALECTS[dialect].string_arguments != "decode":
        return msgs
    out = copy.deepcopy(msgs)
    for m in out:
        for c in m.get("tool_calls") or ():
            fn = c.get("function", c)
            if isinstance(fn.get("arguments"), str):
                fn["arguments"] = loads(fn["arguments"])
    return out


def _render_case(dialect: str, name: str) -> str:
    msgs, agp, kw = variant(name)
    tokens: dict[str, Any] = BOS if DIALECTS[dialect].bos else {}
    return render(msgs, tools=REQUEST["tools"], dialect=dialect, add_generation_prompt=agp, **tokens, **kw)


@pytest.mark.parametrize(("dialect", "name"), CASES)
def test_reference_conversation_golden(dialect: str, name: str) -> None:
    expected = (GOLDEN / f"{dialect}-{name}.txt").read_text(encoding="utf-8")
    assert _render_case(dialect, name) == expected


@pytest.mark.parametrize(("dialect", "name"), CASES)
def test_goldens_are_what_the_template_renders(dialect: str, name: str) -> None:
    profile = DIALECTS[dialect]
    assert profile.template is not None
    msgs, agp, kw = variant(name)
    out = oracle_render(template_source(profile.template), _oracle_messages(dialect, msgs), REQUEST["tools"], agp,
                        BOS if profile.bos else None, **kw)
    assert out == (GOLDEN / f"{dialect}-{name}.txt").read_text(encoding="utf-8")


def test_reference_facts() -> None:
    # official-templates.md §4-§7, spelled out
    hermes = _render_case("hermes", "G")
    assert hermes.startswith("<|begin_of_text|><|im_start|>system\nYou are a function calling AI model.")
    assert hermes.endswith('{"time": "21:04"}\n</tool_response><|im_end|><|im_start|>assistant\n')
    assert "Let me check both." not in hermes
    vllm = _render_case("hermes-vllm", "C")
    assert '"arguments": "{\\"location\\":\\"Paris\\",\\"unit\\":\\"celsius\\"}"' in vllm
    assert "</tool_call><|im_end|><|im_start|>system\n" in vllm
    assert '"arguments": {"location":"Paris","unit":"celsius"}}' in _render_case("hermes", "C")
    assert "<|im_start|>assistant\n<tool_call>" in _render_case("qwen3", "E2")
    assert _render_case("qwen3", "F").endswith("<|im_start|>assistant\n<think>\n\n</think>\n\n")
    assert _render_case("qwq", "B").endswith("<|im_start|>assistant\n<think>\n")
    assert '"Zürich"' in _render_case("qwen2.5", "D")


def test_empty_tools() -> None:
    msgs = [{"role": "user", "content": "hi"}]
    assert "<tools>  </tools>" in render(msgs, tools=[], dialect="hermes")
    assert "<tools>  </tools>" in render(msgs, tools=None, dialect="hermes-vllm")
    assert render(msgs, tools=[], dialect="qwen3") == "<|im_start|>user\nhi<|im_end|>\n"
    assert render(msgs, dialect="qwen2.5").startswith("<|im_start|>system\nYou are Qwen, created by Alibaba Cloud.")
    assert render(msgs, dialect="qwq") == "<|im_start|>user\nhi<|im_end|>\n"


def test_messages_as_values() -> None:
    msgs, _, _ = variant("A")
    values = [
        Message(role="system", content=msgs[0]["content"]),
        Message(role="user", content=msgs[1]["content"]),
        Message(role="assistant", content="Let me check both.", tool_calls=tuple(
            FunctionCall(name=c["function"]["name"], arguments=c["function"]["arguments"], id=c.get("id"))
            for c in msgs[2]["tool_calls"])),
        Message(role="tool", content=msgs[3]["content"], tool_call_id="call_1"),
        Message(role="tool", content=msgs[4]["content"]),
        Message(role="assistant", content=msgs[5]["content"]),
    ]
    for dialect in ("hermes", "qwen3", "qwq", "omp"):
        assert render(values, tools=REQUEST["tools"], dialect=dialect, **BOS) == render(
            msgs, tools=REQUEST["tools"], dialect=dialect, **BOS)


def test_reasoning_aliases_and_qwen3_last_query() -> None:
    msgs = [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a", "thinking": "t"}]
    assert render(msgs, dialect="qwen3") == (
        "<|im_start|>user\nq<|im_end|>\n<|im_start|>assistant\n<think>\nt\n</think>\n\na<|im_end|>\n")
    # before the last query the reasoning is dropped
    longer = [*msgs, {"role": "user", "content": "q2"}]
    assert "<think>" not in render(longer, dialect="qwen3")
    # a user message that is only tool results is not a query
    folded = [*msgs, {"role": "user", "content": "<tool_response>\nx\n</tool_response>"}]
    assert "<think>\nt\n</think>" in render(folded, dialect="qwen3", allow_injection=True)
    # QwQ strips reasoning from non-final turns
    qwq = [{"role": "user", "content": "q"}, {"role": "assistant", "content": "<think>r</think>\n\nA"},
           {"role": "user", "content": "q2"}]
    assert "<|im_start|>assistant\nA<|im_end|>" in render(qwq, dialect="qwq")


def test_pieces() -> None:
    call = {"id": "c", "type": "function", "function": {"name": "get_time", "arguments": {"timezone": "Asia/Tokyo"}}}
    assert render_tool_call(call) == (
        '<tool_call>\n{"name": "get_time", "arguments": {"timezone": "Asia/Tokyo"}}\n</tool_call>')
    assert render_tool_call(FunctionCall(name="f", arguments='{"a":1}'), dialect="hermes-vllm") == (
        '<tool_call>\n{"name": "f", "arguments": "{\\"a\\":1}"}\n</tool_call>')
    assert render_tool_calls([], dialect="omp") == ""
    two = render_tool_calls([call, call], dialect="qwen3")
    assert two.count("<tool_call>") == 2 and "</tool_call>\n<tool_call>" in two
    assert call_json({"name": "f"}, dialect="hermes") == '{"name": "f", }'
    assert call_json({"name": "f"}, dialect="hermes-vllm") == '{"name": "f"}'
    assert render_tool_response({"a": 1}) == "<tool_response>\n{'a': 1}\n</tool_response>"
    assert render_tool_responses([]) == ""
    assert render_tool_responses(["", "x"]) == (
        "<tool_response>\n\n</tool_response>\n<tool_response>\nx\n</tool_response>")


def test_system_prompt_piece_matches_full_render() -> None:
    msgs, _, _ = variant("A")
    for dialect in ("hermes", "hermes-vllm"):
        prompt = render_system_prompt(REQUEST["tools"], dialect=dialect)
        assert render(msgs, tools=REQUEST["tools"], dialect=dialect).startswith(prompt)
    for dialect in ("qwen3", "qwen2.5", "qwq"):
        prompt = render_system_prompt(REQUEST["tools"], dialect=dialect, system=msgs[0]["content"])
        assert render(msgs, tools=REQUEST["tools"], dialect=dialect).startswith(prompt)
    assert render_system_prompt(REQUEST["tools"], dialect="qwq").startswith("<|im_start|>system\n\n\n# Tools")
    assert render_system_prompt([], dialect="qwen3") == ""


def test_python_type_mapping() -> None:
    assert python_type({"type": "string"}) == "str"
    assert python_type({"type": "number"}) == "float"
    assert python_type({"type": "integer"}) == "int"
    assert python_type({"type": "boolean"}) == "bool"
    assert python_type({"type": "object"}) == "dict"
    assert python_type({"type": "object", "additionalProperties": {"type": "string"}}) == "dict[str, str]"
    assert python_type({"type": "array", "items": {"type": "string"}}) == "list[Union[]]"
    assert python_type({}) == "Union[]"
    assert python_type({"type": ["string", "integer"]}) == "Union[str,int]"
    assert python_type({"type": 5}) == "Any"
    with pytest.raises(RenderError, match="RecursionError"):
        python_type({"type": ["string", "null"]})


def test_hermes_tool_line_shapes() -> None:
    line = hermes_tool_line({"name": "f", "description": "D", "parameters": {"type": "object", "properties": {}}})
    assert line == '{"type": "function", "function": {"name": "f", "description": "f() - D\n\n", "parameters": {}}'
    assert line.count("{") == line.count("}") + 1  # the template's missing brace
    ret = hermes_tool_line({"name": "f", "description": "D", "parameters": {"properties": {}},
                            "return": {"type": "integer", "description": "R"}})
    assert '"f() -> int - D\n\n\n    Returns:\n        R"' in ret


@pytest.mark.parametrize(
    ("dialect", "messages", "tools", "pattern"),
    [
        ("hermes", [{"role": "user", "content": "x"}], None, "tools=None"),
        ("hermes", [{"role": "user", "content": "x"}],
         [{"name": "f", "description": "d", "parameters": {"properties": {"a": {"type": "null"}}}}], "RecursionError"),
        ("hermes-vllm", [{"role": "user", "content": "x"}], [{"name": "f", "parameters": {}}], "description"),
        ("qwen3", [{"role": "user", "content": "x"},
                   {"role": "assistant", "tool_calls": [{"name": "f", "arguments": {}}]}], [], "message 1"),
        ("qwq", [{"role": "user", "content": "x"}, {"role": "assistant", "content": None,
                                                   "tool_calls": [{"name": "f", "arguments": {}}]},
                 {"role": "user", "content": "y"}], [], "message 1"),
        ("qwen2.5", [{"role": "user", "content": "x"}, {"role": "assistant", "content": "",
                                                       "tool_calls": [{"name": "f"}]}], [], "no arguments"),
        ("hermes", [{"role": "user"}], [], "message 0"),
        ("qwen3", [], [], "no messages"),
    ],
)
def test_template_crashes_become_render_errors(dialect: str, messages: list[dict[str, Any]], tools: Any,
                                               pattern: str) -> None:
    with pytest.raises(RenderError, match=pattern):
        render(messages, tools=tools, dialect=dialect)
    profile = DIALECTS[dialect]
    assert profile.template is not None
    with pytest.raises(RenderError):  # and the template itself crashes there too
        oracle_render(template_source(profile.template), messages, tools)


def test_message_index_on_crash() -> None:
    msgs = [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}, {"role": "assistant"}]
    with pytest.raises(RenderError) as info:
        render(msgs, tools=[], dialect="hermes")
    assert info.value.message_index == 2


def test_unknown_dialect_and_bad_message() -> None:
    with pytest.raises(UsageError):
        render([], dialect="nope")
    with pytest.raises(RenderError, match="message 0"):
        render(["hello"], dialect="qwen3")  # type: ignore[list-item]


def test_dropped_roles_and_leading_tool() -> None:
    msgs = [{"role": "tool", "content": "r"}, {"role": "developer", "content": "d"}]
    with pytest.raises(RenderError) as info:  # the result lands outside any turn: it would not parse back
        render(msgs, tools=[], dialect="hermes")
    assert (info.value.message_index, info.value.field) == (0, "content")
    out = render(msgs, tools=[], dialect="hermes", allow_injection=True)
    assert out.endswith("</tool_response>\n<|im_end|>")  # not the last message: "\n" before <|im_end|>
    assert "<|im_start|>tool" not in out and "developer" not in out  # no header for a leading result
    assert out == oracle_render(template_source(DIALECTS["hermes"].template or ""), msgs, [])


def test_example_request_is_valid_json() -> None:
    body = loads(Path(REPO / "examples" / "request.json").read_text(encoding="utf-8"))
    assert set(body) == {"messages", "tools"}
