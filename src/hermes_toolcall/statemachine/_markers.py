"""The scanners of each state (docs/parsing.md §1), compiled from the move table (``_table.ROWS``).

The readers search the text between tag boundaries with these compiled alternations and hold back
only a proper prefix of one of the same markers (``_buffer.held_from``). Every marker of a state's
scanner is a key of its ``_table.moves`` row set, and the reverse (``tests/test_statemachine.py``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache

from .. import tags
from .._model import ReasoningKind
from ._buffer import MarkerSet
from ._table import BLOCK_STATES, JSON_BLOCKS, Action, Marker, ScanKey, State, config_of, key_state, markers_of, moves

__all__ = ["BlockScan", "Scan", "block_scans", "text_scans"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Scan:
    """A compiled alternation of markers and the set of their proper prefixes (for holding back)."""

    pattern: re.Pattern[str]
    held: MarkerSet


def _scan(markers: Iterable[str], extra: str = "") -> Scan:
    ms = sorted(set(markers), key=len, reverse=True)
    alternatives = [extra] if extra else []
    alternatives += [re.escape(m) for m in ms]
    return Scan(pattern=re.compile("|".join(alternatives)), held=MarkerSet(ms))


@dataclass(frozen=True, slots=True, kw_only=True)
class BlockScan:
    """Scanners of one kind of block body: plain mode, and JSON-aware mode inside/outside strings."""

    opener: str | None  # the block's own opener when it ends the block (REOPEN_BLOCK); also: JSON-aware
    closer: str
    plain: Scan
    in_string: Scan
    out_full: Scan  # outside strings, with the structure characters the name detection needs
    out_min: Scan  # outside strings, quotes only


@cache
def text_scans(kinds: tuple[ReasoningKind, ...]) -> dict[ScanKey, Scan]:
    """The scanners of the text states; reasoning states are keyed ``reasoning:<kind>``.

    >>> text_scans(("think",))[State.GAP].pattern.pattern
    '<\\\\|im_start\\\\|>'
    """
    return {
        key: _scan(markers)
        for key, markers in markers_of(kinds).items()
        if key_state(key) not in BLOCK_STATES and markers
    }


def _shared_start(words: tuple[str, ...]) -> str:
    """The longest start all of ``words`` share."""
    k = 0
    while all(len(w) > k and w[k] == words[0][k] for w in words):
        k += 1
    return words[0][:k]


# The start every control token shares ("<|im_"): inside a JSON string it still ends the block (R2).
_CONTROL_START = re.escape(_shared_start(tags.CONTROL)[1:])
# A JSON string without a control-token start (unrolled: no nested quantifier can backtrack badly).
_STRING = rf'"[^"\\<]*(?:(?:\\(?:[^<]|<(?!{_CONTROL_START}))|<(?!{_CONTROL_START}))[^"\\<]*)*"'


_CLOSES = (Action.CLOSE_BLOCK, Action.CLOSE_HELD)
_REOPENS = (Action.REOPEN_BLOCK, Action.REHOLD)


def _block(state: State) -> BlockScan:
    kinds: tuple[ReasoningKind, ...] = ("think",)  # a block's markers do not depend on the reasoning kinds
    key = next(k for k in markers_of(kinds) if key_state(k) is state)
    table = moves(config_of("transcript", kinds))[key]
    # (a held block's reasoning closer is watched for outside the block's reading: ``_readers.WatchReader``)
    ends = tuple(m for m in markers_of(kinds)[key] if table[m].marker is not Marker.CLOSE_REASONING)
    closer = next(m for m, move in table.items() if move.action in _CLOSES)
    opener = next((m for m, move in table.items() if move.action in _REOPENS), None)
    assert (opener is not None) == (state in JSON_BLOCKS)
    return BlockScan(
        opener=opener,
        closer=closer,
        plain=_scan(ends),
        in_string=_scan(tags.CONTROL, extra=r'["\\]'),
        out_full=_scan(ends, extra=r'["{}\[\]:,]'),
        # whole complete strings (no control-token start inside) and what lies between them (no "<"),
        # in one match, else a lone quote
        out_min=_scan(ends, extra=f'{_STRING}(?:[^"<]*{_STRING})*|"'),
    )


@cache
def block_scans() -> dict[State, BlockScan]:
    """The scanners of the block states (calls, results, catalogues).

    >>> block_scans()[State.CALL].closer
    '</tool_call>'
    """
    return {state: _block(state) for state in BLOCK_STATES}
