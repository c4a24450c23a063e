"""Which markers are recognised in which state (docs/parsing.md §1), as compiled scanners.

The parser searches the text between tag boundaries with these compiled alternations and holds back
only a proper prefix of one of the same markers (``buffer.held_from``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache

from ..model import ReasoningKind
from .buffer import MarkerSet
from .table import State

__all__ = ["CONTROL", "IM_END", "IM_START", "BlockScan", "Scan", "block_scans", "text_scans"]

IM_START = "<|im_start|>"
IM_END = "<|im_end|>"
CONTROL = (IM_START, IM_END)
CALL_OPEN, CALL_CLOSE = "<tool_call>", "</tool_call>"
RESP_OPEN, RESP_CLOSE = "<tool_response>", "</tool_response>"
TOOLS_OPEN, TOOLS_CLOSE = "<tools>", "</tools>"


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

    opener: str | None
    closer: str
    plain: Scan
    in_string: Scan
    out_full: Scan  # outside strings, with the structure characters the name detection needs
    out_min: Scan  # outside strings, quotes only


@cache
def text_scans(kinds: tuple[ReasoningKind, ...]) -> dict[State | str, Scan]:
    """The scanners of the text states; reasoning states are keyed ``reasoning:<kind>``.

    >>> text_scans(("think",))[State.GAP].pattern.pattern
    '<\\\\|im_start\\\\|>'
    """
    tags = [f"<{k}>" for k in kinds] + [f"</{k}>" for k in kinds]
    out: dict[State | str, Scan] = {
        State.GAP: _scan([IM_START]),
        State.HEADER: _scan(CONTROL, extra="\n"),
        State.ASSISTANT: _scan([*CONTROL, CALL_OPEN, CALL_CLOSE, RESP_OPEN, RESP_CLOSE, *tags]),
        State.RESULTS: _scan([*CONTROL, RESP_OPEN, RESP_CLOSE]),
        State.CATALOGUE: _scan([*CONTROL, TOOLS_OPEN, TOOLS_CLOSE]),
        State.PLAIN: _scan(CONTROL),
    }
    for k in kinds:
        out[f"reasoning:{k}"] = _scan([*CONTROL, f"</{k}>", CALL_OPEN])
    return out


# A JSON string without a control-token start (unrolled: no nested quantifier can backtrack badly).
_STRING = r'"[^"\\<]*(?:(?:\\(?:[^<]|<(?!\|im_))|<(?!\|im_))[^"\\<]*)*"'


def _block(opener: str | None, closer: str) -> BlockScan:
    ends = [*CONTROL, closer] + ([opener] if opener else [])
    return BlockScan(
        opener=opener,
        closer=closer,
        plain=_scan(ends),
        in_string=_scan(CONTROL, extra=r'["\\]'),
        out_full=_scan(ends, extra=r'["{}\[\]:,]'),
        # whole complete strings (no control-token start inside) and what lies between them (no "<"),
        # in one match, else a lone quote
        out_min=_scan(ends, extra=f'{_STRING}(?:[^"<]*{_STRING})*|"'),
    )


@cache
def block_scans() -> dict[State, BlockScan]:
    """The scanners of the block states (calls, results, catalogues)."""
    call = _block(CALL_OPEN, CALL_CLOSE)
    return {
        State.CALL: call,
        State.REASONING_CALL: call,
        State.RESPONSE: _block(RESP_OPEN, RESP_CLOSE),
        State.TOOLS: _block(None, TOOLS_CLOSE),
    }
