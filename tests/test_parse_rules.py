"""docs/parsing.md rule by rule, and the examples of format.md, with full expected results."""

from __future__ import annotations

from typing import Any

import pytest

from hermes_toolcall import (
    Completion,
    InvalidToolCall,
    ParseError,
    Reasoning,
    Text,
    ToolCall,
    ToolResponse,
    ToolsBlock,
    Transcript,
    Turn,
    UsageError,
    parse_completion,
    parse_transcript,
    sequential_ids,
)
from hermes_toolcall._model import Span
from hermes_toolcall._positions import LineIndex


def pc(text: str, **kw: Any) -> Completion:
    return parse_completion(text, ids=sequential_ids(), **kw)


def pt(text: str, **kw: Any) -> Transcript:
    return parse_transcript(text, ids=sequential_ids(), **kw)


def sp(text: str, start: int, end: int) -> Span:
    return LineIndex(text).span(start, end)


def codes(result: Completion | Transcript) -> list[tuple[str, str, int, int]]:
    return [(d.code, d.severity, d.start, d.end) for d in result.diagnostics]


def tx(text: str, start: int, end: int) -> Text:
    return Text(text=text[start:end], span=sp(text, start, end))


# ---------------------------------------------------------------- format.md §1: the envelope


def test_format_two_turn_transcript_with_generation_prompt() -> None:
    s = "<|im_start|>user\nWhat's the weather in Paris?<|im_end|>\n<|im_start|>assistant\n"
    t = pt(s)
    u_end = s.index("<|im_end|>")
    a0 = u_end + 11
    assert t.turns == (
        Turn(
            role="user",
            parts=(tx(s, 17, u_end),),
            span=sp(s, 0, u_end + 10),
            header=sp(s, 0, 17),
            end=sp(s, u_end, u_end + 10),
        ),
        Turn(role="assistant", parts=(), span=sp(s, a0, len(s)), header=sp(s, a0, len(s)), end=None),
    )
    assert t.gaps == (tx(s, u_end + 10, u_end + 11),)
    assert t.diagnostics == ()  # an empty final body is a generation prompt
    assert t.to_openai_messages() == [{"role": "user", "content": "What's the weather in Paris?"}]


def test_format_hermes_full_exchange_openai_view() -> None:
    s = (
        '<|im_start|>system\nYou are a function calling AI model. <tools> {"type": "function", "function": '
        '{"name": "get_weather", "description": "w", "parameters": {"type": "object"}}} </tools><|im_end|>\n'
        "<|im_start|>user\nWeather in Paris?<|im_end|>\n"
        "<|im_start|>assistant\n"
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call><|im_end|>\n'
        '<|im_start|>tool\n<tool_response>\n{"name": "get_weather", "content": "18C"}\n</tool_response>\n<|im_end|>\n'
        "<|im_start|>assistant\nIt is 18C.<|im_end|>\n"
    )
    t = pt(s)
    assert t.diagnostics == ()
    assert [turn.role for turn in t.turns] == ["system", "user", "assistant", "tool", "assistant"]
    tools_block = t.turns[0].parts[1]
    assert isinstance(tools_block, ToolsBlock) and tools_block.closed
    assert [tool["function"]["name"] for tool in t.tools] == ["get_weather"]
    response = t.turns[3].parts[0]
    assert isinstance(response, ToolResponse)
    assert (response.content, response.name, response.closed) == (
        '{"name": "get_weather", "content": "18C"}',
        "get_weather",
        True,
    )
    msgs = t.to_openai_messages()
    assert msgs[1:] == [
        {"role": "user", "content": "Weather in Paris?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_0",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                }
            ],
        },
        {
            "role": "tool",
            "content": '{"name": "get_weather", "content": "18C"}',
            "tool_call_id": "call_0",
            "name": "get_weather",
        },
        {"role": "assistant", "content": "It is 18C."},
    ]


def test_format_hermes_glued_turns_after_tool_turn() -> None:
    s = "<|im_start|>tool\n<tool_response>\n42\n</tool_response>\n<|im_end|><|im_start|>assistant\nok<|im_end|>"
    t = pt(s)
    assert t.gaps == () and t.diagnostics == ()
    assert [turn.closed for turn in t.turns] == [True, True]
    assert t.turns[0].parts[0] == ToolResponse(
        content="42", raw="<tool_response>\n42\n</tool_response>", span=sp(s, 17, 52), name=None
    )


def test_format_qwen_results_folded_into_user_turn() -> None:
    s = "<|im_start|>user\n<tool_response>\nA\n</tool_response>\n<tool_response>\nB\n</tool_response><|im_end|>"
    t = pt(s, dialect="qwen3")
    parts = t.turns[0].parts
    assert [type(p).__name__ for p in parts] == ["ToolResponse", "Text", "ToolResponse"]
    assert [p.content for p in parts if isinstance(p, ToolResponse)] == ["A", "B"]


def test_format_qwen_tools_block_one_json_per_line() -> None:
    s = (
        "<|im_start|>system\n# Tools\n\n<tools>\n"
        '{"type": "function", "function": {"name": "a", "parameters": {}}}\n'
        '{"type": "function", "function": {"name": "b", "parameters": {}}}\n'
        "</tools><|im_end|>\n"
    )
    t = pt(s, dialect="qwen3")
    block = t.turns[0].parts[1]
    assert isinstance(block, ToolsBlock)
    assert block.text == s[s.index("<tools>") + 7 : s.index("</tools>")] and block.closed
    assert [tool["function"]["name"] for tool in t.tools] == ["a", "b"]
    assert t.diagnostics == ()


def test_format_scratch_pad_reasoning() -> None:
    s = "<scratch_pad>\nGoal: weather\n</scratch_pad>\nDone"
    c = pc(s)
    assert c.parts == (
        Reasoning(kind="scratch_pad", text="\nGoal: weather\n", span=sp(s, 0, 42)),
        tx(s, 42, len(s)),
    )
    assert c.to_openai() == {
        "role": "assistant",
        "content": "Done",
        "reasoning_content": "Goal: weather",
        "tool_calls": [],
    }


def test_format_omp_compact_call_and_bare_result() -> None:
    s = (
        '<|im_start|>assistant\nLooking.<tool_call>\n{"name":"read","arguments":{"path":"a.py"}}\n</tool_call><|im_end|>\n'
        "<|im_start|>tool\n<tool_response>\nprint(1)\n</tool_response><|im_end|>\n"
    )
    t = pt(s, dialect="omp")
    call = t.turns[0].parts[1]
    assert isinstance(call, ToolCall)
    assert (call.name, call.arguments, call.arguments_json) == ("read", {"path": "a.py"}, '{"path":"a.py"}')
    assert t.to_openai_messages()[0]["content"] == "Looking."
    assert t.to_openai_messages()[1] == {"role": "tool", "content": "print(1)", "tool_call_id": "call_0"}


# ---------------------------------------------------------------- §3 envelope diagnostics


def test_ht001_im_start_inside_open_turn() -> None:
    s = "<|im_start|>user\nhi<|im_start|>assistant\nhello<|im_end|>"
    t = pt(s)
    assert codes(t) == [("HT001", "error", 19, 31)]
    assert t.turns[0] == Turn(role="user", parts=(tx(s, 17, 19),), span=sp(s, 0, 19), header=sp(s, 0, 17), end=None)
    assert t.turns[1].end == sp(s, len(s) - 10, len(s))


def test_ht002_cut_off_last_turn() -> None:
    s = "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\nHel"
    t = pt(s)
    assert codes(t) == [("HT002", "warning", len(s), len(s))]
    assert t.turns[1].parts == (tx(s, len(s) - 3, len(s)),) and t.turns[1].end is None


def test_ht003_unterminated_header() -> None:
    s = "<|im_start|>assistant<|im_end|>\n<|im_start|>user"
    t = pt(s)
    assert codes(t) == [("HT003", "error", 0, 21), ("HT003", "error", 32, len(s))]
    assert t.turns[0] == Turn(role="assistant", parts=(), span=sp(s, 0, 31), header=sp(s, 0, 21), end=sp(s, 21, 31))
    assert t.turns[1] == Turn(role="user", parts=(), span=sp(s, 32, len(s)), header=sp(s, 32, len(s)), end=None)


def test_ht004_unknown_role_plain_body() -> None:
    s = "<|im_start|>robot\n<tool_call>beep</tool_call><|im_end|>"
    t = pt(s)
    assert codes(t) == [("HT004", "warning", 12, 17)]
    assert t.turns[0].parts == (tx(s, 18, len(s) - 10),)
    assert t.to_openai_messages() == [{"role": "robot", "content": "<tool_call>beep</tool_call>"}]


def test_ht005_text_outside_turn_and_stray_im_end() -> None:
    s = "<|im_start|>user\nhi<|im_end|>\nstray<|im_end|>\n<|im_start|>assistant\nok<|im_end|>"
    t = pt(s)
    g0 = s.index("\nstray")
    g1 = s.index("<|im_start|>assistant")
    assert t.gaps == (tx(s, g0, g1),)
    assert codes(t) == [("HT005", "warning", g0, g1)]


def test_ht005_lone_im_end_is_a_gap() -> None:
    # regression (found by the engines' agreement check): the grammar accepted a final <|im_end|>
    # before any turn, so a lone <|im_end|> became a turn instead of text outside turns
    s = "<|im_end|>"
    t = pt(s)
    assert t.turns == () and t.gaps == (tx(s, 0, 10),)
    assert codes(t) == [("HT005", "warning", 0, 10)]


def test_im_end_before_the_first_turn_is_a_gap() -> None:
    # regression (engines' agreement check): `<|im_end|><|im_start|>` at the start was lexed as a
    # *_LINK token closing a turn that did not exist
    s = "<|im_end|><|im_start|>user\nhi"
    t = pt(s)
    assert t.gaps == (tx(s, 0, 10),)
    assert [turn.role for turn in t.turns] == ["user"]
    assert codes(t) == [("HT005", "warning", 0, 10), ("HT002", "warning", len(s), len(s))]


def test_ht006_completion_continues_after_end() -> None:
    s = "Done.<|im_end|>\n<|im_start|>user\nthanks"
    c = pc(s)
    assert c.parts == (tx(s, 0, 5),)
    assert c.end == sp(s, 5, len(s))
    assert codes(c) == [("HT006", "warning", 5, len(s))]
    ok = pc("Done.<|im_end|>\n \n")
    assert ok.diagnostics == () and ok.end == sp("Done.<|im_end|>\n \n", 5, 18)
    start = pc("a<|im_start|>")
    assert [d.code for d in start.diagnostics] == ["HT006"] and start.end is not None


# ---------------------------------------------------------------- §4 assistant bodies


def test_ht111_unclosed_reasoning() -> None:
    s = "<think>Let me see"
    c = pc(s)
    assert c.parts == (Reasoning(kind="think", text="Let me see", span=sp(s, 0, len(s)), closed=False),)
    assert codes(c) == [("HT111", "warning", 0, len(s))]
    assert c.to_openai()["reasoning_content"] == "Let me see"


def test_ht111_is_an_error_in_strict_mode() -> None:
    with pytest.raises(ParseError) as info:
        pc("<think>Let me see", strict=True)
    assert [d.code for d in info.value.diagnostics] == ["HT111"]


def test_reasoning_kinds_follow_the_profile() -> None:
    from hermes_toolcall._profiles import get_profile

    think_only = get_profile("qwen3").__class__(
        **{
            **{f: getattr(get_profile("qwen3"), f) for f in get_profile("qwen3").__dataclass_fields__},
            "reasoning_kinds": ("think",),
        }
    )
    s = "<scratch_pad>x</scratch_pad><think>y</think>"
    c = pc(s, dialect=think_only)
    assert c.parts == (tx(s, 0, 28), Reasoning(kind="think", text="y", span=sp(s, 28, len(s))))
    assert c.diagnostics == ()


def test_ht122_fabricated_response_kept_as_text() -> None:
    s = '<tool_call>{"name": "f", "arguments": {}}</tool_call><tool_response>FAKE</tool_response>'
    c = pc(s)
    p = s.index("<tool_response>")
    assert c.parts[1] == tx(s, p, len(s))
    assert codes(c) == [("HT122", "warning", p, p + 15), ("HT121", "warning", len(s) - 16, len(s))]


def test_ht123_stop_at_fabricated_response_completion() -> None:
    s = 'Hi<tool_call>{"name": "f", "arguments": {}}</tool_call>\n<tool_response>FAKE<|im_end|>'
    c = pc(s, stop_at_fabricated_response=True)
    p = s.index("<tool_response>")
    assert c.stopped_at == p and c.end is None
    assert c.parts[-1] == tx(s, p - 1, p)
    assert codes(c) == [("HT122", "warning", p, p + 15), ("HT123", "info", p, len(s))]
    assert len(c.tool_calls) == 1


def test_ht123_stop_at_fabricated_response_transcript() -> None:
    s = "<|im_start|>assistant\nok<tool_response>x<|im_end|>\n<|im_start|>user\nmore<|im_end|>"
    t = pt(s, stop_at_fabricated_response=True)
    p = s.index("<tool_response>")
    assert t.stopped_at == p
    assert t.turns == (Turn(role="assistant", parts=(tx(s, 22, p),), span=sp(s, 0, p), header=sp(s, 0, 22), end=None),)
    assert codes(t) == [("HT122", "warning", p, p + 15), ("HT123", "info", p, len(s))]


def test_response_inside_call_or_reasoning_does_not_stop() -> None:
    s = '<think><tool_response></think><tool_call>{"name": "f", "arguments": {"a": "<tool_response>"}}</tool_call>'
    c = pc(s, stop_at_fabricated_response=True)
    assert c.stopped_at is None and len(c.tool_calls) == 1 and c.diagnostics == ()


def test_stray_closers_in_assistant_body() -> None:
    s = "a</think>b</scratch_pad>c</tool_response>d"
    c = pc(s)
    assert c.parts == (tx(s, 0, len(s)),)
    assert [d[0] for d in codes(c)] == ["HT121", "HT121", "HT121"]


def test_calls_in_reasoning_unclosed_after_call() -> None:
    s = '<think>plan<tool_call>{"name": "f", "arguments": {}}</tool_call>more'
    c = pc(s, calls_in_reasoning=True)
    e = s.index("more")
    assert c.parts == (
        Reasoning(kind="think", text="plan", span=sp(s, 0, 11), closed=False),
        ToolCall(index=0, id="call_0", name="f", arguments={}, arguments_json="{}", raw=s[11:e], span=sp(s, 11, e)),
        Reasoning(kind="think", text="more", span=sp(s, e, len(s)), opened=False, closed=False),
    )
    assert codes(c) == [("HT111", "warning", e, len(s))]


# ---------------------------------------------------------------- §5 call blocks


def test_plain_mode_block_ends_at_first_closer() -> None:
    s = "<tool_call>get_weather(NYC)</tool_call> ok"
    c = pc(s)
    bad = c.parts[0]
    assert isinstance(bad, InvalidToolCall)
    assert (bad.code, bad.raw, bad.closed) == ("HT103", s[:39], True)
    assert c.parts[1] == tx(s, 39, len(s))


def test_json_block_ended_by_next_opener_outside_string() -> None:
    s = (
        '<tool_call>{"name": "a", "arguments": {}}'
        '<tool_call>{"name": "b", "arguments": {"q": "<tool_call>"}}</tool_call>'
    )
    c = pc(s)
    second = s.index("<tool_call>", 11)
    assert [type(p).__name__ for p in c.parts] == ["ToolCall", "ToolCall"]
    first, other = c.parts
    assert isinstance(first, ToolCall) and isinstance(other, ToolCall)
    assert (first.closed, first.span, other.id, other.arguments) == (
        False,
        sp(s, 0, second),
        "call_1",
        {"q": "<tool_call>"},
    )
    assert codes(c) == [("HT101", "warning", 0, second)]


def test_control_token_ends_block_even_inside_string() -> None:
    s = '<tool_call>{"name": "f", "arguments": {"a": "x<|im_end|>"}}'
    c = pc(s)
    p = s.index("<|im_end|>")
    bad = c.parts[0]
    assert isinstance(bad, InvalidToolCall) and bad.code == "HT102" and bad.raw == s[:p]
    assert c.end == sp(s, p, len(s))
    assert [d[0] for d in codes(c)] == ["HT102", "HT006"]


def test_escaped_quote_does_not_end_the_string() -> None:
    s = '<tool_call>{"name": "f", "arguments": {"a": "say \\"</tool_call>\\" now"}}</tool_call>'
    c = pc(s)
    assert c.tool_calls[0].arguments == {"a": 'say "</tool_call>" now'} and c.diagnostics == ()


def test_ht106_empty_block() -> None:
    s = "<tool_call>\n</tool_call>"
    c = pc(s)
    bad = c.parts[0]
    assert isinstance(bad, InvalidToolCall) and bad.code == "HT106" and bad.closed
    assert [d[0] for d in codes(c)] == ["HT106"]


def test_ht114_size_cut_resumes_outside() -> None:
    s = '<tool_call>{"name": "f", "arguments": {"a": "<think>x</think>"}}</tool_call>end'
    c = pc(s, max_block_chars=20)
    cut = 11 + 20
    assert c.parts[0] == InvalidToolCall(
        id="call_0",
        raw=s[:cut],
        span=sp(s, 0, cut),
        code="HT114",
        message="<tool_call> block longer than max_block_chars (20); cut here",
        closed=False,
    )
    think = s.index("<think>")
    assert c.parts[1:] == (
        tx(s, cut, think),
        Reasoning(kind="think", text="x", span=sp(s, think, think + 16)),
        tx(s, think + 16, len(s)),
    )
    assert [d[0] for d in codes(c)] == ["HT114", "HT121"]


def test_ht114_cut_inside_reasoning_resumes_in_reasoning() -> None:
    s = '<think>a<tool_call>{"name": "f", "arguments": {}}</tool_call>b</think>c'
    c = pc(s, calls_in_reasoning=True, max_block_chars=4)
    cut = 8 + 11 + 4
    assert [type(p).__name__ for p in c.parts] == ["Reasoning", "InvalidToolCall", "Reasoning", "Text"]
    r2 = c.parts[2]
    assert isinstance(r2, Reasoning)
    assert (r2.opened, r2.closed, r2.text, r2.span.start) == (False, True, s[cut : s.index("</think>")], cut)


def test_ht114_response_and_tools_cut() -> None:
    s = "<|im_start|>tool\n<tool_response>abcdefghij</tool_response><|im_end|>"
    t = pt(s, max_block_chars=4)
    assert t.turns[0].parts[0] == ToolResponse(
        content="abcd", raw="<tool_response>abcd", span=sp(s, 17, 36), closed=False
    )
    assert t.turns[0].parts[1] == tx(s, 36, s.index("<|im_end|>"))
    assert [d[0] for d in codes(t)] == ["HT114", "HT121"]
    s2 = "<|im_start|>system\n<tools>abcdefghij</tools><|im_end|>"
    t2 = pt(s2, max_block_chars=4)
    assert t2.turns[0].parts[0] == ToolsBlock(text="abcd", tools=(), span=sp(s2, 19, 30), closed=False)
    assert [d[0] for d in codes(t2)] == ["HT114", "HT121"]


def test_ids_count_every_block_including_failed_ones() -> None:
    s = '<tool_call>oops</tool_call><tool_call>{"name": "g", "arguments": {}}</tool_call>'
    c = pc(s)
    assert [p.id for p in c.parts if isinstance(p, (ToolCall, InvalidToolCall))] == ["call_0", "call_1"]
    assert c.tool_calls[0].index == 0


def test_call_index_restarts_per_turn() -> None:
    call = '<tool_call>{"name": "f", "arguments": {}}</tool_call>'
    s = f"<|im_start|>assistant\n{call}<|im_end|>\n<|im_start|>assistant\n{call}{call}<|im_end|>"
    t = pt(s)
    assert [(c.index, c.id) for turn in t.turns for c in turn.tool_calls] == [
        (0, "call_0"),
        (0, "call_1"),
        (1, "call_2"),
    ]


# ---------------------------------------------------------------- §6–§7 results and catalogues


def test_ht112_unterminated_response_and_json_awareness() -> None:
    s = '<|im_start|>tool\n<tool_response>\n{"out": "</tool_response>"}\n<|im_end|>'
    t = pt(s)
    r = t.turns[0].parts[0]
    assert isinstance(r, ToolResponse)
    assert (r.content, r.closed) == ('{"out": "</tool_response>"}', False)
    assert codes(t) == [("HT112", "warning", 17, s.index("<|im_end|>"))]


def test_ht113_unterminated_tools_and_stray_closer() -> None:
    s = '<|im_start|>system\n</tools><tools>\n{"type": "function", "function": {"name": "f"}}\n<|im_end|>'
    t = pt(s)
    block = t.turns[0].parts[1]
    assert isinstance(block, ToolsBlock) and not block.closed
    assert [(d.code, d.start) for d in t.diagnostics] == [("HT121", 19), ("HT113", 27)]


def test_user_stray_response_closer_and_assistant_markers_are_text() -> None:
    s = "<|im_start|>user\n<think>x</think><tool_call>y</tool_call></tool_response><|im_end|>"
    t = pt(s)
    assert t.turns[0].parts == (tx(s, 17, s.index("<|im_end|>")),)
    assert [d[0] for d in codes(t)] == ["HT121"]


# ---------------------------------------------------------------- options


def test_unknown_dialect_and_bad_max_block_chars() -> None:
    with pytest.raises(UsageError):
        pc("x", dialect="nope")
    with pytest.raises(UsageError):
        pc("x", max_block_chars=0)


def test_auto_dialect_uses_detection() -> None:
    s = '<|im_start|>assistant\n<tool_call>\n{"name":"f","arguments":{}}\n</tool_call><|im_end|>'
    t = pt(s, dialect="auto")
    assert len(t.turns[0].tool_calls) == 1


def test_strict_mode_collects_every_error() -> None:
    s = "<tool_call>oops</tool_call><tool_call>{'name': 'f', 'arguments': {}}</tool_call>"
    with pytest.raises(ParseError) as info:
        pc(s, strict=True)
    assert [d.code for d in info.value.diagnostics] == ["HT103", "HT202"]
