"""Pausing Python's cyclic garbage collector while the model of a large input is built.

CPython runs a full collection each time the objects that survived the young generations grow by a
quarter, and a full collection walks every container object in the process. Building the model of a
large transcript (about 30,000 values per MB, every one of which survives) sets off several: 40% of
the whole parse at 10 MB (``docs/performance.md``). The model is acyclic (a value refers only to its
parts) and so are the engine's working objects, so those collections find nothing to free.

So, as Mercurial's ``util.nogc`` does for its large parses, the whole-text parse of an input of
``PAUSE_AT`` characters or more runs with the collector disabled, and enables it again when it is
done, also when it raises, and only if it was enabled before: a caller who disabled it keeps it
disabled. Smaller inputs (every record of a dataset, every completion) never touch it.

The collector is process-wide: while a large input is parsed, the cyclic garbage of other threads
waits for the next collection after it. A thread that disables the collector during such a parse
finds it enabled again afterwards; call ``gc.disable()`` before the parse, or parse such inputs in
chunks, if that matters.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["PAUSE_AT", "collector_paused"]

#: Input size (characters) from which the whole-text parse pauses the collector: 1 MiB.
PAUSE_AT = 1 << 20


@contextmanager
def collector_paused(size: int) -> Iterator[None]:
    """Run the block with the cyclic collector paused when ``size`` is at least ``PAUSE_AT``.

    Args:
        size: the size of the input about to be parsed, in characters.

    >>> import gc
    >>> with collector_paused(PAUSE_AT):
    ...     gc.isenabled()
    False
    >>> gc.isenabled()
    True
    >>> with collector_paused(10):
    ...     gc.isenabled()
    True
    """
    if size < PAUSE_AT or not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
