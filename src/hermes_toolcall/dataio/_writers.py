"""Dataset outputs written atomically: JSONL (plain, ``.gz``, ``.zst``), Parquet, or ChatML text.

Records go to ``OUT.partial`` beside the target, renamed to ``OUT`` when every record is written; a
run that fails leaves ``OUT`` untouched and removes the partial file.
"""

from __future__ import annotations

import gzip
import os
from pathlib import Path
from typing import Any, BinaryIO, Literal

from .. import _jsonio as jsonio
from ..errors import UsageError
from ._extras import require
from ._parquet import ParquetWriter

__all__ = ["OutputFormat", "RecordWriter", "output_format"]

OutputFormat = Literal["jsonl", "parquet", "text"]


def output_format(path: str | Path, requested: str | None, *, text_records: bool) -> OutputFormat:
    """The output format: ``requested``, else by suffix (``.parquet``; ``.txt``/``.chatml``; JSONL).

    Raises:
        UsageError: text output asked for records that are not texts.

    >>> output_format("out.parquet", None, text_records=False), output_format("o.txt", None, text_records=True)
    ('parquet', 'text')
    """
    name = str(path).lower()
    fmt = requested or (
        "parquet" if name.endswith(".parquet") else "text" if name.endswith((".txt", ".chatml")) else "jsonl"
    )
    if fmt == "text" and not text_records:
        raise UsageError(f"{path}: text output holds ChatML transcripts (--to chatml[:DIALECT]); use JSONL or Parquet")
    if fmt not in ("jsonl", "parquet", "text"):
        raise UsageError(f"unknown output format {fmt!r} (jsonl, parquet, text)")
    return fmt  # type: ignore[return-value]


class RecordWriter:
    """Write records (dicts, or ChatML strings) to ``path`` in ``fmt``; ``commit()`` publishes the file."""

    def __init__(self, path: str | Path, fmt: OutputFormat) -> None:
        self.path = str(path)
        self.partial = self.path + ".partial"
        self.fmt = fmt
        self.count = 0
        self._parquet: ParquetWriter | None = None
        self._fh: BinaryIO | None = None
        self._raw: BinaryIO | None = None
        try:
            if fmt == "parquet":
                self._parquet = ParquetWriter(self.partial)
            else:
                self._raw = open(self.partial, "wb")  # closed in commit/abort
                self._fh = self._wrap(self._raw)
        except OSError as exc:
            raise UsageError(f"cannot write {self.path}: {exc}") from exc

    def _wrap(self, raw: BinaryIO) -> BinaryIO:
        name = self.path.lower()
        if name.endswith(".gz"):
            return gzip.GzipFile(fileobj=raw, mode="wb")  # type: ignore[return-value]
        if name.endswith(".zst"):
            zstandard = require("zstandard")
            return zstandard.ZstdCompressor().stream_writer(raw, closefd=False)  # type: ignore[no-any-return]
        return raw

    def write(self, record: dict[str, Any] | str) -> None:
        """Add one record (a ChatML string becomes ``{"text": …}`` in JSONL and Parquet)."""
        if isinstance(record, str) and self.fmt != "text":
            record = {"text": record}
        if self._parquet is not None:
            assert isinstance(record, dict)
            self._parquet.write(record)
        else:
            assert self._fh is not None
            data = (record + "\n") if isinstance(record, str) else jsonio.dumps_fast(record) + "\n"
            self._fh.write(data.encode("utf-8", "surrogatepass"))
        self.count += 1

    def commit(self) -> None:
        """Finish the file and move it into place."""
        try:
            self._close()
            os.replace(self.partial, self.path)
        except OSError as exc:
            self.abort()
            raise UsageError(f"cannot write {self.path}: {exc}") from exc

    def abort(self) -> None:
        """Drop the partial file."""
        try:
            self._close()
        except Exception:  # already failing: the partial file goes anyway
            pass
        if os.path.exists(self.partial):
            os.unlink(self.partial)

    def _close(self) -> None:
        if self._parquet is not None:
            parquet, self._parquet = self._parquet, None
            parquet.close()
        if self._fh is not None:
            fh, self._fh = self._fh, None
            if fh is not self._raw:
                fh.close()
        if self._raw is not None:
            raw, self._raw = self._raw, None
            raw.close()
