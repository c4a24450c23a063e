"""``hermes-toolcall conformance``: run the conformance corpus against parser adapters."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from .. import _jsonio as jsonio
from ..conformance import default_cases_dir, load_adapter, load_cases, print_tables, reports_json, run, summary_markdown
from ..errors import UsageError

__all__ = ["register"]

DEFAULT_ADAPTERS = ("hermes_toolcall.conformance._engines:grammar", "hermes_toolcall.conformance._engines:machine")


def register(subparsers: Any) -> None:
    """Add the ``conformance`` subcommand."""
    p: argparse.ArgumentParser = subparsers.add_parser(
        "conformance",
        help="run the conformance corpus against a parser",
        description="Run the conformance corpus (and generated fuzz inputs) against parser adapters. "
        "Exit status 0 when every case passes, 1 otherwise, 2 on a usage error (an unknown --group too).",
    )
    p.add_argument(
        "--adapter",
        action="append",
        metavar="MODULE:CALLABLE",
        help="adapter to test (repeatable; default: our grammar and streaming engines)",
    )
    p.add_argument("--cases", metavar="DIR", help="corpus directory (default: conformance/cases)")
    p.add_argument(
        "--fuzz", type=int, default=0, metavar="N", help="also check N generated inputs for chunking invariance"
    )
    p.add_argument("--seed", type=int, default=0, help="fuzz seed (default 0)")
    p.add_argument(
        "--format",
        choices=("table", "json", "markdown"),
        default="table",
        help="output: rich tables (default), JSON, or a Markdown score table per group",
    )
    p.add_argument("--failures-only", action="store_true", help="table: list only failing and skipped cases")
    p.add_argument("--group", action="append", metavar="NAME", help="run only these groups (repeatable)")
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    cases = load_cases(args.cases or default_cases_dir())
    if args.group:
        known = sorted({c.group for c in cases})
        unknown = [g for g in args.group if g not in known]
        if unknown:
            raise UsageError(f"no group {unknown[0]!r} in the corpus (groups: {', '.join(known)})")
        cases = tuple(c for c in cases if c.group in args.group)
    if os.getcwd() not in sys.path:  # adapters are usually modules of the project being tested
        sys.path.insert(0, os.getcwd())
    adapters = [load_adapter(spec) for spec in (args.adapter or DEFAULT_ADAPTERS)]
    reports = run(adapters, cases, fuzz=max(args.fuzz, 0), seed=args.seed)
    if args.format == "json":
        sys.stdout.write(jsonio.dumps_spaced(reports_json(reports)) + "\n")
    elif args.format == "markdown":
        sys.stdout.write(summary_markdown(reports) + "\n")
    else:
        print_tables(reports, show_passing=not args.failures_only)
    return 0 if all(r.ok for r in reports) else 1
