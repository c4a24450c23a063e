"""``hermes-toolcall convert``: parse a transcript in one dialect and render it in another."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

from .._model import ToolsBlock, Transcript
from .._profiles import DIALECTS
from ..errors import ParseError
from ..tags import ASSISTANT
from ._common import add_parse_options, print_diagnostics, read_input
from ._parse_cmd import parse_text
from ._parse_flags import add_tools_flags, tools_kwargs

__all__ = ["convert", "register"]


def convert(transcript: Transcript, *, to: str, source: str | None = None, allow_injection: bool = False,
            tools: Sequence[Any] | None = None) -> str:
    """Render a parsed transcript in the dialect ``to``: ``render(**transcript.to_request())``.

    The request is the inverse of the source rendering (``Transcript.to_request``): the catalogue
    turn the source template wrote is taken out (the target writes its own), the Hermes description
    rewrite is undone, a final empty assistant turn (a generation prompt) stays a generation prompt.
    So converting a rendering to its own dialect gives it back unchanged.

    ``tools`` are the tools the conversation was written with, when known (CLI ``--tools``; parse with the
    same ``tools=`` so that XML-body values are typed): they replace the catalogue read back from the text
    (exact for JSON catalogues, not for the XML-like lists of Qwen3-Coder and Nemotron) and type the target's
    XML-body values. A call, argument or result the target cannot hold exactly is refused (``RenderError``),
    never changed.

    Raises:
        RenderError: the target template cannot render the conversation.

    >>> from hermes_toolcall import parse_transcript
    >>> convert(parse_transcript("<|im_start|>user\\nHi<|im_end|>\\n"), to="qwen3")
    '<|im_start|>user\\nHi<|im_end|>\\n'
    """
    from .._request import ends_with_generation_prompt
    from ..render import render

    request = transcript.to_request(dialect=source, tools=tools)
    last = transcript.turns[-1] if transcript.turns else None
    prompt = last is not None and last.role == ASSISTANT and not last.closed and not last.parts
    prompt = prompt or (source is not None and ends_with_generation_prompt(transcript, source))
    has_catalogue = any(isinstance(p, ToolsBlock) for t in transcript.turns for p in t.parts)
    listed = request["tools"] if has_catalogue else None
    text: str = render(request["messages"], tools=listed, dialect=to, add_generation_prompt=prompt,
                       allow_injection=allow_injection, types_from=tools)
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
    p.add_argument(
        "--allow-injection", action="store_true", help="render content that would change how the output parses"
    )
    add_parse_options(p, dialect_flag="")
    add_tools_flags(p)
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
    source = None if args.dialect == "auto" else args.dialect
    tools = tools_kwargs(args)["tools"]
    sys.stdout.write(convert(result, to=args.target, source=source, allow_injection=args.allow_injection, tools=tools))
    return 0
