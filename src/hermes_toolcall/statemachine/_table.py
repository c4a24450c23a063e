"""The streaming machine as one table: ``(state, marker) -> (next state, action)``.

This module is the one place with state-machine knowledge. ``ROWS`` says, for each state and each
marker that can occur in it, where the machine goes and what the assembler does (docs/parsing.md
§1, §3, §4). A marker is a tag the scanners find (``call_open`` is ``<tool_call>``, ``newline`` ends
a role header) or an occurrence the engine meets without scanning for it: the role a header named
(``role_assistant``, …, ``role_other``), a block that reached ``max_block_chars`` (``cut``) and the
end of the input (``eof``). A row applies always, at one level, or with one option on or off
(``when``); a row without a next state keeps the machine where it is (the marker stays text of the
state, after a diagnostic).

Everything else derives from ``ROWS``:

- ``build_machine``: a ``transitions.Machine`` whose triggers are the markers and whose transitions
  are the rows with a next state (their ``when`` as conditions on the model's flags). Checked mode
  (``CheckedMachine``) makes every move of a parser on it.
- ``next_table(config)``: the plain ``(state, marker) -> state`` lookup *derived from that machine*
  for one configuration (a library trigger costs microseconds, a dict lookup tens of nanoseconds);
  ``NEXT`` is the table of every configuration's pairs.
- ``moves(config)``: per state key and marker literal, the ``Move`` a parser makes (its action from
  the row, its next state from ``next_table``); ``markers_of``: the literals each state scans for,
  whence the scanners and held-back prefixes (``_markers``), and the diagram of docs/statemachine.md.

A *state key* is a ``State``, or ``reasoning:<kind>`` / ``reasoning_call:<kind>`` for the reasoning
states of one reasoning kind (their closer, and where a call inside them returns, differ by kind).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from enum import Enum
from functools import cache
from typing import Any

from transitions import Machine, MachineError

from .. import tags
from .._model import ReasoningKind
from ..errors import MachineBug

__all__ = [
    "ACTIONS",
    "BLOCK_STATES",
    "CONDITIONS",
    "JSON_BLOCKS",
    "NEXT",
    "ROLE_MARKERS",
    "ROWS",
    "SCANNED",
    "STATE_KINDS",
    "Action",
    "CheckedMachine",
    "Config",
    "Marker",
    "Move",
    "Row",
    "ScanKey",
    "State",
    "build_machine",
    "checked_mode",
    "config_of",
    "configs",
    "key_state",
    "marker_literals",
    "markers_of",
    "moves",
    "next_table",
    "role_marker",
    "state_keys",
]


class State(str, Enum):  # noqa: UP042  (str() and format() of members stay as they were)
    """Where the scanner is. Assistant bodies and completions share ``ASSISTANT``."""

    GAP = "gap"  # transcript: between turns
    HEADER = "header"  # transcript: after <|im_start|>, reading the role
    ASSISTANT = "assistant"  # assistant body / completion (OUTSIDE of docs/parsing.md §4)
    RESULTS = "results"  # user and tool bodies
    CATALOGUE = "catalogue"  # system and developer bodies
    PLAIN = "plain"  # bodies of unknown roles: all text
    CALL = "call"  # <tool_call> block opened in ASSISTANT
    REASONING = "reasoning"  # <think> / <scratch_pad> block
    REASONING_CALL = "reasoning_call"  # <tool_call> block opened inside reasoning (calls_in_reasoning)
    RESPONSE = "response"  # <tool_response> block in a results body
    TOOLS = "tools"  # <tools> block in a catalogue body
    BARE = "bare"  # after a <function= in ASSISTANT: held until it is a complete bare function (HT234) or text
    HELD = "held"  # <tool_call> block in reasoning (not calls_in_reasoning): held, it may end the output (HT242)
    HELD_AFTER = "held_after"  # after a held block: whitespace held; a call opener, the end, or text decides
    TAIL = "tail"  # completion ended by a control token, or stopped at a fabricated result
    DONE = "done"  # close() was called


class Marker(str, Enum):  # noqa: UP042
    """What moves the machine: a scanned tag, or an occurrence the engine meets (role, cut, end).

    Each member is a trigger of the ``transitions`` machine.
    """

    IM_START = "im_start"
    IM_END = "im_end"
    NEWLINE = "newline"  # the line ends of a role header: the scanned markers that are not tags
    CRLF = "crlf"
    CR = "cr"  # a lone CR ("\r" is a proper prefix of "\r\n": held back when it ends the data read so far)
    CALL_OPEN = "call_open"
    CALL_CLOSE = "call_close"
    RESPONSE_OPEN = "response_open"
    RESPONSE_CLOSE = "response_close"
    TOOLS_OPEN = "tools_open"
    TOOLS_CLOSE = "tools_close"
    OPEN_REASONING = "open_reasoning"  # the opener of any enabled reasoning kind
    CLOSE_REASONING = "close_reasoning"  # a closer (in reasoning: only the open segment's own)
    ROLE_ASSISTANT = "role_assistant"
    ROLE_RESULTS = "role_results"  # user, tool
    ROLE_CATALOGUE = "role_catalogue"  # system, developer
    ROLE_OTHER = "role_other"  # any other role (HT004)
    FUNCTION_OPEN = "function_open"  # <function= in assistant text: a bare function may start
    BARE_CALL = "bare_call"  # the held <function= is a complete bare function (a call, HT234)
    BARE_TEXT = "bare_text"  # the held <function= is text (its rest is read again as assistant text)
    HELD_TEXT = "held_text"  # text after held blocks in reasoning (or a plain body): they are reasoning text
    HELD_LONG = "held_long"  # the held run passed its bound (one block's room): it is reasoning text
    CUT = "cut"  # the open block reached max_block_chars
    EOF = "eof"  # close()


class Action(Enum):
    """What the assembler does when a marker is met (the move is the row's)."""

    BEGIN_TURN = "begin_turn"  # <|im_start|> between turns: the gap ends, a header starts
    READ_ROLE = "read_role"  # the line end after the role: the role's row decides the move
    END_HEADER = "end_header"  # the role's row: the header is folded, the role's body starts
    BAD_HEADER = "bad_header"  # a control token inside a header (HT003): the turn ends
    END_TURN = "end_turn"  # <|im_end|> in a body or block: block, body and turn end
    NEW_TURN = "new_turn"  # <|im_start|> in a body or block (HT001): the turn ends, the next starts
    END_COMPLETION = "end_completion"  # a control token at completion level: the completion ends
    OPEN_BLOCK = "open_block"  # a block opener in its body: text flushed, the block starts
    CLOSE_BLOCK = "close_block"  # the block's closer: the block is folded
    REOPEN_BLOCK = "reopen_block"  # the block's opener inside it: it ends unterminated, a new one starts
    CUT_BLOCK = "cut_block"  # the block reached max_block_chars: it is folded, cut (HT114)
    OPEN_REASONING = "open_reasoning"  # <think> / <scratch_pad>: a reasoning segment starts
    CLOSE_REASONING = "close_reasoning"  # its closer: the segment ends
    SPLIT_REASONING = "split_reasoning"  # <tool_call> in reasoning (calls_in_reasoning): segment ends, call opens
    DIAG_STRAY = "diag_stray"  # a closer with nothing open (HT121): kept as text
    DIAG_FABRICATED = "diag_fabricated"  # <tool_response> in an assistant body (HT122): kept as text
    HOLD_CALL = "hold_call"  # <tool_call> in reasoning (not calls_in_reasoning): its block is held, no event
    HOLD_NEXT = "hold_next"  # <tool_call> after held blocks and whitespace: the next block is held
    CLOSE_HELD = "close_held"  # a held block's closer
    REHOLD = "rehold"  # <tool_call> inside a held block: it ends unterminated, the next is held
    CUT_HELD = "cut_held"  # a held block reached max_block_chars
    DROP_HELD = "drop_held"  # text after held blocks: all held is reasoning text again (HT124 each tag)
    DROP_HELD_CLOSE = "drop_held_close"  # the reasoning's closer: all held is reasoning text, then it closes
    STOP = "stop"  # <tool_response> in an assistant body with stop_at_fabricated_response (HT122)
    HOLD_BARE = "hold_bare"  # <function= in assistant text: held (no event) while it may be a bare function
    END_BARE = "end_bare"  # the bare function is complete: the text run ends, the call is folded (HT234)
    DROP_BARE = "drop_bare"  # it is not: the tag is text of the run, which goes on
    FINISH = "finish"  # the end of the input: whatever is open is closed


S, M, A = State, Marker, Action
_BODIES = (S.ASSISTANT, S.RESULTS, S.CATALOGUE, S.PLAIN)
#: The block states (their reader is a block reader, made anew for each block).
BLOCK_STATES = (S.CALL, S.REASONING_CALL, S.RESPONSE, S.TOOLS, S.HELD)
#: Block states whose body is read JSON-aware when it starts with ``{`` or ``[`` (others: plain).
JSON_BLOCKS: frozenset[State] = frozenset({S.CALL, S.REASONING_CALL, S.RESPONSE, S.HELD})
_OPEN = (*_BODIES, S.REASONING, *BLOCK_STATES, S.HELD_AFTER)  # where a turn's body is open
_COMPLETION_OPEN = (S.ASSISTANT, S.REASONING, S.CALL, S.REASONING_CALL, S.HELD, S.HELD_AFTER)  # in a completion

#: When a row applies: always, at one level, or with one option on or off.
CONDITIONS = (
    "",
    "completion",
    "transcript",
    "calls_in_reasoning",
    "not calls_in_reasoning",
    "stop_at_fabricated_response",
    "not stop_at_fabricated_response",
)
_FLAGS = ("completion", "transcript", "calls_in_reasoning", "stop_at_fabricated_response")


@dataclass(frozen=True, slots=True, kw_only=True)
class Row:
    """One row of ``ROWS``: in each of ``states``, each of ``markers`` moves to ``next`` (None: stays)
    and the assembler takes ``action``; ``when`` is the row's condition (``CONDITIONS``)."""

    states: tuple[State, ...]
    markers: tuple[Marker, ...]
    next: State | None
    action: Action
    when: str = ""


def _row(
    states: tuple[State, ...], markers: tuple[Marker, ...], nxt: State | None, action: Action, when: str = ""
) -> Row:
    return Row(states=states, markers=markers, next=nxt, action=action, when=when)


#: The whole machine (docs/parsing.md §1, §3, §4).
ROWS: tuple[Row, ...] = (
    _row((S.GAP,), (M.IM_START,), S.HEADER, A.BEGIN_TURN),
    _row((S.HEADER,), (M.NEWLINE, M.CRLF, M.CR), None, A.READ_ROLE),
    _row((S.HEADER,), (M.ROLE_ASSISTANT,), S.ASSISTANT, A.END_HEADER),
    _row((S.HEADER,), (M.ROLE_RESULTS,), S.RESULTS, A.END_HEADER),
    _row((S.HEADER,), (M.ROLE_CATALOGUE,), S.CATALOGUE, A.END_HEADER),
    _row((S.HEADER,), (M.ROLE_OTHER,), S.PLAIN, A.END_HEADER),
    _row((S.HEADER,), (M.IM_START,), S.HEADER, A.BAD_HEADER),
    _row((S.HEADER,), (M.IM_END,), S.GAP, A.BAD_HEADER),
    _row(_OPEN, (M.IM_END,), S.GAP, A.END_TURN, "transcript"),
    _row(_OPEN, (M.IM_START,), S.HEADER, A.NEW_TURN, "transcript"),
    _row(_COMPLETION_OPEN, (M.IM_START, M.IM_END), S.TAIL, A.END_COMPLETION, "completion"),
    _row((S.ASSISTANT,), (M.CALL_OPEN,), S.CALL, A.OPEN_BLOCK),
    _row((S.ASSISTANT,), (M.OPEN_REASONING,), S.REASONING, A.OPEN_REASONING),
    _row((S.ASSISTANT,), (M.CALL_CLOSE, M.RESPONSE_CLOSE, M.CLOSE_REASONING), None, A.DIAG_STRAY),
    _row((S.ASSISTANT,), (M.FUNCTION_OPEN,), S.BARE, A.HOLD_BARE),
    _row((S.BARE,), (M.BARE_CALL,), S.ASSISTANT, A.END_BARE),
    _row((S.BARE,), (M.BARE_TEXT,), S.ASSISTANT, A.DROP_BARE),
    _row((S.ASSISTANT,), (M.RESPONSE_OPEN,), S.TAIL, A.STOP, "stop_at_fabricated_response"),
    _row((S.ASSISTANT,), (M.RESPONSE_OPEN,), None, A.DIAG_FABRICATED, "not stop_at_fabricated_response"),
    _row((S.REASONING,), (M.CLOSE_REASONING,), S.ASSISTANT, A.CLOSE_REASONING),
    _row((S.REASONING,), (M.CALL_OPEN,), S.REASONING_CALL, A.SPLIT_REASONING, "calls_in_reasoning"),
    _row((S.REASONING,), (M.CALL_OPEN,), S.HELD, A.HOLD_CALL, "not calls_in_reasoning"),
    _row((S.HELD,), (M.CALL_CLOSE,), S.HELD_AFTER, A.CLOSE_HELD),
    _row((S.HELD,), (M.CALL_OPEN,), S.HELD, A.REHOLD),
    _row((S.HELD,), (M.CUT,), S.HELD_AFTER, A.CUT_HELD),
    _row((S.HELD_AFTER,), (M.CALL_OPEN,), S.HELD, A.HOLD_NEXT),
    _row((S.HELD, S.HELD_AFTER), (M.HELD_TEXT,), S.REASONING, A.DROP_HELD),
    _row((S.HELD, S.HELD_AFTER), (M.HELD_LONG,), S.REASONING, A.DROP_HELD),
    _row((S.HELD, S.HELD_AFTER), (M.CLOSE_REASONING,), S.ASSISTANT, A.DROP_HELD_CLOSE),
    _row((S.RESULTS,), (M.RESPONSE_OPEN,), S.RESPONSE, A.OPEN_BLOCK),
    _row((S.RESULTS,), (M.RESPONSE_CLOSE,), None, A.DIAG_STRAY),
    _row((S.CATALOGUE,), (M.TOOLS_OPEN,), S.TOOLS, A.OPEN_BLOCK),
    _row((S.CATALOGUE,), (M.TOOLS_CLOSE,), None, A.DIAG_STRAY),
    _row((S.CALL,), (M.CALL_CLOSE,), S.ASSISTANT, A.CLOSE_BLOCK),
    _row((S.CALL,), (M.CALL_OPEN,), S.CALL, A.REOPEN_BLOCK),
    _row((S.CALL,), (M.CUT,), S.ASSISTANT, A.CUT_BLOCK),
    _row((S.REASONING_CALL,), (M.CALL_CLOSE,), S.REASONING, A.CLOSE_BLOCK),
    _row((S.REASONING_CALL,), (M.CALL_OPEN,), S.REASONING_CALL, A.REOPEN_BLOCK),
    _row((S.REASONING_CALL,), (M.CUT,), S.REASONING, A.CUT_BLOCK),
    _row((S.RESPONSE,), (M.RESPONSE_CLOSE,), S.RESULTS, A.CLOSE_BLOCK),
    _row((S.RESPONSE,), (M.RESPONSE_OPEN,), S.RESPONSE, A.REOPEN_BLOCK),
    _row((S.RESPONSE,), (M.CUT,), S.RESULTS, A.CUT_BLOCK),
    _row((S.TOOLS,), (M.TOOLS_CLOSE,), S.CATALOGUE, A.CLOSE_BLOCK),
    _row((S.TOOLS,), (M.CUT,), S.CATALOGUE, A.CUT_BLOCK),
    _row(tuple(s for s in State if s is not S.DONE), (M.EOF,), S.DONE, A.FINISH),
)

#: The markers the scanners look for, as literals (the reasoning ones resolve per kind).
SCANNED: dict[Marker, str] = {
    M.IM_START: tags.IM_START,
    M.IM_END: tags.IM_END,
    M.NEWLINE: "\n",
    M.CRLF: "\r\n",
    M.CR: "\r",
    M.CALL_OPEN: tags.CALL_OPEN,
    M.CALL_CLOSE: tags.CALL_CLOSE,
    M.RESPONSE_OPEN: tags.RESP_OPEN,
    M.RESPONSE_CLOSE: tags.RESP_CLOSE,
    M.TOOLS_OPEN: tags.TOOLS_OPEN,
    M.TOOLS_CLOSE: tags.TOOLS_CLOSE,
    M.FUNCTION_OPEN: tags.FUNCTION_OPEN,
}

#: The role a header names -> its marker (any other role: ``role_other``, HT004).
ROLE_MARKERS: dict[str, Marker] = {
    tags.ASSISTANT: M.ROLE_ASSISTANT,
    tags.USER: M.ROLE_RESULTS,
    tags.TOOL: M.ROLE_RESULTS,
    tags.TOOL_RESPONSE: M.ROLE_RESULTS,
    tags.SYSTEM: M.ROLE_CATALOGUE,
    tags.DEVELOPER: M.ROLE_CATALOGUE,
}


_ROLE_NAMES: dict[str, str] = {role: marker.value for role, marker in ROLE_MARKERS.items()}


def role_marker(role: str) -> str:
    """The name of the marker of a header's role.

    >>> role_marker("tool"), role_marker("narrator")
    ('role_results', 'role_other')
    """
    return _ROLE_NAMES.get(role, "role_other")


# ---------------------------------------------------------------------------------------- state kinds

# Which reader runs in each state.
K_BODY = 0  # assistant, results, catalogue and plain bodies: text deltas
K_REASONING = 1  # reasoning deltas
K_GAP = 2  # between turns: text kept for the gap, no event
K_HEADER = 3  # role header: text kept, a line end ("\r\n", "\n", a lone "\r") ends it
K_BLOCK = 4  # an open call, result or catalogue block
K_TAIL = 5  # after the end of a completion
K_DONE = 6
K_BARE = 7  # a held bare function: its reader is made at each entry
K_HELD_AFTER = 8  # after a held block in reasoning: whitespace, then a marker or text decides

STATE_KINDS: dict[State, int] = {
    S.ASSISTANT: K_BODY,
    S.RESULTS: K_BODY,
    S.CATALOGUE: K_BODY,
    S.PLAIN: K_BODY,
    S.REASONING: K_REASONING,
    S.GAP: K_GAP,
    S.HEADER: K_HEADER,
    S.CALL: K_BLOCK,
    S.REASONING_CALL: K_BLOCK,
    S.RESPONSE: K_BLOCK,
    S.TOOLS: K_BLOCK,
    S.BARE: K_BARE,
    S.HELD: K_BLOCK,
    S.HELD_AFTER: K_HELD_AFTER,
    S.TAIL: K_TAIL,
    S.DONE: K_DONE,
}

# ---------------------------------------------------------------------------------------- configurations


@dataclass(frozen=True, slots=True, kw_only=True)
class Config:
    """What selects the rows of one parser: its level, reasoning kinds and the two options of ``when``."""

    level: str
    kinds: tuple[ReasoningKind, ...]
    calls_in_reasoning: bool = False
    stop_at_fabricated_response: bool = False

    @property
    def flags(self) -> frozenset[str]:
        """The conditions that hold (``CONDITIONS`` without ``not``)."""
        out = {self.level}
        if self.calls_in_reasoning:
            out.add("calls_in_reasoning")
        if self.stop_at_fabricated_response:
            out.add("stop_at_fabricated_response")
        return frozenset(out)


@cache
def config_of(
    level: str, kinds: tuple[ReasoningKind, ...], calls_in_reasoning: bool = False, stop: bool = False
) -> Config:
    """The configuration of a parser (cached: one value per configuration)."""
    return Config(level=level, kinds=kinds, calls_in_reasoning=calls_in_reasoning, stop_at_fabricated_response=stop)


def configs(kinds: tuple[ReasoningKind, ...] = tags.REASONING_KINDS) -> list[Config]:
    """Every configuration of the rows' conditions (both levels, each option on and off)."""
    return [
        config_of(level, kinds, calls, stop)
        for level in ("completion", "transcript")
        for calls in (False, True)
        for stop in (False, True)
    ]


def _applies(when: str, flags: frozenset[str]) -> bool:
    if not when:
        return True
    if when.startswith("not "):
        return when[4:] not in flags
    return when in flags


#: A state, or ``reasoning:<kind>`` / ``reasoning_call:<kind>`` for the reasoning states of one kind.
ScanKey = State | str

_KINDED = (S.REASONING, S.REASONING_CALL, S.HELD, S.HELD_AFTER)


def state_keys(kinds: tuple[ReasoningKind, ...]) -> list[tuple[ScanKey, State, ReasoningKind | None]]:
    """Every state key of a configuration: (key, its state, its reasoning kind)."""
    out: list[tuple[ScanKey, State, ReasoningKind | None]] = [(s, s, None) for s in State if s not in _KINDED]
    out += [(f"{s.value}:{k}", s, k) for s in _KINDED for k in kinds]
    return out


def key_state(key: ScanKey) -> State:
    """The state of a state key.

    >>> key_state("reasoning_call:think")
    <State.REASONING_CALL: 'reasoning_call'>
    """
    return key if isinstance(key, State) else State(key.partition(":")[0])


def _key(state: State, kind: ReasoningKind | None) -> ScanKey:
    return f"{state.value}:{kind}" if state in _KINDED else state


def marker_literals(
    marker: Marker, state: State, kinds: tuple[ReasoningKind, ...], kind: ReasoningKind | None
) -> list[str]:
    """The literals the scanners find for ``marker`` in ``state`` (of reasoning kind ``kind``); none
    for the markers the engine meets without scanning (roles, ``cut``, ``eof``).

    >>> marker_literals(Marker.CLOSE_REASONING, State.REASONING, ("think", "scratch_pad"), "think")
    ['</think>']
    """
    if marker is M.OPEN_REASONING:
        return [tags.OPEN[k] for k in kinds]
    if marker is M.CLOSE_REASONING:
        return [tags.CLOSE[kind]] if kind is not None else [tags.CLOSE[k] for k in kinds]
    literal = SCANNED.get(marker)
    return [literal] if literal is not None else []


# ---------------------------------------------------------------------------------------- the library machine


class MachineModel:
    """The object the ``transitions`` machine drives: its ``state`` and the configuration's flags."""

    state: str

    def __init__(self, config: Config) -> None:
        flags = config.flags
        for flag in _FLAGS:
            setattr(self, flag, flag in flags)


def build_machine(config: Config, initial: State = State.GAP) -> tuple[Machine, MachineModel]:
    """A ``transitions.Machine`` built from ``ROWS`` (no auto transitions), with its model.

    >>> machine, model = build_machine(config_of("completion", ("think",)), State.ASSISTANT)
    >>> model.trigger("call_open") and model.state
    'call'
    """
    transitions: list[dict[str, Any]] = []
    for row in ROWS:
        if row.next is None:
            continue
        condition: dict[str, str] = {}
        if row.when.startswith("not "):
            condition["unless"] = row.when[4:]
        elif row.when:
            condition["conditions"] = row.when
        for marker in row.markers:
            transitions.append(
                {"trigger": marker.value, "source": [s.value for s in row.states], "dest": row.next.value, **condition}
            )
    model = MachineModel(config)
    machine = Machine(
        model=model,
        states=[s.value for s in State],
        transitions=transitions,
        initial=initial.value,
        auto_transitions=False,
        ignore_invalid_triggers=False,
    )
    return machine, model


def allowed_by_machine(machine: Machine, model: MachineModel, state: State, marker: Marker) -> State | None:
    """Fire ``marker`` on the library machine from ``state``; the destination, or None if none applies."""
    machine.set_state(state.value, model)
    try:
        moved = model.trigger(marker.value)  # type: ignore[attr-defined]
    except (MachineError, AttributeError):  # refused, or a marker no row moves on
        return None
    return State(model.state) if moved else None


@cache
def next_table(config: Config) -> dict[tuple[State, Marker], State]:
    """The plain lookup equivalent to the library machine in ``config``: every (state, marker) that
    moves -> its destination.

    >>> next_table(config_of("transcript", ()))[(State.GAP, Marker.IM_START)]
    <State.HEADER: 'header'>
    """
    machine, model = build_machine(config)
    table: dict[tuple[State, Marker], State] = {}
    for state in State:
        for marker in Marker:
            dest = allowed_by_machine(machine, model, state, marker)
            if dest is not None:
                table[(state, marker)] = dest
    return table


#: Every (state, marker) -> destination of some configuration (the same in all where they overlap
#: but for the level's control tokens): the machine of each configuration is ``next_table(config)``.
NEXT: dict[tuple[State, Marker], frozenset[State]] = {}
for _config in configs():
    for _pair, _dest in next_table(_config).items():
        NEXT[_pair] = NEXT.get(_pair, frozenset()) | {_dest}


# ---------------------------------------------------------------------------------------- moves


@dataclass(frozen=True, slots=True, kw_only=True)
class Move:
    """What a marker does in one state key: the action, and the next state key (None: stay).

    ``marker`` is the row's marker (the ``transitions`` trigger); ``keep`` says the marker's text stays
    text of the state (a row without a move).
    """

    marker: Marker
    action: Action
    act: int  # the action's index in ``ACTIONS`` (an Enum member's hash is slow)
    next: ScanKey | None
    state: State | None  # the next key's state
    keep: bool


def _next_key(state: State, marker: Marker, literal: str, dest: State, kind: ReasoningKind | None) -> ScanKey:
    """The key of ``dest`` entered from ``state`` of ``kind`` by ``literal``: a reasoning opener gives its
    kind; a reasoning state keeps the kind it was entered with."""
    if dest not in _KINDED:
        return dest
    if marker is M.OPEN_REASONING:
        return _key(dest, _OPENER_KIND[literal])
    assert kind is not None, (state, marker, dest)
    return _key(dest, kind)


_OPENER_KIND: dict[str, ReasoningKind] = {opener: kind for kind, opener in tags.OPEN.items()}
#: The actions in a fixed order: ``Move.act`` indexes it.
ACTIONS: tuple[Action, ...] = tuple(Action)
_ACT: dict[Action, int] = {action: k for k, action in enumerate(ACTIONS)}


@cache
def moves(config: Config) -> dict[ScanKey, dict[str, Move]]:
    """The rows that apply in ``config``, as ``{state key: {marker literal or name: Move}}``.

    Scanned markers are keyed by their literal; the others (roles, ``cut``, ``eof``) by their name.

    >>> moves(config_of("completion", ("think",)))["reasoning:think"]["</think>"].next
    <State.ASSISTANT: 'assistant'>

    Raises:
        MachineBug: two rows give one marker in one state (the table is ambiguous).
    """
    flags = config.flags
    dests = next_table(config)
    out: dict[ScanKey, dict[str, Move]] = {}
    for key, state, kind in state_keys(config.kinds):
        table: dict[str, Move] = {}
        for row in ROWS:
            if state not in row.states or not _applies(row.when, flags):
                continue
            for marker in row.markers:
                scanned = marker in _SCANNABLE
                literals = marker_literals(marker, state, config.kinds, kind) if scanned else [marker.value]
                for literal in literals:
                    if literal in table:
                        raise MachineBug(f"two rows for {literal!r} in {key}")
                    dest = dests.get((state, marker))
                    if (dest is None) != (row.next is None):
                        raise MachineBug(f"{state.value} --{marker.value}--> differs from the machine's")
                    nxt = None if dest is None else _next_key(state, marker, literal, dest, kind)
                    table[literal] = Move(
                        marker=marker, action=row.action, act=_ACT[row.action], next=nxt, state=dest, keep=dest is None
                    )
        out[key] = table
    return out


_SCANNABLE = frozenset({*SCANNED, M.OPEN_REASONING, M.CLOSE_REASONING})


@cache
def markers_of(kinds: tuple[ReasoningKind, ...]) -> dict[ScanKey, tuple[str, ...]]:
    """The literals each state key scans for: those of its rows under any condition (so the same at
    both levels and for every option), longest first.

    >>> markers_of(("think",))[State.GAP]
    ('<|im_start|>',)
    """
    out: dict[ScanKey, tuple[str, ...]] = {}
    for key, state, kind in state_keys(kinds):
        seen = {
            literal
            for row in ROWS
            if state in row.states
            for marker in row.markers
            for literal in marker_literals(marker, state, kinds, kind)
        }
        out[key] = tuple(sorted(seen, key=lambda m: (-len(m), m)))
    return out


# ---------------------------------------------------------------------------------------- checked mode


def checked_mode() -> bool:
    """True when ``HERMES_TOOLCALL_CHECKED=1``: parsers made now run every move through the library machine."""
    return os.environ.get("HERMES_TOOLCALL_CHECKED", "") == "1"


class CheckedMachine:
    """The ``transitions`` machine run beside a parser (checked mode): every move is the library's.

    >>> checked = CheckedMachine(config_of("completion", ()), State.ASSISTANT)
    >>> checked.move(State.ASSISTANT, Marker.CALL_OPEN, State.CALL)
    <State.CALL: 'call'>
    """

    __slots__ = ("machine", "model")

    def __init__(self, config: Config, initial: State) -> None:
        self.machine, self.model = build_machine(config, initial)

    @property
    def state(self) -> State:
        """The library machine's state."""
        return State(self.model.state)

    def enter(self, state: State) -> None:
        """The parser starts in ``state`` (no move)."""
        self.machine.set_state(state.value, self.model)

    def move(self, state: State, marker: Marker, dest: State) -> State:
        """Fire ``marker`` on the library machine, which must be in ``state``; its destination, which
        must be ``dest`` (the move the parser's table gives).

        Raises:
            MachineBug: the library machine is elsewhere, refuses the marker, or lands elsewhere than
                the parser's table says.
        """
        if self.model.state != state.value:
            raise MachineBug(f"the machine is in {self.model.state}, the parser in {state.value}")
        try:
            moved = self.model.trigger(marker.value)  # type: ignore[attr-defined]
        except (MachineError, AttributeError):
            moved = False
        if not moved:
            raise MachineBug(f"trigger {marker.value} refused in state {state.value}")
        got = State(self.model.state)
        if got is not dest:
            raise MachineBug(f"{state.value} --{marker.value}--> {got.value} is not the table's move ({dest.value})")
        return got
