"""``hermes-toolcall stream``: incremental reading from a real pipe, JSON lines out."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from hermes_toolcall import _jsonio as jsonio
from hermes_toolcall.cli import _stream_cmd as stream_cmd
from hermes_toolcall.statemachine import TextDelta

# Only the stream subcommand is registered, so the test does not depend on the other subcommands.
RUNNER = (
    "import argparse, sys\n"
    "from hermes_toolcall.cli import _stream_cmd as stream_cmd\n"
    "ap = argparse.ArgumentParser(prog='hermes-toolcall')\n"
    "sub = ap.add_subparsers(dest='command', required=True)\n"
    "stream_cmd.register(sub)\n"
    "a = ap.parse_args(sys.argv[1:])\n"
    "sys.exit(a.func(a))\n"
)


def spawn(*args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-c", RUNNER, "stream", *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def readline_within(proc: subprocess.Popen[bytes], seconds: float) -> bytes:
    box: list[bytes] = []
    assert proc.stdout is not None
    stdout = proc.stdout
    thread = threading.Thread(target=lambda: box.append(stdout.readline()), daemon=True)
    thread.start()
    thread.join(seconds)
    if not box:
        proc.kill()
        pytest.fail(f"no output line within {seconds} s while stdin was still open")
    return box[0]


def test_reads_the_pipe_as_it_arrives_without_waiting_for_eof() -> None:
    proc = spawn("-", "--sequential-ids")
    assert proc.stdin is not None
    proc.stdin.write(b'Hello <tool_call>{"name": "f"')
    proc.stdin.flush()
    first = jsonio.loads(readline_within(proc, 30).decode())
    second = jsonio.loads(readline_within(proc, 30).decode())
    assert first == {"event": "text_delta", "text": "Hello "}
    assert second == {"event": "tool_call_start", "ordinal": 0, "id": "call_0", "name": "f"}
    # a multi-byte character split across writes is decoded whole
    proc.stdin.write(b', "arguments": {"city": "Z\xc3')
    proc.stdin.flush()
    proc.stdin.write(b'\xbcrich"}}</tool_call>')
    proc.stdin.close()
    rest = [jsonio.loads(line.decode()) for line in proc.stdout.read().splitlines()]  # type: ignore[union-attr]
    assert proc.wait(30) == 0
    assert rest[-1]["event"] == "tool_call_end"
    assert rest[-1]["call"]["arguments"] == {"city": "Zürich"}


def test_openai_format_from_a_file(tmp_path: Path) -> None:
    path = tmp_path / "c.txt"
    path.write_text('<think>\nok\n</think>\n\nSure.<tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call>')
    proc = subprocess.run(
        [sys.executable, "-c", RUNNER, "stream", "--format", "openai", "--stream-arguments", str(path)],
        capture_output=True,
        check=True,
    )
    chunks = [jsonio.loads(line.decode()) for line in proc.stdout.splitlines()]
    deltas = [c["choices"][0]["delta"] for c in chunks]
    assert deltas[0] == {"role": "assistant"}
    assert {"reasoning_content": "ok"} in deltas and {"content": "Sure."} in deltas
    assert "".join(e["function"].get("arguments", "") for d in deltas for e in d.get("tool_calls", ())) == '{"a": 1}'
    assert chunks[-1]["choices"][0]["finish_reason"] == "tool_calls"


def test_strict_errors_exit_1_with_diagnostics_on_stderr() -> None:
    proc = subprocess.run(
        [sys.executable, "-c", RUNNER, "stream", "--strict", "-"],
        input=b"<tool_call>{'name': 'f', 'arguments': {}}</tool_call>",
        capture_output=True,
    )
    assert proc.returncode == 1
    assert b"HT202" in proc.stderr
    assert jsonio.loads(proc.stdout.splitlines()[-1].decode())["event"] == "tool_call_end"


def test_read_chunks_decodes_split_utf8_and_rejects_bad_bytes() -> None:
    read, write = os.pipe()
    os.write(write, "é".encode()[:1])
    os.write(write, "é".encode()[1:] + b"x")
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        assert "".join(stream_cmd.read_chunks(pipe)) == "éx"
    with pytest.raises(Exception, match="not UTF-8"):
        list(stream_cmd.read_chunks(io.BytesIO(b"\xff\xfe")))


def test_event_json_names_events_in_snake_case() -> None:
    assert stream_cmd.event_json(TextDelta(text="a")) == {"event": "text_delta", "text": "a"}
