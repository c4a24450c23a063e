"""Call ids: one factory for both engines.

An id factory maps the ordinal of a ``<tool_call>`` block in the input (0, 1, 2, … counting every
block opened, valid or not) to an id. Several calls recovered from one block get the block's id,
then ``{id}_1``, ``{id}_2`` … for the later ones.
"""

from __future__ import annotations

import os
import string
from collections import deque
from collections.abc import Callable

__all__ = ["IdFactory", "openai_ids", "sequential_ids", "sub_id"]

IdFactory = Callable[[int], str]

_ALPHABET = string.ascii_letters + string.digits
# random bytes to letters without bias: the 248 values below 4 * 62 map to the alphabet (b % 62),
# the 8 above are dropped (bytes.translate's delete), all in C
_TO_ALPHABET = bytes(ord(_ALPHABET[b % 62]) for b in range(248)) + bytes(range(248, 256))
_REJECTED = bytes(range(248, 256))


def openai_ids(ordinal: int) -> str:
    """Default factory: an OpenAI-like random id ``call_`` + 24 alphanumerics (ordinal unused).

    Uniform over the 62 letters and digits, from the operating system's random source
    (``os.urandom``, as ``secrets``). The ids are made about 160 at a time from one read of
    that source and handed out in order (a thread-safe queue; a forked child starts with an empty
    one, so parent and child never share ids), about 0.1 µs per id.

    >>> len(openai_ids(0)), openai_ids(0).startswith("call_")
    (29, True)
    >>> openai_ids(0) != openai_ids(0)
    True
    """
    while True:
        try:
            return _POOL.popleft()  # atomic: two threads never get the same id
        except IndexError:
            _refill()


def _refill() -> None:
    letters = os.urandom(4096).translate(_TO_ALPHABET, _REJECTED).decode("ascii")
    _POOL.extend("call_" + letters[k : k + 24] for k in range(0, len(letters) - 23, 24))


_POOL: deque[str] = deque()
os.register_at_fork(after_in_child=_POOL.clear)


def sequential_ids(prefix: str = "call_") -> IdFactory:
    """Deterministic factory for tests and reproducible output: ``prefix`` + block ordinal.

    >>> sequential_ids()(3)
    'call_3'
    """

    def factory(ordinal: int) -> str:
        return f"{prefix}{ordinal}"

    return factory


def sub_id(block_id: str, position: int) -> str:
    """Id of the ``position``-th call recovered from one block (position 0 keeps the block id).

    >>> sub_id("call_2", 0), sub_id("call_2", 1)
    ('call_2', 'call_2_1')
    """
    return block_id if position == 0 else f"{block_id}_{position}"
