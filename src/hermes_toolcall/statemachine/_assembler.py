"""The assembler: folds what the readers found into parts, turns, gaps, diagnostics and events.

``StreamParser``'s loop hands it values, never reader state: text of the current state (given to the
current element's ``add``), the action of a marker's move at an offset (``actions``), a call's name
(``announce``), where the streamed arguments start and end (``arguments``). It alone writes the
folded values (``parts``, ``turns``, ``gaps``, ``diags``, ``result``) and says, at the end of a
header, which role it named (``role``).

Per-state data travels with the state: each state has an *element*, made when the state is entered
and folded when it is left: a ``Run`` of body text, a reasoning ``Segment``, a ``Block`` (call,
result or catalogue), a ``Header``, a ``Gap`` between turns, the ``Tail`` after a completion's end.
A transcript's open turn is a ``TurnHead`` value, made at the end of its header. Each element writes
only its own fields; ``add`` returns the events of a piece of text. Block rules are ``_blocks``'.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from .. import _blockrules, tags
from .._construct import draft, new_reasoning, new_text, new_turn
from .._events import (
    ArgumentsDelta,
    Event,
    ReasoningDelta,
    TextDelta,
    new_arguments_delta,
    new_diagnostic_event,
    new_gap_text,
    new_reasoning_end,
    new_reasoning_start,
    new_tool_call_start,
    new_turn_end,
    new_turn_start,
)
from .._model import Completion, Diagnostic, ReasoningKind, Span, Text, ToolCall, Transcript
from .._options import ParseOptions
from ..errors import MachineBug
from ._blocks import CallBlock, finish_bare, finish_call, finish_response, finish_tools
from ._messages import diagnostic
from ._table import ACTIONS, Action, role_marker

if TYPE_CHECKING:
    from .._tools_policy import ToolPolicy

__all__ = [
    "SINK",
    "Assembler",
    "Bare",
    "Block",
    "Gap",
    "Header",
    "Held",
    "Run",
    "Segment",
    "Tail",
    "TurnHead",
    "new_gap",
    "new_header",
    "new_run",
]

_WS = " \t\n\r"
# the events' drafts, filled inline (one Python call less per event than ``_events``' constructors)
TextDeltaDraft = draft(TextDelta)
ReasoningDeltaDraft = draft(ReasoningDelta)
ArgumentsDeltaDraft = draft(ArgumentsDelta)
_KIND_OF_OPENER: dict[str, ReasoningKind] = {opener: kind for kind, opener in tags.OPEN.items()}


def _start(d: Diagnostic) -> int:
    return d.span.start


def _not_the_assembler_s(tag: str, at: int) -> list[Event]:
    raise MachineBug(f"no assembler action for {tag!r} at {at}")


class _Sink(list[Any]):
    """A list that keeps nothing (``retain=False``: folded values are not kept)."""

    def append(self, item: Any, /) -> None:
        pass

    def extend(self, items: Iterable[Any], /) -> None:
        pass


class _ErrorsOnly(list[Diagnostic]):
    """The diagnostics ``close()`` raises with in strict mode (``retain=False``): errors only."""

    def append(self, item: Diagnostic, /) -> None:
        if item.severity == "error":
            super().append(item)

    def extend(self, items: Iterable[Diagnostic], /) -> None:
        for item in items:
            self.append(item)


#: A list that keeps nothing.
SINK: list[Any] = _Sink()

# ---------------------------------------------------------------------------------------- elements


class Run:
    """Body text between a body's blocks (``start`` -1 until its first text): text deltas. Made by
    ``new_run`` (as ``Gap`` and ``Header`` by ``new_gap`` / ``new_header``: the states made most
    often, without an ``__init__`` frame)."""

    __slots__ = ("pieces", "start")

    pieces: list[str]
    start: int

    def add(self, text: str, at: int) -> list[Event]:
        """Body text at ``at``."""
        if self.start < 0:
            self.start = at
        self.pieces.append(text)
        delta = TextDeltaDraft()  # as new_text_delta(text), without a Python call
        delta.text = text
        delta.__class__ = TextDelta
        return [delta]


class Segment:
    """A reasoning segment (``opened``: by its tag, else by the prompt or after a call inside it)."""

    __slots__ = ("kind", "opened", "pieces", "start")

    def __init__(self, kind: ReasoningKind, start: int, *, opened: bool) -> None:
        self.kind = kind
        self.start = start
        self.opened = opened
        self.pieces: list[str] = []

    def add(self, text: str, at: int) -> list[Event]:
        """Reasoning text."""
        self.pieces.append(text)
        delta = ReasoningDeltaDraft()  # as new_reasoning_delta(...), without a Python call
        delta.kind = self.kind
        delta.text = text
        delta.__class__ = ReasoningDelta
        return [delta]


class LeanSegment(Segment):
    """A reasoning segment of a parser that keeps no text (``retain=False``): its text goes out as
    deltas only, and ``seen`` says whether there was any (its part, at the end, has an empty ``text``)."""

    __slots__ = ("seen",)

    def __init__(self, kind: ReasoningKind, start: int, *, opened: bool) -> None:
        super().__init__(kind, start, opened=opened)
        self.seen = False

    def add(self, text: str, at: int) -> list[Event]:
        """Reasoning text, not kept."""
        if text:
            self.seen = True
        delta = ReasoningDeltaDraft()  # as new_reasoning_delta(...), without a Python call
        delta.kind = self.kind
        delta.text = text
        delta.__class__ = ReasoningDelta
        return [delta]


class Gap:
    """Text between turns (kept until the gap ends; no event before). Made by ``new_gap``."""

    __slots__ = ("pieces", "start")

    pieces: list[str]
    start: int

    def add(self, text: str, at: int) -> list[Event]:
        """Gap text."""
        self.pieces.append(text)
        return []


class Header(Gap):
    """A role header: ``start`` is the turn's (its ``<|im_start|>``), the pieces are the role. Made by
    ``new_header``."""

    __slots__ = ()


def new_run(pieces: list[str], start: int = -1) -> Run:
    """A text run keeping its text in ``pieces`` (``start`` -1: no text yet)."""
    run = Run()
    run.pieces = pieces
    run.start = start
    return run


def new_gap(start: int) -> Gap:
    """A gap between turns from ``start``."""
    gap = Gap()
    gap.start = start
    gap.pieces = []
    return gap


def new_header(start: int) -> Header:
    """A role header of the turn at ``start``."""
    header = Header()
    header.start = start
    header.pieces = []
    return header


class Tail:
    """After the end of a completion: where and how it ended, and whether text follows."""

    __slots__ = ("end_at", "end_token", "stopped_at", "text_seen")

    def __init__(self, *, end_at: int = -1, end_token: str = "", stopped_at: int | None = None) -> None:
        self.end_at = end_at  # where the control token that ended the completion starts
        self.end_token = end_token
        self.stopped_at = stopped_at  # where a fabricated <tool_response> stopped it
        self.text_seen = False

    def add(self, text: str, at: int) -> list[Event]:
        """Text after the end."""
        if not self.text_seen and text.strip(_WS):
            self.text_seen = True
        return []


class Block:
    """An open call, result or catalogue block: where it is, its text so far, and for a call its id,
    the name announced early and where the streamed arguments lie in its text (``streamed``, read by
    ``_blocks.finish_call``)."""

    __slots__ = (
        "announced",
        "args",
        "block_id",
        "call",
        "deltas",
        "inner",
        "limit",
        "opener",
        "ordinal",
        "pieces",
        "reasoning",
        "sent",
        "start",
    )

    def __init__(
        self, opener: str, start: int, inner: int, limit: int, call: CallBlock | None, reasoning: ReasoningKind | None
    ) -> None:
        self.opener = opener  # the block's tag: a call, a result or a catalogue
        self.start = start
        self.inner = inner
        self.limit = limit  # absolute offset of the cut (``max_block_chars``)
        self.pieces: list[str] = []
        self.call = call is not None
        self.ordinal = call.ordinal if call is not None else -1
        self.block_id = call.block_id if call is not None else ""
        self.announced: str | None = None  # name of the early ToolCallStart, if any
        self.args: list[int] = []  # offsets in the text where the streamed arguments start and end
        self.deltas = False  # inside the streamed arguments of an announced call: text is also a delta
        self.reasoning = reasoning  # the reasoning kind the block was opened in, if any
        self.sent: list[str] = []  # argument deltas that are not the block's raw text (an XML body)

    def add(self, text: str, at: int) -> list[Event]:
        """Block text; inside the streamed arguments of an announced call, also an argument delta."""
        self.pieces.append(text)
        if self.deltas:
            delta = ArgumentsDeltaDraft()  # as new_arguments_delta(...), without a Python call
            delta.ordinal = self.ordinal
            delta.id = self.block_id
            delta.text = text
            delta.__class__ = ArgumentsDelta
            return [delta]
        return []

    def announce(self, name: str) -> None:
        """The call was announced as ``name``."""
        self.announced = name

    def arguments(self, inside: bool) -> None:
        """The streamed arguments object starts (True) or ends (False) here."""
        self.args.append(sum(map(len, self.pieces)))
        self.deltas = inside and self.announced is not None

    def send(self, text: str) -> list[Event]:
        """The next piece of the announced call's ``arguments`` JSON text, read from a body whose raw
        text is not that JSON (an XML body): an argument delta."""
        if self.announced is None:
            return []
        self.sent.append(text)
        return [new_arguments_delta(self.ordinal, self.block_id, text)]

    @property
    def streamed(self) -> list[str] | None:
        """The argument text sent as deltas (None: the call was not announced)."""
        if self.announced is None:
            return None
        if self.sent:
            return self.sent
        if not self.args:
            return []
        text = "".join(self.pieces)
        return [text[self.args[0] : self.args[1] if len(self.args) > 1 else len(text)]]


class Bare:
    """A ``<function=`` held in assistant text (the parser's ``BareReader`` keeps the text it reads):
    the text run before it, which goes on if it is text; no event until it is decided."""

    __slots__ = ("run", "start")

    def __init__(self, run: Run, at: int) -> None:
        self.run = run
        self.start = run.start if run.start >= 0 else at  # the oldest offset a span may start at

    def add(self, text: str, at: int) -> list[Event]:
        """Held text (its reader keeps it): no event."""
        return []


class Held:
    """``<tool_call>`` blocks held in a reasoning segment never closed so far (``calls_in_reasoning``
    off): they may be the calls that end the output (docs/parsing.md §4.2, ``HT242``). No event until
    the input decides. ``pieces``: the held text, from the first block's tag at ``first``; ``items``:
    ``(block, start, end, closed)`` for each block and for the whitespace between them; ``open_at``:
    where the block being read starts (-1: none); ``after``: where the text after the last block starts;
    ``limit``: where the open block is cut; ``bound``: where the run passes its room, one block's at
    ``max_block_chars`` with its tags (``BoundReader``)."""

    __slots__ = ("after", "bound", "first", "items", "limit", "open_at", "pieces", "segment", "start")

    def __init__(self, segment: Segment, at: int, room: int) -> None:
        self.segment = segment
        self.start = segment.start  # the oldest offset a span may start at
        self.first = at
        self.bound = at + room
        self.pieces: list[str] = []
        self.items: list[tuple[bool, int, int, bool]] = []
        self.open_at = -1
        self.after = at
        self.limit = -1

    def add(self, text: str, at: int) -> list[Event]:
        """Held text: no event."""
        self.pieces.append(text)
        return []

    def open(self, tag: str, at: int, chars: int) -> None:
        """A block opens at ``at`` (after the whitespace since the last one)."""
        if at > self.after:
            self.items.append((False, self.after, at, False))
        self.pieces.append(tag)
        self.open_at = at
        self.limit = at + len(tag) + chars

    def end(self, at: int, *, closed: bool) -> None:
        """The open block ends at ``at`` (``closed``: by its closer, already added)."""
        self.items.append((True, self.open_at, at, closed))
        self.open_at = -1
        self.after = at

    def text(self) -> str:
        """The held text."""
        return "".join(self.pieces)

    def run(self, at: int) -> list[tuple[bool, int, int, bool]] | None:
        """The blocks and whitespace held, up to the end of the body at ``at``, when every block was
        closed (and none is open); else None."""
        if self.open_at >= 0 or not all(closed for block, _, _, closed in self.items if block):
            return None
        tail = [(False, self.after, at, False)] if at > self.after else []
        return self.items + tail


Element = Run | Segment | Gap | Tail | Block | Bare | Held


class TurnHead:
    """A transcript turn whose header was read: its start, role, header span and where its body starts."""

    __slots__ = ("body_start", "header", "role", "start")

    def __init__(self, start: int, role: str, header: Span, body_start: int) -> None:
        self.start = start
        self.role = role
        self.header = header
        self.body_start = body_start


# ---------------------------------------------------------------------------------------- the assembler


class Assembler:
    """Folds the loop's values into parts, turns, gaps, diagnostics and events (see the module docstring)."""

    __slots__ = (
        "diags",
        "element",
        "gaps",
        "options",
        "ordinal",
        "parts",
        "policy",
        "result",
        "retain",
        "schemas",
        "span",
        "stream_arguments",
        "transcript",
        "turn",
        "turns",
        "valid",
    )

    def __init__(
        self,
        *,
        options: ParseOptions,
        transcript: bool,
        stream_arguments: bool,
        retain: bool,
        span: Callable[[int, int], Span],
        policy: ToolPolicy | None,
    ) -> None:
        self.options = options
        self.transcript = transcript
        self.stream_arguments = stream_arguments
        self.span = span
        self.policy = policy
        self.retain = retain
        self.diags: list[Diagnostic] = []
        self.parts: list[Any] = []
        self.turns: list[Any] = []
        self.gaps: list[Text] = []
        if not retain:  # keep no parts, turns, gaps or body text (events carry them); strict: the errors
            self.parts = self.turns = self.gaps = SINK
            self.diags = _ErrorsOnly() if options.strict else SINK
        self.turn: TurnHead | None = None
        self.ordinal = 0  # call blocks so far (their ids)
        self.valid = 0  # valid calls so far in this body (their index)
        self.element: Element = new_gap(0) if transcript else new_run([] if retain else SINK)
        self.result: Completion | Transcript | None = None
        self.schemas = _blockrules.tool_schemas(options.tools)  # XML values are typed by them

    def actions(self) -> tuple[Callable[[str, int], list[Event]], ...]:
        """The method of each action, in the order of ``_table.ACTIONS``: called with the marker's text
        and absolute offset, it returns the events."""
        A = Action
        methods: dict[Action, Callable[[str, int], list[Event]]] = {
            A.BEGIN_TURN: self.begin_turn,
            A.END_HEADER: self.end_header,
            A.BAD_HEADER: self.bad_header,
            A.END_TURN: self.end_turn,
            A.NEW_TURN: self.new_turn,
            A.END_COMPLETION: self.end_completion,
            A.OPEN_BLOCK: self.open_block,
            A.CLOSE_BLOCK: self.close_block,
            A.REOPEN_BLOCK: self.reopen_block,
            A.CUT_BLOCK: self.cut_block,
            A.OPEN_REASONING: self.open_reasoning,
            A.CLOSE_REASONING: self.close_reasoning,
            A.SPLIT_REASONING: self.split_reasoning,
            A.DIAG_STRAY: self.stray,
            A.DIAG_FABRICATED: self.fabricated,
            A.HOLD_CALL: self.hold_call,
            A.HOLD_NEXT: self.hold_next,
            A.CLOSE_HELD: self.close_held,
            A.REHOLD: self.rehold,
            A.CUT_HELD: self.cut_held,
            A.DROP_HELD: self.drop_held,
            A.DROP_HELD_CLOSE: self.drop_held_close,
            A.STOP: self.stop,
            A.HOLD_BARE: self.hold_bare,
            A.END_BARE: self.end_bare,
            A.DROP_BARE: self.drop_bare,
            A.FINISH: self.finish,
        }
        return tuple(methods.get(action, _not_the_assembler_s) for action in ACTIONS)  # READ_ROLE: the loop's

    def oldest_open(self, floor: int) -> int:
        """The smallest offset a span may still start at, ``floor`` being the first unread one."""
        el = self.element
        if self.turn is not None:
            floor = min(floor, self.turn.start)
        if isinstance(el, Tail):
            for at in (el.end_at, el.stopped_at):
                if at is not None and at >= 0:
                    floor = min(floor, at)
        elif el.start >= 0:
            floor = min(floor, el.start)
        return floor

    def diag(self, key: str, start: int, end: int, **fields: object) -> Event:
        """Record a diagnostic; its event."""
        d = diagnostic(key, self.span(start, end), strict=self.options.strict, **fields)
        self.diags.append(d)
        return new_diagnostic_event(d)

    # ------------------------------------------------------------------ envelope

    def role(self) -> str:
        """The marker (its name) of the role the open header names (its newline was read)."""
        assert isinstance(self.element, Header)
        return role_marker("".join(self.element.pieces))

    def begin_turn(self, tag: str, at: int) -> list[Event]:
        """``<|im_start|>`` between turns: the gap ends, a header starts."""
        events = self._end_gap(at)
        self.element = new_header(at)
        return events

    def end_header(self, tag: str, at: int) -> list[Event]:
        """The line end ``tag`` after the role, at ``at``: the turn's body starts after it."""
        header = self.element
        assert isinstance(header, Header)
        role = "".join(header.pieces)
        body = at + len(tag)
        span = self.span(header.start, body)
        self.turn = TurnHead(header.start, role, span, body)
        self.valid = 0
        if self.retain:
            self.parts = []
        events: list[Event] = []
        if role not in tags.ROLES:
            start = header.start + len(tags.IM_START)
            events.append(self.diag("HT004", start, start + len(role), role=role))
        events.append(new_turn_start(role, span))
        self.element = new_run([] if self.retain else SINK)
        return events

    def bad_header(self, tag: str, at: int) -> list[Event]:
        """A control token inside a header (HT003): the turn ends there."""
        header = self.element
        assert isinstance(header, Header)
        events = [self.diag("HT003", header.start, at)]
        role = "".join(header.pieces)
        self.turn = TurnHead(header.start, role, self.span(header.start, at), at)
        if tag == tags.IM_END:
            end = at + len(tag)
            events += self._end_turn(end, self.span(at, end), ())
            self.element = new_gap(end)
        else:
            events += self._end_turn(at, None, ())
            self.element = new_header(at)
        return events

    def end_turn(self, tag: str, at: int) -> list[Event]:
        """``<|im_end|>`` in a body or block: block, body and turn end."""
        end = at + len(tag)
        events = self._end_body(at)
        events += self._end_turn(end, self.span(at, end), tuple(self.parts))
        self.element = new_gap(end)
        return events

    def new_turn(self, tag: str, at: int) -> list[Event]:
        """``<|im_start|>`` in a body or block (HT001): the turn ends unterminated, the next starts."""
        events = self._end_body(at)
        events.append(self.diag("HT001", at, at + len(tag)))
        events += self._end_turn(at, None, tuple(self.parts))
        self.element = new_header(at)
        return events

    def end_completion(self, tag: str, at: int) -> list[Event]:
        """A control token at completion level: the completion ends."""
        events = self._end_body(at)
        self.element = Tail(end_at=at, end_token=tag)
        return events

    def stop(self, tag: str, at: int) -> list[Event]:
        """A fabricated ``<tool_response>`` with ``stop_at_fabricated_response`` (HT122): parsing stops."""
        events = [self.diag("HT122:stop", at, at + len(tag))]
        self._flush()
        if self.transcript:
            events += self._end_turn(at, None, tuple(self.parts))
        self.element = Tail(stopped_at=at)
        return events

    def stray(self, tag: str, at: int) -> list[Event]:
        """A closer with nothing open (HT121); the loop keeps it as text."""
        return [self.diag("HT121", at, at + len(tag), tag=tag)]

    def fabricated(self, tag: str, at: int) -> list[Event]:
        """``<tool_response>`` in an assistant body (HT122); the loop keeps it as text."""
        return [self.diag("HT122", at, at + len(tag))]

    def finish(self, tag: str, at: int) -> list[Event]:
        """The end of the input at ``at``: close whatever is open."""
        el = self.element
        if isinstance(el, Header):  # as a control token there would: HT003, the turn ends
            return self.bad_header("", at)
        if isinstance(el, Gap):
            return self._end_gap(at)
        if isinstance(el, Tail):
            if el.stopped_at is not None:
                return [self.diag("HT123", el.stopped_at, at)]
            if el.end_token == tags.IM_START or el.text_seen:
                return [self.diag("HT006", el.end_at, at)]
            return []
        events = self._end_body(at)
        if self.transcript:
            assert self.turn is not None
            if at > self.turn.body_start:
                events.append(self.diag("HT002", at, at))
            events += self._end_turn(at, None, tuple(self.parts))
        return events

    def folded(self, source: str, total: int) -> Completion | Transcript:
        """The result value, once the input is closed."""
        if self.result is None:
            diags = tuple(sorted(self.diags, key=_start))
            el = self.element
            stopped = el.stopped_at if isinstance(el, Tail) else None
            if self.transcript:
                self.result = Transcript(
                    turns=tuple(self.turns), gaps=tuple(self.gaps), diagnostics=diags, source=source, stopped_at=stopped
                )
            else:
                end_at = el.end_at if isinstance(el, Tail) else -1
                end = self.span(end_at, total) if end_at >= 0 else None
                self.result = Completion(
                    parts=tuple(self.parts), diagnostics=diags, source=source, end=end, stopped_at=stopped
                )
        return self.result

    def _end_gap(self, at: int) -> list[Event]:
        gap = self.element
        assert isinstance(gap, Gap)
        text = "".join(gap.pieces)
        if not text:
            return []
        part = new_text(text, gap.start, at, self.span(gap.start, at))
        self.gaps.append(part)
        events = [self.diag("HT005", gap.start, at)] if text.strip(_WS) else []
        events.append(new_gap_text(part))
        return events

    def _end_turn(self, end: int, end_span: Span | None, parts: tuple[Any, ...]) -> list[Event]:
        head = self.turn
        assert head is not None
        span = self.span(head.start, end)
        estart = None if end_span is None else end_span.start
        turn = new_turn(head.role, parts, span.start, end, head.header.end, estart, (span, head.header, end_span))
        if self.retain:
            self.parts = []
        self.turns.append(turn)
        self.turn = None
        return [new_turn_end(turn)]

    def _end_body(self, at: int) -> list[Event]:
        """The body ends at ``at``: close the open block and reasoning, flush text."""
        events: list[Event] = []
        if isinstance(self.element, Held):
            events += self._settle_held(at)
        if isinstance(self.element, Block):
            events += self._finish_block(at, closed=False, cut=False)
        seg = self.element
        if isinstance(seg, Segment):
            events += self._end_segment(at, closed=False)
            events.append(self.diag("HT111", seg.start, at, kind=seg.kind))
        self._flush()
        return events

    # ------------------------------------------------------------------ text and reasoning

    def _flush(self) -> None:
        """The open text run (if any) becomes a part; a new run starts."""
        run = self.element
        if isinstance(run, Run):
            if run.start < 0:  # no text yet: it is a new run already
                return
            if self.retain:
                text = "".join(run.pieces)
                end = run.start + len(text)
                self.parts.append(new_text(text, run.start, end, self.span(run.start, end)))  # eager positions
        self.element = new_run([] if self.retain else SINK)

    def open_reasoning(self, tag: str, at: int) -> list[Event]:
        """A reasoning opener in a body: the text run ends, a segment starts."""
        self._flush()
        kind = _KIND_OF_OPENER[tag]
        self.element = self._segment(kind, at, opened=True)
        return [new_reasoning_start(kind, True)]

    def start_reasoning(self, kind: ReasoningKind) -> list[Event]:
        """A completion that begins inside reasoning (the prompt opened it): a segment without an opener."""
        self.element = self._segment(kind, 0, opened=False)
        return [new_reasoning_start(kind, False)]

    def close_reasoning(self, tag: str, at: int) -> list[Event]:
        """The segment's closer: it ends."""
        events = self._end_segment(at + len(tag), closed=True)
        self.element = new_run([] if self.retain else SINK)
        return events

    def _segment(self, kind: ReasoningKind, start: int, *, opened: bool) -> Segment:
        """A new reasoning segment: one that keeps its text, or (``retain=False``) one that does not."""
        return Segment(kind, start, opened=opened) if self.retain else LeanSegment(kind, start, opened=opened)

    def _end_segment(self, end: int, *, closed: bool) -> list[Event]:
        seg = self.element
        assert isinstance(seg, Segment)
        text = "".join(seg.pieces)  # "" for a LeanSegment: its text went out as deltas
        part = None
        if text or seg.opened or closed or (isinstance(seg, LeanSegment) and seg.seen):
            part = new_reasoning(seg.kind, text, seg.start, end, self.span(seg.start, end), seg.opened, closed)
            self.parts.append(part)
        return [new_reasoning_end(seg.kind, closed, part)]

    # ------------------------------------------------------------------ bare functions

    def hold_bare(self, tag: str, at: int) -> list[Event]:
        """``<function=`` in assistant text: held with the text run before it (no event yet)."""
        run = self.element
        assert isinstance(run, Run)
        self.element = Bare(run, at)
        return []

    def drop_bare(self, tag: str, at: int) -> list[Event]:
        """The held ``<function=`` at ``at`` is text: it joins the run, which goes on."""
        bare = self.element
        assert isinstance(bare, Bare)
        self.element = bare.run
        return bare.run.add(tag, at)

    def end_bare(self, text: str, at: int) -> list[Event]:
        """The held ``<function=`` at ``at`` starts the complete bare function ``text``: the run ends
        and the function is a call (``HT234``), after the tools policy."""
        bare = self.element
        assert isinstance(bare, Bare)
        self.element = bare.run
        self._flush()
        ordinal = self.ordinal
        self.ordinal += 1
        block = CallBlock(ordinal=ordinal, block_id=self.options.ids(ordinal))
        options = self.options
        parts, events, diags = finish_bare(
            block,
            text=text,
            start=at,
            strict=options.strict,
            max_block_chars=options.max_block_chars,
            stream_arguments=self.stream_arguments,
            first_index=self.valid,
            span_of=self.span,
            tools=self.schemas,
            expect=options.profile.body_kind,
        )
        return self._fold_call(parts, events, diags, at)

    def _fold_call(self, parts: list[Any], events: list[Event], diags: list[Diagnostic], at: int) -> list[Event]:
        """A call found whole at ``at`` (a bare function, a held block), not announced: after the tools
        policy, its parts and diagnostics are folded; a call the policy keeps as text joins the run."""
        kept: str | None = None
        if self.policy is not None:
            parts, events, diags, kept = self.policy.stream_block(
                parts, events, diags, first_index=self.valid, streamed=None, reasoning=None
            )
        self.valid += sum(1 for p in parts if isinstance(p, ToolCall))
        self.parts.extend(parts)
        self.diags.extend(diags)
        if kept is not None:
            self._rejoin(at, kept)
        return events

    # ------------------------------------------------------------------ calls held in reasoning (HT242)

    def hold_call(self, tag: str, at: int) -> list[Event]:
        """``<tool_call>`` in reasoning (``calls_in_reasoning`` off): its block is held (no event yet)."""
        seg = self.element
        assert isinstance(seg, Segment)
        chars = self.options.max_block_chars
        held = Held(seg, at, len(tags.CALL_OPEN) + chars + len(tags.CALL_CLOSE))
        held.open(tag, at, chars)
        self.element = held
        return []

    def hold_next(self, tag: str, at: int) -> list[Event]:
        """The next ``<tool_call>`` after held blocks and whitespace: held too."""
        held = self.element
        assert isinstance(held, Held)
        held.open(tag, at, self.options.max_block_chars)
        return []

    def close_held(self, tag: str, at: int) -> list[Event]:
        """A held block's closer."""
        held = self.element
        assert isinstance(held, Held)
        held.add(tag, at)
        held.end(at + len(tag), closed=True)
        return []

    def rehold(self, tag: str, at: int) -> list[Event]:
        """``<tool_call>`` inside a held block: it ends unterminated, the next one is held."""
        held = self.element
        assert isinstance(held, Held)
        held.end(at, closed=False)
        held.open(tag, at, self.options.max_block_chars)
        return []

    def cut_held(self, tag: str, at: int) -> list[Event]:
        """A held block reached ``max_block_chars``: it ends there, cut (the text after it follows)."""
        held = self.element
        assert isinstance(held, Held)
        held.end(at, closed=False)
        return []

    def drop_held(self, tag: str, at: int) -> list[Event]:
        """Text after held blocks (or a block that holds no call body): all held is reasoning text."""
        return self._drop_held()

    def drop_held_close(self, tag: str, at: int) -> list[Event]:
        """The reasoning's closer while blocks are held: they are reasoning text, and it closes."""
        events = self._drop_held()
        return events + self.close_reasoning(tag, at)

    def _drop_held(self) -> list[Event]:
        """The held text goes back to its reasoning segment: ``HT124`` for each ``<tool_call>`` in it."""
        held = self.element
        assert isinstance(held, Held)
        seg = held.segment
        self.element = seg
        text = held.text()
        events: list[Event] = []
        k = text.find(tags.CALL_OPEN)
        while k >= 0:
            events.append(self.diag("HT124", held.first + k, held.first + k + len(tags.CALL_OPEN)))
            k = text.find(tags.CALL_OPEN, k + len(tags.CALL_OPEN))
        return events + self.element.add(text, held.first)

    def _settle_held(self, at: int) -> list[Event]:
        """The body ends at ``at`` with blocks held: when each is closed and holds a call (read
        leniently), the reasoning ends before the first and they are calls (``HT242``), the whitespace
        between them text; else they are reasoning text."""
        held = self.element
        assert isinstance(held, Held)
        text, first = held.text(), held.first
        run = held.run(at)
        if run is None or not all(self._holds_call(text[s - first : e - first]) for b, s, e, _ in run if b):
            return self._drop_held()
        seg = held.segment
        self.element = seg
        events = self._end_segment(first, closed=False)
        events.append(self.diag("HT111", seg.start, first, kind=seg.kind))
        self.element = new_run([] if self.retain else SINK)
        for block, s, e, _ in run:
            if block:
                self._flush()
                events += self._closing_call(text[s - first : e - first], s, e, seg.kind)
            else:
                events += self.element.add(text[s - first : e - first], s)
        return events

    def _holds_call(self, block: str) -> bool:
        """Whether a closed call block (tags included) holds a call when read leniently."""
        inner = block[len(tags.CALL_OPEN) : -len(tags.CALL_CLOSE)]
        expect = self.options.profile.body_kind
        return bool(_blockrules.decode_body(inner, strict=False, closed=True, tools=self.schemas, expect=expect).calls)

    def _closing_call(self, block: str, start: int, end: int, kind: ReasoningKind) -> list[Event]:
        """A held block that ends the output: a call (``HT242``), after the tools policy."""
        ordinal = self.ordinal
        self.ordinal += 1
        call = CallBlock(ordinal=ordinal, block_id=self.options.ids(ordinal))
        options = self.options
        parts, events, diags = finish_call(
            call,
            inner=block[len(tags.CALL_OPEN) : -len(tags.CALL_CLOSE)],
            start=start,
            end=end,
            closed=True,
            cut=False,
            closer=tags.CALL_CLOSE,
            strict=options.strict,
            max_block_chars=options.max_block_chars,
            stream_arguments=self.stream_arguments,
            first_index=self.valid,
            span_of=self.span,
            tools=self.schemas,
            expect=options.profile.body_kind,
            recovery=diagnostic("HT242", self.span(start, end), strict=options.strict, kind=kind),
        )
        return self._fold_call(parts, events, diags, start)

    # ------------------------------------------------------------------ blocks

    def open_block(self, tag: str, at: int) -> list[Event]:
        """A block opener in its body: the text run ends, the block starts."""
        self._flush()
        self._new_block(tag, at, None)
        return []

    def split_reasoning(self, tag: str, at: int) -> list[Event]:
        """``<tool_call>`` in reasoning (``calls_in_reasoning``): the segment ends, a call opens in it."""
        seg = self.element
        assert isinstance(seg, Segment)
        events = self._end_segment(at, closed=False)
        self._new_block(tag, at, seg.kind)
        return events

    def _new_block(self, tag: str, at: int, reasoning: ReasoningKind | None) -> None:
        call = None
        if tag == tags.CALL_OPEN:
            ordinal = self.ordinal
            self.ordinal += 1
            call = CallBlock(ordinal=ordinal, block_id=self.options.ids(ordinal))
        inner = at + len(tag)
        self.element = Block(tag, at, inner, inner + self.options.max_block_chars, call, reasoning)

    def block_limit(self) -> int:
        """The absolute offset where the open block (or held block) is cut."""
        assert isinstance(self.element, (Block, Held))
        return self.element.limit

    def held_bound(self) -> int:
        """The absolute offset the held run may reach (``Held.bound``)."""
        assert isinstance(self.element, Held)
        return self.element.bound

    def close_block(self, tag: str, at: int) -> list[Event]:
        """The block's closer: the block is folded."""
        return self._finish_block(at + len(tag), closed=True, cut=False, closer=tag)

    def reopen_block(self, tag: str, at: int) -> list[Event]:
        """The block's opener inside it: it ends unterminated, and the tag opens the next block."""
        block = self.element
        assert isinstance(block, Block)
        events = self._finish_block(at, closed=False, cut=False)
        if block.reasoning is not None:
            events += self._end_segment(at, closed=False)
        else:
            self._flush()
        self._new_block(tag, at, block.reasoning)
        return events

    def cut_block(self, tag: str, at: int) -> list[Event]:
        """The block reached ``max_block_chars`` at ``at``: it is folded, cut."""
        return self._finish_block(at, closed=False, cut=True)

    def announce(self, name: str) -> list[Event]:
        """The open call's name is complete: ``ToolCallStart`` (unless the tools policy will not keep it)."""
        block = self.element
        assert isinstance(block, Block)
        if not block.call or block.announced is not None:
            return []
        if self.policy is not None and not self.policy.announces(name):
            return []  # tools=: a call that will be dropped or become text is never announced
        block.announce(name)
        return [new_tool_call_start(block.ordinal, block.block_id, name)]

    def arguments(self, inside: bool) -> None:
        """The streamed arguments of the open call start (True) or end (False) here."""
        block = self.element
        assert isinstance(block, Block)
        block.arguments(inside)

    def delta(self, text: str) -> list[Event]:
        """The next piece of the open call's ``arguments`` JSON text (an XML body's, streamed)."""
        block = self.element
        assert isinstance(block, Block)
        return block.send(text)

    def _finish_block(self, end: int, *, closed: bool, cut: bool, closer: str = "") -> list[Event]:
        """The open block ends at absolute ``end``: fold it into parts, events and diagnostics; the
        element after it is its body's (a text run, or a new reasoning segment)."""
        block = self.element
        assert isinstance(block, Block)
        options = self.options
        inner = "".join(block.pieces)
        if cut:
            inner = inner[: options.max_block_chars]
        rejoin: str | None = None
        if block.call:
            parts, events, diags, rejoin = self._call_parts(block, inner, end, closed=closed, cut=cut, closer=closer)
            self.parts.extend(parts)
        else:
            finisher = finish_response if block.opener == tags.RESP_OPEN else finish_tools
            part, events, diags = finisher(
                inner=inner,
                start=block.start,
                end=end,
                closed=closed,
                cut=cut,
                strict=options.strict,
                max_block_chars=options.max_block_chars,
                span_of=self.span,
            )
            self.parts.append(part)
        self.diags.extend(diags)
        if block.reasoning is not None:
            self.element = self._segment(block.reasoning, end, opened=False)
            events.append(new_reasoning_start(block.reasoning, False))
        elif rejoin is not None:
            self._rejoin(block.start, rejoin)
        else:
            self.element = new_run([] if self.retain else SINK)
        return events

    def _call_parts(
        self, block: Block, inner: str, end: int, *, closed: bool, cut: bool, closer: str
    ) -> tuple[list[Any], list[Event], list[Diagnostic], str | None]:
        """The parts, events and diagnostics of a call block (after the tools policy), and the text it
        becomes if the policy keeps it as text."""
        options = self.options
        parts, events, diags = finish_call(
            block,
            inner=inner,
            start=block.start,
            end=end,
            closed=closed,
            cut=cut,
            closer=closer or tags.CALL_CLOSE,
            strict=options.strict,
            max_block_chars=options.max_block_chars,
            stream_arguments=self.stream_arguments,
            first_index=self.valid,
            span_of=self.span,
            tools=self.schemas,
            expect=options.profile.body_kind,
        )
        text = None
        if self.policy is not None:  # tools=: the policy decides before any event of the block leaves
            parts, events, diags, text = self.policy.stream_block(
                parts,
                events,
                diags,
                first_index=self.valid,
                streamed="".join(block.streamed or ()) if block.announced is not None else None,
                reasoning=block.reasoning,
            )
        self.valid += sum(1 for p in parts if isinstance(p, ToolCall))
        return parts, events, diags, text

    def _rejoin(self, start: int, text: str) -> None:
        """A block at ``start`` became ``text`` (tools policy): it joins the text run before it, if adjacent."""
        prev = self.parts[-1] if self.parts else None
        if isinstance(prev, Text) and prev.span.end == start:
            self.parts.pop()
            self.element = new_run([prev.text, text], prev.span.start)
        else:
            self.element = new_run([text], start)
