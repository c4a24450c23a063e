"""``hermes-toolcall training-data IN OUT``: a dataset rendered for fine-tuning, with spans or token labels.

Reads what ``validate`` reads (JSONL plain or compressed, Parquet, ``save_to_disk`` folders, ``hf://``,
standard input), record by record, renders each conversation in the dialect with its spans
(``render(..., return_spans=True)``) and writes, streaming, one row per record:

- without ``--tokenizer``: ``text``, ``spans`` (``start``, ``end``, ``kind``, ``role``,
  ``message_index``) and ``trained`` (``train_mask``'s ``[start, end]`` intervals);
- with ``--tokenizer tokenizer.json``: ``input_ids``, ``labels`` (``-100`` where not trained) and
  ``attention_mask`` (``token_labels``; the ``training`` extra reads the file).

JSONL (``.gz``/``.zst`` too) or Parquet (by OUT's suffix or ``--output-format``), written whole or not at
all. A record that cannot be rendered is reported (``IN:LINE: HT704 … record N: why``) and skipped: exit
status 1. Tokens that straddle the trained text's boundary are counted (the ``--straddle`` policy labels
them) and the count is printed at the end.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from typing import Any

from ..dataio import RecordWriter, output_format
from ..errors import HermesError, UsageError
from ..render import render
from ..training import POLICIES, TokenBoundaryWarning, load_tokenizer, token_labels, train_mask
from ._training_records import add_record_arguments, template_kwargs, training_records

__all__ = ["register", "run"]


def register(subparsers: Any) -> None:
    """Add the ``training-data`` subcommand."""
    p = subparsers.add_parser(
        "training-data",
        help="render a dataset for fine-tuning: text with spans and trained intervals, or tokens with labels",
        description="Render every conversation of IN in a dialect and write OUT (JSONL or Parquet): the text with "
        "its spans and trained intervals, or with --tokenizer the input_ids and labels (-100 where not trained). "
        "Records that cannot be rendered are reported (HT704) and skipped (exit status 1).",
    )
    p.add_argument("input", metavar="IN", help="the dataset (as for validate; - for standard input)")
    p.add_argument("output", metavar="OUT", help="the file to write (.jsonl, .jsonl.gz/.zst, .parquet)")
    add_record_arguments(p)
    p.add_argument("--policy", default="all_assistant", choices=POLICIES,
                   help="what is trained (default all_assistant)")
    p.add_argument("--no-reasoning", action="store_true", help="do not train the reasoning blocks")
    p.add_argument("--no-end-of-turn", action="store_true", help="do not train <|im_end|>")
    p.add_argument("--tokenizer", metavar="FILE",
                   help="a tokenizer.json: write input_ids and labels (the training extra)")
    p.add_argument("--straddle", default="train", choices=("train", "ignore"),
                   help="a token partly trained: train it (as transformers does; default) or not")
    p.add_argument("--output-format", choices=("jsonl", "parquet"), help="default: by OUT's suffix")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Write OUT; report the records skipped."""
    fmt = output_format(args.output, args.output_format, text_records=False)
    if fmt == "text":
        raise UsageError(f"{args.output}: training-data writes JSONL or Parquet")
    tokenizer: Any = None
    if args.tokenizer is not None:
        tokenizer = load_tokenizer(args.tokenizer)
    kwargs = template_kwargs(args)
    options = {"include_reasoning": not args.no_reasoning, "include_end_of_turn": not args.no_end_of_turn}
    writer = RecordWriter(args.output, fmt)
    skipped = straddled = 0
    try:
        for item in training_records(args):
            if item.error is not None:
                skipped += item.report(f"cannot read: {item.error}")
                continue
            try:
                rendered = render(item.messages, tools=item.tools, dialect=args.dialect, return_spans=True, **kwargs)
                if tokenizer is None:
                    row: dict[str, Any] = {
                        "text": rendered.text,
                        "spans": [{"start": s.start, "end": s.end, "kind": s.kind, "role": s.role,
                                   "message_index": s.message_index} for s in rendered.spans],
                        "trained": [list(i) for i in train_mask(rendered, args.policy, **options)],
                    }
                else:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore", TokenBoundaryWarning)  # counted below
                        labels = token_labels(rendered, tokenizer, args.policy, straddle=args.straddle, **options)
                    straddled += len(labels.straddling)
                    row = labels.as_dict()
            except HermesError as exc:
                skipped += item.report(f"cannot render: {exc}")
                continue
            writer.write(row)
    except BaseException:
        writer.abort()
        raise
    writer.commit()
    note = f", {straddled} token(s) straddled a span boundary ({args.straddle})" if tokenizer is not None else ""
    print(f"{writer.count} record(s) written to {args.output}, {skipped} skipped{note}", file=sys.stderr)
    return 1 if skipped else 0

