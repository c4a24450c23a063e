"""The block rules both engines share (_blockrules): a finished block to parts and diagnostics."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hermes_toolcall import _blockrules, parse_completion, sequential_ids
from hermes_toolcall._model import Diagnostic, InvalidToolCall, Part, ToolCall, ToolResponse, ToolsBlock
from hermes_toolcall._positions import LineIndex
from hermes_toolcall.statemachine import _blocks as sm_blocks
from hermes_toolcall.tags import CALL_CLOSE, CALL_OPEN, RESP_OPEN

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
