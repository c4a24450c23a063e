"""``hermes-toolcall check-training IN``: train/serve skew in a dataset (``check_training_render`` per record).

For each record: the inference prompt of every assistant turn is a prefix of its training rendering
(HT700), no later turn rewrites an earlier one (HT701), and with ``--text-column`` the text stored in
the record (another renderer's) is the official bytes (HT702). One line per finding
(``IN:LINE: CODE error: record N: message N: …, offset K``, with both texts at that offset), then a
count. Exit status: 0 no finding, 1 findings (or records that cannot be rendered: HT704), 2 usage error.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from typing import Any

from ..errors import HermesError
from ..training import check_training_render
from ._training_records import add_record_arguments, template_kwargs, training_records

__all__ = ["register", "run"]


def register(subparsers: Any) -> None:
    """Add the ``check-training`` subcommand."""
    p = subparsers.add_parser(
        "check-training",
        help="find train/serve skew in a dataset: prompts that are not prefixes, rewritten history, texts that "
        "differ from the official template",
        description="Check every record of IN (as for validate) for train/serve skew in a dialect: HT700 the "
        "inference prompt of an assistant turn is not a prefix of its training rendering, HT701 a later turn "
        "rewrites an earlier one, HT702 the text in --text-column differs from the official bytes. Exit status: 0 "
        "none, 1 findings, 2 usage or input error.",
    )
    p.add_argument("input", metavar="IN", help="the dataset (as for validate; - for standard input)")
    add_record_arguments(p)
    p.add_argument("--text-column", metavar="COL",
                   help="the column (key) holding another rendering of the conversation, compared byte for byte")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print the findings and a count; 1 when any."""
    kwargs = template_kwargs(args)
    codes: Counter[str] = Counter()
    records = flagged = 0
    for item in training_records(args):
        records += 1
        if item.error is not None:
            codes["HT704"] += item.report(f"cannot read: {item.error}")
            flagged += 1
            continue
        text = None
        if args.text_column is not None:
            text = item.row.get(args.text_column) if isinstance(item.row, dict) else None
            if not isinstance(text, str):
                codes["HT704"] += item.report(f"no `{args.text_column}` string to compare")
                flagged += 1
                continue
        try:
            report = check_training_render(item.messages, item.tools, dialect=args.dialect, text=text, **kwargs)
        except HermesError as exc:
            codes["HT704"] += item.report(f"cannot render: {exc}")
            flagged += 1
            continue
        if report.ok:
            continue
        flagged += 1
        for f in report.findings:
            codes[f.code] += 1
            detail = f.message.removeprefix(f.code + " ")
            print(f"{item.path}:{item.line}: {f.code} error: record {item.number}: {detail} "
                  f"(training text {f.expected!r}, other {f.found!r})")
    summary = ", ".join(f"{code} ×{n}" for code, n in sorted(codes.items())) or "no findings"
    print(f"{records} record(s) checked ({args.dialect}), {flagged} with findings: {summary}", file=sys.stderr)
    return 1 if flagged else 0
