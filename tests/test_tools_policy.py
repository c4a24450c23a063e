"""Tools-aware parsing (``tools=``, ``undeclared=``): both engines, the stream, every chunking, OpenAI chunks."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from helpers import openai_stream
from hermes_toolcall import (
    Completion,
    ParseError,
    StreamError,
    StreamParser,
    Text,
    ToolCall,
    ToolCallStart,
    UsageError,
    parse_completion,
    parse_transcript,
    validate_record,
)
from hermes_toolcall._ids import sequential_ids
from hermes_toolcall.testing import (
    adversarial_texts,
    assert_engines_agree,
    assert_spans_tile,
    chunkings,
    completions,
    feed_in_chunks,
)

POLICIES = ("keep", "text", "drop")


def tool(name: str, properties: dict[str, Any] | None = None) -> dict[str, Any]:
    schema = {"type": "object", "properties": properties or {}}
    return {"type": "function", "function": {"name": name, "parameters": schema}}


WEATHER = [tool("get_weather", {"city": {"type": "string"}, "days": {"type": "integer"}})]


def call(name: str, args: str = "{}") -> str:
    return f'<tool_call>\n{{"name": "{name}", "arguments": {args}}}\n</tool_call>'


def stream(text: str, chunks: Any = None, **options: Any) -> tuple[list[Any], Completion]:
    events, result = feed_in_chunks({"stream_arguments": True, **options}, text, chunks)
    assert isinstance(result, Completion)
    return events, result


def names(c: Completion) -> list[tuple[str, int, str]]:
    return [(x.name, x.index, x.id) for x in c.tool_calls]


# ------------------------------------------------------------------ the three policies


MIXED = "Let me check. " + call("img_gen") + " and " + call("get_weather", '{"city": "Paris"}') + " done"


def test_keep_reports_hT301_and_keeps_the_call() -> None:
    c = assert_engines_agree(MIXED, tools=WEATHER)
    assert c is not None
    assert names(c) == [("img_gen", 0, "call_0"), ("get_weather", 1, "call_1")]
    [d] = c.diagnostics
    assert (d.code, d.severity, d.span.start) == ("HT301", "error", 14)
    assert d.message == "tool 'img_gen' is not declared (declared: get_weather)"


def test_drop_removes_the_call_and_renumbers_indices() -> None:
    c = assert_engines_agree(MIXED, tools=WEATHER, undeclared="drop")
    assert c is not None
    assert names(c) == [("get_weather", 0, "call_1")]  # ids stay, indices count kept calls
    assert [p.text for p in c.parts if isinstance(p, Text)] == ["Let me check. ", " and ", " done"]
    assert c.diagnostics[0].message.endswith("the call is dropped")
    assert c.to_openai()["content"] == "Let me check.  and  done"


def test_text_keeps_the_raw_block_as_content() -> None:
    c = assert_engines_agree(MIXED, tools=WEATHER, undeclared="text")
    assert c is not None
    assert names(c) == [("get_weather", 0, "call_1")]
    first = c.parts[0]
    assert isinstance(first, Text) and first.text == "Let me check. " + call("img_gen") + " and "
    assert first.span.start == 0 and first.span.end == len(first.text)
    assert_spans_tile(c)
    assert c.diagnostics[0].message.endswith("the block is kept as text")
    only = assert_engines_agree("a " + call("x") + " b", tools=WEATHER, undeclared="text")
    assert only is not None and only.to_openai()["content"] == "a " + call("x") + " b"
    assert only.finish_reason == "stop" and len(only.parts) == 1


def test_text_in_a_block_that_also_holds_declared_calls_drops_the_undeclared_ones() -> None:
    body = '[{"name": "nope", "arguments": {}}, {"name": "get_weather", "arguments": {}}]'
    c = assert_engines_agree(f"<tool_call>{body}</tool_call>", tools=WEATHER, undeclared="text")
    assert c is not None
    assert names(c) == [("get_weather", 0, "call_0_1")]
    assert [d.code for d in c.diagnostics] == ["HT301", "HT206"]
    assert c.diagnostics[0].message.endswith("the call is dropped")


def test_text_inside_reasoning_becomes_reasoning() -> None:
    text = "<think>plan " + call("nope") + " more</think>ok"
    c = assert_engines_agree(text, tools=WEATHER, undeclared="text", calls_in_reasoning=True)
    assert c is not None and c.tool_calls == ()
    assert c.to_openai()["reasoning_content"] == "plan " + call("nope") + " more"
    # and at the start of a completion that starts inside reasoning
    c = assert_engines_agree(
        call("nope") + "</think>ok", dialect="qwq", tools=WEATHER, undeclared="text", calls_in_reasoning=True
    )
    assert c is not None and c.to_openai()["reasoning_content"] == call("nope")


def test_strict_mode_makes_an_undeclared_name_an_error() -> None:
    for policy in POLICIES:
        with pytest.raises(ParseError) as info:
            parse_completion(MIXED, tools=WEATHER, undeclared=policy, strict=True)
        assert [d.code for d in info.value.diagnostics] == ["HT301"]
        with pytest.raises(StreamError):
            stream(MIXED, strict=True, tools=WEATHER, undeclared=policy)
    assert parse_completion(call("get_weather"), tools=WEATHER, strict=True).tool_calls[0].name == "get_weather"


def test_empty_tools_declare_nothing() -> None:
    c = parse_completion(call("f"), tools=[], undeclared="drop")
    assert c.tool_calls == () and c.diagnostics[0].message.endswith("(declared: none); the call is dropped")


def test_same_code_and_message_as_validate() -> None:
    record = {
        "messages": [
            {"role": "user", "content": "hi"},
            {
                "role": "assistant",
                "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "img_gen", "arguments": "{}"}}],
            },
        ],
        "tools": WEATHER,
    }
    report = validate_record(record)
    parsed = parse_completion(call("img_gen"), tools=WEATHER)
    assert report.codes == ("HT301",)
    assert report.diagnostics[0].message == parsed.diagnostics[0].message


def test_transcript_level() -> None:
    text = (
        "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n"
        + call("nope")
        + call("get_weather")
        + "<|im_end|>\n<|im_start|>assistant\nx"
        + call("nope")
        + "y<|im_end|>\n"
    )
    for policy in POLICIES:
        t = assert_engines_agree(text, level="transcript", tools=WEATHER, undeclared=policy)
        assert t is not None
        calls = [[(p.name, p.index) for p in turn.parts if isinstance(p, ToolCall)] for turn in t.turns]
        if policy == "keep":
            assert calls == [[], [("nope", 0), ("get_weather", 1)], [("nope", 0)]]
        else:
            assert calls == [[], [("get_weather", 0)], []]
        assert [d.code for d in t.diagnostics] == ["HT301", "HT301"]
    t = parse_transcript(text, tools=WEATHER, undeclared="text")
    assert t.turns[2].parts[0] == Text(text="x" + call("nope") + "y", span=t.turns[2].parts[0].span)


# ------------------------------------------------------------------ the stream announces only kept calls


@pytest.mark.parametrize("policy", ["text", "drop"])
def test_no_tool_call_start_for_a_call_that_will_not_be_kept(policy: str) -> None:
    for chunks in (None, [MIXED], [14, 20, 3]):
        events, _ = stream(MIXED, chunks, tools=WEATHER, undeclared=policy)
        starts = [e for e in events if isinstance(e, ToolCallStart)]
        assert [(e.id, e.name) for e in starts] == [("call_1", "get_weather")]
        assert [e.id for e in events if getattr(e, "id", None) == "call_0"] == []
    # keep announces early, as without tools
    p = StreamParser(tools=WEATHER, ids=sequential_ids())
    assert any(isinstance(e, ToolCallStart) for e in p.feed('<tool_call>{"name": "img_gen", "argu'))


def test_openai_chunks_of_the_policies() -> None:
    for policy in POLICIES:
        for eager in (True, False):
            result, message, out = openai_stream(tuple(MIXED), eager=eager, tools=WEATHER, undeclared=policy)
            want = result.to_openai()
            got = [(c["id"], c["function"]["name"], c["function"]["arguments"]) for c in message["tool_calls"]]
            assert got == [(c["id"], c["function"]["name"], c["function"]["arguments"]) for c in want["tool_calls"]]
            firsts = [e for ch in out for e in ch["choices"][0]["delta"].get("tool_calls", ()) if "id" in e]
            assert [e["index"] for e in firsts] == list(range(len(want["tool_calls"])))
            assert (message.get("content") or "").strip() == (want["content"] or "").strip()


# ------------------------------------------------------------------ properties on generated inputs


def _declared(data: Any, text: str) -> list[dict[str, Any]]:
    seen = sorted({c.name for c in parse_completion(text, calls_in_reasoning=True).tool_calls})
    chosen = data.draw(st.lists(st.sampled_from(seen), unique=True)) if seen else []
    return [tool(n) for n in chosen + data.draw(st.lists(st.sampled_from(["a", "get_weather"]), unique=True))]


@given(
    st.data(), st.one_of(completions(), adversarial_texts()), st.sampled_from(POLICIES), st.booleans(), st.booleans()
)
@settings(max_examples=150, deadline=None)
@example(None, MIXED, "text", False, False)
def test_engines_agree_and_only_kept_calls_are_announced(
    data: Any, text: str, policy: str, calls_in_reasoning: bool, strict: bool
) -> None:
    tools = WEATHER if data is None else _declared(data, text)
    chunks = [text] if data is None else data.draw(chunkings(text))
    options = {"tools": tools, "undeclared": policy, "calls_in_reasoning": calls_in_reasoning, "strict": strict}
    result = assert_engines_agree(text, chunkings=[chunks], **options)
    if result is None:
        return
    declared = {t["function"]["name"] for t in tools}
    plain = parse_completion(text, ids=sequential_ids(), calls_in_reasoning=calls_in_reasoning, strict=strict)
    undeclared = [c for c in plain.tool_calls if c.name not in declared]
    assert sum(d.code == "HT301" for d in result.diagnostics) == len(undeclared)
    if policy == "keep":
        assert names(result) == names(plain)
    else:
        assert all(c.name in declared for c in result.tool_calls)
        assert [c.index for c in result.tool_calls] == list(range(len(result.tool_calls)))
    if policy != "drop":
        assert_spans_tile(result)
    events, _ = stream(text, chunks, **options)
    rejected = {c.id for c in undeclared} if policy != "keep" else set()
    for e in events:
        if isinstance(e, ToolCallStart):
            assert e.id not in rejected, f"announced {e.name!r}, which the policy does not keep"
            assert policy == "keep" or e.name in declared


@given(st.data(), st.one_of(completions(), adversarial_texts()), st.sampled_from(POLICIES))
@settings(max_examples=80, deadline=None)
def test_deferred_openai_chunks_accumulate_to_the_message(data: Any, text: str, policy: str) -> None:
    chunks = data.draw(chunkings(text))
    result, message, _ = openai_stream(chunks, eager=False, tools=_declared(data, text), undeclared=policy)
    want = result.to_openai()
    got = [(c["id"], c["function"]["name"], c["function"]["arguments"]) for c in message.get("tool_calls", [])]
    assert got == [(c["id"], c["function"]["name"], c["function"]["arguments"]) for c in want["tool_calls"]]
    assert message.get("reasoning_content") == want["reasoning_content"]


# ------------------------------------------------------------------ option errors and the CLI


def test_option_errors() -> None:
    with pytest.raises(UsageError, match="needs tools="):
        parse_completion("x", undeclared="drop")
    with pytest.raises(UsageError, match="needs tools="):
        StreamParser(coerce_arguments=True)
    with pytest.raises(UsageError, match="undeclared must be one of"):
        parse_completion("x", tools=[], undeclared="ignore")  # type: ignore[arg-type]
    with pytest.raises(UsageError, match="list of tool objects"):
        parse_transcript("x", tools={"name": "f"})  # type: ignore[arg-type]


def _cli(*args: str, stdin: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "hermes_toolcall", *args], input=stdin, capture_output=True, text=True, check=False
    )


def test_cli_tools_flags(tmp_path: Path) -> None:
    tools_file = tmp_path / "tools.json"
    tools_file.write_text(json.dumps({"tools": WEATHER}))
    out = _cli(
        "parse",
        "--completion",
        "--tools",
        str(tools_file),
        "--undeclared",
        "drop",
        "--format",
        "openai",
        "-",
        stdin=MIXED,
    )
    assert out.returncode == 0, out.stderr
    assert [c["function"]["name"] for c in json.loads(out.stdout)["tool_calls"]] == ["get_weather"]
    assert "HT301" in out.stderr
    out = _cli("stream", "--tools", str(tools_file), "--undeclared", "text", "--sequential-ids", "-", stdin=MIXED)
    starts = [json.loads(line) for line in out.stdout.splitlines() if '"tool_call_start"' in line]
    assert [s["name"] for s in starts] == ["get_weather"]
    out = _cli("parse", "--completion", "--strict", "--tools", str(tools_file), "-", stdin=MIXED)
    assert out.returncode == 1 and "HT301" in out.stderr
    bad = tmp_path / "bad.json"
    bad.write_text("{nope")
    out = _cli("parse", "--completion", "--tools", str(bad), "-", stdin=MIXED)
    assert out.returncode == 2 and "not JSON" in out.stderr and "Traceback" not in out.stderr
    out = _cli("parse", "--completion", "--undeclared", "drop", "-", stdin=MIXED)
    assert out.returncode == 2 and "needs tools=" in out.stderr
