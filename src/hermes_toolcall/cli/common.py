"""Helpers shared by the subcommands: reading inputs, printing diagnostics compiler-style."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from pathlib import Path

from ..errors import UsageError
from ..model import Diagnostic
from ..positions import LineIndex

__all__ = ["format_diagnostic", "print_diagnostics", "read_input"]


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
