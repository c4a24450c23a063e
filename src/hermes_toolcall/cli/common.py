"""Helpers shared by the subcommands: reading inputs, printing diagnostics compiler-style."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable
from pathlib import Path

from ..errors import UsageError
from ..model import Diagnostic
from ..options import DEFAULT_MAX_BLOCK_CHARS
from ..positions import LineIndex
from ..profiles import DIALECTS

__all__ = ["add_parse_options", "format_diagnostic", "print_diagnostics", "read_input"]


def add_parse_options(p: argparse.ArgumentParser, *, dialect_flag: str = "--dialect", auto: bool = True) -> None:
    """The parse options shared by ``parse``, ``convert`` and ``stream`` (the ``ParseOptions`` knobs).

    ``dialect_flag=""`` leaves the dialect out (``convert`` has ``--from``); ``auto=False`` refuses
    ``auto`` (a stream cannot detect its dialect before it has read it).
    """
    if dialect_flag:
        p.add_argument(
            dialect_flag,
            dest="dialect",
            default="hermes",
            choices=(*sorted(DIALECTS), "auto") if auto else tuple(sorted(DIALECTS)),
            help="dialect of the input (default: hermes" + ("; auto = detect it)" if auto else ")"),
        )
    p.add_argument("--strict", action="store_true", help="no recoveries; exit 1 when errors are found")
    p.add_argument("--calls-in-reasoning", action="store_true", help="a <tool_call> inside reasoning is a call")
    p.add_argument(
        "--stop-at-fabricated-response", action="store_true", help="stop at a <tool_response> in an assistant body"
    )
    p.add_argument(
        "--max-block-chars", type=int, default=DEFAULT_MAX_BLOCK_CHARS, metavar="N", help="largest block body"
    )
    p.add_argument(
        "--sequential-ids",
        action="store_true",
        help="call ids call_0, call_1, … (reproducible output; default: random OpenAI-style ids)",
    )


def read_input(path: str) -> str:
    """The text of ``path``, or of standard input for ``-``.

    Raises:
        UsageError: the file cannot be read or is not UTF-8.
    """
    try:
        if path == "-":
            return sys.stdin.read()
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read {path}: {exc}") from exc


def format_diagnostic(d: Diagnostic, *, filename: str, index: LineIndex, prefix: str = "") -> str:
    """``file:line:col: CODE message`` with the source line and a caret under the column."""
    head = f"{filename}:{prefix}{d.line}:{d.column}: {d.code} {d.severity}: {d.message}"
    line = index.source_line(d.line) if d.line <= len(index.text.splitlines()) + 1 else ""
    shown = line.replace("\t", " ")
    if len(shown) > 160:  # keep long lines readable: a window around the column
        lo = max(0, d.column - 80)
        shown = ("…" if lo else "") + shown[lo : lo + 160]
        col = d.column - lo + (1 if lo else 0)
    else:
        col = d.column
    out = [head, f"    {shown}", "    " + " " * (col - 1) + "^"]
    if d.hint:
        out.append(f"    hint: {d.hint}")
    return "\n".join(out)


def print_diagnostics(diags: Iterable[Diagnostic], *, filename: str, text: str) -> None:
    """Print diagnostics compiler-style on standard error."""
    index = LineIndex(text)
    for d in diags:
        print(format_diagnostic(d, filename=filename, index=index), file=sys.stderr)
