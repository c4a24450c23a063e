"""``hermes-toolcall view``: one transcript or completion as a self-contained HTML page.

The page shows the turns by role (reasoning folded, calls with their name and pretty-printed arguments,
results bound to their calls, invalid calls with their code), every finding under the part it points
into, and the raw text with each part's span on hover. Findings are the parse's diagnostics and the
validator's (``validate``; ``--no-validate`` for the parse's only). Exit status 0 when the page was
written, whatever it shows; 2 on a usage or input error.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .. import __version__
from .._detect import detect_dialect
from .._diagnostics import CATALOGUE
from ..errors import ParseError, UsageError
from ..html import findings_of, view_page
from ..tags import IM_START
from ..validate import validate
from . import EXIT_FINDINGS, EXIT_OK
from ._common import add_parse_options, display_name, print_diagnostics, read_input
from ._parse_cmd import parse_text
from ._parse_flags import add_start_flags, add_tools_flags, tools_kwargs

__all__ = ["register"]


def register(subparsers: Any) -> None:
    """Add the ``view`` subcommand."""
    p: argparse.ArgumentParser = subparsers.add_parser(
        "view",
        help="show a transcript or a completion as an HTML page",
        description="Write one self-contained HTML page (no URL, works offline) showing a ChatML transcript or a "
        "completion: turns by role, reasoning folded, calls with pretty arguments, results bound to their calls, "
        "findings inline, and the raw text with every part's span on hover. The input is a transcript when it "
        "holds <|im_start|>, else a completion (--completion / --transcript decide). Exit status 0 when the "
        "page was written, 2 on a usage or input error.",
    )
    p.add_argument("file", metavar="FILE", help="input file, or - for standard input")
    kind = p.add_mutually_exclusive_group()
    kind.add_argument("--completion", action="store_true", help="the input is a completion (default: detected)")
    kind.add_argument("--transcript", action="store_true", help="the input is a transcript (default: detected)")
    p.add_argument("--output", "-o", metavar="FILE", help="write the page to FILE instead of standard output")
    p.add_argument(
        "--no-validate", action="store_true", help="show the parse's diagnostics only (default: the validator's too)"
    )
    add_parse_options(p)
    p.set_defaults(dialect="auto")
    add_start_flags(p)
    add_tools_flags(p)
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    text = read_input(args.file)
    name = display_name(args.file)
    completion = args.completion or (not args.transcript and IM_START not in text)
    if args.dialect == "auto":
        args.dialect = detect_dialect(text).dialect
    try:
        result = parse_text(args, text, completion=completion)
    except ParseError as exc:  # --strict: nothing to show but the errors
        print_diagnostics(exc.diagnostics, filename=name, text=text)
        return EXIT_FINDINGS
    names = {code: entry.name for code, entry in CATALOGUE.items()}
    if args.no_validate:
        findings = findings_of(result.diagnostics, names)
    else:
        tools = tools_kwargs(args)["tools"]
        report = validate(result, tools=tools, dialect=args.dialect)
        findings = findings_of(report.diagnostics, names)
    kind = "completion" if completion else "transcript"
    page = view_page(
        result,
        findings=findings,
        title=f"{name} ({kind}, {args.dialect})",
        generator=f"hermes-toolcall {__version__}",
    )
    if args.output is None:
        sys.stdout.write(page)
        return EXIT_OK
    try:
        fh = open(args.output, "w", encoding="utf-8")  # closed below
    except OSError as exc:
        raise UsageError(f"cannot write {args.output}: {exc.strerror or exc}") from exc
    with fh:  # a failed write (a full disk) is status 3, as for every command
        fh.write(page)
    return EXIT_OK
