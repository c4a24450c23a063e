"""Input buffering kept apart from parsing: the unread input, the held-back tail, line numbers.

Like h11's ``ReceiveBuffer``, this knows nothing about the format beyond "which markers could
still be completed": ``held_from`` finds the longest suffix of the unread text that is a proper
prefix of a marker valid in the current state, which must not be released yet. ``InputBuffer``
holds everything not read yet (the held-back suffix, deferred block text), the input's positions
and its line table; only it writes them.
"""

from __future__ import annotations

import sys
from bisect import bisect_right
from collections.abc import Iterable

from .._construct import SpanDraft
from .._model import Span

__all__ = ["InputBuffer", "Lines", "MarkerSet", "held_from"]



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

    The text's newlines are recorded by ``extend``, or, given ``source`` (the list of the text's
    chunks, which its owner appends to and this only reads), when a span starts past what is recorded
    (so a stream fed in small chunks records its lines in bulk, and only where a span needs them).

    >>> lines = Lines()
    >>> lines.extend("ab\\n", 0); lines.extend("cd", 3)
    >>> lines.span(3, 5)
    Span(start=3, end=5, line=2, column=1)
    >>> chunks = ["ab", "\\ncd"]
    >>> Lines(chunks).span(4, 5).line
    2
    """

    __slots__ = ("base", "scanned", "scanned_chunks", "source", "starts")

    def __init__(self, source: list[str] | None = None) -> None:
        self.starts = [0]  # offsets where lines start (from line ``base + 1`` on)
        self.base = 0  # lines forgotten before ``starts[0]``
        self.source = source
        # the newlines before this offset are recorded (without ``source``, all of them: ``extend``'s)
        self.scanned = 0 if source is not None else sys.maxsize
        self.scanned_chunks = 0  # ``source``'s chunks up to there

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

    def _catch_up(self) -> None:
        """Record the newlines of ``source``'s chunks not recorded yet."""
        source = self.source
        assert source is not None
        k = self.scanned_chunks
        if k < len(source):
            text = "".join(source[k:]) if k + 1 < len(source) else source[k]
            self.scanned_chunks = len(source)
            self.extend(text, self.scanned)
            self.scanned += len(text)

    def span(self, start: int, end: int) -> Span:
        """A span with the line:column of ``start`` (hot: one per part, tag and event span).

        Spans mostly start on one of the last lines, so those are bisected first; the value is
        ``_construct.new_span``'s, built inline (from its draft).
        """
        if start > self.scanned:
            self._catch_up()
        starts = self.starts
        n = len(starts)
        low = n - 16 if n > 16 else 0
        line = bisect_right(starts, start, low) if start >= starts[low] else bisect_right(starts, start)
        span = SpanDraft()
        span.start = start
        span.end = end
        span.line = line + self.base
        span.column = start - starts[line - 1] + 1
        span.__class__ = Span
        return span  # type: ignore[no-any-return]


class InputBuffer:
    """The input as the parser has received it: what is unread, where it is, and its lines.

    It alone writes these fields. ``pending`` is the held-back suffix (a possible partial marker or
    escape, ``hold``); ``deferred`` holds block text that cannot end the block, read later in one
    pass (``defer``); ``pos`` is the absolute offset of the first character of the data being read.
    ``defer_to`` is set by a ``defer`` whose reader has found that only the block's end is looked for:
    ``take`` defers each new chunk without ``<`` that ends by that offset itself, until one with ``<``
    comes (-1: not armed).

    With ``keep`` (``retain=True``), ``chunks`` is the whole input and the line starts are recorded in
    bulk from it when a span needs them (``Lines``' ``source``); without it, nothing of the input is
    kept once read, and ``take`` records the line starts of each chunk as it comes. ``take`` is
    the method of the mode; ``span`` gives a span with the line:column of its start.

    >>> buf = InputBuffer(keep=True)
    >>> buf.take("ab\\n<t"), buf.total
    ('ab\\n<t', 5)
    >>> buf.defer("ab\\n", -1); buf.hold("<t")
    >>> buf.take("ool"), buf.pos
    ('ab\\n<tool', 0)
    >>> buf.span(3, 4).line
    2
    """

    __slots__ = (
        "chunks",
        "defer_to",
        "deferred",
        "keep",
        "lines",
        "pending",
        "pos",
        "span",
        "take",
        "total",
    )

    def __init__(self, *, keep: bool) -> None:
        self.keep = keep
        self.pending = ""
        self.deferred: list[str] = []
        self.defer_to = -1
        self.pos = 0
        self.chunks: list[str] = []  # the whole input (keep), else nothing
        self.total = 0
        self.lines = Lines(self.chunks if keep else None)
        self.span = self.lines.span  # (hot: one per part, tag and event span)
        #: record a new chunk; the unread data to read now (see ``_take_kept``)
        self.take = self._take_kept if keep else self._take_lean

    def _take_kept(self, chunk: str) -> str:
        """Record a new chunk (its offset, the source); the unread data to read now, from ``pos``
        ("": nothing, the chunk is empty or waits with the deferred block text)."""
        at = self.total
        self.total = end = at + len(chunk)
        self.chunks.append(chunk)
        if end <= self.defer_to:  # armed: the open block looks for its end only
            if "<" not in chunk:
                self.deferred.append(chunk)
                return ""
            self.defer_to = -1  # (past the bound, the block is cut: no chunk ends by defer_to any more)
        if self.deferred:
            return self.unread(chunk) if chunk else ""
        pending = self.pending
        if pending:  # the held-back tail, then the chunk (``unread``, without the deferred text)
            if not chunk:
                return ""
            self.pending = ""
            self.pos = at - len(pending)
            return pending + chunk
        self.pos = at
        return chunk

    def _take_lean(self, chunk: str) -> str:
        """``_take_kept`` that keeps nothing of the input, with the line starts of the chunk recorded now."""
        at = self.total
        self.total = end = at + len(chunk)
        if "\n" in chunk:
            self.lines.extend(chunk, at)
        if end <= self.defer_to:
            if "<" not in chunk:
                self.deferred.append(chunk)
                return ""
            self.defer_to = -1
        if self.deferred:
            return self.unread(chunk) if chunk else ""
        pending = self.pending
        if pending:  # the held-back tail, then the chunk (``unread``, without the deferred text)
            if not chunk:
                return ""
            self.pending = ""
            self.pos = at - len(pending)
            return pending + chunk
        self.pos = at
        return chunk

    def hold(self, text: str) -> None:
        """Keep ``text`` unread until the next chunk (or the end of the input) decides it."""
        self.pending = text

    def defer(self, text: str, until: int) -> None:
        """Keep block text that cannot end the block, to be read with the next data; new chunks
        without ``<`` that end by ``until`` wait with it (-1: each is looked at)."""
        if text:
            self.deferred.append(text)
        self.defer_to = until

    def unread(self, chunk: str) -> str:
        """Everything unread, followed by ``chunk`` (already taken), emptied; sets ``pos`` to its start."""
        data = self.pending + chunk
        self.pending = ""
        if self.deferred:
            data = "".join(self.deferred) + data
            self.deferred = []
        self.pos = self.total - len(data)
        return data

    def first_unread(self) -> int:
        """The absolute offset of the first character not read yet (held back or deferred)."""
        return self.total - len(self.pending) - sum(map(len, self.deferred))

    def forget_lines(self, before: int, crowd: int) -> None:
        """With more than ``crowd`` line starts, forget those of the lines that end before ``before``."""
        if len(self.lines.starts) > crowd:
            self.lines.forget(before)

    def source(self) -> str:
        """The whole input (``keep``)."""
        return "".join(self.chunks)
