"""``StreamParser``: the streaming engine (docs/parsing.md, fed chunk by chunk).

With ``retain=True`` (the default) the parser keeps everything ``result()`` needs: the whole input
(``Completion.source`` / ``Transcript.source``), every part, turn and diagnostic, and the line table
of the input, so its memory grows with the stream (about 3-15x the input's size, docs/performance.md).
With ``retain=False`` it keeps only what the next events need: the unread tail (a possible partial
marker), the text of the block currently open (at most ``max_block_chars``), the open gap or role
header, and the line starts from the oldest open element on (a reasoning segment's text goes out as
deltas and is not kept).

``StreamParser`` is the loop of the engine (docs/statemachine.md): the input buffer
(``_buffer.InputBuffer``) takes each chunk and gives the unread data; the reader of the current state
(``_readers``) says what the data holds, as values; the loop applies them: text to the current
element of the assembler (``_assembler``), a marker to its move in the table (``_table.moves``: the
assembler's action, then the next state and its reader), a hold or a deferral to the buffer. Every
event is emitted at a position fixed by the input, so merged events and ``result()`` do not depend
on the chunking.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import ClassVar, Literal, Unpack

from .. import tags
from .._argcheck import check_bool, check_text
from .._events import Event
from .._model import Completion, Diagnostic, Transcript
from .._options import ParseKeywords, ParseOptions, options_of
from ..errors import HermesError, StreamError, StreamStateError, UsageError, internal_error
from ._assembler import Assembler
from ._buffer import InputBuffer
from ._markers import BlockScan, block_scans, text_scans
from ._readers import (
    AGAIN,
    ARGS,
    BODY,
    CUT,
    DEFER,
    DELTA,
    GUARDED,
    HOLD,
    MARK,
    NAME,
    REST,
    BodyReader,
    Reader,
    Readers,
    Value,
)
from ._table import (
    JSON_BLOCKS,
    STATE_KINDS,
    Action,
    CheckedMachine,
    Config,
    Marker,
    Move,
    ScanKey,
    State,
    checked_mode,
    config_of,
    key_state,
    moves,
    state_keys,
)
from ._table import K_BARE as _K_BARE
from ._table import K_DONE as _K_DONE
from ._table import K_HEADER as _K_HEADER
from ._table import K_HELD_AFTER as _K_HELD_AFTER
from ._table import K_TAIL as _K_TAIL

__all__ = ["Place", "StreamParser", "places"]

_READ_ROLE = Action.READ_ROLE
_CUT = Marker.CUT.value
_EOF = Marker.EOF.value


@dataclass(frozen=True, slots=True, kw_only=True)
class Step:
    """One move of a place (``_table.moves``), joined once with the place it enters (None: it stays)."""

    move: Move
    to: Place | None


@dataclass(frozen=True, slots=True, kw_only=True)
class Place:
    """What entering one state key means to the loop: its state and moves (``steps``: per marker, its
    move and the place it enters), and its reader (a text state's, made once; None for a block or a
    held bare function, whose reader is made at each entry) or what a block's readers are made from
    (the block's scanners, whether it is a call, the body readers tried at its first character)."""

    state: State
    steps: dict[str, Step]
    reader: Reader | None
    guard: Callable[[str, int, int], Value | None] | None  # the reader's ``guard``, bound once
    block: BlockScan | None
    call: bool
    bodies: tuple[type[BodyReader], ...]
    watch: str | None = None  # a held block in reasoning: the reasoning's closer (``WatchReader``)
    held: bool = False  # a held state: its reader is bounded by the held run's room (``BoundReader``)


@cache
def places(config: Config, readers: Readers, body_kind: str = "json") -> dict[ScanKey, Place]:
    """The places of one configuration, with readers of ``readers`` (``body_kind``: the profile's).

    >>> from hermes_toolcall.statemachine._readers import GUARDED
    >>> type(places(config_of("completion", ("think",)), GUARDED)["reasoning:think"].reader).__name__
    'TextReader'
    """
    table = moves(config)
    scans = text_scans(config.kinds)
    blocks = block_scans()
    plain = readers.bodies["plain"]
    out: dict[ScanKey, Place] = {}
    steps: dict[ScanKey, dict[str, Step]] = {key: {} for key, _, _ in state_keys(config.kinds)}
    for key, state, reasoning in state_keys(config.kinds):
        reader: Reader | None = None
        block = blocks.get(state)
        if block is None:
            kind = STATE_KINDS[state]
            if kind == _K_BARE:
                reader = None
            elif kind == _K_HELD_AFTER:
                reader = readers.after(scans[key])
            elif kind in (_K_TAIL, _K_DONE):
                reader = readers.tail()
            elif kind == _K_HEADER:
                reader = readers.header(scans[key])
            else:
                reader = readers.text(scans[key])
        bodies = (*readers.bodies[body_kind], *plain) if state in JSON_BLOCKS else plain
        out[key] = Place(
            state=state,
            steps=steps[key],
            reader=reader,
            guard=None if reader is None else reader.guard,
            block=block,
            call=state in (State.CALL, State.REASONING_CALL),
            bodies=bodies,
            watch=tags.CLOSE[reasoning] if state is State.HELD and reasoning is not None else None,
            held=state in (State.HELD, State.HELD_AFTER),
        )
    for key, row in table.items():  # each move with the place it enters, found once
        for literal, move in row.items():
            steps[key][literal] = Step(move=move, to=None if move.next is None else out[move.next])
    return out


class StreamParser:
    """Parse a completion or a transcript fed in chunks; ``result()`` equals the whole-text parse.

    Args:
        level: ``completion`` (one assistant body) or ``transcript`` (ChatML).
        stream_arguments: emit ``ArgumentsDelta`` events with the raw text of ``arguments``.
        options: ready-made ``ParseOptions``, or None: made from the option keywords.
        **keywords: the parse options (``ParseOptions.make`` says what each does): ``dialect``,
            ``strict`` (``close()`` raises ``StreamError`` when errors were found),
            ``calls_in_reasoning``, ``stop_at_fabricated_response``, ``max_block_chars``, ``ids``,
            ``starts_in_reasoning`` (completion level only), ``tools``, ``undeclared`` (a call that
            will be dropped or become text is never announced: no ``ToolCallStart``) and
            ``coerce_arguments``. Not together with ``options``.
        retain: keep the input and the folded values for ``result()`` (the default). ``False``: events
            only, memory bounded by ``max_block_chars`` plus the held-back tail (and the longest open gap
            or header, and the line starts of the oldest open element) whatever the stream's length;
            ``result()`` then raises ``UsageError``, ``TurnEnd.turn`` has no parts and a ``ReasoningEnd``
            part an empty ``text`` (they went out as events), and in strict mode only the error
            diagnostics are kept (for ``close()``).


    Raises:
        UsageError: an unknown level, option or dialect, a bad option value, ``options`` together
            with option keywords, or ``starts_in_reasoning`` given for a transcript.

    >>> p = StreamParser()
    >>> [type(e).__name__ for e in p.feed("Hi <tool")]
    ['TextDelta']
    >>> events = p.feed('_call>{"name": "f", "arguments": {}}</tool_call>') + p.close()
    >>> [type(e).__name__ for e in events]
    ['ToolCallStart', 'ToolCallEnd']
    >>> p.result().tool_calls[0].name
    'f'
    """

    __slots__ = (
        "_acts",
        "_asm",
        "_buf",
        "_checked",
        "_closed",
        "_guard",
        "_head",
        "_opener",
        "_places",
        "_reader",
        "_retain",
        "_sink",
        "_state",
        "_steps",
        "_take",
        "closing_events",
        "forget_lines_at",
        "level",
        "options",
        "stream_arguments",
    )

    _head: str  # the first characters, held while they may be the repeated opener of the block
    _opener: str  # that opener (starts_in_reasoning), else ""
    _state: State
    _steps: dict[str, Step]
    _reader: Reader
    _guard: Callable[[str, int, int], Value | None]  # the current reader's ``guard``, bound once per reader
    _sink: Callable[[str, int], list[Event]]  # the current element's ``add``
    #: ``retain=False``: how many line starts may pile up before the old ones are forgotten
    FORGET_LINES_AT = 1024
    #: the reader classes (``_readers.UNGUARDED`` in the tests that compare the guards with the scanners)
    readers: ClassVar[Readers] = GUARDED

    def __init__(
        self,
        *,
        level: Literal["completion", "transcript"] = "completion",
        stream_arguments: bool = False,
        retain: bool = True,
        options: ParseOptions | None = None,
        **keywords: Unpack[ParseKeywords],
    ) -> None:
        if level not in ("completion", "transcript"):
            raise UsageError(f"unknown level {level!r} (completion or transcript)")
        if level == "transcript" and keywords.get("starts_in_reasoning") is not None:
            raise UsageError("starts_in_reasoning is for completions (a transcript holds its own prompt)")
        check_bool("stream_arguments", stream_arguments)
        check_bool("retain", retain)
        opts = options_of(options, keywords)
        policy = None
        if opts.tools is not None:
            from .._tools_policy import ToolPolicy

            policy = ToolPolicy.of(opts)
        self.options = opts
        self.level = level
        self.stream_arguments = stream_arguments
        transcript = level == "transcript"
        kinds = opts.profile.reasoning_kinds
        config = config_of(level, kinds, opts.calls_in_reasoning, opts.stop_at_fabricated_response)
        self._places = places(config, self.readers, opts.profile.body_kind)
        self._buf = buf = InputBuffer(keep=retain)
        self._take: Callable[[str], str | None] = buf.take  # (``_gated`` while the start is undecided)
        self._asm = asm = Assembler(
            options=opts,
            transcript=transcript,
            stream_arguments=stream_arguments,
            retain=retain,
            span=buf.span,
            policy=policy,
        )
        self._acts = asm.actions()
        self._retain = retain
        self.forget_lines_at = self.FORGET_LINES_AT
        self._closed = False
        #: the events of ``close()`` (also when it raised ``StreamError`` in strict mode)
        self.closing_events: list[Event] = []
        start_kind = None if transcript else opts.reasoning_at_start
        initial: ScanKey = State.GAP if transcript else State.ASSISTANT
        self._opener = ""
        self._head = ""
        if start_kind is not None:  # the prompt opened the block: start in it (once the first input is not its opener)
            initial = f"{State.REASONING.value}:{start_kind}"
            self._opener = tags.OPEN[start_kind]
            self._take = self._gated
        self._checked = CheckedMachine(config, key_state(initial)) if checked_mode() else None
        self._enter(self._places[initial])

    @property
    def state(self) -> State:
        """The machine's current state (``_table.State``)."""
        return self._state

    # ------------------------------------------------------------------ public API

    def feed(self, chunk: str) -> list[Event]:
        """Feed the next piece of the input; returns the events it completes.

        Raises:
            UsageError: ``chunk`` is not a str.
            StreamStateError: the parser was already closed.
        """
        if type(chunk) is not str:
            check_text("chunk", chunk)
        data = self._take(chunk)
        if not data:  # nothing to read now ("": waits, or empty), or the start of the input decided (None)
            return [] if data is not None else self._opening()
        pos = self._buf.pos
        value = self._guard(data, 0, pos)
        if value is REST:
            return self._sink(data, pos)
        if value is not None and not value[0]:  # it all waits (as ``_run`` would apply it)
            op = value[1]
            if op == HOLD:
                self._buf.hold(data)
                return []
            if op == DEFER:
                self._buf.defer(data, value[2])
                return []
        events: list[Event] = []
        try:
            self._run(data, pos, value, False, events)
        except (HermesError, MemoryError):
            raise
        except Exception as exc:  # only HermesError escapes: anything else is a bug
            raise internal_error("StreamParser.feed", exc) from exc
        return events

    def _run(self, data: str, pos: int, value: Value | None, final: bool, events: list[Event]) -> None:
        """Apply the values the readers give for ``data`` (absolute offset ``pos``), from its start;
        ``value``: the current reader's guard's answer there, if it had one."""
        n = len(data)
        i = 0
        while True:
            if value is None:
                value = self._reader.read(data, i, pos, final)
            j, op, arg = value
            if j < 0:  # REST: the rest is text of the state
                if i < n:
                    events += self._sink(data[i:] if i else data, pos + i)
                return
            if j > i:
                events += self._sink(data[i:j], pos + i)
            i = j
            if op == MARK:  # (the values in the order of how often they come)
                events += self._move(self._steps[arg], arg, pos + j)
                i = j + len(arg)
            elif op == HOLD:
                self._buf.hold(data[j:])
                return
            elif op == DEFER:
                self._buf.defer(data[j:], arg)
                return
            elif op == BODY:
                self._reader = arg
                self._guard = arg.guard
            elif op == NAME:
                events += self._asm.announce(arg)
            elif op == DELTA:
                events += self._asm.delta(arg)
            elif op == ARGS:
                self._asm.arguments(arg)
            elif op == CUT:
                events += self._move(self._steps[_CUT], "", pos + j)
            elif op == AGAIN:  # a held state decided: its move, then its held text is read again
                marker, tag, at, again = arg
                events += self._move(self._steps[marker], tag, at)
                if again:
                    data = again + data[i:]
                    pos += i - len(again)
                    n = len(data)
                    i = 0
            if i >= n:
                return
            value = None if final else self._guard(data, i, pos)

    def _move(self, step: Step, tag: str, at: int) -> list[Event]:
        """Make ``step`` for the marker ``tag`` at ``at``: the assembler's action, then the next place."""
        move = step.move
        if move.action is _READ_ROLE:  # the role's row decides
            step = self._steps[self._asm.role()]
            move = step.move
        events = self._acts[move.act](tag, at)
        to = step.to
        if to is None:  # no move: the marker is text of the state
            events += self._sink(tag, at)
            return events
        if self._checked is not None:
            assert move.state is not None
            self._checked.move(self._state, move.marker, move.state)
        self._enter(to)
        if not self._retain:
            self._buf.forget_lines(self._asm.oldest_open(at), self.forget_lines_at)
        return events

    def _enter(self, place: Place) -> None:
        """Be in ``place``: its state and moves, its reader (a new one for a block), its element's text sink."""
        self._state = place.state
        self._steps = place.steps
        self._sink = self._asm.element.add
        reader = place.reader
        if reader is not None and not place.held:  # a text state's reader, made once
            self._reader = reader
            self._guard = place.guard  # type: ignore[assignment]
            return
        if reader is None:
            reader = self._new_reader(place)
        if place.held:  # held in reasoning: the run's bound (HT242)
            reader = self.readers.bound(reader, self._asm.held_bound())
        self._reader = reader
        self._guard = reader.guard

    def _new_reader(self, place: Place) -> Reader:
        """The reader made at each entry of ``place``: a block's, or a held bare function's."""
        block = place.block
        if block is None:  # a held bare function
            return self.readers.bare(self.options.max_block_chars, self._asm.schemas)
        limit = self._asm.block_limit()
        reader = self.readers.block(block, limit, place.call, self.stream_arguments, place.bodies, self._asm.schemas)
        if place.watch is not None:  # a block held in reasoning
            return self.readers.watch(reader, place.watch)
        return reader

    def close(self) -> list[Event]:
        """Signal the end of the input: flush the held tail, close open blocks and turns.

        Raises:
            StreamError: strict mode found error diagnostics (``result()`` and ``closing_events``
                are still available).
            StreamStateError: the parser was already closed.
        """
        if self._closed:
            raise StreamStateError("close() called twice")
        try:
            return self._close()
        except (HermesError, MemoryError):
            raise
        except Exception as exc:  # only HermesError escapes: anything else is a bug
            raise internal_error("StreamParser.close", exc) from exc

    def _close(self) -> list[Event]:
        """`close` after its checks."""
        events: list[Event] = self._opening() if self._take == self._gated else []
        buf = self._buf
        data = buf.unread("")
        if data or self._reader.decides_at_end:
            self._run(data, buf.pos, None, True, events)
        events += self._move(self._steps[_EOF], "", buf.total)
        self._closed = True
        self._take = self._gated
        self.closing_events = events
        if self.options.strict:
            errors = [d for d in self._asm.diags if d.severity == "error"]
            if errors:
                raise StreamError("strict streaming found errors", sorted(errors, key=_start))
        return events

    def _gated(self, chunk: str) -> str | None:
        """``InputBuffer.take`` while the start of the input is undecided (or after ``close()``): the
        first characters are held while they may be the repeated opener of the reasoning block the
        prompt opened; None when they are decided (``_opening`` reads them)."""
        if self._closed:
            raise StreamStateError("feed() after close()")
        head = self._head + chunk
        self._head = head
        if len(head) < len(self._opener) and self._opener.startswith(head):
            return ""  # may still become the block's opener, repeated by the completion
        return None

    def _opening(self) -> list[Event]:
        """The first input of a completion that starts inside reasoning is decided: the opening
        events, then the events of the held head.

        A completion that begins with the block's own opener (the model or the server repeated it)
        is read as written, from ``assistant`` (as the grammar engine does).
        """
        head = self._head
        self._head = ""
        self._take = self._buf.take
        if head.startswith(self._opener):
            if self._checked is not None:
                self._checked.enter(State.ASSISTANT)
            self._enter(self._places[State.ASSISTANT])
            return self.feed(head)
        kind = self._opener[1:-1]
        opening = self._asm.start_reasoning(tags.canonical_kinds([kind])[0])  # type: ignore[list-item]
        self._enter(self._places[f"{State.REASONING.value}:{kind}"])
        return opening + self.feed(head) if head else opening

    def result(self) -> Completion | Transcript:
        """The folded result: the same value ``parse_completion`` / ``parse_transcript`` give.

        Raises:
            StreamStateError: ``close()`` was not called yet.
            UsageError: the parser was made with ``retain=False``.
        """
        if not self._retain:
            raise UsageError("result() needs StreamParser(retain=True): retain=False keeps events only")
        if not self._closed:
            raise StreamStateError("result() before close()")
        return self._asm.folded(self._buf.source(), self._buf.total)


def _start(d: Diagnostic) -> int:
    return d.span.start
