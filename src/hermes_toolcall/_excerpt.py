"""Source excerpts for diagnostics: a window of a long line, terminal-safe text, a caret under a column.

Every command draws its diagnostics through these functions (``cli._common.format_finding``), so a
finding looks the same whether ``parse``, ``stream``, ``render`` or ``validate`` reports it.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["WINDOW", "caret_line", "sanitize", "window"]

WINDOW = 100

# C0 controls but tab and newline, DEL, C1 controls, and the invisible format characters that reorder or
# hide text on a terminal (bidi overrides and isolates, zero-width characters, the BOM)
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]")


def _escape(match: re.Match[str]) -> str:
    c = match.group()
    code = ord(c)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def sanitize(text: str, *, newlines: bool = True) -> str:
    r"""``text`` safe to print on a terminal: control and invisible format characters shown escaped.

    Args:
        text: any text (a message, a source line).
        newlines: also escape ``\n`` (for one-line output); tabs are kept.

    >>> sanitize("a\x1b[31mred\u202e\nz")
    'a\\x1b[31mred\\u202e\\nz'
    >>> sanitize("a\nb", newlines=False)
    'a\nb'
    """
    out = _UNSAFE.sub(_escape, text)
    if newlines:
        out = out.replace("\n", "\\n")
    return out


def window(text: str, column: int, width: int, *, size: int = WINDOW) -> tuple[str, int, int]:
    """A window of ``text`` around 1-based ``column``: (snippet, caret column in it, caret width).

    >>> window("abc", 2, 5)
    ('abc', 2, 2)
    >>> snippet, caret, _ = window("x" * 300 + "!" + "y" * 300, 301, 1)
    >>> snippet[caret - 1], len(snippet)
    ('!', 102)
    """
    text = text.replace("\t", " ")
    column = max(1, min(column, len(text) + 1))
    if len(text) <= size:
        return text, column, max(1, min(width, len(text) - column + 1))
    lo = max(0, column - 1 - size // 3)
    snippet = text[lo : lo + size]
    caret = column - lo
    if lo:
        snippet, caret = "…" + snippet, caret + 1
    if lo + size < len(text):
        snippet += "…"
    return snippet, caret, max(1, min(width, size - (column - 1 - lo)))


def _cells(text: str) -> int:
    """Terminal cells ``text`` takes (wide East Asian characters take two, combining marks none)."""
    n = 0
    for c in text:
        if unicodedata.combining(c):
            continue
        n += 2 if unicodedata.east_asian_width(c) in ("W", "F") else 1
    return n


def caret_line(snippet: str, caret: int, width: int) -> tuple[str, str]:
    r"""The snippet made terminal-safe, and the marker line (``^~~~``) under its 1-based ``caret`` column.

    The marker is placed by terminal cells of the sanitised text, so escapes and wide characters before
    the caret do not shift it.

    >>> caret_line("é\x1bb", 3, 1)
    ('é\\x1bb', '     ^')
    """
    before = sanitize(snippet[: caret - 1])
    marked = sanitize(snippet[caret - 1 : caret - 1 + width])
    shown = before + sanitize(snippet[caret - 1 :])
    return shown, " " * _cells(before) + "^" + "~" * max(0, min(_cells(marked), 60) - 1)
