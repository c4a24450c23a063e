"""``validate --text-column COL``: rows that hold a whole ChatML transcript as text (JSONL, Parquet, datasets).

The text of each row is checked as a transcript: the findings are those of the same transcript in a
ChatML file (code, severity, message, hint), and each says where it is twice: the row (``line``, and a
``column`` into the row's JSON line at the character of the string) and the position inside the text
(``text``: line:column and character offset, equal to the ChatML file's line:column).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hermes_toolcall.cli import main
from hermes_toolcall.dataio._rows import Columns
from hermes_toolcall.dataio._sources import iter_input
from hermes_toolcall.errors import UsageError
from hermes_toolcall.validate._runner import Located, Options, run

pa = pytest.importorskip("pyarrow", reason="the [parquet] extra (pyarrow) is not installed")
pq = pytest.importorskip("pyarrow.parquet", reason="the [parquet] extra (pyarrow) is not installed")
pytestmark = pytest.mark.ci_required("the [parquet] extra is installed by .ci/run")

_TOOL = (
    '{"type": "function", "function": {"name": "get_weather", "description": "Weather \\"now\\".", '
    '"parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}'
)
_SYSTEM = f"<|im_start|>system\nYou are a function calling AI model.\n<tools>\n{_TOOL}\n</tools><|im_end|>\n"


def _turns(user: str, call: str, tail: str = "") -> str:
    return (
        f"{_SYSTEM}<|im_start|>user\n{user}<|im_end|>\n"
        f"<|im_start|>assistant\n<tool_call>\n{call}\n</tool_call><|im_end|>\n{tail}"
    )


# each with a finding (or none), and characters JSON escapes: quotes, tabs, newlines, non-BMP, U+2028
TRANSCRIPTS = (
    _turns("weather in \"Zürich\"\t?", '{"name": "get_weather", "arguments": {"city": "Zürich"}}'),
    _turns("東京 🌧 \u2028 ok?", '{"name": "get_weather", "arguments": {"city": 7}}'),
    _turns("x", '{"name": "get_weather", "arguments": {"city": "Lima"'),
    _turns("y", '{"name": "nope", "arguments": {}}'),
    _turns("z", '{"name": "get_weather", "arguments": {}}', "<|im_start|>tool\n<tool_response>\nhi\n"),
    "<|im_start|>user\nno tools here<|im_end|>\n<|im_start|>assistant\n<think>\nhmm",
)


def _located(path: Path | str, **kw: Any) -> list[Located]:
    options = Options(text_column=kw.get("text"))
    return [f for r in run(iter_input(path, columns=Columns(**kw)), options) for f in r.findings]


def _said(found: list[Located]) -> list[tuple[Any, ...]]:
    return [(f.record, f.code, f.severity, f.message, f.hint) for f in found]


def _per_file(tmp_path: Path) -> tuple[list[tuple[Any, ...]], list[tuple[int, int, int]]]:
    """What the ChatML files say (each transcript in its own file): findings, and (record, line, column)."""
    said: list[tuple[Any, ...]] = []
    where: list[tuple[int, int, int]] = []
    for k, text in enumerate(TRANSCRIPTS, 1):
        path = tmp_path / f"t{k}.txt"
        path.write_text(text, encoding="utf-8")
        for f in _located(path):
            said.append((k, f.code, f.severity, f.message, f.hint))
            where.append((k, f.line, f.column))
    return said, where


def _jsonl(tmp_path: Path, column: str = "text") -> Path:
    path = tmp_path / "rows.jsonl"
    rows = [{"id": k, column: text, "source": "test"} for k, text in enumerate(TRANSCRIPTS, 1)]
    path.write_text("".join(json.dumps(r, ensure_ascii=k % 2 == 0) + "\n" for k, r in enumerate(rows)), "utf-8")
    return path


def test_jsonl_text_column_equals_the_chatml_files_and_points_into_the_line(tmp_path: Path) -> None:
    said, where = _per_file(tmp_path)
    assert {s[1] for s in said} >= {"HT302", "HT103", "HT301"}  # the transcripts do have findings
    path = _jsonl(tmp_path)
    found = _located(path, text="text")
    assert _said(found) == said
    assert [(f.record, f.text.line, f.text.column) for f in found if f.text] == where
    lines = path.read_text("utf-8").split("\n")
    for f in found:
        assert f.text is not None and f.text.field == "text" and f.line == f.record
        # the column is the raw character of the JSON line where the text's character is (escapes as written)
        raw = lines[f.line - 1]
        decoded = TRANSCRIPTS[f.record - 1]
        ascii_only = (f.record - 1) % 2 == 0
        token = json.dumps(decoded, ensure_ascii=ascii_only)
        prefix = json.dumps(decoded[: f.text.offset], ensure_ascii=ascii_only)[1:-1]
        assert f.column == raw.index(token) + 1 + len(prefix) + 1, (f, raw[f.column - 1 : f.column + 10])
        # the offset and line:column agree with each other
        before = decoded[: f.text.offset]
        assert f.text.line == before.count("\n") + 1
        assert f.text.column == f.text.offset - (before.rfind("\n") + 1) + 1


def test_parquet_text_column_equals_the_jsonl(tmp_path: Path) -> None:
    jsonl = _jsonl(tmp_path, "chatml")
    expected = [(f.record, f.code, f.message, f.text) for f in _located(jsonl, text="chatml")]
    path = tmp_path / "rows.parquet"
    table = pa.table(
        {
            "id": list(range(1, len(TRANSCRIPTS) + 1)),
            "chatml": list(TRANSCRIPTS),
            "meta": [{"lang": "en", "n": k} for k in range(len(TRANSCRIPTS))],
        }
    )
    pq.write_table(table, path, row_group_size=2)
    assert pq.ParquetFile(path).metadata.num_row_groups == 3
    found = _located(path, text="chatml")
    assert [(f.record, f.code, f.message, f.text) for f in found] == expected != []
    assert all(f.line == f.record for f in found)


def test_cli_on_parquet_reports_row_and_text_position(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "rows.parquet"
    pq.write_table(pa.table({"chatml": list(TRANSCRIPTS)}), path, row_group_size=4)
    assert main(["validate", str(path), "--text-column", "chatml", "--format", "jsonl", "--jobs", "2"]) == 1
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    findings = [r for r in rows if r["type"] == "finding"]
    expected = [f for f in _located(path, text="chatml")]
    assert [(r["record"], r["line"], r["code"], r["text"]) for r in findings] == [
        (f.record, f.line, f.code, {"field": "chatml", "line": f.text.line, "column": f.text.column,
                                    "offset": f.text.offset} if f.text else None)
        for f in expected
    ]
    assert main(["validate", str(path), "--text-column", "chatml"]) == 1
    out = capsys.readouterr().out
    assert f"{path}:2:" in out and "[chatml " in out and ", offset " in out


def test_text_column_problems(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "rows.parquet"
    pq.write_table(pa.table({"chatml": [TRANSCRIPTS[0], None], "n": [1, 2]}), path)
    with pytest.raises(UsageError, match="no column 'text' for --text-column"):
        list(iter_input(path, columns=Columns(text="text")))
    found = _located(path, text="chatml")
    assert [(f.record, f.code) for f in found] == [(2, "HT603")]  # a null text is reported, not skipped
    assert "no ChatML text" in found[0].message
    jsonl = tmp_path / "r.jsonl"
    jsonl.write_text('{"text": 5}\n[1]\n{"text": "<|im_start|>user\\nhi<|im_end|>\\n"}\n', "utf-8")
    assert [(f.record, f.code) for f in _located(jsonl, text="text")] == [(1, "HT603"), (2, "HT603")]
    with pytest.raises(UsageError, match="excludes --messages-column"):
        Columns(text="t", messages="m")
    assert main(["validate", str(jsonl), "--text-column", "text", "--messages-column", "m"]) == 2
    assert "excludes" in capsys.readouterr().err


def test_records_without_text_column_are_unchanged(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The JSON output of ordinary records has no ``text`` key (byte-identical to before)."""
    path = tmp_path / "r.jsonl"
    path.write_text('{"messages": [{"role": "tool", "content": "x", "tool_call_id": "a"}]}\n', "utf-8")
    assert main(["validate", str(path), "--format", "jsonl"]) == 1
    finding = json.loads(capsys.readouterr().out.splitlines()[0])
    assert "text" not in finding and finding["code"] == "HT402"


def test_datasets_folder_and_validate_dataset(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    datasets = pytest.importorskip("datasets", reason="the [datasets] extra is not installed")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    datasets.disable_progress_bars()
    import hermes_toolcall as ht

    jsonl = _jsonl(tmp_path, "chatml")
    expected = _located(jsonl, text="chatml")
    ds = datasets.Dataset.from_list([{"chatml": t, "id": k} for k, t in enumerate(TRANSCRIPTS, 1)])
    folder = tmp_path / "saved"
    ds.save_to_disk(str(folder))
    found = _located(folder, text="chatml")
    assert [(f.record, f.code, f.message, f.text) for f in found] == [
        (f.record, f.code, f.message, f.text) for f in expected
    ]
    report = ht.validate_dataset(ds, text_column="chatml")
    got = [
        (k + 1, f["code"], f["message"], f["line"], f["column"])
        for k, row in enumerate(report.dataset)
        for f in row["ht_findings"]
    ]
    assert got == [(f.record, f.code, f.message, f.text.line, f.text.column) for f in expected if f.text]
    assert report.dataset[0]["ht_ok"] is True and report.dataset[1]["ht_ok"] is False


def test_crlf_text_is_read_as_a_chatml_file_reads_it(tmp_path: Path) -> None:
    """Regression (the property in test_dataio_text_column_props.py): a row's CRLF transcript was parsed
    with its ``\\r``s, so the role read ``'<tool_call>\\r'`` where the ChatML file says ``'<tool_call>'``,
    and positions after a line end differed. Now CRLF reads as LF, and the offset is the row text's."""
    text = '<|im_start|><tool_call>\r\n{"name": "f", "arguments": {"v": 1}}\r\n</tool_call>'
    chatml = tmp_path / "t.txt"
    chatml.write_bytes(text.encode("utf-8"))
    jsonl = tmp_path / "rows.jsonl"
    jsonl.write_text(json.dumps({"text": text}) + "\n", "utf-8")
    in_file = _located(chatml)
    in_row = _located(jsonl, text="text")
    assert [(f.code, f.message) for f in in_row] == [(f.code, f.message) for f in in_file]
    assert [f.code for f in in_row] == ["HT004", "HT002"] and "'<tool_call>'" in in_row[0].message
    last = in_row[-1].text
    assert last is not None and (last.line, last.column) == (in_file[-1].line, in_file[-1].column) == (3, 13)
    assert last.offset == len(text)  # the end of the row's text, its two \r counted
    line = jsonl.read_text("utf-8").rstrip("\n")
    assert line[in_row[-1].column - 1 :] == '"}'  # the column is at that character of the JSON line
