"""The parse flags of issue 13 shared by ``parse`` and ``stream``: where the completion starts (reasoning)."""

from __future__ import annotations

import argparse
from typing import Any

from ..errors import UsageError

__all__ = ["add_start_flags", "start_kwargs"]


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
