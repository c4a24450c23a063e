"""The parse flags shared by ``parse`` and ``stream``: where the completion starts, the request's tools."""

from __future__ import annotations

import argparse
from typing import Any

from .. import _jsonio as jsonio
from .._options import UNDECLARED
from ..errors import DecodeError, UsageError

__all__ = ["add_start_flags", "add_tools_flags", "start_kwargs", "tools_kwargs"]


def add_start_flags(p: argparse.ArgumentParser) -> None:
    """``--starts-in-reasoning`` / ``--no-starts-in-reasoning`` (default: as the dialect's generation prompt)."""
    p.add_argument(
        "--starts-in-reasoning",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="completion only: the completion begins inside <think> (the prompt opened it); default: as the "
        "dialect's generation prompt leaves it (on for qwq, off for the others)",
    )


def start_kwargs(args: argparse.Namespace, *, completion: bool) -> dict[str, Any]:
    """The keyword arguments of the start flags (none for a transcript; giving the flag there is an error).

    Raises:
        UsageError: ``--starts-in-reasoning`` given for a transcript.
    """
    value = getattr(args, "starts_in_reasoning", None)
    if not completion:
        if value is not None:
            raise UsageError("--starts-in-reasoning is for completions (a transcript holds its own prompt)")
        return {}
    return {"starts_in_reasoning": value}


def add_tools_flags(p: argparse.ArgumentParser) -> None:
    """``--tools FILE``, ``--undeclared keep|text|drop``, ``--coerce-arguments``."""
    p.add_argument(
        "--tools",
        metavar="FILE",
        help="JSON file with the request's tools (a list of OpenAI tool objects, or {\"tools\": [...]}): calls "
        "to other names get HT301",
    )
    p.add_argument(
        "--undeclared",
        choices=UNDECLARED,
        default="keep",
        help="with --tools: what becomes of a call to an undeclared tool (default: keep)",
    )
    p.add_argument(
        "--coerce-arguments",
        action="store_true",
        help="with --tools: convert argument values to the schema's types when lossless (HT210-HT214)",
    )


def tools_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    """The keyword arguments of the tools flags.

    Raises:
        UsageError: the tools file cannot be read, is not JSON, or holds no list of tools.
    """
    path = getattr(args, "tools", None)
    tools: Any = None
    if path is not None:
        try:
            with open(path, encoding="utf-8") as f:
                tools = jsonio.loads(f.read())
        except (OSError, UnicodeDecodeError) as exc:
            raise UsageError(f"cannot read {path}: {exc}") from exc
        except DecodeError as exc:
            raise UsageError(f"{path} is not JSON: {exc}") from exc
        if isinstance(tools, dict) and isinstance(tools.get("tools"), list):
            tools = tools["tools"]
        if not isinstance(tools, list):
            raise UsageError(f"{path}: expected a list of tool objects (or an object with a 'tools' list)")
    return {
        "tools": tools,
        "undeclared": getattr(args, "undeclared", "keep"),
        "coerce_arguments": getattr(args, "coerce_arguments", False),
    }
