"""A closed output pipe ends every command quietly with status 141 (128 + SIGPIPE), as ``git``, ``jq`` and ``cat``
do: nothing on standard error, never a success status (issue 23, issue 30 item 5).

Each test runs the real entry point in a subprocess. Two ways a reader goes away:

* ``head -c 10``: the reader takes ten bytes, then closes. The report is larger than a pipe holds (64 KiB), so
  the command is blocked inside one large ``write`` when the reader closes: the kernel returns a partial count
  (CPython's buffered writer hands it on as the whole write, so the rest of the report was silently dropped and
  the command exited 0), and only the next write fails.
* no reader at all: the read end is closed before the command starts, so its first write fails.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from hermes_toolcall import _jsonio as jsonio

EXIT_PIPE = 141

_CALL = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris", "n": %d}}\n</tool_call>'


def _entry() -> list[str]:
    script = Path(sys.executable).parent / "hermes-toolcall"
    return [str(script)] if script.exists() else [sys.executable, "-m", "hermes_toolcall"]


def _transcript(turns: int) -> str:
    out = []
    for k in range(turns):
        out.append(f"<|im_start|>user\nWeather {k}?<|im_end|>\n<|im_start|>assistant\n{_CALL % k}<|im_end|>\n")
        out.append(f'<|im_start|>tool\n<tool_response>\n{{"n": {k}}}\n</tool_response><|im_end|>\n')
    return "".join(out)


def _request(messages: int) -> str:
    msgs = [{"role": "user" if k % 2 == 0 else "assistant", "content": f"message {k} " + "x" * 200}
            for k in range(messages)]
    return jsonio.dumps_spaced({"messages": msgs})


def _dataset(records: int) -> str:
    bad = {"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "tool_calls": [
        {"id": "c", "type": "function", "function": {"name": "nope", "arguments": "{\"a\": 1}"}}]}], "tools": []}
    return "".join(jsonio.dumps_fast({**bad, "id": f"r{k}"}) + "\n" for k in range(records))


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("pipes")
    paths = {
        "transcript": tmp / "chat.txt",
        "completion": tmp / "out.txt",
        "request": tmp / "request.json",
        "dataset": tmp / "data.jsonl",
    }
    paths["transcript"].write_text(_transcript(1500), encoding="utf-8")
    paths["completion"].write_text(" ".join(_CALL % k for k in range(3000)), encoding="utf-8")
    paths["request"].write_text(_request(2000), encoding="utf-8")
    paths["dataset"].write_text(_dataset(3000), encoding="utf-8")
    return paths


def _commands(files: dict[str, Path]) -> dict[str, list[str]]:
    t, c, r, d = (str(files[k]) for k in ("transcript", "completion", "request", "dataset"))
    return {
        "parse-json": ["parse", t],
        "parse-openai": ["parse", t, "--format", "openai"],
        "parse-completion-openai": ["parse", c, "--completion", "--format", "openai"],
        "render": ["render", r, "--dialect", "qwen3"],
        "convert": ["convert", "--from", "hermes", "--to", "qwen3", t],
        "stream-events": ["stream", c],
        "stream-openai": ["stream", c, "--format", "openai"],
        "validate-text": ["validate", d],
        "validate-json": ["validate", d, "--format", "json"],
        "validate-sarif": ["validate", d, "--format", "sarif"],
        "validate-jsonl": ["validate", d, "--format", "jsonl"],
        "validate-github": ["validate", d, "--format", "github"],
        "conformance-json": ["conformance", "--format", "json"],
    }


COMMANDS = list(_commands({k: Path(k) for k in ("transcript", "completion", "request", "dataset")}))
LARGE = [name for name in COMMANDS if not name.startswith("conformance")]  # conformance's report fits a pipe


def _head_c_10(argv: list[str]) -> tuple[int, bytes, bytes]:
    """Run ``argv | head -c 10``: read ten bytes, close the pipe, collect the status and standard error."""
    proc = subprocess.Popen([*_entry(), *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    head = proc.stdout.read(10)
    proc.stdout.close()
    err = proc.stderr.read()
    return proc.wait(timeout=300), head, err


def _no_reader(argv: list[str]) -> tuple[int, bytes]:
    """Run ``argv`` with standard output a pipe whose read end is already closed."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = subprocess.run([*_entry(), *argv], stdout=write_end, stderr=subprocess.PIPE, timeout=300)
    finally:
        os.close(write_end)
    return done.returncode, done.stderr


@pytest.mark.parametrize("name", LARGE)
def test_regression_closed_pipe_mid_report_is_status_141_and_quiet(name: str, files: dict[str, Path]) -> None:
    """``… | head -c 10`` on a report larger than the pipe: status 141, nothing on standard error. Before, the
    one-shot reports (``parse --format openai``, ``render``, ``convert``, ``validate --format json|sarif``)
    exited 0 with the report cut (a partial write taken for a whole one), and the streamed ones exited 3 with an
    error line."""
    status, head, err = _head_c_10(_commands(files)[name])
    assert len(head) == 10
    assert (status, err) == (EXIT_PIPE, b""), (status, err.decode(errors="replace"))


@pytest.mark.parametrize("name", COMMANDS)
def test_regression_output_closed_before_the_first_write_is_status_141(name: str, files: dict[str, Path]) -> None:
    """No reader at all: the first write fails; status 141, quiet."""
    status, err = _no_reader(_commands(files)[name])
    assert (status, err) == (EXIT_PIPE, b""), (status, err.decode(errors="replace"))


@pytest.mark.parametrize("argv", [["--help"], ["validate", "--help"], ["--version"]])
def test_small_outputs_to_a_closed_pipe_are_141_too(argv: list[str]) -> None:
    """Help and version text go through the same writer (argparse prints them)."""
    status, err = _no_reader(argv)
    assert (status, err) == (EXIT_PIPE, b""), (status, err.decode(errors="replace"))


def test_a_whole_report_still_reaches_a_reader_that_reads_it_all(files: dict[str, Path], tmp_path: Path) -> None:
    """The writer that detects a closed reader writes every byte to one that stays: the report through a pipe is
    byte for byte the report written to a file."""
    argv = [*_entry(), *_commands(files)["parse-openai"], "--sequential-ids"]
    piped = subprocess.run(argv, capture_output=True, timeout=300)
    assert piped.returncode == 0, piped.stderr
    with open(tmp_path / "report.json", "wb") as fh:
        assert subprocess.run(argv, stdout=fh, timeout=300).returncode == 0
    assert piped.stdout == (tmp_path / "report.json").read_bytes()
    assert len(piped.stdout) > 1 << 17  # larger than a pipe holds: the writer looped
    jsonio.loads(piped.stdout.decode())
