"""Open any dataset input as a stream of records: plain, gzip/zstd/bz2/xz JSONL or ChatML, Parquet, ``datasets``.

The kind is read from the first bytes (magic numbers), never only from the file name: ``PAR1`` is
Parquet, ``1f 8b`` gzip, ``28 b5 2f fd`` zstd, ``BZh1``-``BZh9`` and a block header bzip2,
``fd 37 7a 58 5a 00`` xz (``_compressed.kind_of``). Standard
input (``-``) is sniffed the same way on the bytes it starts with, without seeking (they are
replayed), so ``zstd -c data.jsonl | hermes-toolcall validate -`` works; a Parquet file cannot come
through a pipe (its index is at its end) and says so. A truncated or corrupt compressed input
raises ``CorruptInputError`` (HT611) after the records before the damage. A folder
written by ``datasets``' ``save_to_disk`` is a Hugging Face dataset, and ``hf://NAME[:SPLIT]`` is
loaded with ``datasets.load_dataset(NAME, split=SPLIT, streaming=True)`` (a Hub name, or a local
folder of data files). Plain files go to ``validate.iter_records``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any, BinaryIO, Literal, cast

from ..errors import UsageError
from ..validate import (
    MAX_RECORD_BYTES,
    InputFormat,
    RawRecord,
    display_name,
    iter_records,
    open_input,
    peek,
    records_from_handle,
)
from ._compressed import Compression, CorruptInputError, decompress, kind_of
from ._extras import require
from ._rows import NO_MAPPING, Columns, row_record

__all__ = ["Kind", "compressed_stream", "input_size", "iter_input", "iter_rows", "shards", "sniff"]

Kind = Literal["plain", "gzip", "zstd", "bz2", "xz", "parquet", "dataset", "hub", "folder"]

_HUB = "hf://"
_ROWS = 1024  # rows per Arrow batch read


def sniff(path: str | Path) -> Kind:
    """What ``path`` is, from its first bytes (or a ``datasets`` folder, or an ``hf://`` name).

    Raises:
        UsageError: the path is a ``DatasetDict`` folder (one split's folder is an input).

    >>> sniff("hf://owner/name")
    'hub'
    """
    text = str(path)
    if text.startswith(_HUB):
        return "hub"
    if text == "-":
        return "plain"  # standard input is sniffed when it is read (peeking here would consume it)
    if os.path.isdir(text):
        if os.path.isfile(os.path.join(text, "dataset_dict.json")):
            splits = sorted(p.name for p in Path(text).iterdir() if p.is_dir())
            raise UsageError(
                f"{text} holds a DatasetDict: pass one split's folder ({', '.join(splits) or 'none found'})"
            )
        if os.path.isfile(os.path.join(text, "state.json")):
            return "dataset"
        return "folder"  # a folder of shards (``shards``)
    if not os.path.isfile(text):
        return "plain"  # a pipe, /dev/stdin, a missing file: the plain reader opens it once (never peeked here)
    try:
        with open(text, "rb") as fh:
            head = fh.read(8)
    except OSError:
        return "plain"  # the plain reader reports it
    if head.startswith(b"PAR1"):
        return "parquet"
    return kind_of(head) or "plain"


def shards(folder: str | Path) -> tuple[list[str], list[str]]:
    """The data files of a folder of shards, recursively, in path order, and the files left out.

    A shard is what its first bytes say is data: Parquet, a compressed stream, JSONL (``{`` first) or ChatML
    (``<|im_start|>`` first, after blanks); the rest (a README, ``.gitattributes``, an index) is left out
    and listed, as are hidden files and folders. A ``save_to_disk`` folder inside is not descended into.

    Raises:
        UsageError: the folder holds no shard.

    >>> import tempfile, os
    >>> d = tempfile.mkdtemp(); os.makedirs(os.path.join(d, "b"))
    >>> for name, text in (("b/2.jsonl", "{}"), ("1.jsonl", "{}"), ("README.md", "# data")):
    ...     _ = open(os.path.join(d, name), "w").write(text)
    >>> [[os.path.relpath(p, d) for p in group] for group in shards(d)]
    [['1.jsonl', 'b/2.jsonl'], ['README.md']]
    """
    found: list[str] = []
    left: list[str] = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and not (Path(root) / d / "state.json").is_file())
        for name in sorted(files):
            path = os.path.join(root, name)
            if name.startswith("."):
                continue
            (found if _is_shard(path) else left).append(path)
    if not found:
        raise UsageError(f"{folder} is a folder without data files (JSONL, ChatML, Parquet, or compressed ones)")
    return found, left


def _is_shard(path: str) -> bool:
    try:
        with open(path, "rb") as fh:
            head = fh.read(64)
    except OSError:
        return False
    if head.startswith(b"PAR1") or kind_of(head) is not None:
        return True
    start = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    return start.startswith((b"{", b"<|im_start|>"))


def input_size(path: str | Path) -> int:
    """Bytes to read (progress total): the file size, a folder's Arrow files, 0 when unknown."""
    text = str(path)
    if os.path.isdir(text):
        if os.path.isfile(os.path.join(text, "state.json")):
            return sum(p.stat().st_size for p in Path(text).glob("*.arrow"))
        return sum(os.path.getsize(p) for p in shards(text)[0]) if sniff(text) == "folder" else 0
    return os.path.getsize(text) if os.path.isfile(text) else 0


def compressed_stream(path: str | Path, kind: Compression) -> tuple[BinaryIO, BinaryIO]:
    """(decompressed stream, raw file) for a compressed file; close the first, then the second.

    Raises:
        UsageError: the file cannot be opened, or zstd is needed and ``zstandard`` is not installed.
    """
    try:
        raw = open(path, "rb")  # closed by the caller
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc}") from exc
    try:
        return decompress(raw, kind), raw
    except UsageError:
        raw.close()
        raise


def _decompressed_records(
    stream: BinaryIO,
    raw: BinaryIO | None,
    name: str,
    kind: Compression,
    input_format: InputFormat,
    limit: int = MAX_RECORD_BYTES,
) -> Iterator[RawRecord]:
    """The records of a decompressed stream; progress in compressed bytes when ``raw`` can tell."""
    last = 0
    try:
        for record in records_from_handle(stream, name, input_format, limit):
            last = record.number
            yield record if raw is None else replace(record, end=raw.tell())
    except UsageError:
        raise
    except (OSError, EOFError, ValueError) as exc:  # a truncated or corrupt archive
        where = f"after record {last} (the records before it were read)" if last else "before the first record"
        raise CorruptInputError(f"{name}: {kind} stream is corrupt or truncated {where}: {exc}") from exc


def _compressed(path: str | Path, kind: Compression, input_format: InputFormat, limit: int) -> Iterator[RawRecord]:
    stream, raw = compressed_stream(path, kind)
    try:
        yield from _decompressed_records(stream, raw, display_name(path), kind, input_format, limit)
    finally:
        stream.close()
        raw.close()


def _stdin(input_format: InputFormat, limit: int) -> Iterator[RawRecord]:
    """Standard input, read once: its first bytes say whether it is compressed (replayed, not sought)."""
    name = display_name("-")
    with open_input("-") as fh:
        try:
            head, stream = peek(fh, until_content=False)
        except OSError as exc:
            raise UsageError(f"cannot read {name}: {exc.strerror or exc}") from exc
        if head.startswith(b"PAR1"):
            raise UsageError(
                f"{name} is a Parquet file: Parquet cannot be read from a pipe (its index is at its end); pass its path"
            )
        kind = kind_of(head)
        if kind is None:
            try:
                yield from records_from_handle(stream, name, input_format, limit)
            except OSError as exc:
                raise UsageError(f"cannot read {name}: {exc.strerror or exc}") from exc
            return
        yield from _decompressed_records(decompress(stream, kind), None, name, kind, input_format, limit)


def _hub_dataset(spec: str) -> Any:
    datasets = require("datasets")
    name, _, split = spec[len(_HUB) :].partition(":")
    try:
        return datasets.load_dataset(name, split=split or "train", streaming=True)
    except Exception as exc:  # the hub's and the loaders' many errors: a bad name, no network, no split
        raise UsageError(f"cannot load {spec}: {exc}") from exc


def iter_rows(path: str | Path, columns: Columns = NO_MAPPING) -> Iterator[tuple[int, dict[str, Any], int]]:
    """(1-based row number, row, byte offset after its batch) of a Parquet file or a ``datasets`` input."""
    kind = sniff(path)
    if kind == "parquet":
        from ._parquet import iter_parquet_rows

        yield from iter_parquet_rows(path, columns)
    elif kind == "dataset":
        datasets = require("datasets")
        ds = datasets.load_from_disk(str(path))
        columns.check(list(ds.column_names), str(path))
        needed = columns.needed(list(ds.column_names))
        if needed:
            ds = ds.select_columns(needed)
        total = input_size(path)
        n = 0
        for batch in ds.with_format(None).iter(batch_size=_ROWS):  # decoded by the features (Json, …)
            names = list(batch)
            for k in range(len(batch[names[0]]) if names else 0):
                n += 1
                yield n, {name: batch[name][k] for name in names}, total * n // max(1, len(ds))
    elif kind == "hub":
        for n, row in enumerate(_hub_dataset(str(path)), 1):
            yield n, row, 0
    else:
        raise UsageError(f"{path} is not a Parquet file or a dataset")


def iter_input(
    path: str | Path,
    input_format: InputFormat = "auto",
    columns: Columns = NO_MAPPING,
    max_record_bytes: int = MAX_RECORD_BYTES,
) -> Iterator[RawRecord]:
    """The records of any dataset input, in order (the readers ``validate`` and ``convert-dataset`` share).

    Args:
        path: a file (plain, gzip, zstd, bz2 or xz JSONL or ChatML; Parquet), a ``save_to_disk``
            folder, a folder of shards (``shards``: each read in path order, numbered from 1 again),
            ``hf://NAME[:SPLIT]``, or ``-`` for standard input (plain or compressed).
        input_format: ``auto``, ``openai``, ``sharegpt`` or ``chatml`` (ChatML only for text files).
        columns: the column mapping (for Parquet and datasets; for JSONL, each record is re-encoded).
        max_record_bytes: a longer JSONL line or ChatML record is not read (``RawRecord.oversize``, HT612).

    Raises:
        UsageError: the input cannot be read, needs an extra that is not installed, or does not fit
            the options.
        CorruptInputError: a compressed input is truncated or corrupt (HT611; raised after the
            records before the damage).

    >>> import gzip, tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "data.bin")
    >>> with gzip.open(path, "wt") as fh:
    ...     _ = fh.write('{"messages": []}\\n')
    >>> [(r.number, r.text) for r in iter_input(path)]
    [(1, '{"messages": []}')]
    """
    kind = sniff(path)
    if kind == "folder":  # its shards one after another (the command line names each shard in its findings)
        for shard in shards(path)[0]:
            yield from iter_input(shard, input_format, columns)
        return
    if kind in ("parquet", "dataset", "hub"):
        if input_format == "chatml":
            raise UsageError(f"{path}: --input-format chatml reads text files; Parquet and datasets hold records")
        for number, row, end in iter_rows(path, columns):
            yield row_record(number, row, columns, end)
        return
    records: Iterator[RawRecord]
    if str(path) == "-":
        records = _stdin(input_format, max_record_bytes)
    elif kind == "plain":
        records = iter_records(path, input_format, max_record_bytes)
    else:
        records = _compressed(path, cast(Compression, kind), input_format, max_record_bytes)
    if not columns.mapped or columns.text is not None:  # a text column is read from the line as written
        yield from records
        return
    yield from _remap(records, columns)


def _remap(records: Iterator[RawRecord], columns: Columns) -> Iterator[RawRecord]:
    """JSONL records under a column mapping (re-encoded; a line that is not JSON passes as it is)."""
    from .. import _jsonio as jsonio
    from ..errors import DecodeError

    for record in records:
        if record.kind != "jsonl" or record.error is not None:
            yield record
            continue
        try:
            data = jsonio.loads(record.text)
        except DecodeError:
            yield record
            continue
        if isinstance(data, dict):
            record = replace(record, text=jsonio.dumps_fast(columns.apply(data)))
        yield record
