"""``hermes-toolcall validate``: check datasets (JSONL of OpenAI or ShareGPT records, ChatML text files).

Prints compiler-style findings (file:line:column, the record number, a caret under the source) and a
summary table by code; ``--format json`` and ``--format sarif`` (SARIF 2.1.0) print one document.
Exit status: 1 when an error was found, 0 otherwise, 2 on a usage error.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO

from .. import __version__, jsonio
from ..dataio import cli_hooks as dataset_hooks
from ..diagnostics import CATALOGUE
from ..errors import UsageError
from ..profiles import DIALECTS
from ..validate import codes as _codes  # noqa: F401  (registers the validation codes)
from ..validate.runner import Located, Options, RecordResult
from .common import read_input

__all__ = ["register", "run_validate"]

_SARIF_LEVEL = {"error": "error", "warning": "warning", "info": "note"}


def register(subparsers: Any) -> None:
    """Add the ``validate`` subcommand."""
    p = subparsers.add_parser(
        "validate",
        help="validate datasets and transcripts against the format and the tools' JSON Schemas",
        description="Validate JSONL datasets (OpenAI `messages` or ShareGPT `conversations` records) and "
        "ChatML text files. Exit status 1 when errors are found.",
    )
    p.add_argument(
        "paths",
        nargs="+",
        metavar="PATH",
        help="dataset files (JSONL or ChatML text, plain or gz/zst/bz2/xz; Parquet), save_to_disk folders, hf://NAME",
    )
    p.add_argument(
        "--tools",
        metavar="FILE",
        help="JSON file with the tools (a list, or {'tools': [...]}); default: each record's own tools",
    )
    p.add_argument("--dialect", default="hermes", choices=sorted(DIALECTS), help="dialect rules (default hermes)")
    p.add_argument("--select", action="append", metavar="CODES", help="only these codes or prefixes (HT3,HT401)")
    p.add_argument("--ignore", action="append", metavar="CODES", help="drop these codes or prefixes")
    p.add_argument("--format", default="text", choices=("text", "json", "sarif"), help="output format")
    p.add_argument("--jobs", type=int, default=1, metavar="N", help="worker processes (0 = all cores; default 1)")
    p.add_argument(
        "--input-format",
        default="auto",
        choices=("auto", "openai", "sharegpt", "chatml"),
        help="record shape (default: detected)",
    )
    p.add_argument("--check-formats", action="store_true", help="check JSON-Schema `format` keywords too")
    p.add_argument("--no-round-trip", action="store_true", help="skip the render → parse round trip (HT504)")
    dataset_hooks.add_arguments(p)  # issue 16: column mapping, --engine ray
    p.set_defaults(func=run_validate)


def _codes_arg(values: list[str] | None) -> tuple[str, ...] | None:
    if values is None:
        return None
    return tuple(c.strip() for v in values for c in v.split(",") if c.strip())


def _load_tools(path: str) -> tuple[Any, ...]:
    data = jsonio.loads(read_input(path))
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
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn, TransferSpeedColumn

    columns = (TextColumn("validating"), BarColumn(), TransferSpeedColumn(), TimeRemainingColumn())
    with Progress(*columns, transient=True, console=_console(sys.stderr)) as bar:
        yield (bar, bar.add_task("validate", total=total))


def _console(stream: TextIO) -> Any:
    from rich.console import Console

    return Console(file=stream, highlight=False, soft_wrap=True)


def format_located(path: str, f: Located) -> str:
    """``file:line:col: CODE severity: record N: message`` with the source line and a caret."""
    out = [
        f"{path}:{f.line}:{f.column}: {f.code} {f.severity}: record {f.record}: {f.message}",
        f"    {f.snippet}",
        "    " + " " * (f.caret - 1) + "^" + "~" * (min(f.width, 60) - 1),
    ]
    if f.hint:
        out.append(f"    hint: {f.hint}")
    return "\n".join(out)


def _summary(counts: Counter[str], severities: Counter[str], records: int, files: int, out: TextIO) -> None:
    from rich.table import Table

    console = _console(out)
    if counts:
        table = Table(title="findings by code", title_justify="left")
        for name, justify in (("code", "left"), ("name", "left"), ("kind", "left"), ("count", "right")):
            table.add_column(name, justify=justify)  # type: ignore[arg-type]
        for code in sorted(counts):
            e = CATALOGUE.get(code)
            table.add_row(code, e.name if e else "?", e.kind if e else "?", str(counts[code]))
        console.print(table)
    console.print(
        f"{records} record(s) in {files} file(s): {severities['error']} error(s), {severities['warning']} "
        f"warning(s), {severities['info']} info"
    )


def _sarif(items: list[tuple[str, Located]]) -> dict[str, Any]:
    used = sorted({f.code for _, f in items})
    index = {code: k for k, code in enumerate(used)}
    rules = []
    for code in used:
        e = CATALOGUE[code]
        level = _SARIF_LEVEL.get(e.kind, "warning")
        rules.append(
            {
                "id": code,
                "name": e.name,
                "shortDescription": {"text": e.summary},
                "help": {"text": e.fix},
                "defaultConfiguration": {"level": level},
            }
        )
    results = []
    for path, f in items:
        results.append(
            {
                "ruleId": f.code,
                "ruleIndex": index[f.code],
                "level": _SARIF_LEVEL.get(f.severity, "warning"),
                "message": {"text": f"record {f.record}: {f.message}"},
                "locations": [
                    {
                        "physicalLocation": {
                            "artifactLocation": {"uri": Path(path).as_posix()},
                            "region": {"startLine": f.line, "startColumn": f.column, "endColumn": f.column + f.width},
                        }
                    }
                ],
            }
        )
    driver = {"name": "hermes-toolcall", "version": __version__, "rules": rules}
    return {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{"tool": {"driver": driver}, "columnKind": "unicodeCodePoints", "results": results}],
    }


def run_validate(args: argparse.Namespace) -> int:
    """Validate every PATH; print the findings; 1 when an error was found."""
    if args.jobs < 0:
        raise UsageError("--jobs must be 0 (all cores) or a positive number")
    options = Options(
        tools=_load_tools(args.tools) if args.tools else None,
        dialect=args.dialect,
        select=_codes_arg(args.select),
        ignore=_codes_arg(args.ignore) or (),
        check_formats=args.check_formats,
        input_format=args.input_format,
        round_trip=not args.no_round_trip,
    )
    from ..validate.api import Selector

    Selector(options.select, options.ignore)  # reject bad codes before reading anything
    out = sys.stdout
    counts: Counter[str] = Counter()
    severities: Counter[str] = Counter()
    collected: list[tuple[str, Located]] = []
    records = 0
    total = sum(dataset_hooks.input_size(p) for p in args.paths)
    with dataset_hooks.engine(args), _progress(total, sys.stderr.isatty()) as bar:
        done = 0
        for path in args.paths:
            last = 0
            result: RecordResult
            for result in dataset_hooks.results(path, args, options):  # any input kind, any engine
                records += 1
                for f in result.findings:
                    counts[f.code] += 1
                    severities[f.severity] += 1
                    if args.format == "text":
                        print(format_located(path, f), file=out)
                    else:
                        collected.append((path, f))
                if bar is not None:
                    bar[0].update(bar[1], completed=done + result.end)
                last = result.end
            done += max(last, dataset_hooks.input_size(path))
    if args.format == "text":
        if counts:
            print(file=out)
        _summary(counts, severities, records, len(args.paths), out)
    elif args.format == "json":
        doc = {
            "records": records,
            "errors": severities["error"],
            "summary": dict(sorted(counts.items())),
            "diagnostics": [
                {
                    "file": path,
                    "record": f.record,
                    "line": f.line,
                    "column": f.column,
                    "code": f.code,
                    "name": CATALOGUE[f.code].name,
                    "severity": f.severity,
                    "message": f.message,
                    "hint": f.hint,
                }
                for path, f in collected
            ],
        }
        print(jsonio.dumps_spaced(doc), file=out)
    else:
        print(jsonio.dumps_spaced(_sarif(collected)), file=out)
    return 1 if severities["error"] else 0
