"""Dataset inputs: gzip/zstd/bz2/xz by magic bytes, Parquet by row group, the Arrow-None rule, column mapping."""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import arrow_openai_records, dataset_records
from hermes_toolcall.cli import main
from hermes_toolcall.dataio._compressed import CorruptInputError
from hermes_toolcall.dataio._rows import Columns, drop_nulls
from hermes_toolcall.dataio._sources import iter_input, sniff
from hermes_toolcall.errors import UsageError
from hermes_toolcall.validate._datasets import iter_records
from hermes_toolcall.validate._runner import Options, run

pa = pytest.importorskip("pyarrow", reason="the [parquet] extra (pyarrow) is not installed")
pq = pytest.importorskip("pyarrow.parquet", reason="the [parquet] extra (pyarrow) is not installed")
zstandard = pytest.importorskip("zstandard", reason="the [zstd] extra (zstandard) is not installed")
pytestmark = pytest.mark.ci_required("the [parquet] and [zstd] extras are installed by .ci/run")


def _jsonl_bytes(records: list[Any]) -> bytes:
    return "".join(json.dumps(r) + "\n" for r in records).encode("utf-8")


def _findings(path: Path | str, **kw: Any) -> list[tuple[Any, ...]]:
    """What a finding says, without where in the line it is (a Parquet row is re-encoded JSON)."""
    return [
        (f.record, f.code, f.severity, f.message, f.hint)
        for r in run(iter_input(path, columns=Columns(**kw)), Options())
        for f in r.findings
    ]


def _located(path: Path | str) -> list[Any]:
    return [f for r in run(iter_input(path), Options()) for f in r.findings]


def _table(records: list[Any]) -> Any:
    """An Arrow table with every key of every record (``from_pylist`` keeps the first row's keys only)."""
    return pa.Table.from_struct_array(pa.array(records))


def _compressed(tmp_path: Path, data: bytes) -> dict[str, Path]:
    out = {}
    for name, packed in (
        ("gzip", gzip.compress(data)),
        ("zstd", zstandard.ZstdCompressor().compress(data)),
        ("bz2", bz2.compress(data)),
        ("xz", lzma.compress(data)),
    ):
        path = tmp_path / f"data.{name}.bin"  # no telling suffix: the magic bytes decide
        path.write_bytes(packed)
        out[name] = path
    return out


def test_compressed_jsonl_gives_the_same_findings_and_positions(tmp_path: Path) -> None:
    data = _jsonl_bytes(dataset_records(60)) + b"\n{broken\n" + b'{"messages": [], "x": "\xff"}\n'
    plain = tmp_path / "data.jsonl"
    plain.write_bytes(data)
    expected = _located(plain)
    assert {f.code for f in expected} >= {"HT302", "HT404", "HT601", "HT501"}
    for kind, path in _compressed(tmp_path, data).items():
        assert sniff(path) == kind
        assert _located(path) == expected, kind


def test_compressed_chatml_text(tmp_path: Path) -> None:
    text = "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n<tool_call>\n{\"name\": 1}\n<|im_end|>\n"
    plain = tmp_path / "t.txt"
    plain.write_text(text * 3, encoding="utf-8")
    packed = tmp_path / "t.txt.gz"
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    assert _located(packed) == _located(plain)
    assert [r.kind for r in iter_input(packed)] == ["chatml"]


def test_zstd_multi_frame_and_progress_in_compressed_bytes(tmp_path: Path) -> None:
    c = zstandard.ZstdCompressor()
    records = dataset_records(20)
    path = tmp_path / "d.jsonl.zst"
    path.write_bytes(c.compress(_jsonl_bytes(records[:10])) + c.compress(_jsonl_bytes(records[10:])))
    read = list(iter_input(path))
    assert [r.number for r in read] == list(range(1, 21))
    assert read[-1].end == path.stat().st_size


@pytest.mark.parametrize("kind", ["gzip", "zstd"])
def test_truncated_archive_is_an_input_error(kind: str, tmp_path: Path) -> None:
    """Regression (zstd): a cut .zst file ended the dataset quietly; now HT611 like gzip."""
    data = _jsonl_bytes(dataset_records(200))
    packed = gzip.compress(data) if kind == "gzip" else zstandard.ZstdCompressor().compress(data)
    path = tmp_path / "d.jsonl.bin"
    path.write_bytes(packed[:-40])
    with pytest.raises(CorruptInputError, match=r"HT611 .*corrupt or truncated after record"):
        list(iter_input(path))


def test_parquet_rows_carry_nones_and_findings_equal_the_jsonl(tmp_path: Path) -> None:
    records = dataset_records(90, sharegpt=False)
    plain = tmp_path / "d.jsonl"
    plain.write_bytes(_jsonl_bytes(records))
    path = tmp_path / "d.parquet"
    pq.write_table(_table(records), path, row_group_size=25)
    assert pq.ParquetFile(path).metadata.num_row_groups == 4
    row = pq.read_table(path).slice(0, 1).to_pylist()[0]
    assert row["messages"][0]["tool_call_id"] is None  # what Arrow does to a user message
    assert sniff(path) == "parquet"
    assert _findings(path) == _findings(plain)
    assert [r.end for r in iter_input(path)][-1] <= path.stat().st_size


def test_sharegpt_parquet(tmp_path: Path) -> None:
    records = [r for r in dataset_records(60) if "conversations" in r]
    plain = tmp_path / "d.jsonl"
    plain.write_bytes(_jsonl_bytes(records))
    path = tmp_path / "d.parquet"
    pq.write_table(_table(records), path, row_group_size=7)
    assert _findings(path) == _findings(plain) != []


@settings(max_examples=60)
@given(st.lists(arrow_openai_records(), min_size=1, max_size=6))
def test_arrow_none_rule_property(tmp_path_factory: Any, records: list[dict[str, Any]]) -> None:
    """Rows read back from Parquet (None for every key another row had) give the JSONL's findings."""
    tmp = tmp_path_factory.mktemp("arrow")
    plain = tmp / "d.jsonl"
    plain.write_bytes(_jsonl_bytes(records))
    path = tmp / "d.parquet"
    pq.write_table(_table(records), path, row_group_size=2)
    assert _findings(path) == _findings(plain)


def test_arrow_none_rule_limit_nulls_inside_struct_arguments(tmp_path: Path) -> None:
    """The documented limit: arguments stored as structs cannot keep an explicit null."""
    tool = {"type": "function", "function": {"name": "f", "parameters": {"type": "object",
            "properties": {"n": {"type": "integer"}, "m": {"type": "integer"}}}}}

    def rec(args: dict[str, Any]) -> dict[str, Any]:
        call = {"id": "c", "type": "function", "function": {"name": "f", "arguments": args}}
        return {"messages": [{"role": "assistant", "content": None, "tool_calls": [call]}], "tools": [tool]}

    records = [rec({"n": None}), rec({"m": 1})]
    plain = tmp_path / "d.jsonl"
    plain.write_bytes(_jsonl_bytes(records))
    path = tmp_path / "d.parquet"
    pq.write_table(_table(records), path)
    assert [c for _, c, *_ in _findings(plain) if c == "HT302"] == ["HT302"]  # null is not an integer
    assert [c for _, c, *_ in _findings(path) if c == "HT302"] == []  # in Arrow: null and missing are one


def test_drop_nulls_converts_arrow_values() -> None:
    import datetime
    import decimal

    value = {1: b"\xff", "t": datetime.date(2024, 1, 2), "d": decimal.Decimal("2"), "x": None, "l": [None]}
    assert drop_nulls(value) == {"1": "/w==", "t": "2024-01-02", "d": 2, "l": [None]}


def test_column_mapping(tmp_path: Path) -> None:
    records = dataset_records(30, sharegpt=False)
    mapped = [{"dialog": r["messages"], "functions": json.dumps(r["tools"]), "id": i} for i, r in enumerate(records)]
    plain = tmp_path / "d.jsonl"
    plain.write_bytes(_jsonl_bytes(records))
    path = tmp_path / "m.parquet"
    pq.write_table(_table(mapped), path)
    assert _findings(path, messages="dialog", tools="functions") == _findings(plain)
    unmapped = _findings(path)
    assert {c for _, c, *_ in unmapped} == {"HT602"}
    jsonl = tmp_path / "m.jsonl"
    jsonl.write_bytes(_jsonl_bytes(mapped))
    assert _findings(jsonl, messages="dialog", tools="functions") == _findings(plain)
    with pytest.raises(UsageError, match="no column 'chat'"):
        list(iter_input(path, columns=Columns(messages="chat")))


def test_plain_files_still_go_through_the_plain_reader(tmp_path: Path) -> None:
    path = tmp_path / "d.jsonl"
    path.write_bytes(b'\xef\xbb\xbf{"messages": []}\r\n\r\n{"messages": [}\n')
    assert list(iter_input(path)) == list(iter_records(path))


def test_folders_and_arrays(tmp_path: Path) -> None:
    assert sniff(tmp_path) == "folder"  # a folder of shards (issue 23): one without any is refused when read
    with pytest.raises(UsageError, match="a folder without data files"):
        list(iter_input(tmp_path))
    arr = tmp_path / "a.json.gz"
    arr.write_bytes(gzip.compress(b'[{"messages": []}]'))
    with pytest.raises(UsageError, match="JSON array"):
        list(iter_input(arr))


@pytest.mark.parametrize(
    ("module", "extra", "suffix"), [("pyarrow.parquet", "parquet", "parquet"), ("zstandard", "zstd", "zst")]
)
def test_missing_extra_names_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], module: str, extra: str,
    suffix: str,
) -> None:
    records = dataset_records(3, sharegpt=False)
    path = tmp_path / f"d.{suffix}"
    if suffix == "parquet":
        pq.write_table(_table(records), path)
    else:
        path.write_bytes(zstandard.ZstdCompressor().compress(_jsonl_bytes(records)))
    monkeypatch.setitem(sys.modules, module, None)  # as if not installed: import raises ImportError
    assert main(["validate", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"pip install 'hermes-toolcall[{extra}]'" in err
    assert "Traceback" not in err


def test_cli_json_output_identical_across_compressions(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = _jsonl_bytes(dataset_records(40))
    plain = tmp_path / "d.jsonl"
    plain.write_bytes(data)
    outputs = []
    for path in (plain, *_compressed(tmp_path, data).values()):
        assert main(["validate", str(path), "--format", "json"]) == 1
        doc = json.loads(capsys.readouterr().out)
        outputs.append([{k: v for k, v in d.items() if k != "file"} for d in doc["diagnostics"]])
    assert all(o == outputs[0] for o in outputs) and outputs[0]


def test_progress_on_a_tty_leaves_the_output_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    records = dataset_records(50, sharegpt=False)
    path = tmp_path / "d.parquet"
    pq.write_table(_table(records), path, row_group_size=10)
    assert main(["validate", str(path), "--format", "json"]) == 1
    quiet = capsys.readouterr().out
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    assert main(["validate", str(path), "--format", "json"]) == 1
    assert capsys.readouterr().out == quiet
    src = tmp_path / "d.jsonl.zst"
    src.write_bytes(zstandard.ZstdCompressor().compress(_jsonl_bytes(records)))
    # every fifth record's result names no call (call_x): skipped, never rebound (issue 23)
    assert main(["convert-dataset", str(src), str(tmp_path / "o.jsonl"), "--from", "openai", "--to", "sharegpt"]) == 1
    assert "40 record(s) written" in capsys.readouterr().err


def test_row_text_values_json_has_no_type_for() -> None:
    from hermes_toolcall.dataio._rows import NO_MAPPING, row_text

    assert row_text({"b": b"hi", "n": None, "x": (1, None)}, NO_MAPPING) == '{"b":"hi","x":[1,null]}'
    assert row_text({1: None, 2: "x"}, NO_MAPPING) == '{"2":"x"}'
    assert row_text({"dialog": [], "id": None}, Columns(messages="dialog")) == '{"messages":[]}'


def test_pipes_are_not_peeked(tmp_path: Path) -> None:
    """A named pipe is left to the plain reader: opening it to sniff would block (or eat its first bytes)."""
    import os
    import signal

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    signal.alarm(10)  # sniff must not open the pipe (no writer: open would block)
    try:
        assert sniff(fifo) == "plain"
        assert sniff("-") == "plain"
    finally:
        signal.alarm(0)
