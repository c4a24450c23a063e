"""Helpers shared by the subcommands: reading inputs, printing diagnostics compiler-style."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .._excerpt import caret_line, sanitize, window
from .._model import Diagnostic
from .._options import DEFAULT_MAX_BLOCK_CHARS
from .._positions import LineIndex
from .._profiles import DIALECTS
from ..errors import UsageError

__all__ = [
    "add_parse_options",
    "display_name",
    "format_diagnostic",
    "format_finding",
    "in_flags",
    "load_json",
    "print_diagnostics",
    "read_input",
    "record_label",
]


def add_parse_options(p: argparse.ArgumentParser, *, dialect_flag: str = "--dialect", auto: bool = True) -> None:
    """The parse options shared by ``parse``, ``convert`` and ``stream`` (the ``ParseOptions`` knobs).

    ``dialect_flag=""`` leaves the dialect out (``convert`` has ``--from``); ``auto=False`` refuses
    ``auto`` (a stream cannot detect its dialect before it has read it).
    """
    if dialect_flag:
        p.add_argument(
            dialect_flag,
            dest="dialect",
            default="hermes",  # or the project's [tool.hermes-toolcall] dialect (cli._config)
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
    """The text of ``path``, or of standard input for ``-`` (read once, as UTF-8; ``\r\n`` kept).

    Raises:
        UsageError: the file cannot be read or is not UTF-8.
    """
    try:
        if path == "-":
            stdin = getattr(sys.stdin, "buffer", None)
            data = stdin.read() if stdin is not None else sys.stdin.read().encode("utf-8", "surrogatepass")
        else:
            data = Path(path).read_bytes()
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(f"{display_name(path)} is not UTF-8 (byte {exc.start})") from exc
    except OSError as exc:
        raise UsageError(f"cannot read {display_name(path)}: {exc.strerror or exc}") from exc


def load_json(text: str, path: str) -> Any:
    """The JSON value of an input's text.

    Raises:
        UsageError: the text is not JSON; the message names ``file:line:column`` of the error.

    >>> load_json('{"a":\\n  tru}', "body.json")
    Traceback (most recent call last):
    ...
    hermes_toolcall.errors.UsageError: body.json:2:3: not JSON: ...
    """
    from .. import _jsonio as jsonio
    from ..errors import DecodeError

    try:
        return jsonio.loads(text)
    except DecodeError as exc:
        line, column = LineIndex(text).line_col(max(exc.position, 0))
        raise UsageError(f"{display_name(path)}:{line}:{column}: not JSON: {exc.message}") from exc


def display_name(path: str) -> str:
    """How diagnostics name an input: ``<stdin>`` for ``-``."""
    return "<stdin>" if path == "-" else path


def format_finding(
    *,
    path: str,
    line: int,
    column: int,
    code: str,
    severity: str,
    message: str,
    snippet: str,
    caret: int,
    width: int = 1,
    hint: str | None = None,
    record: int | None = None,
    record_id: str | int | None = None,
) -> str:
    r"""The one diagnostic renderer of every command: ``file:line:col: CODE severity: message``, the source
    line (a window of it), a caret under the column, the hint; all of it terminal-safe.

    >>> print(format_finding(path="f", line=2, column=4, code="HT004", severity="warning",
    ...       message="unknown role 'x\x1b'", snippet="ab\x1bc", caret=4, record=1, record_id="gen-7"))
    f:2:4: HT004 warning: record 1 (id gen-7): unknown role 'x\x1b'
        ab\x1bc
              ^
    """
    where = sanitize(f"{record_label(record, record_id)}: ") if record is not None else ""
    shown, marker = caret_line(snippet, caret, width)
    out = [f"{sanitize(path)}:{line}:{column}: {code} {severity}: {where}{sanitize(message)}", f"    {shown}"]
    out.append("    " + marker)
    if hint:
        out.append(f"    hint: {sanitize(hint)}")
    return "\n".join(out)


def record_label(number: int, record_id: str | int | None) -> str:
    """How a report names a record: ``record 4``, and its own id when it has one (``record 4 (id gen-7)``).

    >>> record_label(4, None), record_label(4, "gen-7"), record_label(4, 17)
    ('record 4', 'record 4 (id gen-7)', 'record 4 (id 17)')
    """
    return f"record {number}" if record_id is None else f"record {number} (id {record_id})"


def format_diagnostic(d: Diagnostic, *, filename: str, index: LineIndex) -> str:
    """A parse diagnostic through ``format_finding`` (the source line from ``index``)."""
    lines = index.text.split("\n")
    source = lines[d.line - 1].rstrip("\r") if 0 < d.line <= len(lines) else ""
    snippet, caret, width = window(source, d.column, max(1, d.span.end - d.span.start))
    return format_finding(
        path=filename,
        line=d.line,
        column=d.column,
        code=d.code,
        severity=d.severity,
        message=d.message,
        snippet=snippet,
        caret=caret,
        width=width,
        hint=d.hint,
    )


def print_diagnostics(diags: Iterable[Diagnostic], *, filename: str, text: str) -> None:
    """Print diagnostics compiler-style on standard error."""
    index = LineIndex(text)
    for d in diags:
        print(format_diagnostic(d, filename=filename, index=index), file=sys.stderr)


# library messages name keyword arguments; on the command line the same advice is a flag
_FLAG_WORDS = (
    ("pass allow_injection=True", "pass --allow-injection"),
    ("tools=None: ", '"tools" is missing or null: '),
    ("pass tools=[]", 'add "tools": [] to the request'),
    ("pass templates=… or set", "set"),
)


def in_flags(message: str) -> str:
    """A library error message with its keyword-argument advice said as command-line flags.

    >>> in_flags("x (pass allow_injection=True to render it anyway)")
    'x (pass --allow-injection to render it anyway)'
    """
    for words, flags in _FLAG_WORDS:
        message = message.replace(words, flags)
    return message
