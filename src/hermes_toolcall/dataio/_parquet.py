"""Parquet in and out with pyarrow, streamed by row group: memory follows the row group, not the file."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from ..errors import UsageError
from ._extras import require
from ._rows import NO_MAPPING, Columns

__all__ = ["ParquetWriter", "iter_parquet_rows", "row_groups"]

_ROWS = 1024


def _open(path: str | Path) -> Any:
    pq = require("pyarrow.parquet")
    try:
        return pq.ParquetFile(str(path))
    except Exception as exc:  # pyarrow's ArrowInvalid / OSError: a damaged or truncated file
        raise UsageError(f"cannot read {path} as Parquet: {exc}") from exc


def row_groups(path: str | Path) -> list[tuple[int, int, int]]:
    """(row group, first row number (1-based), byte offset after it) of every row group."""
    pf = _open(path)
    meta = pf.metadata
    out = []
    first, offset = 1, 4
    for g in range(meta.num_row_groups):
        rg = meta.row_group(g)
        offset += sum(rg.column(c).total_compressed_size for c in range(rg.num_columns))
        out.append((g, first, offset))
        first += rg.num_rows
    return out


def iter_parquet_rows(
    path: str | Path, columns: Columns = NO_MAPPING, groups: Sequence[int] | None = None
) -> Iterator[tuple[int, dict[str, Any], int]]:
    """(1-based row number, row, byte offset after its row group), one row group at a time.

    Args:
        path: a Parquet file.
        columns: the column mapping; only mapped columns are read.
        groups: the row groups to read (default all), numbered as the file numbers them.

    Raises:
        UsageError: the file is not Parquet, or a mapped column is missing.
    """
    pf = _open(path)
    columns.check(list(pf.schema_arrow.names), str(path))
    layout = row_groups(path)
    # maps as dicts costs 7x the conversion: asked for only when the file has a map column
    maps = {"maps_as_pydicts": "lossy"} if "map<" in str(pf.schema_arrow) else {}
    for g, first, end in layout if groups is None else [layout[g] for g in groups]:
        number = first
        try:
            needed = columns.needed(pf.schema_arrow.names)
            batches = pf.iter_batches(batch_size=_ROWS, row_groups=[g], columns=needed)
            for batch in batches:
                for row in batch.to_pylist(**maps):
                    yield number, row, end
                    number += 1
        except UsageError:
            raise
        except Exception as exc:  # pyarrow: a corrupt page
            raise UsageError(f"cannot read {path} (row group {g}): {exc}") from exc


class ParquetWriter:
    """Write records (dicts) to a Parquet file in row groups of ``rows`` records.

    Arrow needs one schema per file: it is taken from the first row group (with every key any record
    of that group has); a later record that does not fit it is an error (``UsageError``).
    """

    def __init__(self, path: str | Path, *, rows: int = 10_000) -> None:
        self._pa = require("pyarrow")
        self._pq = require("pyarrow.parquet")
        self._path = str(path)
        self._rows = rows
        self._buffer: list[dict[str, Any]] = []
        self._writer: Any = None

    def write(self, record: dict[str, Any]) -> None:
        """Add one record."""
        self._buffer.append(record)
        if len(self._buffer) >= self._rows:
            self.flush()

    def write_all(self, records: Iterable[dict[str, Any]]) -> None:
        """Add records."""
        for r in records:
            self.write(r)

    def flush(self) -> None:
        """Write the buffered records as one row group."""
        if not self._buffer:
            return
        pa = self._pa
        try:
            table = pa.Table.from_struct_array(pa.array(self._buffer))  # every key of every record
            if self._writer is None:
                self._writer = self._pq.ParquetWriter(self._path, table.schema)
            else:
                schema = self._writer.schema
                extra = [n for n in table.schema.names if n not in schema.names]
                if extra:
                    raise UsageError(f"cannot write {self._path}: a later record has the column(s) {extra}, "
                                     f"which the file's schema (from its first {self._rows} records) has not")
                names = table.schema.names
                fields = [table.schema.field(f.name) if f.name in names else f for f in schema]
                arrays = [table.column(f.name) if f.name in names else pa.nulls(len(table), f.type) for f in schema]
                table = pa.Table.from_arrays(arrays, schema=pa.schema(fields)).cast(schema)
            self._writer.write_table(table)
        except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError, OSError) as exc:
            raise UsageError(f"cannot write {self._path}: a record does not fit the file's schema: {exc}") from exc
        self._buffer = []

    def close(self) -> None:
        """Flush and close (an empty file gets an empty table)."""
        if self._writer is None and not self._buffer:
            self._pq.write_table(self._pa.table({}), self._path)
            return
        self.flush()
        self._writer.close()

    def __enter__(self) -> ParquetWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
