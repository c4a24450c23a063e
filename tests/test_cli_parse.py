"""The ``parse`` and ``convert`` subcommands."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from hermes_toolcall import _jsonio as jsonio
from hermes_toolcall import parse_transcript, sequential_ids
from hermes_toolcall.cli import main

TRUNCATED = (
    '<|im_start|>user\nWeather?<|im_end|>\n<|im_start|>assistant\nSure <tool_call>\n{"name": "w", "arguments": {"c": '
)


def _write(tmp_path: Path, text: str) -> str:
    path = tmp_path / "in.txt"
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_parse_json_output_and_compiler_style_diagnostics(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, TRUNCATED)
    assert main(["parse", path, "--sequential-ids"]) == 0
    out, err = capsys.readouterr()
    data = jsonio.loads(out)
    assert data["kind"] == "transcript"
    assert [t["role"] for t in data["turns"]] == ["user", "assistant"]
    bad = data["turns"][1]["parts"][1]
    assert (bad["type"], bad["code"], bad["id"], bad["closed"]) == ("invalid_tool_call", "HT102", "call_0", False)
    assert [d["code"] for d in data["diagnostics"]] == ["HT102", "HT002"]
    lines = err.splitlines()
    assert lines[0].startswith(f"{path}:5:") and " HT102 error: " in lines[0]
    assert lines[1].strip().startswith('{"name": "w"')
    assert lines[2].strip() == "^"
    assert any(" HT002 warning: " in line for line in lines)


def test_parse_strict_exits_1_with_errors_only(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, TRUNCATED)
    assert main(["parse", path, "--strict"]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert "HT102 error" in err and "HT002" not in err


def test_parse_strict_clean_input_exits_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, "<|im_start|>user\nhi<|im_end|>\n")
    assert main(["parse", path, "--strict", "--format", "openai"]) == 0
    out, err = capsys.readouterr()
    assert jsonio.loads(out) == [{"role": "user", "content": "hi"}]
    assert err == ""


def test_parse_completion_from_stdin_openai(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(
        "sys.stdin", io.StringIO('<think>x</think>Hi <tool_call>{"name":"f","arguments":{}}</tool_call>')
    )
    assert main(["parse", "-", "--completion", "--format", "openai", "--sequential-ids"]) == 0
    out, _ = capsys.readouterr()
    assert jsonio.loads(out) == {
        "role": "assistant",
        "content": "Hi",
        "reasoning_content": "x",
        "tool_calls": [{"id": "call_0", "type": "function", "function": {"name": "f", "arguments": "{}"}}],
    }


def test_parse_completion_json_has_finish_reason(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("Done.<|im_end|>\nmore"))
    assert main(["parse", "-", "--completion"]) == 0
    out, err = capsys.readouterr()
    data = jsonio.loads(out)
    assert data["finish_reason"] == "stop" and data["end"]["start"] == 5
    assert err.startswith("<stdin>:1:6: HT006 warning:")


def test_parse_missing_file_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["parse", "/nonexistent/file.txt"]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_convert_hermes_to_qwen3_round_trips(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from hermes_toolcall.render import render
    messages = [
        {"role": "user", "content": "hi"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"id": "a", "type": "function", "function": {"name": "w", "arguments": {"c": "x"}}}],
        },
        {"role": "tool", "tool_call_id": "a", "content": "ok"},
        {"role": "assistant", "content": "Done."},
    ]
    tools = [
        {
            "type": "function",
            "function": {
                "name": "w",
                "description": "d",
                "parameters": {"type": "object", "properties": {"c": {"type": "string"}}},
            },
        }
    ]
    source = render(messages, tools=tools, dialect="hermes")
    path = _write(tmp_path, source)
    assert main(["convert", "--from", "hermes", "--to", "qwen3", path]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    back = parse_transcript(out, dialect="qwen3", ids=sequential_ids())
    assert back.errors == ()
    msgs = back.to_openai_messages()
    assert [m["role"] for m in msgs] == ["system", "user", "assistant", "tool", "assistant"]
    assert msgs[2]["tool_calls"][0]["function"] == {"name": "w", "arguments": '{"c": "x"}'}
    assert msgs[3]["content"] == "ok" and msgs[4]["content"] == "Done."
    assert "<tools>" in msgs[0]["content"]


def test_convert_strict_error_exit_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, TRUNCATED)
    assert main(["convert", "--from", "hermes", "--to", "omp", "--strict", path]) == 1
    assert "HT102" in capsys.readouterr().err


def test_golden_mixed_transcript(capsys: pytest.CaptureFixture[str]) -> None:
    """tests/data/grammar/mixed.txt: one of every envelope and block situation; mixed.json reviewed by hand."""
    from conftest import DATA

    source = DATA / "grammar" / "mixed.txt"
    assert main(["parse", str(source), "--sequential-ids"]) == 0
    out, err = capsys.readouterr()
    data = jsonio.loads(out)
    assert data == jsonio.loads((DATA / "grammar" / "mixed.json").read_text(encoding="utf-8"))
    summary = [(t["role"], t["end"] is not None, [p["type"] for p in t["parts"]]) for t in data["turns"]]
    assert summary == [
        ("system", True, ["text", "tools"]),
        ("user", True, ["text"]),
        ("assistant", True, ["reasoning", "text", "tool_call", "text", "tool_call"]),
        ("tool", True, ["tool_response", "text", "tool_response"]),
        ("robot", True, ["text"]),
        ("assistant", False, ["text", "invalid_tool_call"]),
    ]
    assert [d["code"] for d in data["diagnostics"]] == ["HT121", "HT005", "HT202", "HT112", "HT004", "HT102", "HT002"]
    assert [line.split(": ")[1].split()[0] for line in err.splitlines() if line.startswith(str(source))] == [
        "HT121",
        "HT005",
        "HT202",
        "HT112",
        "HT004",
        "HT102",
        "HT002",
    ]
