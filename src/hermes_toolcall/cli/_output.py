"""Standard output that never loses bytes silently: every write is whole, or it raises.

CPython's buffered writer returns the count of a partial ``write`` (a pipe whose reader went away while the
writer was blocked in one large ``write``: the kernel returns what it took), and the text layer above it drops
that count: the rest of the report is gone and nothing fails. Under ``whole_writes()`` standard output is a
text layer over a raw writer that loops until every byte is written, so a closed reader always surfaces as
``BrokenPipeError`` (on the next write), which ``cli.main`` turns into status 141, quietly.
"""

from __future__ import annotations

import io
import os
import select
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["WholeWriter", "whole_writes"]


class WholeWriter(io.RawIOBase):
    """A raw writer on a file descriptor whose ``write`` writes every byte (looping over partial writes)."""

    def __init__(self, fd: int) -> None:
        super().__init__()
        self._fd = fd

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._fd

    def isatty(self) -> bool:
        return os.isatty(self._fd)

    def write(self, data: Any) -> int:
        view = memoryview(data).cast("B")
        total = len(view)
        while view:
            try:
                n = os.write(self._fd, view)
            except BlockingIOError:  # a non-blocking descriptor that is full: wait until it takes more
                select.select([], [self._fd], [])
                continue
            view = view[n:]
        return total


@contextmanager
def whole_writes() -> Iterator[None]:
    """Within the block, ``sys.stdout`` writes whole or raises (only when it is the process's own standard
    output: a caller's replacement, a test's ``StringIO``, is left alone). Restored afterwards; the caller
    flushes inside the block, so that a closed reader is seen there."""
    original = sys.__stdout__
    if original is None or sys.stdout is not original:
        yield
        return
    try:
        fd = original.fileno()
        original.flush()
    except (OSError, ValueError, AttributeError):
        yield
        return
    buffer = io.BufferedWriter(WholeWriter(fd), buffer_size=1 << 16)
    sys.stdout = io.TextIOWrapper(
        buffer,
        encoding=original.encoding,
        errors=original.errors,
        line_buffering=original.line_buffering,
    )
    try:
        yield
    finally:
        ours, sys.stdout = sys.stdout, original
        try:
            ours.flush()  # normally already flushed by the caller; a failure here was reported there
        except (OSError, ValueError):
            pass
        try:
            ours.detach()  # the descriptor stays open: it is the process's standard output
        except (OSError, ValueError):
            pass
