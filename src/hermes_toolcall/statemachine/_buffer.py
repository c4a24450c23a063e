"""Input buffering kept apart from parsing: the unread input, the held-back tail, line numbers.

Like h11's ``ReceiveBuffer``, this knows nothing about the format beyond "which markers could
still be completed": ``held_from`` finds the longest suffix of the unread text that is a proper
prefix of a marker valid in the current state, which must not be released yet. ``InputBuffer``
holds everything not read yet (the held-back suffix, deferred block text), the input's positions
and its line table; only it writes them.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable

from .._construct import SPAN_SETTERS
from .._model import Span

__all__ = ["InputBuffer", "Lines", "MarkerSet", "held_from"]

_new = object.__new__
_SET_START, _SET_END, _SET_LINE, _SET_COLUMN = SPAN_SETTERS


class MarkerSet:
    """A set of markers with their proper prefixes precomputed (all markers start with ``<``).

    >>> m = MarkerSet(["<tool_call>", "<think>"])
    >>> "<tool_c" in m.prefixes, "<tool_call>" in m.prefixes
    (True, False)
    """

    __slots__ = ("longest", "markers", "prefixes")

    def __init__(self, markers: Iterable[str]) -> None:
        self.markers = tuple(markers)
        self.longest = max((len(m) for m in self.markers), default=0)
        self.prefixes = frozenset(m[:k] for m in self.markers for k in range(1, len(m)))


def held_from(data: str, start: int, markers: MarkerSet) -> int:
    """Offset in ``data`` where the held-back tail begins (``len(data)`` when nothing is held).

    The tail is the longest suffix of ``data[start:]`` that is a proper prefix of one of ``markers``.

    >>> held_from("abc<tool_", 0, MarkerSet(["<tool_call>"]))
    3
    >>> held_from("abc<x", 0, MarkerSet(["<tool_call>"]))
    5
    """
    n = len(data)
    lo = n - markers.longest + 1
    if lo < start:
        lo = start
    i = data.find("<", lo)
    prefixes = markers.prefixes
    while i != -1:
        if data[i:] in prefixes:
            return i
        i = data.find("<", i + 1)
    return n


class Lines:
    """Line starts of a text that grows at its end: 1-based line:column of any offset seen so far.

    >>> lines = Lines()
    >>> lines.extend("ab\\n", 0); lines.extend("cd", 3)
    >>> lines.span(3, 5)
    Span(start=3, end=5, line=2, column=1)
    """

    __slots__ = ("base", "starts")

    def __init__(self) -> None:
        self.starts = [0]  # offsets where lines start (from line ``base + 1`` on)
        self.base = 0  # lines forgotten before ``starts[0]``

    def forget(self, before: int) -> None:
        """Forget the starts of the lines that end before offset ``before`` (no span will start there)."""
        starts = self.starts
        k = bisect_right(starts, before) - 1  # the index of the line that holds ``before``
        if k > 0:
            del starts[:k]
            self.base += k

    def extend(self, chunk: str, offset: int) -> None:
        """Record the newlines of ``chunk``, which starts at absolute ``offset``."""
        i = chunk.find("\n")
        if i == -1:
            return
        starts = self.starts
        while i != -1:
            starts.append(offset + i + 1)
            i = chunk.find("\n", i + 1)

    def span(self, start: int, end: int) -> Span:
        """A span with the line:column of ``start`` (hot: one per part, tag and event span).

        Spans mostly start on one of the last lines, so those are bisected first; the value is
        ``construct.new_span``'s, built inline.
        """
        starts = self.starts
        n = len(starts)
        low = n - 16 if n > 16 else 0
        line = bisect_right(starts, start, low) if start >= starts[low] else bisect_right(starts, start)
        span: Span = _new(Span)
        _SET_START(span, start)
        _SET_END(span, end)
        _SET_LINE(span, line + self.base)
        _SET_COLUMN(span, start - starts[line - 1] + 1)
        return span


class InputBuffer:
    """The input as the parser has received it: what is unread, where it is, and its lines.

    ``pending`` is the held-back suffix (a possible partial marker or escape, set by ``hold``);
    ``deferred`` holds chunks of an open block that cannot end it, read later in one pass
    (``defer``); ``pos`` is the absolute offset of the first character of the data being read. The
    per-chunk fast paths inline ``take`` (``StreamParser.feed``) and ``defer`` (the block readers).
    ``defer_to`` is set by a block reader that has just deferred a chunk because only the block's end
    is looked for: until another path is taken, ``feed`` defers each new chunk without ``<`` that ends
    by that offset itself, without asking the reader (-1: not armed; ``StreamParser.feed`` disarms it
    before any other path).

    >>> buf = InputBuffer()
    >>> buf.take("ab\\n<t"), buf.total
    (0, 5)
    >>> buf.defer("ab\\n"); buf.hold("<t")
    >>> buf.take("ool"), buf.unread("ool"), buf.pos
    (5, 'ab\\n<tool', 0)
    """

    __slots__ = ("chunks", "defer_to", "deferred", "lines", "pending", "pos", "span", "total")

    def __init__(self) -> None:
        self.pending = ""
        self.deferred: list[str] = []
        self.defer_to = -1
        self.pos = 0
        self.chunks: list[str] = []  # the whole input (retain=True; a sink that keeps nothing otherwise)
        self.total = 0
        self.lines = Lines()
        self.span = self.lines.span  # Span with line:column of its start (hot)

    def take(self, chunk: str) -> int:
        """Record a new chunk (positions, source, lines); returns its absolute start offset."""
        total = self.total
        self.total = total + len(chunk)
        self.chunks.append(chunk)
        if "\n" in chunk:
            self.lines.extend(chunk, total)
        return total

    def hold(self, text: str) -> None:
        """Keep ``text`` unread until the next chunk (or the end of the input) decides it."""
        self.pending = text

    def defer(self, text: str) -> None:
        """Keep block text that cannot end the block, to be read with the next data."""
        self.deferred.append(text)

    def unread(self, chunk: str) -> str:
        """Everything unread, followed by ``chunk`` (already taken), emptied; sets ``pos`` to its start."""
        data = self.pending + chunk
        self.pending = ""
        if self.deferred:
            data = "".join(self.deferred) + data
            self.deferred = []
        self.pos = self.total - len(data)
        return data
