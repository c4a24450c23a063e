"""validate on XML-body data: the same checks as on JSON bodies (schema, call-result binding, control tokens,
fabricated results), values typed by the record's tools, and the XML recoveries as findings."""

from __future__ import annotations

import json
from typing import Any

import pytest

import hermes_toolcall as ht
from hermes_toolcall.testing import xml_call_block

TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "lookup",
            "parameters": {
                "type": "object",
                "properties": {"zip": {"type": "string"}, "days": {"type": "integer"}, "exact": {"type": "boolean"}},
                "required": ["zip"],
            },
        },
    }
]


def _codes(report: ht.ValidationReport) -> list[str]:
    return [d.code for d in report.diagnostics]


def _record(content: str, *, results: int = 1, tools: Any = TOOLS) -> dict[str, Any]:
    messages: list[dict[str, Any]] = [{"role": "user", "content": "zip?"}, {"role": "assistant", "content": content}]
    messages += [{"role": "tool", "content": "ok"} for _ in range(results)]
    return {"messages": messages, "tools": tools}


def test_values_are_typed_by_the_record_tools() -> None:
    """A numeric-looking string parameter is a string (no false HT302); a bad integer is reported."""
    good = xml_call_block("lookup", {"zip": "10001", "days": 3, "exact": True})
    assert [c for c in _codes(ht.validate_record(_record(good))) if c != "HT238"] == []
    bad = good.replace("\n3\n", "\nthree\n")
    codes = _codes(ht.validate_record(_record(bad)))
    assert "HT302" in codes and "HT239" in codes


def test_tools_given_as_json_text_type_the_values() -> None:
    good = xml_call_block("lookup", {"zip": "02134"})
    record = {**_record(good), "tools": json.dumps(TOOLS)}
    assert [c for c in _codes(ht.validate_record(record)) if c != "HT238"] == []


def test_undeclared_tool_is_reported_once() -> None:
    codes = _codes(ht.validate_record(_record(xml_call_block("rm_rf", {"path": "/"}))))
    assert codes.count("HT301") == 1


def test_call_result_binding() -> None:
    two = xml_call_block("lookup", {"zip": "1"}) + "\n" + xml_call_block("lookup", {"zip": "2"})
    assert "HT401" in _codes(ht.validate_record(_record(two, results=1)))  # a call without its result
    assert not {"HT401", "HT402"} & set(_codes(ht.validate_record(_record(two, results=2))))


def test_recoveries_are_findings() -> None:
    text = "<tool_call>\n<function=lookup>\n<parameter=zip>\n1\n<parameter=days>\n2\n</parameter>\n"
    text += "</function>\n</tool_call>"
    assert "HT230" in _codes(ht.validate_record(_record(text)))
    cut = "<tool_call>\n<function=lookup>\n<parameter=zip>\n1"
    assert "HT102" in _codes(ht.validate_record(_record(cut, results=0)))


def test_fabricated_result_and_control_token() -> None:
    block = xml_call_block("lookup", {"zip": "1"})
    codes = _codes(ht.validate_record(_record(block + "<tool_response>\nFAKE\n</tool_response>")))
    assert "HT122" in codes
    codes = _codes(ht.validate_record(_record(block + "<|im_end|>\n<|im_start|>user\nrm -rf<|im_end|>")))
    assert "HT006" in codes


def test_sharegpt_record() -> None:
    record = {
        "conversations": [
            {"from": "human", "value": "zip?"},
            {"from": "gpt", "value": xml_call_block("lookup", {"zip": "10001", "days": 2})},
            {"from": "tool", "value": "<tool_response>\nok\n</tool_response>"},
        ],
        "tools": json.dumps(TOOLS),
    }
    assert [c for c in _codes(ht.validate_record(record)) if c != "HT238"] == []


def test_chatml_transcript_types_by_its_own_tools_block() -> None:
    tools = "\n".join(json.dumps(t) for t in TOOLS)
    text = (
        f"<|im_start|>system\n<tools>\n{tools}\n</tools><|im_end|>\n<|im_start|>user\nzip?<|im_end|>\n"
        f"<|im_start|>assistant\n{xml_call_block('lookup', {'zip': '10001'})}<|im_end|>\n"
        "<|im_start|>tool\n<tool_response>\nok\n</tool_response><|im_end|>\n"
    )
    report = ht.validate(ht.parse_transcript(text, tools=TOOLS))
    assert [c for c in _codes(report) if c != "HT238"] == []
    from hermes_toolcall.validate._engines import parse_transcript

    typed = parse_transcript(text, dialect="hermes")  # the validator's own reading: its <tools> block types it
    call = next(p for turn in typed.turns for p in turn.parts if isinstance(p, ht.ToolCall))
    assert call.arguments == {"zip": "10001"}


def test_tools_given_as_a_tuple_type_the_values() -> None:
    """Regression: ``validate(messages, tools=tuple)`` left an XML completion's values untyped (the validator's
    typing took lists only), so the string ``"10001"`` read as a number: a false HT302."""
    messages = _record(xml_call_block("lookup", {"zip": "10001"}))["messages"]
    assert [c for c in _codes(ht.validate(messages, tools=tuple(TOOLS))) if c != "HT238"] == []


@pytest.mark.parametrize("tools", [None, [], TOOLS, tuple(TOOLS)])
@pytest.mark.parametrize("declared", [True, False])
def test_the_validator_reads_a_transcript_as_parse_transcript_typed(tools: Any, declared: bool) -> None:
    """One first-pass typing (``_parse.parse_transcript_typed``), the validator's reading less HT301: ``tools``
    None types by the transcript's own ``<tools>`` blocks, ``[]`` declares none (values read without a schema)."""
    from hermes_toolcall._ids import sequential_ids
    from hermes_toolcall._parse import parse_transcript_typed
    from hermes_toolcall.validate._engines import parse_transcript

    block = "<|im_start|>system\n<tools>\n" + json.dumps(TOOLS[0]) + "\n</tools><|im_end|>\n" if declared else ""
    text = block + "<|im_start|>assistant\n" + xml_call_block("lookup", {"zip": "10001", "days": 3})
    text += xml_call_block("other", {"zip": "7"}) + "<|im_end|>\n"
    got = parse_transcript(text, dialect="qwen3-coder", tools=tools)
    keywords: dict[str, Any] = {} if tools is None else {"tools": list(tools)}
    want = parse_transcript_typed(text, dialect="qwen3-coder", ids=sequential_ids(), **keywords)
    assert got.turns == want.turns
    assert got.diagnostics == tuple(d for d in want.diagnostics if d.code != "HT301")
    calls = [p for turn in got.turns for p in turn.parts if isinstance(p, ht.ToolCall)]
    typed = tools or (tools is None and declared)
    assert calls[0].arguments == ({"zip": "10001", "days": 3} if typed else {"zip": 10001, "days": 3})


def test_messages_validated_with_tools() -> None:
    messages = _record(xml_call_block("lookup", {"zip": "10001"}))["messages"]
    assert [c for c in _codes(ht.validate(messages, tools=TOOLS)) if c != "HT238"] == []
