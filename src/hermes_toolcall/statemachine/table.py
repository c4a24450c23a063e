"""The streaming machine as a table: states, triggers and transitions, declared once.

This module is the one place with state-machine knowledge. The table is handed to the
``transitions`` library (``auto_transitions=False``) once at import; the plain lookup table
``NEXT[(state, trigger)]`` the parser runs on is *derived from that machine* (see
``docs/statemachine.md``: one trigger of the library costs microseconds, a dict lookup tens of
nanoseconds, and the parser fires a trigger at every tag boundary).
"""

from __future__ import annotations

from enum import Enum

from transitions import Machine, MachineError

from ..errors import InternalError

__all__ = ["NEXT", "TRANSITIONS", "State", "Trigger", "build_machine", "derive_table", "next_state"]


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


class MachineBug(InternalError):
    """The parser fired a trigger the machine does not allow in its state (an internal error)."""


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
