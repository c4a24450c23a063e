"""The machine's position while parsing: the state, and what the table says about it (``Cursor``).

The state changes only through ``Cursor.fire``, which looks the move up in ``table.NEXT`` (derived
from the ``transitions`` machine) and refreshes what the readers use in that state: its kind, its
reader, its scanner, the prefixes it may hold back and the moves of its markers. In checked mode
(``CheckedCursor``), every move is made by the library machine itself (``model.trigger``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._markers import Scan
from ._table import K_REASONING, NEXT, STATE_KINDS, CheckedMachine, Move, ScanKey, State, Trigger, next_state

if TYPE_CHECKING:
    from ._readers import Reader

__all__ = ["CheckedCursor", "Cursor", "Entry"]

#: What entering a state sets: (kind, reader, scanner, held-back prefixes, moves of its markers).
Entry = tuple[int, "Reader", Scan | None, frozenset[str], dict[str, Move]]

_NO_PREFIXES: frozenset[str] = frozenset()
_NO_MOVES: dict[str, Move] = {}
_REASONING = State.REASONING

# The table derived from the machine (``table.NEXT``), indexed by state, then by trigger.
_NEXT_BY_STATE: dict[State, dict[Trigger, State]] = {state: {} for state in State}
for (_source, _trigger), _dest in NEXT.items():
    _NEXT_BY_STATE[_source][_trigger] = _dest


class Cursor:
    """Where the machine is, with the per-state values the readers run on."""

    __slots__ = ("entries", "held", "kind", "moves", "reader", "reasoning", "reasoning_kind", "scan", "state")

    state: State
    kind: int
    reader: Reader
    scan: Scan | None
    held: frozenset[str]  # proper marker prefixes that may be held back now
    moves: dict[str, Move]

    def __init__(self) -> None:
        self.entries: dict[State, Entry] = {}
        self.reasoning: dict[str, Entry] = {}  # the reasoning state, per kind
        self.reasoning_kind = "think"  # the kind of the open (or next) reasoning segment

    def bind(
        self, *, scans: dict[ScanKey, Scan], moves: dict[ScanKey, dict[str, Move]], readers: dict[int, Reader]
    ) -> None:
        """What entering each state sets: from the scanners, the table's moves and the readers."""
        for state, kind in STATE_KINDS.items():
            scan = scans.get(state)
            held = scan.held.prefixes if scan is not None else _NO_PREFIXES
            self.entries[state] = (kind, readers[kind], scan, held, moves.get(state, _NO_MOVES))
        for key, scan in scans.items():
            if isinstance(key, str):
                r_kind = key.partition(":")[2]
                self.reasoning[r_kind] = (K_REASONING, readers[K_REASONING], scan, scan.held.prefixes, moves[key])

    def enter(self, state: State) -> None:
        """Be in ``state`` without a move (the start state)."""
        self.state = state
        self._refresh(state)

    def _refresh(self, state: State) -> None:
        entry = self.reasoning[self.reasoning_kind] if state is _REASONING else self.entries[state]
        self.kind, self.reader, self.scan, self.held, self.moves = entry

    def fire(self, trigger: Trigger) -> None:
        """Make the table's move for ``trigger`` from the current state.

        Raises:
            MachineBug: the machine does not allow ``trigger`` here.
        """
        state = _NEXT_BY_STATE[self.state].get(trigger)
        if state is None:
            next_state(self.state, trigger)  # raises MachineBug
            raise AssertionError("unreachable")
        self.state = state
        entry = self.reasoning[self.reasoning_kind] if state is _REASONING else self.entries[state]
        self.kind, self.reader, self.scan, self.held, self.moves = entry


class CheckedCursor(Cursor):
    """A ``Cursor`` whose every move is made by the ``transitions`` machine (checked mode)."""

    __slots__ = ("checked",)

    def __init__(self) -> None:
        super().__init__()
        self.checked = CheckedMachine(State.GAP)

    def enter(self, state: State) -> None:
        self.checked.enter(state)
        super().enter(state)

    def fire(self, trigger: Trigger) -> None:
        """The library machine's move (``CheckedMachine.move``); a refused or different one raises."""
        self.state = self.checked.move(self.state, trigger)
        self._refresh(self.state)
