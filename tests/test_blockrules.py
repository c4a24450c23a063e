"""The block rules both engines share (_blockrules): a finished block to parts and diagnostics."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from hermes_toolcall import _blockrules, parse_completion, sequential_ids
from hermes_toolcall import _jsonio as jsonio
from hermes_toolcall._model import Diagnostic, InvalidToolCall, Part, ToolCall, ToolResponse, ToolsBlock
from hermes_toolcall._positions import LineIndex
from hermes_toolcall._xmlbody import scan_xml_block
from hermes_toolcall.statemachine import _blocks as sm_blocks
from hermes_toolcall.tags import CALL_CLOSE, CALL_OPEN, RESP_OPEN
from hermes_toolcall.testing import XmlCase, arguments, mutations, nasty_calls, tool_names, xml_call_block
from hermes_toolcall.testing._xml import xml_completion_cases

LIMIT = 1 << 20


def _call(
    inner: str, *, closed: bool = True, cut: bool = False, strict: bool = False, first: int = 0
) -> tuple[list[Part], list[Diagnostic]]:
    raw = CALL_OPEN + inner + (CALL_CLOSE if closed else "")
    span_of = LineIndex(raw).span
    return _blockrules.call_block(
        block_id="call_7", inner=inner, inner_start=len(CALL_OPEN), raw=raw, span=span_of(0, len(raw)),
        closed=closed, cut=cut, strict=strict, limit=LIMIT, first_index=first, span_of=span_of,
    )  # fmt: skip


def test_an_array_of_calls_gets_sub_ids_and_indices_from_first_index() -> None:
    parts, diags = _call('[{"name": "a", "arguments": {}}, {"name": "b", "arguments": {}}]', first=3)
    assert [(p.id, p.index, p.name) for p in parts if isinstance(p, ToolCall)] == [
        ("call_7", 3, "a"),
        ("call_7_1", 4, "b"),
    ]
    assert [(d.code, d.severity) for d in diags] == [("HT206", "warning")]  # an array of calls: noted


@pytest.mark.parametrize("strict", [False, True])
def test_an_unterminated_call_is_ht101_and_invalid_only_in_strict_mode(strict: bool) -> None:
    parts, diags = _call('{"name": "f", "arguments": {}}', closed=False, strict=strict)
    assert [d.code for d in diags] == ["HT101"]
    kinds = [type(p).__name__ for p in parts]
    assert kinds == (["InvalidToolCall"] if strict else ["ToolCall"])
    if strict:
        assert isinstance(parts[0], InvalidToolCall) and parts[0].code == "HT101" and parts[0].name == "f"


def test_a_cut_call_is_ht114_without_decoding() -> None:
    parts, diags = _call('{"name": "f", "argu', closed=False, cut=True)
    assert [d.code for d in diags] == ["HT114"] and "tool_call" in diags[0].message
    assert isinstance(parts[0], InvalidToolCall) and parts[0].code == "HT114" and parts[0].name is None


def test_a_body_with_no_call_is_invalid_with_the_decoders_code_or_ht103() -> None:
    parts, _ = _call("hello")
    assert isinstance(parts[0], InvalidToolCall) and parts[0].code in ("HT103", "HT104", "HT105", "HT106")
    parts, _ = _call("")
    assert isinstance(parts[0], InvalidToolCall)


def test_a_cut_result_keeps_its_text_verbatim_with_no_name() -> None:
    inner = '\n{"name": "f", "content": 1}'
    part, diags = _blockrules.response_block(
        inner=inner, raw=RESP_OPEN + inner, span=LineIndex(inner).span(0, 1), closed=False, cut=True,
        strict=False, limit=10,
    )  # fmt: skip
    assert isinstance(part, ToolResponse) and part.content == inner and part.name is None and not part.closed
    assert [d.code for d in diags] == ["HT114"]


def test_an_unterminated_catalogue_is_ht113_and_a_cut_one_is_never_closed() -> None:
    span = LineIndex("x").span(0, 1)
    part, diags = _blockrules.tools_block(inner="[]", span=span, closed=False, cut=False, strict=False, limit=9)
    assert isinstance(part, ToolsBlock) and [d.code for d in diags] == ["HT113"]
    part, diags = _blockrules.tools_block(inner="[]", span=span, closed=True, cut=True, strict=False, limit=9)
    assert not part.closed and [d.code for d in diags] == ["HT114"]


_BODIES = st.sampled_from(
    [
        '{"name": "f", "arguments": {"a": 1}}',
        "{'name': 'g', 'arguments': {}}",
        '[{"name": "a", "arguments": {}}, {"name": "b", "arguments": {}}]',
        '{"name": "f", "arguments": {"a": 1}',
        "nothing here",
        "",
        '{"arguments": {}, "name": "late"}',
    ]
)


@given(body=_BODIES, closed=st.booleans(), strict=st.booleans(), first=st.integers(0, 5))
def test_the_stream_finisher_gives_the_block_rules_parts_and_diagnostics(
    body: str, closed: bool, strict: bool, first: int
) -> None:
    # statemachine/blocks.finish_call adds only events: its parts and diagnostics are the shared rules'
    raw = CALL_OPEN + body + (CALL_CLOSE if closed else "")
    span_of = LineIndex(raw).span
    block = sm_blocks.CallBlock(ordinal=0, block_id="call_7")
    parts, events, diags = sm_blocks.finish_call(
        block, inner=body, start=0, end=len(raw), closed=closed, cut=False, closer=CALL_CLOSE, strict=strict,
        max_block_chars=LIMIT, stream_arguments=False, first_index=first, span_of=span_of,
    )  # fmt: skip
    assert (parts, diags) == _call(body, closed=closed, strict=strict, first=first)
    ends = [e for e in events if type(e).__name__ == "ToolCallEnd"]
    assert len(ends) == len(parts)


def test_the_grammar_engine_gives_the_block_rules_parts() -> None:
    text = CALL_OPEN + '{"name": "f", "arguments": {"a": 1}}' + CALL_CLOSE
    got = parse_completion(text, ids=sequential_ids()).parts
    want, _ = _call('{"name": "f", "arguments": {"a": 1}}')
    assert [(p.id, p.name, p.arguments, p.span) for p in got if isinstance(p, ToolCall)] == [
        ("call_0", "f", {"a": 1}, want[0].span)
    ]


@st.composite
def _call_bodies(draw: st.DrawFn) -> str:
    """Call bodies around the usual one: as the templates write it (both spellings, blanks around),
    then mutated, truncated, with nasty values (``nasty_calls``), arrays and Python literals."""
    name = draw(tool_names())
    args = draw(arguments())
    usual = draw(
        st.sampled_from(
            [
                jsonio.dumps_spaced({"name": name, "arguments": args}),
                jsonio.dumps_compact({"name": name, "arguments": args}),
                jsonio.dumps_spaced({"arguments": args, "name": name}),
            ]
        )
    )
    lead, trail = draw(st.sampled_from(["", "\n", " \r\n\t"])), draw(st.sampled_from(["", "\n", "\r\n "]))
    nasty = draw(nasty_calls())
    body = draw(
        st.sampled_from(
            [
                usual,
                nasty[len(CALL_OPEN) :].replace(CALL_CLOSE, ""),
                "[" + usual + "]",
                usual.replace('"', "'"),
                usual[:-1],
                "",
            ]
        )
    )
    if draw(st.booleans()):
        body = draw(mutations(body))
    return lead + body + trail


@given(body=_call_bodies(), strict=st.booleans(), first=st.integers(0, 5), expect=st.sampled_from(["json", "xml"]))
@example(body='{"name": "f", "arguments": {"a": 1}}', strict=False, first=0, expect="json")
@example(body='\n{"name": "f", "arguments": {"a": 1}}\n', strict=True, first=2, expect="xml")
@example(body='{"name": "f", "arguments": {"a": 1}, "name": "g"}', strict=False, first=0, expect="json")
@example(body='{"name": "f\\u0000", "arguments": {"a": 1e400}}', strict=False, first=0, expect="json")
def test_the_common_call_guard_gives_call_block_s_part(body: str, strict: bool, first: int, expect: Any) -> None:
    """``common_call`` (the grammar engine's guard in front of ``call_block`` for a closed, uncut block)
    gives the part ``call_block`` gives, and no diagnostics are lost, whenever it answers."""
    raw = CALL_OPEN + body + CALL_CLOSE
    index = LineIndex(raw)
    got = _blockrules.common_call(
        block_id="call_7", inner=body, raw=raw, start=0, end=len(raw), pos=index, first_index=first, expect=expect
    )
    want = _blockrules.call_block(
        block_id="call_7", inner=body, inner_start=len(CALL_OPEN), raw=raw, span=index.span(0, len(raw)),
        closed=True, cut=False, strict=strict, limit=LIMIT, first_index=first, span_of=index.span, pos=index,
        expect=expect,
    )  # fmt: skip
    if got is not None:
        assert want == ([got], [])
        assert got.span == want[0][0].span
    elif expect == "json" and body.strip() and _body_is_usual(body):
        raise AssertionError(f"the guard declined a usual body: {body!r}")


def _body_is_usual(body: str) -> bool:
    """Whether ``body`` is exactly ``{"name": NAME, "arguments": {...}}`` as ``dumps_spaced`` writes it."""
    try:
        value = jsonio.loads(body.strip())
    except Exception:
        return False
    return (
        isinstance(value, dict)
        and list(value) == ["name", "arguments"]
        and isinstance(value["name"], str)
        and bool(value["name"])
        and isinstance(value["arguments"], dict)
        and body.strip() == jsonio.dumps_spaced(value)
    )


@given(st.data(), xml_completion_cases(), st.booleans(), st.sampled_from(["xml", "json"]))
@example(None, XmlCase(text=xml_call_block("f", {"a": "x", "n": 3}), tools=(), calls=(), malformed=()), False, "xml")
def test_the_common_call_guard_gives_call_block_s_part_for_xml_bodies(
    data: Any, case: XmlCase, strict: bool, expect: Any
) -> None:
    """The same for an XML body the grammar engine has read (``decoded``): the guard answers only for a
    closed block of the dialect's kind with one call and no issue, and then gives ``call_block``'s part."""
    tools = {t["function"]["name"]: t["function"]["parameters"] for t in case.tools} or None
    at = case.text.find(CALL_OPEN)
    while at >= 0:
        b = at + len(CALL_OPEN)
        block = scan_xml_block(case.text, b, strict=strict, tools=tools)
        if block.how == "closed" and block.body.failure != "HT103":
            end = block.end + len(CALL_CLOSE)
            raw, inner = case.text[at:end], case.text[b : block.end]
            index = LineIndex(case.text)
            got = _blockrules.common_call(
                block_id="call_7", inner=inner, raw=raw, start=at, end=end, pos=index, first_index=1,
                expect=expect, decoded=block.body,
            )  # fmt: skip
            want = _blockrules.call_block(
                block_id="call_7", inner=inner, inner_start=b, raw=raw, span=index.span(at, end), closed=True,
                cut=False, strict=strict, limit=LIMIT, first_index=1, span_of=index.span, pos=index, tools=tools,
                expect=expect, decoded=block.body,
            )  # fmt: skip
            if got is not None:
                assert want == ([got], [])
                assert got.span == want[0][0].span
            elif expect == "xml" and not block.body.issues and len(block.body.calls) == 1:
                raise AssertionError(f"the guard declined a usual block: {raw!r}")
        at = case.text.find(CALL_OPEN, b)
