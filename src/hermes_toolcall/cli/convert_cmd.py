"""``hermes-toolcall convert``: parse a transcript in one dialect and render it in another."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..errors import ParseError
from ..model import ToolsBlock, Transcript
from ..profiles import DIALECTS
from .common import add_parse_options, print_diagnostics, read_input
from .parse_cmd import parse_text

__all__ = ["convert", "register"]


def convert(transcript: Transcript, *, to: str) -> str:
    """Render a parsed transcript in the dialect ``to``.

    The OpenAI view of the transcript is rendered with the tools read from its ``<tools>`` blocks.
    A system turn that carries the tool catalogue was written by the source template around the
    catalogue, so it is not copied: the target template writes its own. A final empty assistant
    turn (a generation prompt) is kept as the target's generation prompt. A null assistant content
    (beside calls) is rendered as an empty string.

    Raises:
        RenderError: the target template cannot render the conversation.

    >>> from hermes_toolcall import parse_transcript
    >>> convert(parse_transcript("<|im_start|>user\\nHi<|im_end|>\\n"), to="qwen3")
    '<|im_start|>user\\nHi<|im_end|>\\n'
    """
    from ..render import render

    # the OpenAI view writes content None beside calls; templates index it as a string
    messages = [{**m, "content": m.get("content") or ""} for m in transcript.to_openai_messages()]
    catalogue_turns = [t for t in transcript.turns if any(isinstance(p, ToolsBlock) for p in t.parts)]
    if catalogue_turns:
        drop = sum(1 for t in catalogue_turns if t.role in ("system", "developer"))
        kept = [m for m in messages if m["role"] not in ("system", "developer")]
        others = [m for m in messages if m["role"] in ("system", "developer")][drop:]
        messages = others + kept
    last = transcript.turns[-1] if transcript.turns else None
    prompt = last is not None and last.role == "assistant" and not last.closed and not last.parts
    tools = list(transcript.tools) or None
    text: str = render(messages, tools=tools, dialect=to, add_generation_prompt=prompt)
    return text


def register(subparsers: Any) -> None:
    """Add the ``convert`` subcommand."""
    p: argparse.ArgumentParser = subparsers.add_parser(
        "convert",
        help="convert a transcript from one dialect to another",
        description="Parse a transcript in the --from dialect, then render it in the --to dialect (stdout). "
        "Diagnostics of the parse go to stderr; exit status 1 when --strict found errors.",
    )
    p.add_argument("file", metavar="FILE", help="input file, or - for standard input")
    p.add_argument(
        "--from", dest="dialect", default="hermes", choices=(*sorted(DIALECTS), "auto"), help="source dialect"
    )
    p.add_argument("--to", dest="target", required=True, choices=sorted(DIALECTS), help="target dialect")
    add_parse_options(p, dialect_flag="")
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    text = read_input(args.file)
    filename = "<stdin>" if args.file == "-" else args.file
    try:
        result = parse_text(args, text, completion=False)
    except ParseError as exc:
        print_diagnostics(exc.diagnostics, filename=filename, text=text)
        return 1
    assert isinstance(result, Transcript)
    print_diagnostics(result.diagnostics, filename=filename, text=text)
    sys.stdout.write(convert(result, to=args.target))
    return 0
