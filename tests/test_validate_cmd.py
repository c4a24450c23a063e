"""``hermes-toolcall validate``: text, JSON and SARIF output, exit status, select/ignore, the example dataset."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conftest import DATA, REPO
from helpers import LOCATION_WEATHER
from helpers import call_record as _rec
from hermes_toolcall import _validation_codes as validation_codes
from hermes_toolcall._diagnostics import CATALOGUE
from hermes_toolcall.cli import _validate_cmd as validate_cmd

EXAMPLE = REPO / "examples" / "dataset.jsonl"
GOLDEN = DATA / "validate" / "example_dataset.findings.json"
WEATHER = LOCATION_WEATHER


@pytest.fixture
def parser() -> Any:
    """The parse module (the example dataset holds ShareGPT wire text)."""
    import hermes_toolcall._parse

    return hermes_toolcall._parse


def run_cli(*argv: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    ap = argparse.ArgumentParser(prog="hermes-toolcall")
    validate_cmd.register(ap.add_subparsers())
    args = ap.parse_args(["validate", *argv])
    status = args.func(args)
    return status, capsys.readouterr().out


def _dataset(tmp_path: Path, *records: Any) -> str:
    path = tmp_path / "d.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return str(path)


def test_text_output_compiler_style_with_caret(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _dataset(tmp_path, _rec("get_weather", '{"location": "R"}'), _rec("get_weather", '{"location": 7}'))
    status, out = run_cli(path, capsys=capsys)
    assert status == 1
    head, snippet, caret = out.splitlines()[:3]
    column = snippet.index("7") - 4 + 1  # the caret column inside the snippet
    assert head.startswith(f"{path}:2:") and " HT302 error: record 2: get_weather: arguments.location: 7 is not" in head
    assert caret == "    " + " " * (column - 1) + "^"
    assert "findings by code" in out and "1 error(s)" in out


def test_clean_dataset_exits_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out = run_cli(_dataset(tmp_path, _rec("get_weather", '{"location": "R"}')), capsys=capsys)
    assert status == 0 and "1 record(s) in 1 file(s): 0 error(s)" in out


def test_warnings_only_exit_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rec = _rec("get_weather", '{"location": "R"}')
    rec["tools"] = [WEATHER, WEATHER]
    status, out = run_cli(_dataset(tmp_path, rec), capsys=capsys)
    assert status == 0 and "HT306 warning" in out


def test_select_ignore_and_tools_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _dataset(tmp_path, _rec("img_gen", "{}"), _rec("get_weather", "{}"))
    status, out = run_cli(path, "--select", "HT30", "--ignore", "HT301", "--format", "json", capsys=capsys)
    assert [d["code"] for d in json.loads(out)["diagnostics"]] == ["HT302"]
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps({"tools": [{"name": "img_gen"}]}), encoding="utf-8")
    status, out = run_cli(path, "--tools", str(tools), "--format", "json", capsys=capsys)
    assert [d["code"] for d in json.loads(out)["diagnostics"]] == ["HT301"] and status == 1


def test_json_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out = run_cli(_dataset(tmp_path, _rec("nope", "{}")), "--format", "json", capsys=capsys)
    doc = json.loads(out)
    assert status == 1 and doc["records"] == 1 and doc["errors"] == 1 and doc["summary"] == {"HT301": 1}
    (d,) = doc["diagnostics"]
    assert (d["code"], d["name"], d["record"], d["line"]) == ("HT301", "unknown-tool", 1, 1)


def test_regression_tools_or_functions_not_a_list_fail_the_run_in_every_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Regression (smallfix 1): a record's ``tools`` (or the legacy ``functions`` beside it) that is not a list
    is an HT603 error with its position in the text, JSON and HTML reports, and fails the run (exit 1)."""
    records = [{**_rec("get_weather", '{"location": "R"}'), "tools": bad} for bad in ({"a": 1}, 5, "abc")]
    records.append({**_rec("get_weather", '{"location": "R"}'), "functions": {"name": "get_weather"}})
    path = _dataset(tmp_path, *records)
    status, out = run_cli(path, capsys=capsys)
    assert status == 1 and out.count("HT603 error") == 4 and "`functions` is not a list" in out
    status, out = run_cli(path, "--format", "json", capsys=capsys)
    doc = json.loads(out)
    assert status == 1 and doc["summary"] == {"HT603": 4}
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    for d, key in zip(doc["diagnostics"], ["tools", "tools", "tools", "functions"], strict=True):
        at = lines[d["record"] - 1].index(f'"{key}": ') + len(f'"{key}": ') + 1
        assert (d["code"], d["line"], d["column"]) == ("HT603", d["record"], at)
    status, out = run_cli(path, "--format", "html", capsys=capsys)
    assert status == 1 and out.count('data-code="HT603"') >= 4


def test_sarif_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out = run_cli(_dataset(tmp_path, _rec("nope", "{}")), "--format", "sarif", capsys=capsys)
    doc = json.loads(out)
    assert doc["version"] == "2.1.0" and status == 1
    (run,) = doc["runs"]
    assert run["tool"]["driver"]["rules"][0]["id"] == "HT301"
    (result,) = run["results"]
    region = result["locations"][0]["physicalLocation"]["region"]
    assert result["ruleId"] == "HT301" and result["level"] == "error" and region["startLine"] == 1
    assert region["startColumn"] >= 1 and region["endColumn"] > region["startColumn"]


def test_jobs_all_cores_same_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _dataset(tmp_path, *(_rec("get_weather", json.dumps({"location": i})) for i in range(30)))
    _, serial = run_cli(path, "--format", "json", capsys=capsys)
    _, pooled = run_cli(path, "--format", "json", "--jobs", "0", capsys=capsys)
    assert serial == pooled and json.loads(serial)["summary"] == {"HT302": 30}


def test_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from hermes_toolcall.errors import UsageError

    path = _dataset(tmp_path, _rec("get_weather", "{}"))
    with pytest.raises(UsageError):
        run_cli(path, "--select", "E501", capsys=capsys)
    with pytest.raises(UsageError):
        run_cli(path, "--jobs", "-1", capsys=capsys)
    with pytest.raises(UsageError):
        run_cli(str(tmp_path / "missing.jsonl"), capsys=capsys)


def test_every_validation_code_is_catalogued() -> None:
    for e in validation_codes.ENTRIES:
        assert CATALOGUE[e.code] == e and e.example and e.fix and e.summary


def _findings(capsys: pytest.CaptureFixture[str]) -> tuple[int, list[list[Any]]]:
    status, out = run_cli(str(EXAMPLE), "--format", "json", capsys=capsys)
    return status, [[d["record"], d["code"]] for d in json.loads(out)["diagnostics"]]


def test_example_dataset_is_up_to_date() -> None:
    proc = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "make_example_dataset.py"), "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr


def test_example_dataset_prints_a_defect_of_each_kind(parser: Any, capsys: pytest.CaptureFixture[str]) -> None:
    status, found = _findings(capsys)
    assert status == 1
    codes = {c for _, c in found}
    # not dataset defects of a JSONL file: the validator's own failure, and joined ChatML records; and a
    # record over 64 MiB (HT612: tests/test_record_limit.py)
    not_shown = {"HT604", "HT605", "HT612"}
    assert {e.code for e in validation_codes.ENTRIES} - not_shown <= codes
    assert found == json.loads(GOLDEN.read_text(encoding="utf-8"))


def test_example_dataset_formats_only_when_asked(parser: Any, capsys: pytest.CaptureFixture[str]) -> None:
    _, plain = run_cli(str(EXAMPLE), "--format", "json", "--select", "HT302", capsys=capsys)
    _, formats = run_cli(str(EXAMPLE), "--format", "json", "--select", "HT302", "--check-formats", capsys=capsys)
    extra = len(json.loads(formats)["diagnostics"]) - len(json.loads(plain)["diagnostics"])
    assert extra == 1


def test_main_entry_point(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from hermes_toolcall import cli

    cli.build_parser()
    assert cli.main(["validate", _dataset(tmp_path, _rec("nope", "{}"))]) == 1
    assert cli.main(["validate", str(tmp_path / "missing.jsonl")]) == 2


def test_progress_bar_on_a_terminal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    path = _dataset(tmp_path, *(_rec("get_weather", '{"location": "R"}') for _ in range(3)))
    status, out = run_cli(path, capsys=capsys)
    assert status == 0 and "3 record(s)" in out
