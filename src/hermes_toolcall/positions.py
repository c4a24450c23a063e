"""Line and column of character offsets (1-based), shared by both engines and the CLI."""

from __future__ import annotations

from bisect import bisect_right
from itertools import accumulate

from .construct import new_span
from .model import Span

__all__ = ["LineIndex"]


class LineIndex:
    """Maps offsets of one text to 1-based line:column, in O(log lines).

    >>> idx = LineIndex("ab\\ncd")
    >>> idx.line_col(3)
    (2, 1)
    >>> idx.span(3, 5)
    Span(start=3, end=5, line=2, column=1)
    """

    __slots__ = ("_starts", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        # line k+1 starts one past the end of line k: running sums of (length + 1), all in C
        lengths = map(len, text.split("\n"))
        self._starts = list(accumulate(map((1).__add__, lengths), initial=0))[:-1]

    def line_col(self, offset: int) -> tuple[int, int]:
        """1-based (line, column) of ``offset``."""
        line = bisect_right(self._starts, offset)
        return line, offset - self._starts[line - 1] + 1

    def span(self, start: int, end: int) -> Span:
        """A span with the line:column of ``start``."""
        starts = self._starts
        line = bisect_right(starts, start)
        return new_span(start, end, line, start - starts[line - 1] + 1)

    def source_line(self, line: int) -> str:
        """The text of 1-based ``line`` without its newline."""
        start = self._starts[line - 1]
        end = self._starts[line] - 1 if line < len(self._starts) else len(self.text)
        return self.text[start:end]
