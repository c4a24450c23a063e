"""XML-body calls through both engines: completions and transcripts, typed by tools=, every chunking.

The engines share the body decoding (``_xmlbody``); the agreement properties check that the stream
gives the whole parse's result, events and OpenAI chunks on XML bodies with every malformation
(``testing._xml.MALFORMATIONS``) and nasty values, 1-character chunks included.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import hermes_toolcall as ht
from hermes_toolcall import _jsonio as jsonio
from hermes_toolcall.testing import assert_engines_agree, chunkings
from hermes_toolcall.testing._xml import XmlCase, xml_call_block, xml_completion_cases

WEATHER = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "days": {"type": "integer"}, "metric": {"type": "boolean"}},
            },
        },
    }
]

QWEN_OUTPUT = (
    "Let me check.\n\n<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n"
    "<parameter=days>\n3\n</parameter>\n<parameter=metric>\nTrue\n</parameter>\n</function>\n</tool_call>"
)


def test_qwen_output_to_openai() -> None:
    """The issue's first symptom: an XML body gave content "" and no calls."""
    c = ht.parse_completion(QWEN_OUTPUT, tools=WEATHER, ids=ht.sequential_ids())
    m = c.to_openai()
    assert m["content"] == "Let me check."
    assert m["tool_calls"] == [
        {
            "id": "call_0",
            "type": "function",
            "function": {"name": "get_weather", "arguments": '{"city": "Paris", "days": 3, "metric": true}'},
        }
    ]
    assert c.finish_reason == "tool_calls"
    assert [d.code for d in c.diagnostics] == ["HT238"]  # hermes (the default dialect) writes JSON bodies


def test_without_tools_values_follow_the_documented_rule() -> None:
    args = ht.parse_completion(QWEN_OUTPUT).tool_calls[0].arguments
    assert args == {"city": "Paris", "days": 3, "metric": True}
    text = QWEN_OUTPUT.replace("\nParis\n", "\n42\n")
    assert ht.parse_completion(text).tool_calls[0].arguments["city"] == 42  # no schema: 42 is a number
    assert ht.parse_completion(text, tools=WEATHER).tool_calls[0].arguments["city"] == "42"


def test_strict_mode_refuses_the_other_body_kind() -> None:
    with pytest.raises(ht.ParseError) as info:
        ht.parse_completion(QWEN_OUTPUT, strict=True)
    assert [d.code for d in info.value.diagnostics] == ["HT238"]


def test_transcript_level() -> None:
    block = xml_call_block("get_weather", {"city": "Paris"})
    text = (
        "<|im_start|>user\nWeather?<|im_end|>\n<|im_start|>assistant\n"
        f"{block}<|im_end|>\n<|im_start|>user\n<tool_response>\n18 C\n</tool_response><|im_end|>\n"
    )
    t = ht.parse_transcript(text, tools=WEATHER, ids=ht.sequential_ids())
    messages = t.to_openai_messages()
    assert messages[1]["tool_calls"][0]["function"] == {"name": "get_weather", "arguments": '{"city": "Paris"}'}
    assert messages[2] == {"role": "tool", "tool_call_id": "call_0", "content": "18 C"}
    assert_engines_agree(text, level="transcript", tools=WEATHER)


@pytest.mark.parametrize("line_end", ["\n", "\r\n"])
def test_step_tool_response_turns_hold_results(line_end: str) -> None:
    """Step 3.5 writes results in ``tool_response`` turns: a known role whose body holds ``<tool_response>``
    blocks (it was an unknown role, HT004, its results plain text), in both engines."""
    block = xml_call_block("get_weather", {"city": "Paris"})
    text = (
        "<|im_start|>user\nWeather?<|im_end|>\n<|im_start|>assistant\n"
        f"{block}<|im_end|>\n<|im_start|>tool_response{line_end}<tool_response>18 C</tool_response><|im_end|>\n"
    )
    t = ht.parse_transcript(text, tools=WEATHER, ids=ht.sequential_ids())
    assert [d.code for d in t.diagnostics] == ["HT238"]  # the XML body in the default (JSON) dialect
    (result,) = t.turns[2].parts
    assert t.turns[2].role == "tool_response" and isinstance(result, ht.ToolResponse) and result.content == "18 C"
    assert_engines_agree(text, level="transcript", tools=WEATHER)


def test_untyped_value_warning_names_the_parameter() -> None:
    text = QWEN_OUTPUT.replace("\n3\n", "\nthree\n")
    c = ht.parse_completion(text, tools=WEATHER)
    (untyped,) = [d for d in c.diagnostics if d.code == "HT239"]
    assert "'days'" in untyped.message and text[untyped.span.start : untyped.span.end] == "\nthree\n"
    assert c.tool_calls[0].arguments["days"] == "three"


def _tool_list(case: XmlCase) -> list[dict[str, Any]]:
    return list(case.tools)


@settings(max_examples=60)
@given(st.data(), xml_completion_cases(), st.booleans())
def test_engines_agree_on_xml_completions(data: st.DataObject, case: XmlCase, strict: bool) -> None:
    """Stream = whole parse (result, events, OpenAI chunks) on generated XML completions, malformed ones included."""
    chunks = data.draw(chunkings(case.text))
    tools = _tool_list(case) if data.draw(st.booleans()) else None
    assert_engines_agree(case.text, chunkings=[chunks], strict=strict, tools=tools)


@settings(max_examples=40)
@given(xml_completion_cases(malformed=False))
def test_template_completions_give_their_calls(case: XmlCase) -> None:
    """A completion as the templates write it gives back its calls, typed by the tools."""
    c = ht.parse_completion(case.text, tools=_tool_list(case), ids=ht.sequential_ids())
    if any(_ambiguous(args) for _, args in case.calls):
        return
    assert [(x.name, jsonio.dumps_report(x.arguments)) for x in c.tool_calls] == [
        (name, jsonio.dumps_report(args)) for name, args in case.calls
    ]


def _ambiguous(arguments: dict[str, Any]) -> bool:
    """A value whose text holds a closer, an opener or a block tag: exercised by the agreement tests."""
    from hermes_toolcall.testing._xml import xml_value

    words = ("</parameter", "</function>", "<parameter=", "<function=", "<tool_call>", "</tool_call>", "<|im_")
    return any(w in xml_value(v) for v in arguments.values() for w in words)
