"""``hermes-toolcall validate`` as a user runs it: the real entry point in a subprocess, on paths, ``-``,
``/dev/stdin``, pipes and process substitutions; exit statuses; broken pipes, full disks and Ctrl-C.

Each test named ``test_issue11_*`` reproduces one item of issue 11's list.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from helpers import LOCATION_WEATHER
from helpers import call_record as record

BIN = Path(sys.executable).parent / "hermes-toolcall"
WEATHER = LOCATION_WEATHER


def cli(
    *argv: str, stdin: bytes | None = None, shell: str | None = None, **kw: Any
) -> subprocess.CompletedProcess[bytes]:
    """Run the installed ``hermes-toolcall`` (or a bash pipeline using it)."""
    if shell is not None:
        return subprocess.run(["bash", "-c", shell], input=stdin, capture_output=True, check=False, **kw)
    return subprocess.run([str(BIN), *argv], input=stdin, capture_output=True, check=False, **kw)


def dataset(n: int) -> bytes:
    """``n`` records, every seventh one with a wrong argument type, every eleventh an unknown tool."""
    lines = []
    for i in range(n):
        args = '{"location": 7}' if i % 7 == 0 else '{"location": "Paris"}'
        lines.append(json.dumps(record("nope" if i % 11 == 0 else "get_weather", args)))
    return ("\n".join(lines) + "\n").encode()


def findings(out: bytes) -> list[dict[str, Any]]:
    """The JSON-lines findings, without the file name (it differs between a path and a pipe)."""
    rows = [json.loads(line) for line in out.decode().splitlines()]
    return [{k: v for k, v in r.items() if k != "file"} for r in rows]


def test_issue11_stdin_dev_stdin_pipe_and_process_substitution_read_every_record(tmp_path: Path) -> None:
    data = dataset(600)  # well over the 64 KiB the old detection peeked (and lost)
    assert len(data) > 1 << 16
    path = tmp_path / "d.jsonl"
    path.write_bytes(data)
    crlf = tmp_path / "crlf.jsonl"
    crlf.write_bytes(data.replace(b"\n", b"\r\n"))
    fmt = ["--format", "jsonl"]
    runs = {
        "path": cli("validate", str(path), *fmt),
        "dash": cli("validate", "-", *fmt, stdin=data),
        "dev-stdin": cli("validate", "/dev/stdin", *fmt, stdin=data),
        "pipe": cli(shell=f"cat {path} | {BIN} validate - --format jsonl"),
        "dev-stdin-pipe": cli(shell=f"cat {path} | {BIN} validate /dev/stdin --format jsonl"),
        "process-substitution": cli(shell=f"{BIN} validate <(cat {path}) --format jsonl"),
        "jobs-0": cli("validate", str(path), "--jobs", "0", *fmt),
        "jobs-2-pipe": cli("validate", "-", "--jobs", "2", *fmt, stdin=data),
        "crlf": cli("validate", str(crlf), *fmt),
    }
    expected = findings(runs["path"].stdout)
    assert expected[-1]["records"] == 600 and expected[-1]["errors"] > 100
    for name, proc in runs.items():
        assert proc.returncode == 1, (name, proc.stderr)
        assert findings(proc.stdout) == expected, name
        assert proc.stderr == b"", name


def test_issue11_dash_is_standard_input_for_the_text_format(tmp_path: Path) -> None:
    proc = cli("validate", "-", stdin=dataset(3))
    assert proc.returncode == 1
    assert proc.stdout.decode().startswith("<stdin>:1:") and "3 record(s) in 1 file(s)" in proc.stdout.decode()


def _conversations() -> list[tuple[list[dict[str, Any]], list[dict[str, Any]]]]:
    tool = {
        "type": "function",
        "function": {"name": "get_weather", "description": "Weather.", "parameters": WEATHER["function"]["parameters"]},
    }
    call = {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": '{"location": 7}'}}
    bad = {"id": "c2", "type": "function", "function": {"name": "img_gen", "arguments": "{}"}}
    turns = [
        {"role": "user", "content": "Weather?"},
        {"role": "assistant", "content": "", "tool_calls": [call, bad]},
        {"role": "tool", "tool_call_id": "c1", "content": "sunny"},
        {"role": "tool", "tool_call_id": "c2", "content": "done"},
    ]
    return [([{"role": "system", "content": "Be brief."}, *turns], [tool]), (turns, [tool])]


@pytest.mark.parametrize("dialect", ["hermes", "hermes-vllm", "qwen2.5", "qwen3", "omp"])
def test_issue11_rendered_transcripts_are_one_record_each(dialect: str, tmp_path: Path) -> None:
    from hermes_toolcall import parse_transcript, render, validate

    texts = [render(m, tools=t, dialect=dialect) for m, t in _conversations()]
    api = [validate(parse_transcript(text, dialect=dialect), dialect=dialect).codes for text in texts]
    assert all({"HT301", "HT302"} <= set(codes) for codes in api)
    joined = "".join(t if t.endswith("\n") else t + "\n" for t in texts[:1]) + "\n" + texts[1]
    for name, content in (("lf", joined), ("crlf", joined.replace("\n", "\r\n"))):
        path = tmp_path / f"{dialect}-{name}.chatml"
        path.write_bytes(content.encode())
        proc = cli("validate", str(path), "--dialect", dialect, "--format", "jsonl")
        rows = [json.loads(line) for line in proc.stdout.decode().splitlines()]
        assert rows[-1]["records"] == 2, (name, rows)
        per_record = [tuple(r["code"] for r in rows[:-1] if r["record"] == n) for n in (1, 2)]
        assert per_record == [tuple(c) for c in api], name  # the CLI finds what the API finds, LF or CRLF
        assert proc.returncode == 1 and b"\\r" not in proc.stdout


def test_issue11_crlf_chatml_is_checked_not_skipped(tmp_path: Path) -> None:
    from hermes_toolcall import render

    messages, tools = _conversations()[0]
    text = render(messages, tools=tools, dialect="hermes").replace("\n", "\r\n")
    path = tmp_path / "crlf.chatml"
    path.write_bytes(text.encode())
    proc = cli("validate", str(path), "--format", "json")
    doc = json.loads(proc.stdout)
    codes = {d["code"] for d in doc["diagnostics"]}
    assert proc.returncode == 1 and {"HT301", "HT302"} <= codes and "HT004" not in codes


def test_issue11_unknown_codes_in_select_and_ignore_are_usage_errors(tmp_path: Path) -> None:
    path = tmp_path / "d.jsonl"
    path.write_bytes(dataset(2))
    for flag, value in (("--select", "HT999"), ("--ignore", "HT9"), ("--select", "HT3,HT77"), ("--select", "XY1")):
        proc = cli("validate", str(path), flag, value)
        assert proc.returncode == 2 and proc.stdout == b"", (flag, value)
        assert proc.stderr.decode().count("\n") == 1 and "Traceback" not in proc.stderr.decode()
    assert cli("validate", str(path), "--select", "HT3").returncode == 1


def test_issue11_any_mapping_is_a_record() -> None:
    from collections.abc import Iterator, Mapping

    from hermes_toolcall import validate_record

    class Row(Mapping[str, Any]):  # like datasets' LazyRow: a Mapping, not a dict
        def __init__(self, data: dict[str, Any]) -> None:
            self._data = data

        def __getitem__(self, key: str) -> Any:
            return self._data[key]

        def __iter__(self) -> Iterator[str]:
            return iter(self._data)

        def __len__(self) -> int:
            return len(self._data)

    rec = record("get_weather", '{"location": 7}')
    assert validate_record(Row(rec)).codes == validate_record(rec).codes == ("HT302",)


def test_issue11_any_mapping_is_a_record_inside_datasets_map() -> None:
    datasets = pytest.importorskip("datasets", reason="the `datasets` package is not installed (H16's extra)")
    ds = datasets.Dataset.from_list([{"text": json.dumps(record("nope", "{}"))}])
    from hermes_toolcall import validate_record

    seen: list[tuple[str, ...]] = []

    def check(row: Any) -> Any:
        seen.append(validate_record({"messages": json.loads(row["text"])["messages"], "tools": [WEATHER]}).codes)
        seen.append(validate_record(row).codes)
        return row

    ds.map(check)
    assert seen[0] == ("HT301",) and seen[1] == ("HT602",)


def _deep_schema_record() -> str:
    """A record whose tool schema nests 400 ``items`` deep: the checker (jsonschema) recurses past the
    default recursion limit on it. (Deeper than 512 levels the record is not read at all: HT601.)"""
    inner = '{"type": "integer"}'
    for _ in range(400):
        inner = '{"items": ' + inner + "}"
    return (
        '{"messages": [{"role": "user", "content": "x"}, {"role": "assistant", "tool_calls": [{"id": "c", '
        '"type": "function", "function": {"name": "f", "arguments": "{\\"a\\": [1]}"}}]}], "tools": ['
        '{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {"a": '
        + inner
        + "}}}}]}"
    )


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_issue11_a_record_that_crashes_the_checker_is_a_finding(jobs: str, tmp_path: Path) -> None:
    good = dataset(20).decode()
    path = tmp_path / "mixed.jsonl"
    lines = good.splitlines()
    lines.insert(5, _deep_schema_record())
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    proc = cli("validate", str(path), "--jobs", jobs, "--format", "jsonl")
    rows = [json.loads(line) for line in proc.stdout.decode().splitlines()]
    internal = [r for r in rows if r.get("code") == "HT604"]
    assert [r["record"] for r in internal] == [6] and internal[0]["line"] == 6
    reference = findings(cli("validate", "-", "--format", "jsonl", stdin=dataset(20)).stdout)[:-1]
    others = [
        {k: v for k, v in r.items() if k not in ("file", "record", "line")} for r in rows[:-1] if r["code"] != "HT604"
    ]
    assert others == [{k: v for k, v in r.items() if k not in ("record", "line")} for r in reference]
    assert rows[-1]["records"] == 21 and rows[-1]["exit_status"] == 3
    assert proc.returncode == 3 and "Traceback" not in proc.stderr.decode()
    assert proc.stderr.decode().count("\n") == 1 and "HT604" in proc.stderr.decode()


def test_issue11_deep_schema_through_the_api_is_a_finding() -> None:
    from hermes_toolcall import _jsonio as jsonio
    from hermes_toolcall import validate_record

    data = jsonio.loads(_deep_schema_record())
    assert validate_record(data).codes[-1:] in (("HT604",), ())  # a finding, never an exception


def test_issue11_broken_pipe_is_a_status_not_a_traceback(tmp_path: Path) -> None:
    """A closed pipe is status 141 and quiet (issue 23: it was 3 with an error line; tests/test_cli_pipes.py)."""
    path = tmp_path / "d.jsonl"
    path.write_bytes(dataset(3000))
    proc = cli(shell=f"set -o pipefail; {BIN} validate {path} | head -1")
    assert proc.returncode == 141
    assert proc.stdout.decode().count("\n") == 1
    assert proc.stderr.decode() == ""


def test_issue11_full_disk_is_a_status_not_a_traceback(tmp_path: Path) -> None:
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full on this system")
    path = tmp_path / "d.jsonl"
    path.write_bytes(dataset(50))
    for fmt in ("text", "json", "sarif"):
        with open("/dev/full", "wb") as full:
            proc = subprocess.run(
                [str(BIN), "validate", str(path), "--format", fmt], stdout=full, stderr=subprocess.PIPE, check=False
            )
        err = proc.stderr.decode()
        assert proc.returncode == 3 and "No space left on device" in err and err.count("\n") == 1, (fmt, err)
    proc = cli("validate", str(path), "--output", "/dev/full")
    assert proc.returncode == 3 and "Traceback" not in proc.stderr.decode()


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_issue11_ctrl_c_prints_the_summary_so_far(jobs: str) -> None:
    argv = [str(BIN), "validate", "-", "--jobs", jobs]
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(dataset(700))  # standard input stays open: the run waits for more
    proc.stdin.flush()
    if jobs == "1":
        assert proc.stdout.readline()  # findings are printed as records are checked
    else:
        time.sleep(3)  # batches are in the workers
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert "record(s) in 1 file(s)" in out.decode() and "interrupted after" in out.decode()
    assert err.decode().count("\n") == 1 and "Traceback" not in err.decode()


def test_issue11_terminal_escapes_are_shown_escaped(tmp_path: Path) -> None:
    text = "<|im_start|>user\nhi \x1b]0;pwned\x07 \x1b[2J<|im_end|>\n<|im_start|>robot\x1b[31m\nx<|im_end|>\n"
    path = tmp_path / "esc.chatml"
    path.write_text(text, encoding="utf-8")
    for argv in (["validate", str(path)], ["parse", str(path)], ["validate", str(path), "--format", "github"]):
        proc = cli(*argv)
        shown = proc.stdout + proc.stderr
        assert b"\x1b" not in shown and b"\x07" not in shown, argv
        assert b"\\x1b" in shown, argv


def test_exit_status_fail_on_and_output_file(tmp_path: Path) -> None:
    clean = tmp_path / "clean.jsonl"
    clean.write_text(json.dumps(record("get_weather", '{"location": "R"}')) + "\n", encoding="utf-8")
    warn = tmp_path / "warn.jsonl"  # HT304 (mixed argument encodings) is a warning
    rec = record("get_weather", '{"location": "R"}')
    rec["messages"][1]["tool_calls"].append(
        {"id": "c2", "type": "function", "function": {"name": "get_weather", "arguments": {"location": "R"}}}
    )
    warn.write_text(json.dumps(rec) + "\n", encoding="utf-8")
    assert cli("validate", str(clean)).returncode == 0
    assert cli("validate", str(warn)).returncode == 0
    assert cli("validate", str(warn), "--fail-on", "warning").returncode == 1
    assert cli("validate", str(tmp_path / "missing.jsonl")).returncode == 2
    report = tmp_path / "out" / "report.json"
    report.parent.mkdir()
    proc = cli("validate", str(warn), "--format", "json", "--output", str(report))
    assert proc.returncode == 0 and proc.stdout == b""
    assert json.loads(report.read_text())["warnings"] == 1
    same = cli("validate", str(warn), "--output", str(warn))
    assert same.returncode == 2 and json.loads(warn.read_text())  # refused: the input is not overwritten
    version = cli("--version")
    assert version.returncode == 0 and version.stdout.decode().startswith("hermes-toolcall ")


def test_github_workflow_commands(tmp_path: Path) -> None:
    path = tmp_path / "d,1.jsonl"
    path.write_bytes(dataset(2))
    proc = cli("validate", str(path), "--format", "github")
    first = proc.stdout.decode().splitlines()[0]
    assert first.startswith(f"::error file={str(path).replace(',', '%2C')},line=1,col=")
    assert ",title=HT301 unknown-tool::record 1: " in first
    assert proc.returncode == 1


def test_jsonl_output_streams_before_the_input_ends() -> None:
    proc = subprocess.Popen(
        [str(BIN), "validate", "-", "--format", "jsonl"], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(dataset(1))
    proc.stdin.flush()
    first = json.loads(proc.stdout.readline())  # printed while standard input is still open
    assert first["type"] == "finding" and first["record"] == 1
    proc.stdin.close()
    rest = proc.stdout.read()
    proc.wait(timeout=60)
    assert json.loads(rest.splitlines()[-1])["type"] == "summary"


def test_no_traceback_for_any_failure_of_other_commands(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"messages": [\n  {"role": "user",, "content": "x"}\n]}', encoding="utf-8")
    proc = cli("render", str(bad))
    err = proc.stderr.decode()
    assert proc.returncode == 2 and "Traceback" not in err and ":2:" in err  # line:column of the JSON error
    env = {**os.environ, "PYTHONPATH": ""}
    proc = cli("parse", str(tmp_path / "missing.txt"), env=env)
    assert proc.returncode == 2 and proc.stderr.decode().count("\n") == 1


def _warning_record() -> str:
    rec = record("get_weather", '{"location": "R"}')  # HT304: one call's arguments a string, one an object
    rec["messages"][1]["tool_calls"].append(
        {"id": "c2", "type": "function", "function": {"name": "get_weather", "arguments": {"location": "R"}}}
    )
    return json.dumps(rec)


def test_issue11_sarif_stays_within_github_limits_most_severe_first(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    lines = [_warning_record()] * 1000 + ["{"] * 25_500  # 1,000 warnings, then 25,500 errors (HT601)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    proc = cli("validate", str(path), "--format", "sarif")
    assert proc.returncode == 1
    (run,) = json.loads(proc.stdout)["runs"]
    results = run["results"]
    assert len(results) == 25_000 and {r["level"] for r in results} == {"error"}
    (invocation,) = run["invocations"]
    assert invocation["executionSuccessful"] is True and invocation["exitCode"] == 1
    (note,) = invocation["toolExecutionNotifications"]
    assert "1500 finding(s) not included (500 error, 1000 warning)" in note["message"]["text"]
    fingerprints = [r["partialFingerprints"]["hermesToolcallFinding/v1"] for r in results]
    assert len(set(fingerprints)) == len(fingerprints)


def test_sarif_fingerprints_survive_moved_records(tmp_path: Path) -> None:
    bad = json.dumps(record("nope", '{"location": 7}'))
    clean = json.dumps(record("get_weather", '{"location": "R"}'))
    (tmp_path / "1").mkdir()
    (tmp_path / "2").mkdir()
    first, second = tmp_path / "1" / "d.jsonl", tmp_path / "2" / "d.jsonl"  # one file, before and after an edit
    first.write_text(bad + "\n" + bad + "\n", encoding="utf-8")
    second.write_text(clean + "\n\n" + clean + "\n" + bad + "\n" + bad + "\n", encoding="utf-8")

    def prints(path: Path) -> list[tuple[str, str, int]]:
        out = cli("validate", path.name, "--format", "sarif", "--output", "out.sarif", cwd=path.parent)
        assert out.returncode == 1
        doc = json.loads((path.parent / "out.sarif").read_text())
        return [
            (
                r["ruleId"],
                r["partialFingerprints"]["hermesToolcallFinding/v1"],
                r["locations"][0]["physicalLocation"]["region"]["startLine"],
            )
            for r in doc["runs"][0]["results"]
        ]

    a, b = prints(first), prints(second)
    assert [(code, fp) for code, fp, _ in a] == [(code, fp) for code, fp, _ in b]  # same alerts …
    assert [line for *_, line in a] != [line for *_, line in b]  # … on other lines
    assert len({fp for _, fp, _ in a}) == len(a)  # identical records: distinct by occurrence


def test_internal_errors_are_never_hidden_by_select_or_ignore(tmp_path: Path) -> None:
    path = tmp_path / "deep.jsonl"
    path.write_text(_deep_schema_record() + "\n", encoding="utf-8")
    for flags in (["--select", "HT3"], ["--ignore", "HT6"]):
        proc = cli("validate", str(path), "--format", "jsonl", *flags)
        assert proc.returncode == 3 and '"code":"HT604"' in proc.stdout.decode(), flags
