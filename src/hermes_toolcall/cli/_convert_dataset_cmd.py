"""``hermes-toolcall convert-dataset IN OUT``: convert a dataset between OpenAI, ShareGPT and ChatML records.

Reads any input ``validate`` reads (JSONL plain or compressed, Parquet, ``datasets`` folders, a folder of
shards, ChatML text), streams it record by record through ``dataio.convert_record``, writes JSONL, Parquet or
ChatML text. A record's other columns are kept wherever the output can hold them (``--drop-columns``).
A record that cannot be converted faithfully is reported (``IN:LINE: HT610 … record N (id X): why``) and
skipped. Exit status: 0 when every record was converted, 1 when some were skipped, 2 on a usage error.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from .. import _jsonio as jsonio
from .._excerpt import sanitize
from ..dataio import (
    Converted,
    RecordWriter,
    add_sharegpt_roles,
    convert_record,
    expand_inputs,
    input_size,
    iter_input,
    output_format,
    parse_shape,
)
from ..errors import DecodeError
from ._common import record_label

__all__ = ["register"]


def register(subparsers: Any) -> None:
    """Add the ``convert-dataset`` subcommand."""
    p = subparsers.add_parser(
        "convert-dataset",
        help="convert a dataset between OpenAI, ShareGPT and ChatML records",
        description="Convert every record of IN (JSONL plain/gz/zst/bz2/xz, Parquet, a save_to_disk folder, a "
        "folder of shards, ChatML text) and write OUT (JSONL, .gz/.zst JSONL, Parquet, or ChatML text). Results "
        "are bound to their calls by tool_call_id and written in the calls' order; other columns are kept. "
        "Records that cannot be converted faithfully are reported and skipped (exit status 1).",
    )
    p.add_argument("input", metavar="IN", help="the dataset to read")
    p.add_argument("output", metavar="OUT", help="the file to write (written whole or not at all)")
    p.add_argument("--from", dest="source", required=True, metavar="SHAPE", help="openai, sharegpt or chatml[:D]")
    p.add_argument("--to", dest="target", required=True, metavar="SHAPE", help="openai, sharegpt or chatml[:D]")
    p.add_argument("--output-format", choices=("jsonl", "parquet", "text"), help="default: by OUT's suffix")
    p.add_argument("--messages-column", metavar="COL", help="the column holding the messages")
    p.add_argument("--tools-column", metavar="COL", help="the column holding the tools")
    p.add_argument(
        "--text-column", metavar="COL", default="text", help="the ChatML texts column, read and written (default: text)"
    )
    p.add_argument(
        "--drop-columns",
        action="store_true",
        help="write only the converted conversation (default: a record's other columns, id, category, …, are kept)",
    )
    add_sharegpt_roles(p)
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
    parse_shape(args.source)
    target, _ = parse_shape(args.target)
    fmt = output_format(args.output, args.output_format, text_records=target == "chatml")
    inputs = expand_inputs([args.input])
    writer = RecordWriter(args.output, fmt)
    skipped = 0
    unwritten: dict[str, None] = {}  # columns a text output cannot hold, in the order met
    options = {
        "source": args.source,
        "target": args.target,
        "drop_columns": args.drop_columns,
        "messages_column": args.messages_column,
        "tools_column": args.tools_column,
        "text_column": args.text_column,
        "sharegpt_roles": args.sharegpt_roles,
    }
    try:
        with _progress(sum(input_size(p) for p in inputs)) as bar:
            done = 0
            for path in inputs:
                for raw in iter_input(path, "auto"):
                    if raw.kind == "chatml":
                        record: Any = raw.text
                    else:
                        try:
                            record = jsonio.loads(raw.text) if raw.error is None else None
                            raw_error = raw.error
                        except DecodeError as exc:
                            record, raw_error = None, f"invalid JSON: {exc.message}"
                        if record is None:
                            skipped += _report(path, raw.line, Converted(number=raw.number, error=raw_error))
                            continue
                    result = convert_record(record, number=raw.number, **options)
                    if not result.ok:
                        skipped += _report(path, raw.line, result)
                    elif fmt == "text":
                        assert isinstance(result.record, str)
                        writer.write(result.record)
                        unwritten.update((k, None) for k, _ in result.columns)
                    else:
                        writer.write(result.row(args.text_column))
                    if bar is not None:
                        bar[0].update(bar[1], completed=done + raw.end)
                done += input_size(path)
    except BaseException:
        writer.abort()
        raise
    writer.commit()
    if unwritten:
        names = ", ".join(list(unwritten)[:8]) + (", …" if len(unwritten) > 8 else "")
        print(f"hermes-toolcall: note: text output holds transcripts only: the column(s) {names} were not written "
              "(write JSONL or Parquet to keep them, or pass --drop-columns)", file=sys.stderr)
    print(f"{writer.count} record(s) written to {args.output}, {skipped} skipped", file=sys.stderr)
    return 1 if skipped else 0


def _report(path: str, line: int, result: Converted) -> int:
    label = record_label(result.number, result.record_id)
    why = sanitize(f"{label}: cannot convert: {result.error or 'not a record'}")
    print(f"{sanitize(path)}:{line}: HT610 error: {why}", file=sys.stderr)
    return 1
