"""``Transcript.to_request()`` is the inverse of ``render``: ``convert --from X --to X`` is the identity."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

from hypothesis import assume, given
from hypothesis import strategies as st

from hermes_toolcall import parse_transcript, render
from hermes_toolcall.cli._convert_cmd import convert
from hermes_toolcall.errors import RenderError

DIALECTS = ["hermes", "hermes-vllm", "qwen2.5", "qwen3", "omp"]
_PIECES = [*"ab \n<>/|{}_:-()", "system", "\n\n", "# Tools", " - ", "Args:", "<tools>"]
_TEXT = st.lists(st.sampled_from(_PIECES), max_size=10).map("".join)
_TYPES = st.sampled_from([{"type": "integer"}, {"type": "string"}, {"type": "array"}, {"type": "boolean"}, {}])


@st.composite
def tool(draw: st.DrawFn, name: str) -> dict[str, Any]:
    props = {}
    for key in draw(st.lists(st.sampled_from(["a", "b_c", "d"]), unique=True, max_size=3)):
        spec = dict(draw(_TYPES))
        if draw(st.booleans()):
            spec["description"] = draw(_TEXT)
        props[key] = spec
    return {
        "type": "function",
        "function": {"name": name, "description": draw(_TEXT), "parameters": {"type": "object", "properties": props}},
    }


@st.composite
def request(draw: st.DrawFn) -> tuple[list[dict[str, Any]], list[dict[str, Any]], bool]:
    tools = [draw(tool(name)) for name in draw(st.lists(st.sampled_from(["f", "get_x"]), unique=True, max_size=2))]
    messages: list[dict[str, Any]] = []
    if draw(st.booleans()):
        messages.append({"role": "system", "content": draw(_TEXT)})
    for k in range(draw(st.integers(min_value=1, max_value=2))):
        messages.append({"role": "user", "content": draw(_TEXT)})
        if tools and draw(st.booleans()):
            name = tools[0]["function"]["name"]
            call = {"id": f"c{k}", "type": "function", "function": {"name": name, "arguments": '{"a": 1}'}}
            # the OpenAI view trims the text beside calls (docs/validate.md: what convert keeps)
            messages.append({"role": "assistant", "content": draw(_TEXT).strip(), "tool_calls": [call]})
            messages.append({"role": "tool", "tool_call_id": f"c{k}", "content": draw(_TEXT)})
        messages.append({"role": "assistant", "content": draw(_TEXT)})
    return messages, tools, draw(st.booleans())


@given(dialect=st.sampled_from(DIALECTS), req=request(), named=st.booleans())
def test_convert_to_the_same_dialect_is_the_identity(
    dialect: str, req: tuple[list[dict[str, Any]], list[dict[str, Any]], bool], named: bool
) -> None:
    messages, tools, prompt = req
    try:
        text = render(messages, tools=tools, dialect=dialect, add_generation_prompt=prompt)
    except RenderError:  # content the renderer refuses is not a rendering
        assume(False)
    transcript = parse_transcript(text, dialect=dialect)
    assert convert(transcript, to=dialect, source=dialect if named else None) == text
    again = transcript.to_request(dialect=dialect)
    assert render(again["messages"], tools=again["tools"], dialect=dialect, add_generation_prompt=prompt) == text


def test_to_request_undoes_the_hermes_description_rewrite() -> None:
    tools = [
        {
            "type": "function",
            "function": {
                "name": "get_weather",
                "description": "Weather now.",
                "parameters": {"type": "object", "properties": {"city": {"type": "string", "description": "City."}}},
            },
        }
    ]
    messages = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "hi"}]
    for dialect in DIALECTS:
        got = parse_transcript(render(messages, tools=tools, dialect=dialect), dialect=dialect).to_request()
        assert got == {"messages": messages, "tools": tools}, dialect


def test_convert_command_is_the_identity(tmp_path: Path) -> None:
    tools = [{"type": "function", "function": {"name": "f", "description": "D.", "parameters": {"type": "object"}}}]
    messages = [{"role": "system", "content": "S"}, {"role": "user", "content": "hi"}]
    for dialect in DIALECTS:
        text = render(messages, tools=tools, dialect=dialect)
        path = tmp_path / f"{dialect}.txt"
        path.write_text(text, encoding="utf-8")
        argv = [str(Path(sys.executable).parent / "hermes-toolcall"), "convert", str(path), "--from", dialect]
        proc = subprocess.run([*argv, "--to", dialect], capture_output=True, check=False)
        assert proc.returncode == 0 and proc.stdout.decode() == text, (dialect, proc.stderr)
