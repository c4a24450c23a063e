"""The data model: frozen, slotted, keyword-only values with structural equality."""

from __future__ import annotations

import dataclasses

import pytest

from hermes_toolcall._model import (
    Completion,
    Diagnostic,
    InvalidToolCall,
    Reasoning,
    Span,
    Text,
    ToolCall,
)

SPAN = Span(start=0, end=4, line=1, column=1)


def _call(**kw: object) -> ToolCall:
    base: dict[str, object] = dict(
        index=0, id="call_0", name="f", arguments={"a": 1}, arguments_json='{"a": 1}', raw="<tool_call>…", span=SPAN
    )
    base.update(kw)
    return ToolCall(**base)  # type: ignore[arg-type]


def test_values_are_frozen_slotted_keyword_only() -> None:
    for cls in (Span, Diagnostic, Text, Reasoning, ToolCall, InvalidToolCall, Completion):
        params = dataclasses.fields(cls)  # type: ignore[arg-type]
        assert all(f.kw_only for f in params), cls
        assert hasattr(cls, "__slots__"), cls
    with pytest.raises(dataclasses.FrozenInstanceError):
        SPAN.start = 3  # type: ignore[misc]
    with pytest.raises(TypeError):
        Span(0, 1, 1, 1)  # type: ignore[misc]


def test_structural_equality() -> None:
    assert _call() == _call()
    assert _call() != _call(arguments={"a": 2})
    assert Text(text="x", span=SPAN) == Text(text="x", span=SPAN)


def test_diagnostic_position_properties() -> None:
    d = Diagnostic(code="HT121", severity="warning", message="m", span=Span(start=5, end=9, line=2, column=3))
    assert (d.start, d.end, d.line, d.column) == (5, 9, 2, 3)


def test_completion_calls_and_finish_reason() -> None:
    bad = InvalidToolCall(id="call_1", raw="<tool_call>{", span=SPAN, code="HT102", message="cut", closed=False)
    c = Completion(parts=(Text(text="hi", span=SPAN), _call(), bad), diagnostics=(), source="")
    assert c.tool_calls == (_call(),)
    assert c.finish_reason == "tool_calls"
    assert Completion(parts=(bad,), diagnostics=(), source="").finish_reason == "stop"


def test_tool_call_openai_shape() -> None:
    assert _call().to_openai() == {
        "id": "call_0",
        "type": "function",
        "function": {"name": "f", "arguments": '{"a": 1}'},
    }


def test_span_text_and_length() -> None:
    assert Span(start=2, end=5, line=1, column=3).text("abcdefg") == "cde"
    assert SPAN.length == 4
