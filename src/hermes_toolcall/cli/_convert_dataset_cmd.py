"""``hermes-toolcall convert-dataset IN OUT``: convert a dataset between OpenAI, ShareGPT and ChatML records.

Reads any input ``validate`` reads (JSONL plain or compressed, Parquet, ``datasets`` folders, ChatML
text), streams it record by record through ``dataio._convert``, writes JSONL, Parquet or ChatML text.
A record that cannot be converted is reported (``IN:LINE: HT610 … record N: why``) and skipped.
Exit status: 0 when every record was converted, 1 when some were skipped, 2 on a usage error.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from .. import _jsonio as jsonio
from ..dataio import Columns, RecordWriter, convert_record, input_size, iter_input, output_format, parse_shape
from ..errors import DecodeError

__all__ = ["register"]


def register(subparsers: Any) -> None:
    """Add the ``convert-dataset`` subcommand."""
    p = subparsers.add_parser(
        "convert-dataset",
        help="convert a dataset between OpenAI, ShareGPT and ChatML records",
        description="Convert every record of IN (JSONL plain/gz/zst, Parquet, a save_to_disk folder, ChatML "
        "text) and write OUT (JSONL, .gz/.zst JSONL, Parquet, or ChatML text). Records that cannot be converted "
        "are reported and skipped (exit status 1).",
    )
    p.add_argument("input", metavar="IN", help="the dataset to read")
    p.add_argument("output", metavar="OUT", help="the file to write (written whole or not at all)")
    p.add_argument("--from", dest="source", required=True, metavar="SHAPE", help="openai, sharegpt or chatml[:D]")
    p.add_argument("--to", dest="target", required=True, metavar="SHAPE", help="openai, sharegpt or chatml[:D]")
    p.add_argument("--output-format", choices=("jsonl", "parquet", "text"), help="default: by OUT's suffix")
    p.add_argument("--messages-column", metavar="COL", help="the column holding the messages")
    p.add_argument("--tools-column", metavar="COL", help="the column holding the tools")
    p.add_argument("--text-column", metavar="COL", default="text", help="the column of ChatML texts (default text)")
    p.set_defaults(func=run_convert_dataset)


@contextmanager
def _progress(total: int) -> Iterator[Any]:
    if not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn, TransferSpeedColumn

    columns = (TextColumn("converting"), BarColumn(), TransferSpeedColumn(), TimeRemainingColumn())
    with Progress(*columns, transient=True, console=Console(file=sys.stderr)) as bar:
        yield bar, bar.add_task("convert", total=total)


def run_convert_dataset(args: argparse.Namespace) -> int:
    """Convert IN into OUT; report the records skipped."""
    source, _ = parse_shape(args.source)
    target, _ = parse_shape(args.target)
    fmt = output_format(args.output, args.output_format, text_records=target == "chatml")
    columns = Columns(messages=args.messages_column, tools=args.tools_column)
    records = iter_input(args.input, "chatml" if source == "chatml" and _texty(args.input) else "auto", columns)
    writer = RecordWriter(args.output, fmt)
    skipped = 0
    try:
        with _progress(input_size(args.input)) as bar:
            for raw in records:
                record: Any
                raw_error: str | None
                if raw.kind == "chatml":
                    record = raw.text
                else:
                    try:
                        record = jsonio.loads(raw.text) if raw.error is None else None
                    except DecodeError as exc:
                        record, raw_error = None, f"invalid JSON: {exc.message}"
                    else:
                        raw_error = raw.error
                    if record is None:
                        skipped += _report(args.input, raw.line, raw.number, raw_error or "not a record")
                        continue
                    if source == "chatml" and isinstance(record, dict):
                        record = record.get(args.text_column, record)
                result = convert_record(record, source=args.source, target=args.target, number=raw.number)
                if result.ok:
                    assert result.record is not None
                    writer.write(result.record)
                else:
                    skipped += _report(args.input, raw.line, raw.number, result.error or "")
                if bar is not None:
                    bar[0].update(bar[1], completed=raw.end)
    except BaseException:
        writer.abort()
        raise
    writer.commit()
    print(f"{writer.count} record(s) written to {args.output}, {skipped} skipped", file=sys.stderr)
    return 1 if skipped else 0


def _texty(path: str) -> bool:
    from ..dataio import sniff

    return sniff(path) not in ("parquet", "dataset", "hub")


def _report(path: str, line: int, number: int, why: str) -> int:
    print(f"{path}:{line}: HT610 error: record {number}: cannot convert: {why}", file=sys.stderr)
    return 1
