"""Call ids: one factory for both engines.

An id factory maps the ordinal of a ``<tool_call>`` block in the input (0, 1, 2, … counting every
block opened, valid or not) to an id. Several calls recovered from one block get the block's id,
then ``{id}_1``, ``{id}_2`` … for the later ones.
"""

from __future__ import annotations

import secrets
import string
from collections.abc import Callable

__all__ = ["IdFactory", "openai_ids", "sequential_ids", "sub_id"]

IdFactory = Callable[[int], str]

_ALPHABET = string.ascii_letters + string.digits


def openai_ids(ordinal: int) -> str:
    """Default factory: an OpenAI-like random id ``call_`` + 24 alphanumerics (ordinal unused).

    >>> len(openai_ids(0)), openai_ids(0).startswith("call_")
    (29, True)
    """
    return "call_" + "".join(secrets.choice(_ALPHABET) for _ in range(24))


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
