"""Line and column of character offsets (1-based), shared by both engines and the CLI."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable
from itertools import accumulate

from ._construct import SPAN_SETTERS
from ._model import Span

__all__ = ["LineIndex"]


class LineIndex:
    """Maps offsets of one text to 1-based line:column (a cursor forward, O(log lines) back).

    >>> idx = LineIndex("ab\\ncd")
    >>> idx.line_col(3)
    (2, 1)
    >>> idx.span(3, 5)
    Span(start=3, end=5, line=2, column=1)
    """

    __slots__ = ("_lines", "span", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self._lines = lines = _Lines(text)
        # the span function holds the line table, not the index: no reference cycle (_gcpause.py)
        self.span: Callable[[int, int], Span] = _span_function(text, lines.line_col)

    def line_col(self, offset: int) -> tuple[int, int]:
        """1-based (line, column) of ``offset``."""
        return self._lines.line_col(offset)

    def source_line(self, line: int) -> str:
        """The text of 1-based ``line`` without its newline."""
        starts = self._lines.starts()
        start = starts[line - 1]
        end = starts[line] - 1 if line < len(starts) else len(self.text)
        return self.text[start:end]


class _Lines:
    """The start offset of every line of a text, built on the first lookup that needs it."""

    __slots__ = ("_table", "_text")

    def __init__(self, text: str) -> None:
        self._text = text
        self._table: list[int] | None = None

    def starts(self) -> list[int]:
        if self._table is None:
            # line k+1 starts one past the end of line k: running sums of (length + 1), all in C
            lengths = map(len, self._text.split("\n"))
            self._table = list(accumulate(map((1).__add__, lengths), initial=0))[:-1]
        return self._table

    def line_col(self, offset: int) -> tuple[int, int]:
        starts = self.starts()
        line = bisect_right(starts, offset)
        return line, offset - starts[line - 1] + 1


_new = object.__new__
_SET_START, _SET_END, _SET_LINE, _SET_COLUMN = SPAN_SETTERS


def _span_function(text: str, line_col: Callable[[int], tuple[int, int]]) -> Callable[[int, int], Span]:
    """``span(start, end)``: a Span with the line:column of ``start`` (hot: one per part, header, end).

    The same value as ``_construct.new_span``, built inline. The engines ask in document order, so a
    cursor follows them: moving forward counts the newlines passed over (text just read, in cache);
    moving back uses the line table (built on first use; its bisect probes miss the cache on large
    texts, and most parses never move back).
    """
    count = text.count
    rfind = text.rfind
    at = 0  # the cursor: an offset, its line, and the start of that line
    at_line = 1
    at_line_start = 0

    def span(start: int, end: int) -> Span:
        nonlocal at, at_line, at_line_start
        if start >= at:
            passed = count("\n", at, start)
            if passed:
                at_line += passed
                at_line_start = rfind("\n", at, start) + 1
            at = start
            line, column = at_line, start - at_line_start + 1
        else:
            line, column = line_col(start)
        o: Span = _new(Span)
        _SET_START(o, start)
        _SET_END(o, end)
        _SET_LINE(o, line)
        _SET_COLUMN(o, column)
        return o

    return span
