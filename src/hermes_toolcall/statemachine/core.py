"""The state a ``StreamParser`` carries between chunks, and the helpers every part of it uses.

``StreamParser`` is assembled from one class per job, each in its own module, each building on the
previous one: this module (the fields, the machine's current state, spans, diagnostics), ``fold``
(folding what was read into parts, turns and the result), ``blockscan`` (scanning the body of an open
call, result or catalogue block), ``textscan`` (scanning text outside blocks: markers and the
held-back suffix) and ``parser`` (the public API and the per-chunk fast paths).

The machine's state changes only through ``_fire``, which looks the transition up in the table
derived from the ``transitions`` machine (``table.NEXT``) and refreshes what the per-chunk fast paths
read: the kind of the state (``_kind``) and, in text states, its scanner and held-back prefixes.
"""

from __future__ import annotations

from collections.abc import Callable

from ..model import Diagnostic, Part, ReasoningKind, Span, Text, Turn
from ..options import ParseOptions
from .blocks import CallBlock
from .buffer import Lines
from .events import Event, new_diagnostic_event
from .jsontrack import JsonTrack
from .markers import BlockScan, Scan, block_scans, text_scans
from .messages import diagnostic
from .table import NEXT, State, Trigger, next_state

__all__ = ["K_BLOCK", "K_BODY", "K_DONE", "K_GAP", "K_HEADER", "K_REASONING", "K_TAIL", "Core", "T"]

# What the per-chunk fast paths do in each state (derived from the state only).
K_BODY = 0  # assistant, results, catalogue and plain bodies: text deltas
K_REASONING = 1  # reasoning deltas
K_GAP = 2  # between turns: text kept for the gap, no event
K_HEADER = 3  # role header: text kept, "\n" ends it
K_BLOCK = 4  # an open call, result or catalogue block
K_TAIL = 5  # after the end of a completion
K_DONE = 6

STATE_KINDS: dict[State, int] = {
    State.ASSISTANT: K_BODY,
    State.RESULTS: K_BODY,
    State.CATALOGUE: K_BODY,
    State.PLAIN: K_BODY,
    State.REASONING: K_REASONING,
    State.GAP: K_GAP,
    State.HEADER: K_HEADER,
    State.CALL: K_BLOCK,
    State.REASONING_CALL: K_BLOCK,
    State.RESPONSE: K_BLOCK,
    State.TOOLS: K_BLOCK,
    State.TAIL: K_TAIL,
    State.DONE: K_DONE,
}
assert set(STATE_KINDS) == set(State)


class T:
    """The triggers as plain class attributes: looking a member up on the ``Trigger`` enum costs
    several times more, and the parser names a trigger at every tag."""

    IM_START = Trigger.IM_START
    IM_END = Trigger.IM_END
    ROLE_ASSISTANT = Trigger.ROLE_ASSISTANT
    ROLE_RESULTS = Trigger.ROLE_RESULTS
    ROLE_CATALOGUE = Trigger.ROLE_CATALOGUE
    ROLE_PLAIN = Trigger.ROLE_PLAIN
    END_OF_COMPLETION = Trigger.END_OF_COMPLETION
    OPEN_CALL = Trigger.OPEN_CALL
    CLOSE_CALL = Trigger.CLOSE_CALL
    OPEN_REASONING = Trigger.OPEN_REASONING
    CLOSE_REASONING = Trigger.CLOSE_REASONING
    OPEN_RESPONSE = Trigger.OPEN_RESPONSE
    CLOSE_RESPONSE = Trigger.CLOSE_RESPONSE
    OPEN_TOOLS = Trigger.OPEN_TOOLS
    CLOSE_TOOLS = Trigger.CLOSE_TOOLS
    CUT = Trigger.CUT
    END_BLOCK = Trigger.END_BLOCK
    STOP = Trigger.STOP
    EOF = Trigger.EOF


assert {v for k, v in vars(T).items() if k.isupper()} == set(Trigger)

# The table derived from the machine (``table.NEXT``), indexed by state, then by trigger.
_NEXT_BY_STATE: dict[State, dict[Trigger, State]] = {state: {} for state in State}
for (_source, _trigger), _dest in NEXT.items():
    _NEXT_BY_STATE[_source][_trigger] = _dest

_NO_PREFIXES: frozenset[str] = frozenset()
_REASONING = State.REASONING


class Core:
    """The fields of a stream parser and the helpers shared by its parts (see the module docstring)."""

    options: ParseOptions
    level: str
    stream_arguments: bool
    state: State
    _kind: int
    _strict: bool
    _transcript: bool
    _scans: dict[State | str, Scan]
    _blocks: dict[State, BlockScan]
    _scan: Scan | None  # the scanner of the current text state
    _held: frozenset[str]  # proper marker prefixes that may be held back in the current text state
    _entries: dict[State, tuple[int, Scan | None, frozenset[str]]]
    _reasoning_entry: dict[str, tuple[int, Scan | None, frozenset[str]]]
    # input
    _pending: str  # held-back unread text (a possible partial marker or escape)
    _defer: list[str]  # unread chunks of an open block that cannot end it (no "<"), scanned later
    _pos: int  # absolute offset of the first unread character
    _chunks: list[str]
    _total: int
    _lines: Lines
    _span: Callable[[int, int], Span]  # _lines.span: a Span with the line:column of its start
    # output
    _events: list[Event]
    _diags: list[Diagnostic]
    _parts: list[Part]
    _turns: list[Turn]
    _gaps: list[Text]
    _valid: int
    _ordinal: int
    _text_start: int
    _text: list[str]
    # gap / header / turn
    _gap_start: int
    _turn_start: int
    _role: str
    _header: Span | None
    _body_start: int
    # reasoning segment
    _r_kind: ReasoningKind
    _r_start: int
    _r_opened: bool
    _r_text: list[str]
    # open block
    _b_start: int
    _b_inner: int
    _b_limit: int  # absolute offset past which the block is cut (max_block_chars)
    _b_text: list[str]
    _b_len: int
    _b_mode: str  # "" undecided, "plain", "json"
    _b_call: CallBlock | None
    _track: JsonTrack | None
    # completion end / stop
    _end_at: int
    _end_token: str
    _tail_text: bool
    _stopped_at: int | None
    _closed: bool

    def _init_core(self, options: ParseOptions, level: str, stream_arguments: bool) -> None:
        self.options = options
        self.level = level
        self.stream_arguments = stream_arguments
        self._strict = options.strict
        self._transcript = level == "transcript"
        self._scans = text_scans(options.profile.reasoning_kinds)
        self._blocks = block_scans()
        self._init_entries()
        self._pending = ""
        self._defer = []
        self._pos = 0
        self._chunks = []
        self._total = 0
        self._lines = Lines()
        self._span = self._lines.span
        self._events = []
        self._diags = []
        self._closed = False

    def _set_state(self, state: State) -> None:
        """Enter ``state`` (the destination of a transition of the table) and refresh the fast-path fields."""
        self.state = state
        if state is _REASONING:
            self._kind, self._scan, self._held = self._reasoning_entry[self._r_kind]
        else:
            self._kind, self._scan, self._held = self._entries[state]

    def _init_entries(self) -> None:
        """What ``_set_state`` sets for each state (reasoning: for each kind), from the scanners."""
        entries: dict[State, tuple[int, Scan | None, frozenset[str]]] = {}
        for state, kind in STATE_KINDS.items():
            scan = self._scans.get(state)
            entries[state] = (kind, scan, scan.held.prefixes if scan is not None else _NO_PREFIXES)
        self._entries = entries
        self._reasoning_entry = {}
        for key, scan in self._scans.items():
            if isinstance(key, str) and key.startswith("reasoning:"):
                r_kind = key.partition(":")[2]
                self._reasoning_entry[r_kind] = (K_REASONING, scan, scan.held.prefixes)

    def _fire(self, trigger: Trigger) -> None:
        state = _NEXT_BY_STATE[self.state].get(trigger)
        if state is None:
            next_state(self.state, trigger)  # raises MachineBug
            raise AssertionError("unreachable")
        self.state = state  # as _set_state
        if state is _REASONING:
            self._kind, self._scan, self._held = self._reasoning_entry[self._r_kind]
        else:
            self._kind, self._scan, self._held = self._entries[state]

    def _diag(self, key: str, start: int, end: int, **fields: object) -> None:
        d = diagnostic(key, self._span(start, end), strict=self._strict, **fields)
        self._diags.append(d)
        self._events.append(new_diagnostic_event(d))
