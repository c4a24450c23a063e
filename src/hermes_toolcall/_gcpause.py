"""Pausing Python's cyclic garbage collector while the model of a large input is built.

CPython runs a full collection each time the objects that survived the young generations grow by a
quarter, and a full collection walks every container object in the process. Building the model of a
large transcript (about 30,000 values per MB, every one of which survives) sets off several: 40% of
the whole parse at 10 MB (``docs/performance.md``). The model is acyclic (a value refers only to its
parts) and so are the engine's working objects, so those collections find nothing to free.

So, as Mercurial's ``util.nogc`` does for its large parses, the whole-text parse of an input of
``PAUSE_AT`` characters or more runs with the collector disabled, and enables it again when it is
done, also when it raises, and only if it was enabled before: a caller who disabled it keeps it
disabled. A single small input never touches it: pausing around one short parse only moves the
collections to the caller's next allocation (measured: no gain, ``docs/performance.md``).

Many small inputs are the dataset paths' case. Where records come in batches (the process pool of
``validate --jobs N``, the blocks of ``validate --engine ray``) a batch is checked with the collector
paused (``paused``, ``collector_paused()``): it then runs once per batch instead of every 700
allocations, and a batch is bounded, so whatever cyclic garbage it could leave waits one batch at
most. The in-process loops (``validate --jobs 1``, ``convert``) hand each result on before they read
the next record (a pipe streams), so they are not paused: their caller's code would run paused too,
and they keep no result, so the collector finds little to walk there (about 2% of ``validate --jobs
1``, ``docs/performance.md``).

The collector is process-wide: while a large input is parsed, the cyclic garbage of other threads
waits for the next collection after it. A thread that disables the collector during such a parse
finds it enabled again afterwards; call ``gc.disable()`` before the parse, or parse such inputs in
chunks, if that matters.
"""

from __future__ import annotations

import functools
import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import ParamSpec, TypeVar

__all__ = ["PAUSE_AT", "collector_paused", "paused"]

_R = TypeVar("_R")
_P = ParamSpec("_P")

#: Input size (characters) from which the whole-text parse pauses the collector: 1 MiB.
PAUSE_AT = 1 << 20


@contextmanager
def collector_paused(size: int = PAUSE_AT) -> Iterator[None]:
    """Run the block with the cyclic collector paused when ``size`` is at least ``PAUSE_AT``.

    Args:
        size: the size of the input about to be parsed, in characters (default: pause, as for a batch).

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


def paused(fn: Callable[_P, _R]) -> Callable[_P, _R]:
    """``fn`` run with the collector paused: for a function that handles one bounded batch of records
    (a Ray block) and returns its results.

    >>> import gc
    >>> paused(gc.isenabled)(), gc.isenabled()
    (False, True)
    """

    @functools.wraps(fn)
    def run(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        with collector_paused():
            return fn(*args, **kwargs)

    return run
