"""Findings carry the record's own ``id`` in every output format (issue 23 §3), so a report joins back to the
source: text, JSON, JSON lines, GitHub, SARIF; JSONL, Parquet, column mappings, ``--id-column``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hermes_toolcall.validate._datasets import RawRecord
from hermes_toolcall.validate._runner import Options, check_record

BIN = Path(sys.executable).parent / "hermes-toolcall"

_ORPHAN = [{"role": "user", "content": "hi"}, {"role": "tool", "content": "x", "tool_call_id": "a"}]  # HT402


def _records() -> list[dict[str, Any]]:
    return [
        {"id": "gen-1", "category": "a", "messages": _ORPHAN},
        {"id": 7, "messages": _ORPHAN},
        {"messages": _ORPHAN},  # no id
        {"id": True, "messages": _ORPHAN},  # not an id
        {"id": "clean", "messages": [{"role": "user", "content": "hi"}]},
    ]


def _cli(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(BIN), *argv], capture_output=True, text=True, check=False)


def _write(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


EXPECTED = [(1, "gen-1"), (2, 7), (3, None), (4, None)]


def test_regression_findings_carry_record_ids_in_every_format(tmp_path: Path) -> None:
    """Before, no output named the record's own id: only its number, which changes when a file is filtered."""
    path = _write(tmp_path / "d.jsonl", _records())
    rows = [json.loads(line) for line in _cli("validate", str(path), "--format", "jsonl").stdout.splitlines()]
    assert [(r["record"], r["record_id"]) for r in rows if r["type"] == "finding"] == EXPECTED
    doc = json.loads(_cli("validate", str(path), "--format", "json").stdout)
    assert [(d["record"], d["record_id"]) for d in doc["diagnostics"]] == EXPECTED
    sarif = json.loads(_cli("validate", str(path), "--format", "sarif").stdout)
    results = sarif["runs"][0]["results"]
    assert [(r["properties"]["record"], r["properties"]["recordId"]) for r in results] == EXPECTED
    assert results[0]["message"]["text"].startswith("record 1 (id gen-1): ")
    github = _cli("validate", str(path), "--format", "github").stdout.splitlines()
    assert "::record 1 (id gen-1): " in github[0] and "::record 2 (id 7): " in github[1]
    assert "::record 3: " in github[2]
    text = _cli("validate", str(path)).stdout
    assert ": HT402 error: record 1 (id gen-1): " in text and ": HT402 error: record 3: " in text


def test_an_id_is_shown_terminal_safe(tmp_path: Path) -> None:
    path = _write(tmp_path / "d.jsonl", [{"id": "a\x1b[31mb\nc", "messages": _ORPHAN}])
    out = _cli("validate", str(path)).stdout
    assert "\x1b" not in out and "(id a\\x1b[31mb\\nc)" in out


def test_id_column_names_another_field(tmp_path: Path) -> None:
    path = _write(tmp_path / "d.jsonl", [{"uuid": "u-1", "id": "x", "messages": _ORPHAN}])
    rows = [json.loads(line) for line in _cli("validate", str(path), "--format", "jsonl", "--id-column", "uuid")
            .stdout.splitlines()]
    assert rows[0]["record_id"] == "u-1"


def test_ids_under_a_text_column(tmp_path: Path) -> None:
    text = "<|im_start|>user\nhi<|im_end|>\n<|im_start|>robot\nbeep<|im_end|>\n"  # HT004
    path = _write(tmp_path / "d.jsonl", [{"id": "t-9", "text": text}])
    rows = [json.loads(line) for line in _cli("validate", str(path), "--format", "jsonl", "--text-column", "text")
            .stdout.splitlines()]
    assert rows[0]["code"] == "HT004" and rows[0]["record_id"] == "t-9"


@given(rid=st.one_of(st.text(max_size=20), st.integers()), fmt=st.sampled_from(["jsonl", "object"]))
def test_every_finding_of_a_record_carries_its_id(rid: str | int, fmt: str) -> None:
    """Whatever the id (any string, any integer) and whatever the findings, each one carries it."""
    record = {"id": rid, "messages": [*_ORPHAN, {"role": "robot", "content": "x"}]}
    if fmt == "jsonl":
        raw = RawRecord(number=1, line=1, text=json.dumps(record), kind="jsonl", end=0)
    else:
        raw = RawRecord(number=1, line=1, text="", kind="object", end=0, data=record)
    found = check_record(raw, Options()).findings
    assert len(found) >= 2 and all(f.record_id == rid for f in found)


@pytest.mark.ci_required("the [parquet] extra is installed by .ci/run")
def test_parquet_rows_carry_their_ids_under_a_column_mapping(tmp_path: Path) -> None:
    pa = pytest.importorskip("pyarrow", reason="the [parquet] extra (pyarrow) is not installed")
    pq = pytest.importorskip("pyarrow.parquet", reason="the [parquet] extra (pyarrow) is not installed")
    table = pa.Table.from_pylist([{"id": "p-1", "chat": json.dumps(_ORPHAN), "other": 1}])
    path = tmp_path / "d.parquet"
    pq.write_table(table, path)
    plain = tmp_path / "p.parquet"
    pq.write_table(pa.Table.from_pylist([{"id": "p-2", "messages": _ORPHAN}]), plain)
    for p, mapping, expected in ((path, ["--messages-column", "chat"], "p-1"), (plain, [], "p-2")):
        out = _cli("validate", str(p), "--format", "jsonl", *mapping).stdout.splitlines()
        assert json.loads(out[0])["record_id"] == expected, out


def test_the_html_report_names_the_id_column(tmp_path: Path) -> None:
    """The HTML report shows the id that the other formats give, also under ``--id-column``."""
    records = [{"uuid": "u-1", "id": "x", "messages": _ORPHAN}, {"id": 7, "messages": _ORPHAN}]
    path = _write(tmp_path / "d.jsonl", records)
    page = _cli("validate", str(path), "--format", "html", "--id-column", "uuid").stdout
    assert '<code class="rid">u-1</code>' in page and '<code class="rid">x</code>' not in page
    page = _cli("validate", str(path), "--format", "html").stdout
    assert '<code class="rid">x</code>' in page and '<code class="rid">7</code>' in page
