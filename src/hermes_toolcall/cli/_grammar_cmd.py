"""``hermes-toolcall grammar``: a dialect's tool-call grammar for a constrained-decoding engine."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .._jsonio import dumps_compact
from .._profiles import DIALECTS
from ..errors import UsageError
from ..grammar_export import llguidance_grammar, outlines_regex, xgrammar_structural_tag
from ._common import load_json, read_input

__all__ = ["register", "run"]

_FORMATS = ("llguidance", "outlines", "xgrammar")


def register(subparsers: Any) -> None:
    """Add the ``grammar`` subcommand."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "grammar",
        help="print a dialect's tool-call grammar for xgrammar, llguidance or outlines",
        description="Print the grammar of the completions a dialect's model may write for a request: an xgrammar "
        "structural tag (JSON, for vLLM's structured_outputs.structural_tag or SGLang's response_format), an "
        "llguidance grammar (Lark) or an outlines-core regex (docs/constrained.md).",
    )
    parser.add_argument("--tools", required=True, metavar="FILE",
                        help="the request's tools: a JSON list of tool objects, or a request body with a 'tools' list "
                        "('-' for standard input)")
    parser.add_argument("--dialect", "-d", default="hermes", choices=sorted(DIALECTS), help="dialect (default hermes)")
    parser.add_argument("--tool-choice", default="auto", metavar="CHOICE",
                        help="auto (default), required, none, or a tool's name (that call, once)")
    parser.add_argument("--format", "-f", required=True, choices=_FORMATS, help="the engine")
    parser.add_argument("--no-parallel-tool-calls", dest="parallel", action="store_false",
                        help="at most one call (parallel_tool_calls=false)")
    parser.add_argument("--reasoning", choices=("on", "off"), default=None,
                        help="the completion carries a reasoning block (on) or none (off); default: as the dialect's "
                        "generation prompt leaves it")
    parser.add_argument("--tokenizer", default=None, metavar="FILE",
                        help="tokenizer.json: llguidance writes a tag as a token only where it is one (default: the "
                        "family's tags are tokens)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print the grammar (the structural tag as one line of JSON; a grammar or regex as is).

    Raises:
        UsageError: the tools file is not a tool list, or the export refuses the request.
    """
    data = load_json(read_input(args.tools), args.tools)
    tools = data.get("tools") if isinstance(data, dict) else data
    if not isinstance(tools, list):
        raise UsageError(f"{args.tools}: expected a JSON list of tools, or an object with a 'tools' list")
    choice: Any = args.tool_choice
    if choice not in ("auto", "required", "none"):
        choice = {"type": "function", "function": {"name": choice}}
    reasoning = None if args.reasoning is None else args.reasoning == "on"
    kwargs: dict[str, Any] = {"dialect": args.dialect, "tool_choice": choice, "parallel_tool_calls": args.parallel,
                              "reasoning": reasoning, "tokenizer": args.tokenizer}
    if args.format == "xgrammar":
        text = dumps_compact(xgrammar_structural_tag(tools, **kwargs))
    elif args.format == "llguidance":
        text = llguidance_grammar(tools, **kwargs)
    else:
        text = outlines_regex(tools, **kwargs)
    sys.stdout.write(text if text.endswith("\n") else text + "\n")
    sys.stdout.flush()
    return 0
