"""``hermes-toolcall render``: an OpenAI-shaped request body rendered as a dialect's prompt text."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .._profiles import DIALECTS
from ..errors import UsageError
from ..render import load_special_tokens, render
from ._common import load_json, read_input

__all__ = ["register", "run"]


def register(subparsers: Any) -> None:
    """Add the ``render`` subcommand."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "render",
        help="render an OpenAI request body ({messages, tools}) as a dialect's prompt",
        description="Render an OpenAI-shaped request body ({\"messages\": [...], \"tools\": [...]}) as the exact "
        "prompt text of a dialect, byte-identical to its official chat template.",
    )
    parser.add_argument("file", metavar="FILE", help="request body as JSON ('-' for standard input)")
    parser.add_argument("--dialect", "-d", default="hermes", choices=sorted(DIALECTS),
                        help="dialect (default hermes, or the project's setting)")
    parser.add_argument("--add-generation-prompt", action="store_true", help="append the assistant header")
    parser.add_argument("--bos-token", default=None, metavar="TOK",
                        help="the bos_token special token (Hermes templates write it first; default none)")
    parser.add_argument("--enable-thinking", action=argparse.BooleanOptionalAction, default=None,
                        help="pass enable_thinking to the template (Qwen3: --no-enable-thinking closes <think>)")
    parser.add_argument("--special-tokens", default=None, metavar="FILE",
                        help="strings that must appear nowhere in the conversation: a JSON list, a text file (one a "
                        "line), or a tokenizer_config.json / tokenizer.json (its special tokens)")
    parser.add_argument("--allow-injection", action="store_true",
                        help="render verbatim, even content that would not parse back to the conversation")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Render the request and print the prompt (no extra trailing newline).

    Raises:
        UsageError: the input is not a JSON object with a ``messages`` list, or the special tokens file
            cannot be read.
        RenderError: the conversation cannot be rendered.
    """
    body = load_json(read_input(args.file), args.file)
    if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
        raise UsageError(f"{args.file}: expected a JSON object with a 'messages' list")
    tools = body.get("tools")
    if tools is not None and not isinstance(tools, list):
        raise UsageError(f"{args.file}: 'tools' must be a list")
    kwargs: dict[str, Any] = {}
    if args.bos_token is not None:
        kwargs["bos_token"] = args.bos_token
    if args.enable_thinking is not None:
        kwargs["enable_thinking"] = args.enable_thinking
    special = load_special_tokens(args.special_tokens) if args.special_tokens is not None else None
    prompt = render(body["messages"], tools=tools, dialect=args.dialect, special_tokens=special,
                    add_generation_prompt=args.add_generation_prompt, allow_injection=args.allow_injection, **kwargs)
    sys.stdout.write(prompt)
    sys.stdout.flush()
    return 0
