"""The dataset options of ``hermes-toolcall validate`` (kept here: validate_cmd calls these three hooks)."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Iterator
from typing import Any

from .._sharegpt import parse_roles
from ..errors import UsageError
from ..validate import Options, RecordResult, run
from ._rows import Columns
from ._sources import input_size, iter_input, shards, sniff

__all__ = ["add_arguments", "add_sharegpt_roles", "columns_of", "engine", "expand_inputs", "input_size", "results"]


def add_arguments(p: Any) -> None:
    """Add ``--messages-column``, ``--tools-column``, ``--text-column``, ``--id-column``, ``--engine`` and
    ``--ray-address``."""
    p.add_argument("--messages-column", metavar="COL", help="the column holding the messages (Parquet, datasets)")
    p.add_argument("--tools-column", metavar="COL", help="the column holding the tools (Parquet, datasets)")
    p.add_argument(
        "--text-column",
        metavar="COL",
        help="records hold a whole ChatML transcript as text in COL (JSONL, Parquet, datasets): checked as one",
    )
    add_sharegpt_roles(p)
    p.add_argument(
        "--id-column",
        metavar="COL",
        default="id",
        help="the field holding each record's own id, carried by its findings in every output (default: id)",
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


def expand_inputs(paths: list[str]) -> list[str]:
    """The inputs with each folder of shards replaced by its data files (recursively, in path order), so
    that findings name the shard they come from; the files a folder holds that are not data (a README, an
    index) are named in one note on standard error.

    Raises:
        UsageError: a folder holds no data file, or is a ``DatasetDict`` folder.
    """
    out: list[str] = []
    for path in paths:
        if path == "-" or path.startswith("hf://") or not os.path.isdir(path) or sniff(path) != "folder":
            out.append(path)
            continue
        found, left = shards(path)
        out.extend(found)
        if left:
            names = ", ".join(os.path.relpath(p, path) for p in left[:5]) + (", …" if len(left) > 5 else "")
            print(f"hermes-toolcall: note: {path}: {len(left)} file(s) that are not data left out: {names}",
                  file=sys.stderr)
    return out


def add_sharegpt_roles(p: Any) -> None:
    """Add ``--sharegpt-roles FROM=ROLE,…`` (validate and convert-dataset)."""
    p.add_argument(
        "--sharegpt-roles",
        metavar="FROM=ROLE,…",
        type=_roles,
        default=(),
        help="ShareGPT senders beyond the built-in ones (system, human, gpt, tool, and LLaMA-Factory's "
        "function_call, observation), e.g. ipython=tool,bot=assistant; ROLE is system, user, assistant, tool or "
        "function_call (the turn holds the call as JSON)",
    )


def _roles(spec: str) -> tuple[tuple[str, str], ...]:
    try:
        return parse_roles(spec)
    except UsageError as exc:  # argparse says it as its own usage error (status 2)
        raise argparse.ArgumentTypeError(str(exc).removeprefix("--sharegpt-roles: ")) from exc


def columns_of(args: argparse.Namespace) -> Columns:
    """The column mapping the options give."""
    return Columns(
        messages=getattr(args, "messages_column", None),
        tools=getattr(args, "tools_column", None),
        text=getattr(args, "text_column", None),
        id=getattr(args, "id_column", None) or "id",
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
