"""``hermes-toolcall validate``: check datasets (JSONL of OpenAI or ShareGPT records, ChatML text files).

Prints compiler-style findings (file:line:column, the record number, a caret under the source) and a
summary table by code; ``--format json|jsonl|github|sarif`` for machines (see ``validate_report``), ``--format
html`` for people (one page, see ``_validate_html``).

Exit status: 0 passed; 1 findings at or above ``--fail-on``; 2 usage or input error; 3 the validator
itself failed (an HT604 finding) or its output could not be written; 130 interrupted (Ctrl-C; the
summary so far is printed).
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TextIO

from .. import dataio as dataset_hooks
from .._profiles import DIALECTS
from ..dataio import sniff
from ..errors import UsageError
from ..validate import INTERNAL_ERROR, MAX_RECORD_BYTES, Options, RecordResult
from . import EXIT_FAILED, EXIT_FINDINGS, EXIT_INTERRUPTED, EXIT_OK, _validate_html
from ._common import display_name, load_json, read_input
from ._validate_report import FORMATS, Sink, Summary, make_sink

__all__ = ["register", "run_validate"]


def register(subparsers: Any) -> None:
    """Add the ``validate`` subcommand."""
    p = subparsers.add_parser(
        "validate",
        help="validate datasets and transcripts against the format and the tools' JSON Schemas",
        description="Validate JSONL datasets (OpenAI `messages` or ShareGPT `conversations` records) and "
        "ChatML text files (a path, or - for standard input). Exit status: 0 passed, 1 findings at or above "
        "--fail-on, 2 usage or input error, 3 the validator itself failed (HT604) or could not write its "
        "output, 130 interrupted.",
    )
    p.add_argument(
        "paths",
        nargs="+",
        metavar="PATH",
        help="JSONL or ChatML files (plain, gz/zst/bz2/xz), Parquet, save_to_disk folders, hf://NAME; - for stdin",
    )
    p.add_argument(
        "--tools",
        metavar="FILE",
        help="JSON file with the tools (a list, or {'tools': [...]}); default: each record's own tools",
    )
    p.add_argument(
        "--dialect",
        default="hermes",
        choices=(*sorted(DIALECTS), "auto"),
        help="dialect rules (default hermes); auto: each record's own, detected from its text",
    )
    p.add_argument("--select", action="append", metavar="CODES", help="only these codes or prefixes (HT3,HT401)")
    p.add_argument("--ignore", action="append", metavar="CODES", help="drop these codes or prefixes")
    p.add_argument(
        "--format",
        default="text",
        choices=FORMATS,
        help="output: text (default), json (one document), jsonl (one line per finding, streamed), github "
        "(workflow commands), sarif (SARIF 2.1.0 for code scanning), html (one self-contained page, streamed)",
    )
    _validate_html.add_arguments(p)
    p.add_argument("--output", "-o", metavar="FILE", help="write the report to FILE instead of standard output")
    detail = p.add_mutually_exclusive_group()
    detail.add_argument(
        "--statistics", action="store_true", help="text: only the table of findings by code and the summary line"
    )
    detail.add_argument("--quiet", "-q", action="store_true", help="text: only the summary line")
    p.add_argument(
        "--exit-zero",
        action="store_true",
        help="exit 0 even when findings fail the run (they are still printed); 3 and 130 are kept",
    )
    p.add_argument(
        "--fail-on",
        default="error",
        choices=("error", "warning"),
        help="the least severe finding that fails the run (exit 1; default error)",
    )
    p.add_argument("--jobs", type=int, default=1, metavar="N", help="worker processes (0 = all cores; default 1)")
    p.add_argument(
        "--input-format",
        default="auto",
        choices=("auto", "openai", "sharegpt", "chatml"),
        help="record shape (default: detected)",
    )
    p.add_argument("--check-formats", action="store_true", help="check JSON-Schema `format` keywords too")
    p.add_argument("--no-round-trip", action="store_true", help="skip the render → parse round trip (HT504)")
    p.add_argument(
        "--max-record-bytes",
        type=_positive,
        default=MAX_RECORD_BYTES,
        metavar="N",
        help=f"a longer record (JSONL line, ChatML record) is not read: HT612 (default {MAX_RECORD_BYTES})",
    )
    dataset_hooks.add_arguments(p)  # issue 16: column mapping, --engine ray
    p.set_defaults(func=run_validate)


def _codes_arg(values: list[str] | None) -> tuple[str, ...] | None:
    if values is None:
        return None
    return tuple(c.strip() for v in values for c in v.split(",") if c.strip())


def _load_tools(path: str) -> tuple[Any, ...]:
    data = load_json(read_input(path), path)
    if isinstance(data, dict) and isinstance(data.get("tools"), list):
        data = data["tools"]
    if not isinstance(data, list):
        raise UsageError(f"{path}: expected a JSON list of tools, or an object with a `tools` list")
    return tuple(data)


@contextmanager
def _progress(total: int, enabled: bool) -> Iterator[Any]:
    if not enabled:
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn, TransferSpeedColumn

    columns = (TextColumn("validating"), BarColumn(), TransferSpeedColumn(), TimeRemainingColumn())
    console = Console(file=sys.stderr, highlight=False, soft_wrap=True)
    with Progress(*columns, transient=True, console=console) as bar:
        yield (bar, bar.add_task("validate", total=total))


def _check_paths(paths: list[str]) -> None:
    """Refuse unreadable inputs before anything is printed (``-`` may appear once)."""
    if paths.count("-") > 1:
        raise UsageError("standard input (-) can be read only once")
    for p in paths:
        if p == "-" or p.startswith("hf://"):
            continue
        if os.path.isdir(p):
            sniff(p)  # a save_to_disk folder is an input; any other folder is a UsageError saying why
            continue
        if not os.path.exists(p):
            raise UsageError(f"cannot read {p}: No such file or directory")
        if not os.access(p, os.R_OK):
            raise UsageError(f"cannot read {p}: Permission denied")


@contextmanager
def _output(path: str | None) -> Iterator[TextIO]:
    if path is None:
        yield sys.stdout
        return
    try:
        fh = open(path, "w", encoding="utf-8")  # closed below
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from exc
    with fh:
        yield fh


def _status(summary: Summary, fail_on: str) -> int:
    if summary.counts[INTERNAL_ERROR]:
        return EXIT_FAILED
    failing = summary.severities["error"] + (summary.severities["warning"] if fail_on == "warning" else 0)
    return EXIT_FINDINGS if failing else EXIT_OK


def _positive(text: str) -> int:
    """An ``argparse`` type: a positive integer."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def run_validate(args: argparse.Namespace) -> int:
    """Validate every PATH; print the findings; the exit status says what was found (see the module)."""
    if args.tools == "-" and "-" in args.paths:
        raise UsageError("--tools - and a dataset on standard input (-) cannot both read it")
    if args.jobs < 0:
        raise UsageError("--jobs must be 0 (all cores) or a positive number")
    detail = "statistics" if args.statistics else "quiet" if args.quiet else "full"
    if detail != "full" and args.format != "text":
        flag = "--statistics" if args.statistics else "--quiet"
        raise UsageError(f"{flag} shapes the text report; --format {args.format} has its own summary")
    options = Options(
        tools=_load_tools(args.tools) if args.tools else None,
        dialect=args.dialect,
        select=_codes_arg(args.select),
        ignore=_codes_arg(args.ignore) or (),
        check_formats=args.check_formats,
        input_format=args.input_format,
        round_trip=not args.no_round_trip,
        text_column=args.text_column,
        keep_records=args.format == "html",  # the HTML report shows each record with findings
        max_record_bytes=args.max_record_bytes,
        id_field=args.id_column,
        sharegpt_roles=args.sharegpt_roles,
    )
    html = _validate_html.settings(args)
    dataset_hooks.columns_of(args)  # a bad combination of column options fails before reading
    from ..validate import Selector

    Selector(options.select, options.ignore)  # reject bad or unknown codes before reading anything
    _check_paths(args.paths)
    args.paths = dataset_hooks.expand_inputs(args.paths)  # a folder of shards: each shard is an input
    if args.output is not None and os.path.exists(args.output):
        for p in args.paths:
            if p != "-" and os.path.exists(p) and os.path.samefile(p, args.output):
                raise UsageError(f"--output {args.output} is also an input: it would be overwritten before it is read")
    summary = Summary(files=len(args.paths))
    total = sum(dataset_hooks.input_size(p) for p in args.paths)
    with _output(args.output) as out:
        command = ["hermes-toolcall", "validate", *sys.argv[2:]]
        if args.format == "html":
            from ._validate_html import HtmlSink

            settings = html or {"dialect": "hermes", "limit": 2_000, "text_column": None}
            sink: Sink = HtmlSink(out, command=command, **settings)
        else:
            sink = make_sink(args.format, out, command=command, detail=detail)
        try:
            with dataset_hooks.engine(args), _progress(total, sys.stderr.isatty()) as bar:
                done = 0
                for path in args.paths:
                    name = display_name(path)
                    last = 0
                    result: RecordResult
                    for result in dataset_hooks.results(path, args, options):  # any input kind, any engine
                        summary.records += 1
                        for f in result.findings:
                            summary.add(f)
                            sink.finding(name, result, f)
                        if result.findings:
                            sink.record_done()
                        if bar is not None:
                            bar[0].update(bar[1], completed=done + result.end)
                        last = result.end
                    done += max(last, dataset_hooks.input_size(path))
        except KeyboardInterrupt:
            signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C must not cut the summary
            summary.complete, summary.note = False, f"interrupted after {summary.records} record(s)"
            summary.status = EXIT_INTERRUPTED
            sink.finish(summary)
            out.flush()
            print(f"hermes-toolcall: interrupted after {summary.records} record(s)", file=sys.stderr)
            return EXIT_INTERRUPTED
        summary.status = _status(summary, args.fail_on)
        if args.exit_zero and summary.status == EXIT_FINDINGS:
            summary.status = EXIT_OK
        sink.finish(summary)
        out.flush()
    if summary.status == EXIT_FAILED:
        n = summary.counts[INTERNAL_ERROR]
        print(f"hermes-toolcall: error: the validator failed on {n} record(s) (HT604); please report", file=sys.stderr)
    return summary.status
