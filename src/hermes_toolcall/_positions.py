"""Line and column of character offsets (1-based), shared by both engines and the CLI."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable
from itertools import accumulate

from ._construct import SPAN_SETTERS
from ._model import Span

__all__ = ["LineIndex"]


class LineIndex:
    """Maps offsets of one text to 1-based line:column (O(log lines) per offset, table built on first use).

    A parse keeps its index in the parts it returns (their spans are built on demand), so the index is
    one object: a kept result holds one more object for its positions, not a table and a closure
    (fewer objects for the cyclic collector to walk when many results are kept, ``_gcpause.py``). The
    engines build the spans of a parse through ``spanner()``, a function with a forward cursor.

    >>> idx = LineIndex("ab\\ncd")
    >>> idx.line_col(3)
    (2, 1)
    >>> idx.span(3, 5)
    Span(start=3, end=5, line=2, column=1)
    """

    __slots__ = ("_table", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self._table: list[int] | None = None

    def starts(self) -> list[int]:
        """The start offset of every line (built on the first lookup that needs it)."""
        if self._table is None:
            # line k+1 starts one past the end of line k: running sums of (length + 1), all in C
            lengths = map(len, self.text.split("\n"))
            self._table = list(accumulate(map((1).__add__, lengths), initial=0))[:-1]
        return self._table

    def line_col(self, offset: int) -> tuple[int, int]:
        """1-based (line, column) of ``offset``."""
        starts = self.starts()
        line = bisect_right(starts, offset)
        return line, offset - starts[line - 1] + 1

    def span(self, start: int, end: int) -> Span:
        """The Span ``[start, end)`` (the line:column of ``start``)."""
        if self._table is None and start <= _DIRECT:  # near the start: count, without building the table
            text = self.text
            line = text.count("\n", 0, start) + 1
            column = start - text.rfind("\n", 0, start)
        else:
            line, column = self.line_col(start)
        o: Span = _new(Span)
        _SET_START(o, start)
        _SET_END(o, end)
        _SET_LINE(o, line)
        _SET_COLUMN(o, column)
        return o

    def spanner(self) -> Callable[[int, int], Span]:
        """A ``span`` function for a parse, which asks in document order (``_span_function``)."""
        return _span_function(self.text, self.line_col)

    def source_line(self, line: int) -> str:
        """The text of 1-based ``line`` without its newline."""
        starts = self.starts()
        start = starts[line - 1]
        end = starts[line] - 1 if line < len(starts) else len(self.text)
        return self.text[start:end]


_new = object.__new__
_DIRECT = 4096  # offsets up to this are counted directly until a line table exists (short texts never build one)
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
