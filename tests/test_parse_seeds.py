"""The 15 test seeds of field-failures.md §7, each with its full expected parse (grammar engine)."""

from __future__ import annotations

from typing import Any

from hermes_toolcall import (
    Completion,
    InvalidToolCall,
    Reasoning,
    Text,
    ToolCall,
    parse_completion,
    sequential_ids,
)
from hermes_toolcall._model import Span
from hermes_toolcall._positions import LineIndex


def parse(text: str, **kw: Any) -> Completion:
    return parse_completion(text, ids=sequential_ids(), **kw)


def sp(text: str, start: int, end: int) -> Span:
    return LineIndex(text).span(start, end)


def codes(c: Completion) -> list[tuple[str, str, int, int]]:
    return [(d.code, d.severity, d.start, d.end) for d in c.diagnostics]


def call(
    text: str,
    start: int,
    end: int,
    name: str,
    args: dict[str, Any],
    args_json: str,
    *,
    index: int = 0,
    id: str = "call_0",
    closed: bool = True,
) -> ToolCall:
    return ToolCall(
        index=index,
        id=id,
        name=name,
        arguments=args,
        arguments_json=args_json,
        raw=text[start:end],
        span=sp(text, start, end),
        closed=closed,
    )


def text_part(text: str, start: int, end: int) -> Text:
    return Text(text=text[start:end], span=sp(text, start, end))


def test_seed_01_end_tag_inside_string() -> None:
    s = '<tool_call>{"name":"bash","arguments":{"cmd":"echo </tool_call> test"}}</tool_call>'
    c = parse(s)
    assert c.parts == (
        call(s, 0, len(s), "bash", {"cmd": "echo </tool_call> test"}, '{"cmd":"echo </tool_call> test"}'),
    )
    assert c.diagnostics == ()
    assert c.finish_reason == "tool_calls"
    assert c.end is None and c.stopped_at is None


def test_seed_02_closing_braces_batched() -> None:
    s = '<tool_call>\n{"name": "get", "arguments": {"id": 42' + "}\n}\n</tool_call>"
    c = parse(s)
    assert c.parts == (call(s, 0, len(s), "get", {"id": 42}, '{"id": 42}'),)
    assert c.diagnostics == ()


def test_seed_03_parameterless_call() -> None:
    s = '<tool_call>\n{"name": "current_time", "arguments": {}}\n</tool_call>'
    c = parse(s)
    assert c.parts == (call(s, 0, len(s), "current_time", {}, "{}"),)
    assert c.tool_calls[0].to_openai()["function"] == {"name": "current_time", "arguments": "{}"}


def test_seed_04_truncated_mid_arguments() -> None:
    s = '<tool_call>{"name": "get_weather", "arguments": {"loc'
    c = parse(s)
    assert len(c.parts) == 1
    part = c.parts[0]
    assert isinstance(part, InvalidToolCall)
    assert (part.id, part.raw, part.span, part.code, part.name, part.closed) == (
        "call_0",
        s,
        sp(s, 0, len(s)),
        "HT102",
        "get_weather",
        False,
    )
    assert [d[:2] for d in codes(c)] == [("HT102", "error")]
    assert 11 <= c.diagnostics[0].start <= c.diagnostics[0].end == len(s)
    assert c.tool_calls == () and c.finish_reason == "stop"


def test_seed_05_missing_end_tag_at_eos() -> None:
    s = '<tool_call>{"name": "get_weather", "arguments": {"location": "NYC"}}'
    c = parse(s)
    assert c.parts == (call(s, 0, len(s), "get_weather", {"location": "NYC"}, '{"location": "NYC"}', closed=False),)
    assert codes(c) == [("HT101", "warning", 0, len(s))]
    assert c.finish_reason == "tool_calls"


def test_seed_05_strict_keeps_no_unterminated_call() -> None:
    s = '<tool_call>{"name": "get_weather", "arguments": {"location": "NYC"}}'
    c = parse_completion(s, ids=sequential_ids(), strict=False)
    assert c.tool_calls
    from hermes_toolcall import ParseError, parse_completion_with
    from hermes_toolcall._options import ParseOptions

    try:
        parse_completion_with(s, ParseOptions.make(strict=True, ids=sequential_ids()))
    except ParseError as exc:
        assert [(d.code, d.severity, d.start, d.end) for d in exc.diagnostics] == [("HT101", "error", 0, len(s))]
    else:  # pragma: no cover - the assertion is the test
        raise AssertionError("strict mode must raise on an unterminated call")


def test_seed_06_second_call_truncated_keeps_first() -> None:
    first = '<tool_call>{"name": "a", "arguments": {}}</tool_call>'
    s = first + '<tool_call>{"name": "b", "arguments": {"x": "y'
    c = parse(s)
    assert c.parts[0] == call(s, 0, len(first), "a", {}, "{}")
    bad = c.parts[1]
    assert isinstance(bad, InvalidToolCall)
    assert (bad.id, bad.raw, bad.code, bad.name, bad.closed) == ("call_1", s[len(first) :], "HT102", "b", False)
    assert [d[0] for d in codes(c)] == ["HT102"]
    assert c.finish_reason == "tool_calls" and len(c.tool_calls) == 1


def test_seed_07_python_literal_dict() -> None:
    s = "<tool_call>\n{'arguments': {'symbol': 'TSLA'}, 'name': 'get_stock_fundamentals'}\n</tool_call>"
    c = parse(s)
    assert c.parts == (call(s, 0, len(s), "get_stock_fundamentals", {"symbol": "TSLA"}, '{"symbol": "TSLA"}'),)
    assert sorted(d[0] for d in codes(c)) == ["HT109", "HT202"]
    assert all(d.severity == "warning" for d in c.diagnostics)


def test_seed_07_apostrophe_in_valid_json_is_not_corrupted() -> None:
    s = '<tool_call>{"name": "search", "arguments": {"query": "what\'s the weather"}}</tool_call>'
    c = parse(s)
    assert c.parts == (
        call(s, 0, len(s), "search", {"query": "what's the weather"}, '{"query": "what\'s the weather"}'),
    )
    assert c.diagnostics == ()


def test_seed_07_python_literal_is_an_error_in_strict_mode() -> None:
    s = "<tool_call>{'name': 'f', 'arguments': {'ok': True}}</tool_call>"
    c = parse(s, strict=False)
    assert c.tool_calls[0].arguments == {"ok": True}
    from hermes_toolcall import ParseError

    try:
        parse(s, strict=True)
    except ParseError as exc:
        assert [d.code for d in exc.diagnostics] == ["HT202"]
    else:  # pragma: no cover
        raise AssertionError("strict mode must raise")


def test_seed_08_raw_newline_in_string() -> None:
    s = '<tool_call>{"name":"edit","arguments":{"content":"line1\nline2"}}</tool_call>'
    c = parse(s)
    assert c.parts == (call(s, 0, len(s), "edit", {"content": "line1\nline2"}, '{"content": "line1\\nline2"}'),)
    assert [d[:2] for d in codes(c)] == [("HT204", "warning")]


def test_seed_09_stringified_arguments() -> None:
    s = '<tool_call>{"name": "get_db_config", "arguments": "{\\"param\\": \\"max_connections\\"}"}</tool_call>'
    c = parse(s)
    assert c.parts == (
        call(s, 0, len(s), "get_db_config", {"param": "max_connections"}, '{"param": "max_connections"}'),
    )
    assert [d[:2] for d in codes(c)] == [("HT201", "warning")]


SEED_10 = (
    '<think>maybe <tool_call>{"name": "f", "arguments": {}}</tool_call></think>\n'
    '<tool_call>\n{"name": "f", "arguments": {}}\n</tool_call>'
)


def test_seed_10_call_inside_think_default_policy() -> None:
    s = SEED_10
    close = s.index("</think>") + 8
    c = parse(s)
    assert c.parts == (
        Reasoning(kind="think", text=s[7 : close - 8], span=sp(s, 0, close)),
        text_part(s, close, close + 1),
        call(s, close + 1, len(s), "f", {}, "{}"),
    )
    assert codes(c) == [("HT124", "info", 13, 24)]
    assert len(c.tool_calls) == 1


def test_seed_10_calls_in_reasoning_option() -> None:
    s = SEED_10
    c = parse(s, calls_in_reasoning=True)
    inner_call_end = s.index("</tool_call>") + 12
    close = s.index("</think>") + 8
    assert c.parts == (
        Reasoning(kind="think", text="maybe ", span=sp(s, 0, 13), closed=False),
        call(s, 13, inner_call_end, "f", {}, "{}"),
        Reasoning(kind="think", text="", span=sp(s, inner_call_end, close), opened=False),
        text_part(s, close, close + 1),
        call(s, close + 1, len(s), "f", {}, "{}", index=1, id="call_1"),
    )
    assert c.diagnostics == ()


SEED_11 = (
    'I will check. <tool_call>{"name": "w", "arguments": {"c": "NYC"}}</tool_call> Then LA. '
    '<tool_call>{"name": "w", "arguments": {"c": "LA"}}</tool_call> Done.'
)


def test_seed_11_prose_before_between_after() -> None:
    s = SEED_11
    a0 = s.index("<tool_call>")
    a1 = s.index("</tool_call>") + 12
    b0 = s.index("<tool_call>", a1)
    b1 = s.index("</tool_call>", b0) + 12
    c = parse(s)
    assert c.parts == (
        text_part(s, 0, a0),
        call(s, a0, a1, "w", {"c": "NYC"}, '{"c": "NYC"}'),
        text_part(s, a1, b0),
        call(s, b0, b1, "w", {"c": "LA"}, '{"c": "LA"}', index=1, id="call_1"),
        text_part(s, b1, len(s)),
    )
    assert c.diagnostics == ()
    assert [p.text for p in c.parts if isinstance(p, Text)] == ["I will check. ", " Then LA. ", " Done."]


def test_seed_12_array_in_one_tag() -> None:
    s = '<tool_call>[{"name":"roll_dice","arguments":{}},{"name":"get_weather","arguments":{}}]</tool_call>'
    c = parse(s)
    assert c.parts == (
        call(s, 0, len(s), "roll_dice", {}, "{}"),
        call(s, 0, len(s), "get_weather", {}, "{}", index=1, id="call_0_1"),
    )
    assert [d[:2] for d in codes(c)] == [("HT206", "warning")]


def test_seed_13_wrong_wrapper_is_text() -> None:
    s = '<tools>\n{"name": "get_weather", "arguments": {"location": "SF"}}\n</tools>'
    c = parse(s)
    assert c.parts == (text_part(s, 0, len(s)),)
    assert c.diagnostics == () and c.tool_calls == ()


def test_seed_13_fenced_or_bare_json_is_never_a_call() -> None:
    s = 'Example:\n```json\n{"name": "get_weather", "arguments": {"location": "SF"}}\n```'
    c = parse(s)
    assert c.parts == (text_part(s, 0, len(s)),)
    assert c.diagnostics == () and c.tool_calls == ()


def test_seed_14_orphan_closer() -> None:
    s = 'Let me look.\n\n{"name": "glob", "arguments": {"pattern": "*.py"}}\n</tool_call>'
    c = parse(s)
    assert c.parts == (text_part(s, 0, len(s)),)
    assert codes(c) == [("HT121", "warning", len(s) - 12, len(s))]
    assert c.tool_calls == ()


def test_seed_15_undeclared_tool_among_valid_ones() -> None:
    first = '<tool_call>{"name": "img_gen", "arguments": {}}</tool_call>'
    s = first + '<tool_call>{"name": "get_weather", "arguments": {"location": "NYC"}}</tool_call>'
    c = parse(s)
    assert c.parts == (
        call(s, 0, len(first), "img_gen", {}, "{}"),
        call(s, len(first), len(s), "get_weather", {"location": "NYC"}, '{"location": "NYC"}', index=1, id="call_1"),
    )
    assert c.diagnostics == ()  # the parser keeps both; validate/ flags img_gen against the tool list
