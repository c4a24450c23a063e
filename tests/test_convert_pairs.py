"""Issue 29 item 7: ``convert`` between any two dialects keeps every call, argument and result when the tools are
given (``convert --from qwen3.5 --to hermes`` and back included), on generated conversations.

A conversation with typed tools is rendered in dialect A, parsed with the tools, converted to B with the tools,
parsed again, and converted back to A: each time the calls (names and arguments as JSON values) and the results
(contents) are those of the conversation.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from hermes_toolcall import RenderError, parse_transcript, render
from hermes_toolcall._model import ToolCall, Transcript
from hermes_toolcall._profiles import DIALECTS
from hermes_toolcall.cli._convert_cmd import convert
from hypothesis_stats import count, examples

pytest_plugins = ["hypothesis_stats"]

TOOLS = [
    {"type": "function", "function": {"name": "get_weather", "description": "Weather for a city.", "parameters": {
        "type": "object", "properties": {
            "city": {"type": "string", "description": "City name"}, "days": {"type": "integer"},
            "units": {"type": "string", "enum": ["celsius", "fahrenheit"]}, "detailed": {"type": "boolean"}},
        "required": ["city"]}}},
    {"type": "function", "function": {"name": "run", "description": "Run code.", "parameters": {
        "type": "object", "properties": {
            "code": {"type": "string"}, "args": {"type": "array", "items": {"type": "string"}},
            "env": {"type": "object"}, "timeout": {"anyOf": [{"type": "number"}, {"type": "null"}]}}}}},
]

# text a conversation may hold without markup: unicode, quotes, braces, blank lines, edge whitespace
_text = st.text(st.characters(codec="utf-8", exclude_characters="<\r"), max_size=12)
_word = st.text(st.characters(codec="utf-8", categories=["L", "N"]), min_size=1, max_size=8)


@st.composite
def arguments(draw: st.DrawFn, name: str) -> dict[str, Any]:
    if name == "get_weather":
        args: dict[str, Any] = {"city": draw(_text)}
        optional = {"days": st.integers(-10**25, 10**25), "units": st.sampled_from(["celsius", "fahrenheit"]),
                    "detailed": st.booleans()}
    else:
        args = {}
        optional = {"code": _text, "args": st.lists(_text, max_size=3),
                    "env": st.dictionaries(_word, st.one_of(_text, st.integers(), st.none()), max_size=2),
                    "timeout": st.one_of(st.none(), st.floats(allow_nan=False, allow_infinity=False),
                                         st.integers(0, 10**6))}
    for key, strategy in optional.items():
        if draw(st.booleans()):
            args[key] = draw(strategy)
    return args


@st.composite
def conversation(draw: st.DrawFn) -> list[dict[str, Any]]:
    msgs: list[dict[str, Any]] = []
    if draw(st.booleans()):
        msgs.append({"role": "system", "content": draw(_text)})
    n = 0
    for _ in range(draw(st.integers(1, 2))):
        msgs.append({"role": "user", "content": draw(_text)})
        calls = []
        for _ in range(draw(st.integers(1, 2))):
            name = draw(st.sampled_from(["get_weather", "run"]))
            calls.append({"id": f"call_{n}", "type": "function", "function": {
                "name": name, "arguments": json.dumps(draw(arguments(name)), ensure_ascii=False)}})
            n += 1
        msgs.append({"role": "assistant", "content": draw(_text).strip(), "tool_calls": calls})
        for c in calls:
            msgs.append({"role": "tool", "tool_call_id": c["id"], "content": draw(_text)})
        msgs.append({"role": "assistant", "content": draw(_text)})
    return msgs


def structure(messages: list[dict[str, Any]], *, trim: bool = False) -> list[Any]:
    """The calls (name, arguments as JSON values) and results of an OpenAI conversation, in order; ``trim``: the
    results as a template that trims every content writes them (Qwen3.5's ``|trim``: Python's ``str.strip``)."""
    out: list[Any] = []
    for m in messages:
        for c in m.get("tool_calls") or ():
            args = c["function"]["arguments"]
            out.append(("call", c["function"]["name"], json.loads(args) if isinstance(args, str) else args))
        if m.get("role") == "tool":
            out.append(("result", m["content"].strip() if trim else m["content"]))
    return out


def read(text: str, dialect: str) -> Transcript:
    return parse_transcript(text, dialect=dialect, tools=TOOLS, max_block_chars=len(text) + 1)


def _same(a: Any, b: Any) -> bool:
    return json.dumps(a, sort_keys=False) == json.dumps(b, sort_keys=False)


NAMES = sorted(DIALECTS)
PAIRS = [(a, b) for a in NAMES for b in NAMES if a != b]


STANDARD = [
    {"role": "system", "content": "Be brief."}, {"role": "user", "content": "Weather in Paris, and run it."},
    {"role": "assistant", "content": "Checking.", "tool_calls": [
        {"id": "call_0", "type": "function", "function": {"name": "get_weather", "arguments": json.dumps(
            {"city": "Paris", "days": 12345678901234567890, "detailed": True, "units": "celsius"})}},
        {"id": "call_1", "type": "function", "function": {"name": "run", "arguments": json.dumps(
            {"code": "print('a & b')\n", "args": ["-v", ""], "env": {"K": "v", "N": 1, "Z": None},
             "timeout": None})}}]},
    {"role": "tool", "tool_call_id": "call_0", "content": '{"temp": 18}'},
    {"role": "tool", "tool_call_id": "call_1", "content": "ok"},
    {"role": "assistant", "content": "18 °C."}]


@pytest.mark.parametrize(("source", "target"), PAIRS)
@settings(max_examples=examples(15))
@given(msgs=conversation())
@example(msgs=STANDARD)
@example(msgs=[{"role": "user", "content": ""}, {"role": "assistant", "content": "", "tool_calls": [{
    "id": "call_0", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": ""}'}}]},
    {"role": "tool", "tool_call_id": "call_0", "content": '{"'}, {"role": "assistant", "content": ""}])
@example(msgs=[{"role": "user", "content": ""}, {"role": "assistant", "content": "", "tool_calls": [{
    "id": "call_0", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": ""}'}}]},
    {"role": "tool", "tool_call_id": "call_0", "content": "\n"}, {"role": "assistant", "content": ""}])
def test_convert_keeps_calls_arguments_and_results(source: str, target: str, msgs: list[dict[str, Any]]) -> None:
    trim = DIALECTS[source].trim_content or DIALECTS[target].trim_content  # what a trimming template keeps
    want = structure(msgs, trim=trim)
    try:  # the source may refuse a result (an odd '"' would put its closer inside a JSON string): not convert's
        text = render(msgs, tools=TOOLS, dialect=source)
    except RenderError:
        count("convert pairs: refused by the source render")
        return
    try:  # the target may refuse a text it cannot hold (Step writes no newline around a result: "\n" is lost)
        there = convert(read(text, source), to=target, source=source, tools=TOOLS)
    except RenderError as exc:  # reported, never written lossily: a text of the conversation, named
        assert exc.field == "content" and exc.message_index is not None, exc
        count("convert pairs: refused by the target render")
        return
    assert _same(structure(read(there, target).to_openai_messages(), trim=trim), want)
    back = convert(read(there, target), to=source, source=target, tools=TOOLS)
    assert _same(structure(read(back, source).to_openai_messages(), trim=trim), want)
    count("convert pairs: kept")


def test_convert_command_takes_the_tools(tmp_path: Path) -> None:
    """``convert --tools FILE`` reads the tools (they type an XML body's values, and replace the catalogue)."""
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps(TOOLS), encoding="utf-8")
    source = tmp_path / "in.txt"
    source.write_text(render(STANDARD, tools=TOOLS, dialect="qwen3"), encoding="utf-8")
    exe = str(Path(sys.executable).parent / "hermes-toolcall")
    proc = subprocess.run([exe, "convert", str(source), "--from", "qwen3", "--to", "hermes", "--tools", str(tools)],
                          capture_output=True, check=False)
    assert proc.returncode == 0, proc.stderr
    assert structure(read(proc.stdout.decode(), "hermes").to_openai_messages()) == structure(STANDARD)
    assert any(isinstance(p, ToolCall) for t in read(proc.stdout.decode(), "hermes").turns for p in t.parts)


def test_regression_a_result_step_cannot_hold_is_refused_not_lost() -> None:
    """Hypothesis find (qwen2.5 -> step-3.5): Step writes ``<tool_response>`` and its closer with no newline around the
    result, so a result ``"\\n"`` would read back as ``""``: convert refuses it naming the message and field."""
    msgs = [{"role": "user", "content": "q"}, {"role": "assistant", "content": "", "tool_calls": [{
        "id": "call_0", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "P"}'}}]},
        {"role": "tool", "tool_call_id": "call_0", "content": "\n"}]
    source = read(render(msgs, tools=TOOLS, dialect="qwen2.5"), "qwen2.5")
    with pytest.raises(RenderError) as info:
        convert(source, to="step-3.5", source="qwen2.5", tools=TOOLS)
    assert (info.value.message_index, info.value.field) == (2, "content")
