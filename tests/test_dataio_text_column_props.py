"""``validate --text-column COL`` on generated transcripts (hypothesis): rows equal the ChatML file.

The promise (docs/validate.md, "Whole transcripts as text"): the text of each row is checked as a
transcript, with the findings of the same transcript in a ChatML file (code, severity, message, hint),
each placed at ``[COL line:column, offset N]`` inside the text, where line:column is the ChatML file's
and the offset is the character offset of that line:column in the text; a missing, null or
non-string cell is one HT603 finding. Checked here on generated transcripts (rendered in several
dialects, with calls and results, followed by generated completions with reasoning and calls,
mutated, adversarial; LF or CRLF line ends; lone surrogates removed, since neither a UTF-8 file nor
Parquet can hold them) in JSONL, in Parquet, in a saved ``datasets`` folder and through
``validate_dataset``.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from hermes_toolcall.dataio._rows import Columns
from hermes_toolcall.dataio._sources import iter_input
from hermes_toolcall.testing import adversarial_texts, completions, mutations, rendered_transcripts
from hermes_toolcall.validate._datasets import iter_records
from hermes_toolcall.validate._runner import Located, Options, run

pa = pytest.importorskip("pyarrow", reason="the [parquet] extra (pyarrow) is not installed")
pq = pytest.importorskip("pyarrow.parquet", reason="the [parquet] extra (pyarrow) is not installed")
datasets = pytest.importorskip("datasets", reason="the [datasets] extra is not installed")
pytestmark = pytest.mark.ci_required("the [parquet] and [datasets] extras are installed by .ci/run")

_MISSING = object()  # the row has no such field at all


def _no_surrogates(text: str) -> str:
    return "".join(c for c in text if not 0xD800 <= ord(c) <= 0xDFFF)


_TRANSCRIPTS = st.one_of(
    rendered_transcripts(),
    rendered_transcripts("qwen3"),
    st.tuples(rendered_transcripts(add_generation_prompt=True), completions()).map("".join),
    st.tuples(rendered_transcripts("qwq", add_generation_prompt=True), completions("qwq")).map("".join),
    rendered_transcripts().flatmap(mutations),
    adversarial_texts(),
).map(_no_surrogates)
_TEXTS = st.tuples(_TRANSCRIPTS, st.booleans()).map(lambda t: t[0].replace("\n", "\r\n") if t[1] else t[0])
_NOT_TEXT = st.sampled_from([_MISSING, None, 7, ["<|im_start|>user\nhi<|im_end|>\n"], {"text": "x"}])


def _found(path: Path, **columns: Any) -> list[Located]:
    options = Options(text_column=columns.get("text"))
    return [f for r in run(iter_input(path, columns=Columns(**columns)), options) for f in r.findings]


def _chatml_file(folder: Path, k: int, text: str) -> list[Located] | None:
    """The findings of ``text`` as a ChatML file; None when the file does not read as one transcript."""
    path = folder / f"t{k}.txt"
    path.write_bytes(text.encode("utf-8"))
    records = list(iter_records(path))
    if len(records) != 1 or records[0].kind != "chatml":
        return None  # empty, blank lines that the file format reads as a record boundary, or read as JSON lines
    return _found(path)


def _said(f: Located) -> tuple[Any, ...]:
    assert f.text is not None
    return (f.record, f.code, f.severity, f.message, f.hint, f.text)


def _offset_is_line_column(text: str, f: Located) -> bool:
    assert f.text is not None
    before = text[: f.text.offset]
    return f.text.line == before.count("\n") + 1 and f.text.column == f.text.offset - before.rfind("\n")


_SLOW = [HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.function_scoped_fixture]


@settings(max_examples=60, deadline=None, suppress_health_check=_SLOW)
@example(cells=["{'a': 'b'}"], ascii_only=False)  # a file starting with '{' reads as JSON lines (HT601), a cell as text
@given(cells=st.lists(st.one_of(_TEXTS, _TEXTS, _NOT_TEXT), min_size=1, max_size=4), ascii_only=st.booleans())
def test_rows_equal_the_chatml_file_in_jsonl_parquet_and_datasets(cells: list[Any], ascii_only: bool) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        expected: list[tuple[Any, ...]] = []  # (row, code, severity, message, hint, line, column)
        for k, cell in enumerate(cells, 1):
            if not isinstance(cell, str):
                continue
            file_findings = _chatml_file(folder, k, cell)
            assume(file_findings is not None)
            assert file_findings is not None
            expected += [(k, f.code, f.severity, f.message, f.hint, f.line, f.column) for f in file_findings]

        # JSONL: every kind of cell (a missing field, null, a number, a list, an object)
        rows = [{"id": k} | ({} if cell is _MISSING else {"text": cell}) for k, cell in enumerate(cells, 1)]
        jsonl = folder / "rows.jsonl"
        jsonl.write_bytes("".join(json.dumps(r, ensure_ascii=ascii_only) + "\n" for r in rows).encode("utf-8"))
        found = _found(jsonl, text="text")
        texts = [(f.record, f.code, f.severity, f.message, f.hint, f.text.line, f.text.column)
                 for f in found if f.text is not None]
        assert texts == expected
        assert all(_offset_is_line_column(cells[f.record - 1], f) for f in found if f.text is not None)
        bad = [(f.record, f.code) for f in found if f.text is None]
        assert bad == [(k, "HT603") for k, cell in enumerate(cells, 1) if not isinstance(cell, str)]
        assert all("no ChatML text" in f.message and f.line == f.record for f in found if f.text is None)

        # Parquet and datasets hold a string column: a cell that is not a string is a null there
        column = [cell if isinstance(cell, str) else None for cell in cells]
        said = [_said(f) for f in found if f.text is not None]
        nulls = [k for k, cell in enumerate(column, 1) if cell is None]
        parquet = folder / "rows.parquet"
        pq.write_table(pa.table({"id": list(range(1, len(cells) + 1)), "text": column}), parquet, row_group_size=2)
        for path in (parquet, _saved(folder, column)):
            again = _found(path, text="text")
            assert [_said(f) for f in again if f.text is not None] == said
            assert [(f.record, f.code) for f in again if f.text is None] == [(k, "HT603") for k in nulls]
            assert all(f.line == f.record for f in again)

        # validate_dataset: ht_findings' line/column are the position in the text
        import hermes_toolcall as ht

        report = ht.validate_dataset(datasets.Dataset.from_dict({"text": column}), text_column="text")
        got = [(k, f["code"], f["message"], f["line"], f["column"])
               for k, row in enumerate(report.dataset, 1) for f in row["ht_findings"] if f["code"] != "HT603"]
        assert got == [(k, code, message, line, col) for k, code, _, message, _, line, col in expected]
        assert [row["ht_codes"] for k, row in enumerate(report.dataset, 1) if k in nulls] == [["HT603"]] * len(nulls)


def _saved(folder: Path, column: list[str | None]) -> Path:
    out = folder / "saved"
    datasets.Dataset.from_dict({"text": column}).save_to_disk(str(out))
    return out


@pytest.fixture(autouse=True)
def _offline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    datasets.disable_progress_bars()
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
