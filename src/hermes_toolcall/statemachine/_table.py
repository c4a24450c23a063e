"""The streaming machine as one table: states, triggers, transitions and what each marker does.

This module is the one place with state-machine knowledge:

- ``TRANSITIONS``: (trigger, sources, destination), handed to the ``transitions`` library
  (``auto_transitions=False``) once at import; the plain lookup ``NEXT[(state, trigger)]`` the
  parser runs on is *derived from that machine* (one library trigger costs microseconds, a dict
  lookup tens of nanoseconds, and the parser fires a trigger at every tag boundary). In checked
  mode (``CheckedMachine``) every move also goes through the library machine.
- ``MOVES``: per state and marker, the trigger fired and the ``Action`` the parser takes, under the
  level and option conditions of each row; ``moves()`` selects the rows of one configuration and
  ``markers_of()`` the markers each state scans for (whence the scanners and held-back prefixes of
  ``markers``).
- ``STATE_KINDS``: which reader runs in each state; ``ROLES``: role name -> trigger.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from enum import Enum
from functools import cache

from transitions import Machine, MachineError

from .. import tags
from .._model import ReasoningKind
from ..errors import MachineBug

__all__ = [
    "CONTROL_ACTIONS",
    "JSON_BLOCKS",
    "MOVES",
    "NEXT",
    "ROLES",
    "STATE_KINDS",
    "TRANSITIONS",
    "Action",
    "CheckedMachine",
    "Move",
    "Row",
    "State",
    "Trigger",
    "build_machine",
    "checked_mode",
    "derive_table",
    "markers_of",
    "moves",
    "next_state",
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
    TAIL = "tail"  # completion ended by a control token, or stopped at a fabricated result
    DONE = "done"  # close() was called


class Trigger(str, Enum):  # noqa: UP042
    """Tag boundaries (and the end of input) that move the machine."""

    IM_START = "im_start"
    IM_END = "im_end"
    ROLE_ASSISTANT = "role_assistant"
    ROLE_RESULTS = "role_results"
    ROLE_CATALOGUE = "role_catalogue"
    ROLE_PLAIN = "role_plain"
    END_OF_COMPLETION = "end_of_completion"  # a control token at completion level
    OPEN_CALL = "open_call"
    CLOSE_CALL = "close_call"
    OPEN_REASONING = "open_reasoning"
    CLOSE_REASONING = "close_reasoning"
    OPEN_RESPONSE = "open_response"
    CLOSE_RESPONSE = "close_response"
    OPEN_TOOLS = "open_tools"
    CLOSE_TOOLS = "close_tools"
    CUT = "cut"  # a block grew past max_block_chars
    END_BLOCK = "end_block"  # a block ended without its closer (control token, new opener, end of body)
    STOP = "stop"  # fabricated <tool_response> with stop_at_fabricated_response
    EOF = "eof"


S, T = State, Trigger
_BODIES = [S.ASSISTANT, S.RESULTS, S.CATALOGUE, S.PLAIN]
_BLOCKS = [S.CALL, S.REASONING, S.REASONING_CALL, S.RESPONSE, S.TOOLS]

#: (trigger, sources, destination): the whole machine.
TRANSITIONS: tuple[tuple[Trigger, tuple[State, ...], State], ...] = (
    (T.IM_START, (S.GAP, S.HEADER, *_BODIES, *_BLOCKS), S.HEADER),
    (T.IM_END, (S.HEADER, *_BODIES, *_BLOCKS), S.GAP),
    (T.ROLE_ASSISTANT, (S.HEADER,), S.ASSISTANT),
    (T.ROLE_RESULTS, (S.HEADER,), S.RESULTS),
    (T.ROLE_CATALOGUE, (S.HEADER,), S.CATALOGUE),
    (T.ROLE_PLAIN, (S.HEADER,), S.PLAIN),
    (T.END_OF_COMPLETION, (S.ASSISTANT, S.CALL, S.REASONING, S.REASONING_CALL), S.TAIL),
    (T.OPEN_CALL, (S.ASSISTANT, S.CALL), S.CALL),
    (T.OPEN_CALL, (S.REASONING, S.REASONING_CALL), S.REASONING_CALL),
    (T.CLOSE_CALL, (S.CALL,), S.ASSISTANT),
    (T.CLOSE_CALL, (S.REASONING_CALL,), S.REASONING),
    (T.CUT, (S.CALL,), S.ASSISTANT),
    (T.CUT, (S.REASONING_CALL,), S.REASONING),
    (T.CUT, (S.RESPONSE,), S.RESULTS),
    (T.CUT, (S.TOOLS,), S.CATALOGUE),
    (T.END_BLOCK, (S.CALL,), S.ASSISTANT),
    (T.END_BLOCK, (S.REASONING_CALL,), S.REASONING),
    (T.END_BLOCK, (S.RESPONSE,), S.RESULTS),
    (T.END_BLOCK, (S.TOOLS,), S.CATALOGUE),
    (T.OPEN_REASONING, (S.ASSISTANT,), S.REASONING),
    (T.CLOSE_REASONING, (S.REASONING,), S.ASSISTANT),
    (T.OPEN_RESPONSE, (S.RESULTS, S.RESPONSE), S.RESPONSE),
    (T.CLOSE_RESPONSE, (S.RESPONSE,), S.RESULTS),
    (T.OPEN_TOOLS, (S.CATALOGUE,), S.TOOLS),
    (T.CLOSE_TOOLS, (S.TOOLS,), S.CATALOGUE),
    (T.STOP, (S.ASSISTANT,), S.TAIL),
    (T.EOF, (S.GAP, S.HEADER, *_BODIES, *_BLOCKS, S.TAIL), S.DONE),
)


class _Model:
    """The object the ``transitions`` machine drives (it only holds ``state``)."""

    state: str


# ---------------------------------------------------------------------------------------- state kinds

# Which reader runs in each state (the per-chunk fast paths branch on it).
K_BODY = 0  # assistant, results, catalogue and plain bodies: text deltas
K_REASONING = 1  # reasoning deltas
K_GAP = 2  # between turns: text kept for the gap, no event
K_HEADER = 3  # role header: text kept, a line end ("\r\n", "\n", a lone "\r") ends it
K_BLOCK = 4  # an open call, result or catalogue block
K_TAIL = 5  # after the end of a completion
K_DONE = 6

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
    S.TAIL: K_TAIL,
    S.DONE: K_DONE,
}

#: Block states whose body is read JSON-aware when it starts with ``{`` or ``[`` (others: plain).
JSON_BLOCKS: frozenset[State] = frozenset({S.CALL, S.REASONING_CALL, S.RESPONSE})

#: The role of a header -> the trigger that enters its body (any other role: ``ROLE_PLAIN``, HT004).
ROLES: dict[str, Trigger] = {
    "assistant": T.ROLE_ASSISTANT,
    "user": T.ROLE_RESULTS,
    "tool": T.ROLE_RESULTS,
    "system": T.ROLE_CATALOGUE,
    "developer": T.ROLE_CATALOGUE,
}

# ---------------------------------------------------------------------------------------- moves


class Action(Enum):
    """What the parser does at a marker (the trigger it fires is the row's)."""

    BEGIN_TURN = "begin_turn"  # <|im_start|> between turns: the gap ends, a header starts
    END_HEADER = "end_header"  # the line end after the role: the body of that role starts
    BAD_HEADER = "bad_header"  # a control token inside a header (HT003): the turn ends
    END_TURN = "end_turn"  # <|im_end|> in a body or block: body, block and turn end
    NEW_TURN = "new_turn"  # <|im_start|> in a body or block (HT001): the turn ends, the next starts
    END_COMPLETION = "end_completion"  # a control token at completion level: the completion ends
    OPEN_BLOCK = "open_block"  # a block opener in its body: text flushed, the block starts
    CLOSE_BLOCK = "close_block"  # the block's closer: the block is folded
    REOPEN_BLOCK = "reopen_block"  # the block's opener inside it: the block ends unterminated, a new one starts
    OPEN_REASONING = "open_reasoning"  # <think> / <scratch_pad>: a reasoning segment starts
    CLOSE_REASONING = "close_reasoning"  # its closer: the segment ends
    SPLIT_REASONING = "split_reasoning"  # <tool_call> in reasoning (calls_in_reasoning): segment ends, call opens
    DIAG_STRAY = "diag_stray"  # a closer with nothing open (HT121): kept as text
    DIAG_FABRICATED = "diag_fabricated"  # <tool_response> in an assistant body (HT122): kept as text
    DIAG_CALL_IN_REASONING = "diag_call_in_reasoning"  # <tool_call> in reasoning (HT124): kept as text
    STOP = "stop"  # <tool_response> in an assistant body with stop_at_fabricated_response (HT122)


A = Action
#: The actions of control tokens (the transcript envelope, or the end of a completion).
CONTROL_ACTIONS: frozenset[Action] = frozenset({A.BEGIN_TURN, A.BAD_HEADER, A.END_TURN, A.NEW_TURN, A.END_COMPLETION})
_CONTROL_STATES = (*_BODIES, *_BLOCKS)

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


@dataclass(frozen=True, slots=True, kw_only=True)
class Row:
    """One row of ``MOVES``: in ``states``, each of ``markers`` fires ``trigger`` and takes ``action``.

    Markers are named as in ``_MARKER_NAMES`` (``open_reasoning`` / ``close_reasoning``: the tags of
    every enabled kind, except in ``reasoning``, where only its own kind's closer ends it).
    """

    states: tuple[State, ...]
    markers: tuple[str, ...]
    trigger: Trigger | None  # None: the machine stays (the marker is kept as text)
    action: Action
    when: str = ""


#: The whole marker table (docs/parsing.md §1, §3, §4).
MOVES: tuple[Row, ...] = (
    Row(states=(S.GAP,), markers=("im_start",), trigger=T.IM_START, action=A.BEGIN_TURN),
    Row(states=(S.HEADER,), markers=("newline", "crlf", "cr"), trigger=None, action=A.END_HEADER),  # trigger: ROLES
    Row(states=(S.HEADER,), markers=("im_start",), trigger=T.IM_START, action=A.BAD_HEADER),
    Row(states=(S.HEADER,), markers=("im_end",), trigger=T.IM_END, action=A.BAD_HEADER),
    Row(states=_CONTROL_STATES, markers=("im_end",), trigger=T.IM_END, action=A.END_TURN, when="transcript"),
    Row(states=_CONTROL_STATES, markers=("im_start",), trigger=T.IM_START, action=A.NEW_TURN, when="transcript"),
    Row(
        states=(S.ASSISTANT, S.REASONING, S.CALL, S.REASONING_CALL),
        markers=("im_start", "im_end"),
        trigger=T.END_OF_COMPLETION,
        action=A.END_COMPLETION,
        when="completion",
    ),
    Row(states=(S.ASSISTANT,), markers=("call_open",), trigger=T.OPEN_CALL, action=A.OPEN_BLOCK),
    Row(states=(S.ASSISTANT,), markers=("open_reasoning",), trigger=T.OPEN_REASONING, action=A.OPEN_REASONING),
    Row(
        states=(S.ASSISTANT,),
        markers=("call_close", "response_close", "close_reasoning"),
        trigger=None,
        action=A.DIAG_STRAY,
    ),
    Row(
        states=(S.ASSISTANT,),
        markers=("response_open",),
        trigger=T.STOP,
        action=A.STOP,
        when="stop_at_fabricated_response",
    ),
    Row(
        states=(S.ASSISTANT,),
        markers=("response_open",),
        trigger=None,
        action=A.DIAG_FABRICATED,
        when="not stop_at_fabricated_response",
    ),
    Row(states=(S.REASONING,), markers=("close_reasoning",), trigger=T.CLOSE_REASONING, action=A.CLOSE_REASONING),
    Row(
        states=(S.REASONING,),
        markers=("call_open",),
        trigger=T.OPEN_CALL,
        action=A.SPLIT_REASONING,
        when="calls_in_reasoning",
    ),
    Row(
        states=(S.REASONING,),
        markers=("call_open",),
        trigger=None,
        action=A.DIAG_CALL_IN_REASONING,
        when="not calls_in_reasoning",
    ),
    Row(states=(S.RESULTS,), markers=("response_open",), trigger=T.OPEN_RESPONSE, action=A.OPEN_BLOCK),
    Row(states=(S.RESULTS,), markers=("response_close",), trigger=None, action=A.DIAG_STRAY),
    Row(states=(S.CATALOGUE,), markers=("tools_open",), trigger=T.OPEN_TOOLS, action=A.OPEN_BLOCK),
    Row(states=(S.CATALOGUE,), markers=("tools_close",), trigger=None, action=A.DIAG_STRAY),
    Row(states=(S.CALL, S.REASONING_CALL), markers=("call_close",), trigger=T.CLOSE_CALL, action=A.CLOSE_BLOCK),
    Row(states=(S.CALL, S.REASONING_CALL), markers=("call_open",), trigger=T.OPEN_CALL, action=A.REOPEN_BLOCK),
    Row(states=(S.RESPONSE,), markers=("response_close",), trigger=T.CLOSE_RESPONSE, action=A.CLOSE_BLOCK),
    Row(states=(S.RESPONSE,), markers=("response_open",), trigger=T.OPEN_RESPONSE, action=A.REOPEN_BLOCK),
    Row(states=(S.TOOLS,), markers=("tools_close",), trigger=T.CLOSE_TOOLS, action=A.CLOSE_BLOCK),
)

_MARKER_NAMES: dict[str, str] = {
    "im_start": tags.IM_START,
    "im_end": tags.IM_END,
    # the line ends of a role header: the markers that are not tags. "\r" is a proper prefix of "\r\n": a
    # reader holds it back when it ends the data read so far (``_TextReader.read``)
    "newline": "\n",
    "crlf": "\r\n",
    "cr": "\r",
    "call_open": tags.CALL_OPEN,
    "call_close": tags.CALL_CLOSE,
    "response_open": tags.RESP_OPEN,
    "response_close": tags.RESP_CLOSE,
    "tools_open": tags.TOOLS_OPEN,
    "tools_close": tags.TOOLS_CLOSE,
}


@dataclass(frozen=True, slots=True, kw_only=True)
class Move:
    """What one marker does in one state: the trigger fired (None: none) and the action."""

    trigger: Trigger | None
    action: Action
    control: bool  # the action is one of CONTROL_ACTIONS (a plain attribute: an Enum's hash is slow)


#: A state, or ``reasoning:<kind>`` for the reasoning state of one kind (its closer differs).
ScanKey = State | str


def _resolve(name: str, state: State, kinds: tuple[ReasoningKind, ...], kind: ReasoningKind | None) -> list[str]:
    if name == "open_reasoning":
        return [tags.OPEN[k] for k in kinds]
    if name == "close_reasoning":
        return [tags.CLOSE[kind]] if state is S.REASONING and kind is not None else [tags.CLOSE[k] for k in kinds]
    return [_MARKER_NAMES[name]]


def _applies(when: str, flags: frozenset[str]) -> bool:
    if not when:
        return True
    if when.startswith("not "):
        return when[4:] not in flags
    return when in flags


def _keys(kinds: tuple[ReasoningKind, ...]) -> list[tuple[ScanKey, State, ReasoningKind | None]]:
    out: list[tuple[ScanKey, State, ReasoningKind | None]] = [(s, s, None) for s in State if s is not S.REASONING]
    out += [(f"reasoning:{k}", S.REASONING, k) for k in kinds]
    return out


@cache
def moves(
    level: str, kinds: tuple[ReasoningKind, ...], *, calls_in_reasoning: bool = False, stop: bool = False
) -> dict[ScanKey, dict[str, Move]]:
    """The rows of ``MOVES`` that apply to one configuration, as ``{state key: {marker: Move}}``.

    ``stop``: ``stop_at_fabricated_response``. Reasoning is keyed ``reasoning:<kind>``.

    >>> moves("completion", ("think",))["reasoning:think"]["</think>"].action
    <Action.CLOSE_REASONING: 'close_reasoning'>
    """
    flags = {level}
    if calls_in_reasoning:
        flags.add("calls_in_reasoning")
    if stop:
        flags.add("stop_at_fabricated_response")
    frozen = frozenset(flags)
    out: dict[ScanKey, dict[str, Move]] = {}
    for key, state, kind in _keys(kinds):
        table: dict[str, Move] = {}
        for row in MOVES:
            if state in row.states and _applies(row.when, frozen):
                for name in row.markers:
                    for marker in _resolve(name, state, kinds, kind):
                        if marker in table:
                            raise MachineBug(f"two rows for {marker!r} in {key}")
                        table[marker] = Move(
                            trigger=row.trigger, action=row.action, control=row.action in CONTROL_ACTIONS
                        )
        out[key] = table
    return out


@cache
def markers_of(kinds: tuple[ReasoningKind, ...]) -> dict[ScanKey, tuple[str, ...]]:
    """The markers each state scans for: those of its rows under any condition (so the same at both
    levels and for every option), longest first.

    >>> markers_of(("think",))[State.GAP]
    ('<|im_start|>',)
    """
    out: dict[ScanKey, tuple[str, ...]] = {}
    for key, state, kind in _keys(kinds):
        seen = {
            m
            for row in MOVES
            if state in row.states
            for name in row.markers
            for m in _resolve(name, state, kinds, kind)
        }
        out[key] = tuple(sorted(seen, key=lambda m: (-len(m), m)))
    return out


def checked_mode() -> bool:
    """True when ``HERMES_TOOLCALL_CHECKED=1``: parsers made now run every move through the library machine."""
    return os.environ.get("HERMES_TOOLCALL_CHECKED", "") == "1"


def build_machine(initial: State = State.GAP) -> tuple[Machine, _Model]:
    """A ``transitions.Machine`` built from ``TRANSITIONS`` (no auto transitions), with its model.

    >>> machine, model = build_machine(State.ASSISTANT)
    >>> model.trigger("open_call") and model.state
    'call'
    """
    model = _Model()
    machine = Machine(
        model=model,
        states=[s.value for s in State],
        transitions=[
            {"trigger": t.value, "source": [s.value for s in src], "dest": dst.value} for t, src, dst in TRANSITIONS
        ],
        initial=initial.value,
        auto_transitions=False,
        ignore_invalid_triggers=False,
    )
    return machine, model


def derive_table(machine: Machine) -> dict[tuple[State, Trigger], State]:
    """The plain lookup table equivalent to ``machine``: every allowed (state, trigger) → destination.

    >>> table = derive_table(build_machine()[0])
    >>> table[(State.GAP, Trigger.IM_START)]
    <State.HEADER: 'header'>
    """
    table: dict[tuple[State, Trigger], State] = {}
    for trigger in Trigger:
        for t in machine.get_transitions(trigger=trigger.value):
            table[(State(t.source), trigger)] = State(t.dest)
    return table


NEXT: dict[tuple[State, Trigger], State] = derive_table(build_machine()[0])


class CheckedMachine:
    """The ``transitions`` machine run beside the parser (checked mode): every move is the library's.

    >>> checked = CheckedMachine(State.ASSISTANT)
    >>> checked.move(State.ASSISTANT, Trigger.OPEN_CALL)
    <State.CALL: 'call'>
    """

    __slots__ = ("machine", "model")

    def __init__(self, initial: State) -> None:
        self.machine, self.model = build_machine(initial)

    def enter(self, state: State) -> None:
        """The parser entered ``state`` without a trigger (its start state)."""
        self.machine.set_state(state.value, self.model)

    def move(self, state: State, trigger: Trigger) -> State:
        """Fire ``trigger`` on the library machine, which must be in ``state``; its destination.

        Raises:
            MachineBug: the library machine is elsewhere, refuses the trigger, or lands elsewhere
                than the derived table says.
        """
        if self.model.state != state.value:
            raise MachineBug(f"the machine is in {self.model.state}, the parser in {state.value}")
        try:
            self.model.trigger(trigger.value)  # type: ignore[attr-defined]
        except MachineError:
            raise MachineBug(f"trigger {trigger.value} refused in state {state.value}") from None
        dest = State(self.model.state)
        if NEXT.get((state, trigger)) is not dest:
            raise MachineBug(f"{state.value} --{trigger.value}--> {dest.value} is not the derived table's move")
        return dest


def next_state(state: State, trigger: Trigger) -> State:
    """The destination of ``trigger`` from ``state``.

    Raises:
        MachineBug: the pair is not in the table.

    >>> next_state(State.CALL, Trigger.CLOSE_CALL)
    <State.ASSISTANT: 'assistant'>
    """
    try:
        return NEXT[(state, trigger)]
    except KeyError:
        raise MachineBug(f"trigger {trigger.value} is not allowed in state {state.value}") from None


def allowed_by_machine(model: _Model, machine: Machine, state: State, trigger: Trigger) -> State | None:
    """Fire ``trigger`` on the library machine from ``state``; the destination, or None if refused."""
    machine.set_state(state.value, model)
    try:
        model.trigger(trigger.value)  # type: ignore[attr-defined]
    except MachineError:
        return None
    return State(model.state)
