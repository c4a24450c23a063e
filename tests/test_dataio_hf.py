"""Hugging Face datasets: ``validate_dataset`` on Dataset / IterableDataset, the CLI on save_to_disk folders."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from helpers import dataset_records
from hermes_toolcall.cli import main
from hermes_toolcall.dataio._sources import iter_input
from hermes_toolcall.errors import UsageError
from hermes_toolcall.validate._runner import Options, run

datasets = pytest.importorskip("datasets", reason="the [datasets] extra is not installed")
pytestmark = pytest.mark.ci_required("the [datasets] extra is installed by .ci/run")

import hermes_toolcall as ht  # noqa: E402


@pytest.fixture(autouse=True)
def _offline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No network, and caches in the test's folder."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    datasets.disable_progress_bars()


def _write(tmp_path: Path, records: list[Any]) -> Path:
    path = tmp_path / "d.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def _cli(path: Path) -> list[tuple[Any, ...]]:
    return [(f.record, f.code, f.severity, f.message, f.hint, f.line, f.column)
            for r in run(iter_input(path), Options()) for f in r.findings]


def _rows(ds: Any) -> list[tuple[Any, ...]]:
    return [
        (i + 1, f["code"], f["severity"], f["message"], f["hint"], f["line"], f["column"])
        for i, row in enumerate(ds)
        for f in row["ht_findings"]
    ]


def _what(found: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    return [f[:5] for f in found]


def test_validate_dataset_equals_the_cli_on_the_same_rows(tmp_path: Path) -> None:
    records = dataset_records(80, sharegpt=False)
    plain = _write(tmp_path, records)
    ds = datasets.Dataset.from_json(str(plain), cache_dir=str(tmp_path / "cache"))
    report = ht.validate_dataset(ds)
    out = report.dataset
    assert {"ht_ok", "ht_codes", "ht_findings"} <= set(out.column_names)
    assert _what(_rows(out)) == _what(_cli(plain))  # the JSONL's findings
    folder = tmp_path / "saved"
    ds.save_to_disk(str(folder))
    assert _rows(out) == _cli(folder)  # the CLI on the saved folder: positions too
    assert report.summary is not None
    assert report.summary.records == 80
    assert report.summary.failed == sum(1 for ok in out["ht_ok"] if not ok) > 0
    assert report.summary.by_code == {c: sum(codes.count(c) for codes in out["ht_codes"])
                                      for c in report.summary.by_code}
    clean = out.filter(lambda r: r["ht_ok"])
    assert len(clean) == 80 - report.summary.failed


def test_num_proc_and_select(tmp_path: Path) -> None:
    ds = datasets.Dataset.from_list(dataset_records(40, sharegpt=False))
    one = ht.validate_dataset(ds, select=["HT3"])
    two = ht.validate_dataset(ds, select=["HT3"], num_proc=2)
    assert one.dataset["ht_findings"] == two.dataset["ht_findings"]
    assert {c for codes in one.dataset["ht_codes"] for c in codes} == {"HT302"}


def test_iterable_dataset_and_column_mapping(tmp_path: Path) -> None:
    records = dataset_records(30)
    plain = _write(tmp_path, records)
    sharegpt = [r for r in records if "conversations" in r]
    mapped = [{"chat": r["conversations"], "fns": r["tools"]} for r in sharegpt]
    it = datasets.Dataset.from_list(mapped).to_iterable_dataset()
    report = ht.validate_dataset(it, messages_column="chat", tools_column="fns")
    assert report.summary is None
    expected = [f for f in _what(_cli(_write(tmp_path, sharegpt)))]
    assert _what(_rows(report.dataset)) == expected != []
    assert ht.summarize_dataset(report.dataset).records == len(sharegpt)
    assert plain.exists()


def test_cli_on_saved_folder_and_dataset_dict(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ds = datasets.Dataset.from_list(dataset_records(20, sharegpt=False))
    datasets.DatasetDict({"train": ds, "test": ds}).save_to_disk(str(tmp_path / "dd"))
    assert main(["validate", str(tmp_path / "dd")]) == 2
    assert "pass one split's folder (test, train)" in capsys.readouterr().err
    assert main(["validate", str(tmp_path / "dd" / "train"), "--select", "HT404"]) == 1
    assert "HT404" in capsys.readouterr().out


def test_hf_scheme_loads_a_local_folder_offline(tmp_path: Path) -> None:
    records = dataset_records(12, sharegpt=False)
    data = tmp_path / "repo"
    data.mkdir()
    _write(data, records)
    found = [(r.number, r.text) for r in iter_input(f"hf://{data}:train")]
    assert len(found) == 12
    with pytest.raises(UsageError, match="cannot load hf://"):
        list(iter_input("hf://no-such-owner/no-such-dataset"))


def test_bad_arguments(tmp_path: Path) -> None:
    ds = datasets.Dataset.from_list([{"messages": []}])
    with pytest.raises(UsageError, match="no column 'chat'"):
        ht.validate_dataset(ds, messages_column="chat")
    with pytest.raises(UsageError, match="not a diagnostic code"):
        ht.validate_dataset(ds, select=["X1"])
    with pytest.raises(UsageError, match=r"takes a datasets\.Dataset"):
        ht.validate_dataset([{"messages": []}])
    with pytest.raises(UsageError, match="already has ht_ok"):
        ht.validate_dataset(ds.add_column("ht_ok", [True]))


def test_convert_records_takes_dataset_rows(tmp_path: Path) -> None:
    records = dataset_records(20, sharegpt=False)
    ds = datasets.Dataset.from_list(records)  # rows carry None for absent keys (Arrow)
    from_rows = [c.record for c in ht.convert_records(ds, source="openai", target="chatml:qwen3")]
    from_dicts = [c.record for c in ht.convert_records(records, source="openai", target="chatml:qwen3")]
    assert from_rows == from_dicts and all(isinstance(t, str) for t in from_rows if t is not None)
    assert from_rows.count(None) == 4  # every fifth record's result names no call: skipped (issue 23)
