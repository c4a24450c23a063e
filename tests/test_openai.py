"""The OpenAI view both ways (docs/parsing.md §9), on hand-built model values."""

from __future__ import annotations

from typing import Any

import pytest

from hermes_toolcall import (
    Completion,
    FunctionCall,
    InvalidToolCall,
    Message,
    Reasoning,
    Span,
    Text,
    ToolCall,
    ToolResponse,
    Transcript,
    Turn,
    UsageError,
    render,
)
from hermes_toolcall._openai import (
    completion_to_openai,
    messages_from_openai,
    messages_to_openai,
    transcript_to_messages,
    transcript_to_openai,
)

S = Span(start=0, end=0, line=1, column=1)


def text(t: str) -> Text:
    return Text(text=t, span=S)


def tcall(name: str, args_json: str, call_id: str, index: int = 0) -> ToolCall:
    return ToolCall(index=index, id=call_id, name=name, arguments={}, arguments_json=args_json, raw="", span=S)


def test_completion_plain_text() -> None:
    c = Completion(parts=(text("Hello"),), diagnostics=(), source="Hello")
    assert completion_to_openai(c) == {"role": "assistant", "content": "Hello", "reasoning_content": None,
                                       "tool_calls": []}
    assert c.to_openai() == completion_to_openai(c)


def test_completion_reasoning_then_text() -> None:
    parts = (Reasoning(kind="think", text="\nplan\n", span=S), text("\n\nAnswer"))
    out = completion_to_openai(Completion(parts=parts, diagnostics=(), source=""))
    assert out["reasoning_content"] == "plan"
    assert out["content"] == "Answer"  # newlines removed from the start after reasoning


def test_completion_calls_strip_content() -> None:
    parts = (text("Let me check.\n"), tcall("f", '{"a": 1}', "call_0"), text("\n"),
             InvalidToolCall(id="call_1", raw="<tool_call>x</tool_call>", span=S, code="HT103", message="bad"),
             tcall("g", "{}", "call_2", 1))
    out = completion_to_openai(Completion(parts=parts, diagnostics=(), source=""), invalid_calls="drop")
    assert out["content"] == "Let me check."
    assert [c["id"] for c in out["tool_calls"]] == ["call_0", "call_2"]
    kept = completion_to_openai(Completion(parts=parts, diagnostics=(), source=""))  # the default: content
    assert kept["content"] == "Let me check.\n\n<tool_call>x</tool_call>"
    assert kept["tool_calls"] == out["tool_calls"]
    assert out["tool_calls"][0] == {"id": "call_0", "type": "function",
                                    "function": {"name": "f", "arguments": '{"a": 1}'}}
    only_calls = completion_to_openai(Completion(parts=(text("\n"), tcall("f", "{}", "c")), diagnostics=(),
                                                 source=""))
    assert only_calls["content"] is None


def test_reasoning_blocks_and_segments() -> None:
    parts = (
        Reasoning(kind="think", text="\na", span=S, closed=False),
        tcall("f", "{}", "c"),
        Reasoning(kind="think", text="b\n", span=S, opened=False),
        Reasoning(kind="scratch_pad", text="\nc\n", span=S),
    )
    out = completion_to_openai(Completion(parts=parts, diagnostics=(), source=""))
    assert out["reasoning_content"] == "ab\nc"  # segments concatenated, one \n off each end per block
    empty = completion_to_openai(Completion(parts=(Reasoning(kind="think", text="\n", span=S),), diagnostics=(),
                                            source=""))
    assert empty["reasoning_content"] is None


def _turn(source: str, role: str, body: str, parts: tuple[Any, ...], closed: bool = True) -> tuple[str, Turn]:
    start = len(source)
    header = f"<|im_start|>{role}\n"
    end_tok = "<|im_end|>" if closed else ""
    new = source + header + body + end_tok
    h = Span(start=start, end=start + len(header), line=1, column=1)
    end = Span(start=len(new) - len(end_tok), end=len(new), line=1, column=1) if closed else None
    return new, Turn(role=role, parts=parts, span=Span(start=start, end=len(new), line=1, column=1), header=h, end=end)


def test_transcript_to_messages_binds_results_positionally() -> None:
    src = ""
    turns = []
    for role, body, parts, closed in [
        ("system", "Be nice.", (text("Be nice."),), True),
        ("user", "Hi", (text("Hi"),), True),
        ("assistant", "<tool_call>…</tool_call>", (tcall("f", "{}", "A"), tcall("g", "{}", "B", 1)), True),
        ("tool", "<tool_response>\nr1\n</tool_response>", (ToolResponse(content="r1", raw="", span=S),), True),
        ("user", "<tool_response>…", (ToolResponse(content="r2", raw="", span=S, name="g"), text("\n"),
                                      ToolResponse(content="r3", raw="", span=S)), True),
        ("assistant", "Done.", (text("Done."),), True),
        ("assistant", "", (), False),
    ]:
        src, turn = _turn(src, role, body, parts, closed)
        turns.append(turn)
    t = Transcript(turns=tuple(turns), gaps=(), diagnostics=(), source=src)
    msgs = transcript_to_messages(t)
    assert [m.role for m in msgs] == ["system", "user", "assistant", "tool", "tool", "tool", "assistant"]
    assert msgs[0].content == "Be nice."
    assert [m.tool_call_id for m in msgs[3:6]] == ["A", "B", None]
    assert msgs[4].name == "g"
    assert msgs[2].content is None and msgs[2].tool_calls[1] == FunctionCall(name="g", arguments="{}", id="B")
    assert t.to_messages() == msgs
    wire = transcript_to_openai(t)
    assert wire == t.to_openai_messages()
    assert wire[2]["content"] is None and wire[2]["tool_calls"][0]["function"] == {"name": "f", "arguments": "{}"}
    assert wire[3] == {"role": "tool", "content": "r1", "tool_call_id": "A"}


def test_user_turn_with_text_and_results_stays_user() -> None:
    src, turn = _turn("", "user", "see <tool_response>\nx\n</tool_response>",
                      (text("see "), ToolResponse(content="x", raw="", span=S)))
    msgs = transcript_to_messages(Transcript(turns=(turn,), gaps=(), diagnostics=(), source=src))
    assert msgs == (Message(role="user", content="see <tool_response>\nx\n</tool_response>"),)


def test_messages_from_openai() -> None:
    msgs = messages_from_openai([
        {"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "image_url", "image_url": {}},
                                     {"type": "text", "text": "b"}]},
        {"role": "assistant", "content": None, "thinking": "t",
         "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": '{"x": 1}'}},
                        {"function": {"name": "g", "arguments": {"y": 2}}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "ok"},
        {"role": "assistant", "content": "x", "reasoning": "r2"},
    ])
    assert msgs[0] == Message(role="user", content="ab")
    assert msgs[1].reasoning == "t" and msgs[1].content is None
    assert msgs[1].tool_calls == (FunctionCall(name="f", arguments='{"x": 1}', id="c1"),
                                  FunctionCall(name="g", arguments={"y": 2}))
    assert msgs[2] == Message(role="tool", content="ok", tool_call_id="c1")
    assert msgs[3].reasoning == "r2"


@pytest.mark.parametrize("bad", [
    ["not a message"], [{"content": "no role"}], [{"role": "user", "content": 5}],
    [{"role": "assistant", "tool_calls": [{"function": {"arguments": "{}"}}]}],
    [{"role": "assistant", "tool_calls": [{"function": {"name": "f", "arguments": 5}}]}],
])
def test_messages_from_openai_rejects(bad: list[Any]) -> None:
    with pytest.raises(UsageError):
        messages_from_openai(bad)


def test_messages_to_openai_round_trip_and_ids() -> None:
    wire: list[dict[str, Any]] = [
        {"role": "system", "content": "s"},
        {"role": "assistant", "content": None, "reasoning_content": "r",
         "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": '{"x": 1}'}}]},
        {"role": "tool", "content": "ok", "tool_call_id": "c1"},
    ]
    assert messages_to_openai(messages_from_openai(wire)) == wire
    no_ids = messages_to_openai([
        Message(role="assistant", tool_calls=(FunctionCall(name="f", arguments={"a": "ü"}),
                                              FunctionCall(name="g", arguments="{}"))),
        Message(role="tool", content="1"), Message(role="tool", content="2"), Message(role="tool", content="3"),
    ])
    assert [c["id"] for c in no_ids[0]["tool_calls"]] == ["call_0", "call_1"]
    assert no_ids[0]["tool_calls"][0]["function"]["arguments"] == '{"a": "ü"}'
    assert [m.get("tool_call_id") for m in no_ids[1:]] == ["call_0", "call_1", None]


def test_messages_render_like_their_openai_dicts() -> None:
    wire: list[dict[str, Any]] = [{"role": "user", "content": "q"},
            {"role": "assistant", "content": "", "tool_calls": [{"id": "c", "type": "function",
                                                                 "function": {"name": "f", "arguments": '{"a":1}'}}]},
            {"role": "tool", "content": "r", "tool_call_id": "c"}]
    values = messages_from_openai(wire)
    for dialect in ("hermes", "qwen3", "qwen2.5", "omp"):
        assert render(values, tools=[], dialect=dialect) == render(wire, tools=[], dialect=dialect)


def test_open_final_turn_with_only_a_failed_call_is_kept() -> None:
    bad = InvalidToolCall(id="call_0", raw="<tool_call>{", span=S, code="HT102", message="cut", closed=False)
    src, turn = _turn("", "assistant", "<tool_call>{", (bad,), closed=False)
    msgs = transcript_to_messages(Transcript(turns=(turn,), gaps=(), diagnostics=(), source=src), invalid_calls="drop")
    assert msgs == (Message(role="assistant", content=""),)
    msgs = transcript_to_messages(Transcript(turns=(turn,), gaps=(), diagnostics=(), source=src))
    assert msgs == (Message(role="assistant", content="<tool_call>{"),)
    src, prompt = _turn("", "assistant", "", (), closed=False)
    assert transcript_to_messages(Transcript(turns=(prompt,), gaps=(), diagnostics=(), source=src)) == ()
