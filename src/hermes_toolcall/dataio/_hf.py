"""``validate_dataset``: validate a Hugging Face ``Dataset`` or ``IterableDataset``, one result per row.

Each row gets ``ht_ok`` (no error), ``ht_codes`` (the codes found, in order) and ``ht_findings``
(code, severity, message, hint, line, column per finding); they are the findings ``hermes-toolcall
validate`` prints for the same rows (the row read under the Arrow-None rule, see ``dataio.rows``),
so ``ds.filter(lambda r: r["ht_ok"])`` keeps the clean rows.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import UsageError
from ..validate import Options, RecordResult, Selector, check_record
from ._extras import require
from ._rows import Columns, row_record

__all__ = ["COLUMNS", "DatasetReport", "DatasetSummary", "summarize_dataset", "validate_dataset"]

COLUMNS = ("ht_ok", "ht_codes", "ht_findings")


@dataclass(frozen=True, slots=True, kw_only=True)
class DatasetSummary:
    """Counts over a validated dataset: rows, rows with an error, findings by severity and by code."""

    records: int
    failed: int
    errors: int
    warnings: int
    info: int
    by_code: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True, kw_only=True)
class DatasetReport:
    """The dataset with the ``ht_*`` columns added, and its summary (None for an ``IterableDataset``:
    it is computed only when iterated; call ``summarize_dataset`` on it then)."""

    dataset: Any
    summary: DatasetSummary | None


def _features(datasets: Any) -> dict[str, Any]:
    finding = {
        "code": datasets.Value("string"),
        "severity": datasets.Value("string"),
        "message": datasets.Value("string"),
        "hint": datasets.Value("string"),
        "line": datasets.Value("int64"),
        "column": datasets.Value("int64"),
    }
    return {
        "ht_ok": datasets.Value("bool"),
        "ht_codes": datasets.List(datasets.Value("string")),
        "ht_findings": datasets.List(finding),
    }


class _Check:
    """The batched ``map`` function (a picklable object: ``num_proc`` ships it to worker processes)."""

    def __init__(self, options: Options, columns: Columns) -> None:
        self.options = options
        self.columns = columns

    def __call__(self, batch: Mapping[str, Sequence[Any]], indices: Sequence[int]) -> dict[str, list[Any]]:
        names = list(batch)
        ok: list[bool] = []
        codes: list[list[str]] = []
        findings: list[list[dict[str, Any]]] = []
        for k, index in enumerate(indices):
            row = {name: batch[name][k] for name in names}
            result = check_record(row_record(index + 1, row, self.columns), self.options)
            ok.append(not any(f.severity == "error" for f in result.findings))
            codes.append([f.code for f in result.findings])
            findings.append(_findings(result))
        return {"ht_ok": ok, "ht_codes": codes, "ht_findings": findings}


def _findings(result: RecordResult) -> list[dict[str, Any]]:
    """The findings of one row; with ``text_column``, ``line``/``column`` are the position in the row's text."""
    return [
        {"code": f.code, "severity": f.severity, "message": f.message, "hint": f.hint,
         "line": f.line if f.text is None else f.text.line, "column": f.column if f.text is None else f.text.column}
        for f in result.findings
    ]


def validate_dataset(
    ds: Any,
    *,
    tools: Sequence[Any] | None = None,
    dialect: str = "hermes",
    select: Iterable[str] | None = None,
    ignore: Iterable[str] | None = None,
    check_formats: bool = False,
    round_trip: bool = True,
    messages_column: str | None = None,
    tools_column: str | None = None,
    text_column: str | None = None,
    num_proc: int | None = None,
    batch_size: int = 256,
) -> DatasetReport:
    """Validate every row of a Hugging Face dataset; add ``ht_ok``, ``ht_codes``, ``ht_findings``.

    Args:
        ds: a ``datasets.Dataset`` or ``datasets.IterableDataset`` of OpenAI (``messages``) or ShareGPT
            (``conversations``) records.
        tools: tools for every row (default: each row's own ``tools``).
        dialect: the dialect whose rules apply.
        select: codes or prefixes to report (default all); ``ignore``: codes or prefixes to drop.
        check_formats: also check JSON-Schema ``format`` keywords.
        round_trip: run the render → parse round trip (HT504).
        messages_column: the column holding the messages (default ``messages`` or ``conversations``).
        tools_column: the column holding the tools (default ``tools``).
        text_column: rows hold a whole ChatML transcript as text in this column: it is checked as a
            transcript, and ``line``/``column`` of a finding are its position in that text.
        num_proc: worker processes for ``Dataset.map`` (ignored for an ``IterableDataset``).
        batch_size: rows per ``map`` batch.

    Returns:
        The dataset with the three columns, and (for a ``Dataset``) the summary.

    Raises:
        UsageError: ``ds`` is not a dataset, a mapped column is missing, or a bad code prefix.

    >>> try:  # a list is not a dataset (and without the extra, the error names it)
    ...     validate_dataset([{"messages": []}])
    ... except UsageError as exc:
    ...     print(type(exc).__name__)
    UsageError

    With ``ds = datasets.Dataset.from_list([{"messages": [{"role": "user", "content": "hi"},
    {"role": "tool", "content": "42", "tool_call_id": "x"}]}])``, ``validate_dataset(ds).dataset[0]["ht_codes"]``
    is ``['HT402']`` (tests/test_dataio_hf.py).
    """
    datasets = require("datasets")
    Selector(select, ignore)  # reject bad codes before any work
    options = Options(
        tools=tuple(tools) if tools is not None else None,
        dialect=dialect,
        select=tuple(select) if select is not None else None,
        ignore=tuple(ignore or ()),
        check_formats=check_formats,
        round_trip=round_trip,
        text_column=text_column,
    )
    columns = Columns(messages=messages_column, tools=tools_column, text=text_column)
    if not isinstance(ds, datasets.Dataset | datasets.IterableDataset):
        raise UsageError(f"validate_dataset takes a datasets.Dataset or IterableDataset, not {type(ds).__name__}")
    names = ds.column_names
    if names is not None:
        columns.check(list(names), "dataset")
        clash = [c for c in COLUMNS if c in names]
        if clash:
            raise UsageError(f"the dataset already has {', '.join(clash)}: remove them first")
    check = _Check(options, columns)
    if isinstance(ds, datasets.Dataset):
        features = datasets.Features({**ds.features, **_features(datasets)})
        out = ds.map(
            check, with_indices=True, batched=True, batch_size=batch_size, num_proc=num_proc, features=features,
            desc="hermes-toolcall validate",
        )
        return DatasetReport(dataset=out, summary=summarize_dataset(out))
    features = datasets.Features({**ds.features, **_features(datasets)}) if ds.features is not None else None
    out = ds.map(check, with_indices=True, batched=True, batch_size=batch_size, features=features)
    return DatasetReport(dataset=out, summary=None)


def summarize_dataset(ds: Any) -> DatasetSummary:
    """The summary of a dataset that has the ``ht_*`` columns (iterates an ``IterableDataset``).

    Raises:
        UsageError: the dataset has no ``ht_findings`` column.
    """
    names = ds.column_names
    if names is not None and "ht_findings" not in names:
        raise UsageError("the dataset has no ht_findings column: run validate_dataset first")
    records = failed = 0
    severities: Counter[str] = Counter()
    by_code: Counter[str] = Counter()
    rows = ds.select_columns(["ht_findings"]) if names is not None else ds
    for row in rows:
        records += 1
        found = row["ht_findings"]
        if any(f["severity"] == "error" for f in found):
            failed += 1
        for f in found:
            severities[f["severity"]] += 1
            by_code[f["code"]] += 1
    return DatasetSummary(
        records=records,
        failed=failed,
        errors=severities["error"],
        warnings=severities["warning"],
        info=severities["info"],
        by_code=dict(sorted(by_code.items())),
    )
