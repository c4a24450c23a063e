"""The XML rules of the grammar engine: an XML block's extent, bare functions, calls that end unclosed reasoning.

(The stream's side of the same rules: tests/test_xml_parse.py's agreement properties.)
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings

import hermes_toolcall as ht
from helpers import xml_dialect
from hermes_toolcall.testing import xml_call_block
from hermes_toolcall.testing._xml import XmlCase, xml_completion_cases

XML = xml_dialect("qwen3-coder")
QWEN35 = xml_dialect("qwen3.5")


def _calls(c: ht.Completion) -> list[tuple[str, dict[str, Any]]]:
    return [(x.name, x.arguments) for x in c.tool_calls]


def test_tool_call_tags_inside_a_value_are_text() -> None:
    value = 'parts = text.split("</tool_call>")\nnew = "<tool_call>" + body'
    text = "Writing.\n" + xml_call_block("write_file", {"content": value}) + "\nDone."
    c = ht.parse_completion(text, dialect=XML)
    assert _calls(c) == [("write_file", {"content": value})]
    assert c.to_openai()["content"] == "Writing.\n\nDone."
    assert c.diagnostics == ()


def test_nested_call_in_a_value_is_text() -> None:
    nested = xml_call_block("write_file", {"path": "x", "content": "hello"})
    text = xml_call_block("write_file", {"path": "fixture.py", "content": f'doc = """\n{nested}\n"""'})
    assert _calls(ht.parse_completion(text, dialect=XML)) == [
        ("write_file", {"path": "fixture.py", "content": f'doc = """\n{nested}\n"""'})
    ]


def test_a_block_without_its_closer_ends_at_the_next_block() -> None:
    first = xml_call_block("a", {"x": "1"})[: -len("</tool_call>")]
    text = first + "\n" + xml_call_block("b", {})
    c = ht.parse_completion(text, dialect=XML)
    assert _calls(c) == [("a", {"x": 1}), ("b", {})]
    assert [d.code for d in c.diagnostics] == ["HT101"]


def test_cut_off_block_is_never_a_call() -> None:
    text = xml_call_block("rm", {"path": "/tmp/x"})
    for k in range(len(text) - len("</function>\n</tool_call>")):
        c = ht.parse_completion(text[:k], dialect=XML)
        assert c.tool_calls == ()


def test_bare_functions_are_calls_only_when_complete() -> None:
    """A complete bare function is a call in a JSON-body dialect too (HT234, and HT238 for the body kind; e5a1810
    changed this test's old expectation, "bare functions are text"); an incomplete one stays text."""
    c = ht.parse_completion("<function=f>\n</function>", dialect="qwen3")
    assert [(x.name, x.arguments) for x in c.tool_calls] == [("f", {})]
    assert [d.code for d in c.diagnostics] == ["HT234", "HT238"]
    for text in ("<function=f>\n", "see <function=f> in docs"):
        c = ht.parse_completion(text, dialect="qwen3")
        assert c.tool_calls == () and c.to_openai()["content"] == text


@settings(max_examples=100)
@given(xml_completion_cases())
def test_grammar_engine_is_total_on_xml(case: XmlCase) -> None:
    for dialect in (XML, QWEN35, "hermes"):
        for strict in (False, True):
            try:
                c = ht.parse_completion(case.text, dialect=dialect, strict=strict, tools=list(case.tools) or None)
            except ht.ParseError:
                assert strict
                continue
            for part in c.parts:
                assert part.span.text(case.text) is not None
