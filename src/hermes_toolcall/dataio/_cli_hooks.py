"""The dataset options of ``hermes-toolcall validate`` (kept here: validate_cmd calls these three hooks)."""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Iterator
from typing import Any

from ..errors import UsageError
from ..validate import Options, RecordResult, run
from ._rows import Columns
from ._sources import input_size, iter_input

__all__ = ["add_arguments", "columns_of", "engine", "input_size", "results"]


def add_arguments(p: Any) -> None:
    """Add ``--messages-column``, ``--tools-column``, ``--text-column``, ``--engine`` and ``--ray-address``."""
    p.add_argument("--messages-column", metavar="COL", help="the column holding the messages (Parquet, datasets)")
    p.add_argument("--tools-column", metavar="COL", help="the column holding the tools (Parquet, datasets)")
    p.add_argument(
        "--text-column",
        metavar="COL",
        help="records hold a whole ChatML transcript as text in COL (JSONL, Parquet, datasets): checked as one",
    )
    p.add_argument(
        "--engine",
        default="process",
        choices=("process", "ray"),
        help="process: this machine (--jobs); ray: Ray Data map_batches on a cluster (the [ray] extra)",
    )
    p.add_argument(
        "--ray-address",
        metavar="ADDR",
        help="connect to this Ray cluster (e.g. ray://head:10001 or auto); default: start a local one",
    )


def columns_of(args: argparse.Namespace) -> Columns:
    """The column mapping the options give."""
    return Columns(
        messages=getattr(args, "messages_column", None),
        tools=getattr(args, "tools_column", None),
        text=getattr(args, "text_column", None),
    )


@contextlib.contextmanager
def engine(args: argparse.Namespace) -> Iterator[None]:
    """Start (or connect to) Ray for ``--engine ray`` for the whole run; nothing for ``process``."""
    if getattr(args, "engine", "process") != "ray":
        if getattr(args, "ray_address", None):
            raise UsageError("--ray-address needs --engine ray")
        yield
        return
    if "-" in getattr(args, "paths", ()):  # the read tasks run in Ray's worker processes, not on this stdin
        raise UsageError("--engine ray reads files, not standard input (-): write the stream to a file first")
    from ._ray_engine import ray_cluster

    with ray_cluster(args.ray_address, num_cpus=args.jobs if args.jobs > 1 else None):
        yield


def results(path: str, args: argparse.Namespace, options: Options) -> Iterator[RecordResult]:
    """The results of one input under the chosen engine, in input order."""
    columns = columns_of(args)
    if getattr(args, "engine", "process") == "ray":
        from ._ray_engine import run_ray

        yield from run_ray(path, options, columns=columns)
        return
    yield from run(iter_input(path, args.input_format, columns, options.max_record_bytes), options, jobs=args.jobs)
