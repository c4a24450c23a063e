"""_construct.py: the positional constructors build the same values as the dataclass constructors."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from hermes_toolcall import _construct as construct
from hermes_toolcall._model import Reasoning, Span, Text, ToolCall, ToolResponse, Turn

SPAN = Span(start=3, end=9, line=2, column=1)
CASES: list[tuple[Any, type[Any], dict[str, Any]]] = [
    (construct.new_span, Span, {"start": 3, "end": 9, "line": 2, "column": 1}),
    (construct.new_text, Text, {"text": "hi", "span": SPAN}),
    (construct.new_reasoning, Reasoning, {"kind": "think", "text": "t", "span": SPAN, "opened": True, "closed": False}),
    (
        construct.new_tool_call,
        ToolCall,
        {
            "index": 0,
            "id": "call_1",
            "name": "f",
            "arguments": {"a": 1},
            "arguments_json": '{"a": 1}',
            "raw": "<tool_call>…",
            "span": SPAN,
            "closed": True,
        },
    ),
    (
        construct.new_tool_response,
        ToolResponse,
        {"content": "42", "raw": "<tool_response>42", "span": SPAN, "name": None, "closed": False},
    ),
    (construct.new_turn, Turn, {"role": "user", "parts": (), "span": SPAN, "header": SPAN, "end": None}),
]


@pytest.mark.parametrize(("make", "cls", "fields"), CASES, ids=[c[1].__name__ for c in CASES])
def test_positional_value_is_the_dataclass_value(make: Any, cls: type[Any], fields: dict[str, Any]) -> None:
    assert [f.name for f in dataclasses.fields(cls)] == list(fields)  # every field, in declaration order
    fast = make(*fields.values())
    slow = cls(**fields)
    assert type(fast) is cls
    assert fast == slow
    if any(isinstance(v, dict) for v in fields.values()):  # a dict field makes the value unhashable
        with pytest.raises(TypeError):
            hash(fast)
    else:
        assert hash(fast) == hash(slow)
    assert repr(fast) == repr(slow)
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(fast, next(iter(fields)), None)


def test_a_class_with_post_init_is_refused() -> None:
    @dataclasses.dataclass(frozen=True, slots=True)
    class Checked:
        x: int

        def __post_init__(self) -> None:
            pass

    with pytest.raises(TypeError, match="__post_init__"):
        construct.positional(Checked)
