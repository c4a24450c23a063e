"""The assembler: turns what the readers found into parts, turns, gaps, diagnostics and events.

The readers hand it typed boundary values, never raw state: text known to hold no marker (kept by
the readers' sinks in ``text`` / ``Segment.text`` / ``OpenBlock.text``), a marker at an offset
(``boundary``: it takes the marker's move from the table, ``table.moves``), a block cut at its size
limit (``cut``) and the end of the input (``finish``). It owns the folded values (``parts``,
``Envelope.turns`` / ``gaps``, ``diags``, ``result``) and the current event list (``events``),
and moves the machine (``Cursor.fire``) at each boundary. Block rules are ``blocks``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from .. import tags
from .._construct import new_reasoning, new_text, new_turn
from .._model import Completion, Diagnostic, ReasoningKind, Span, Text, ToolCall, Transcript
from .._options import ParseOptions
from ._blocks import CallBlock, finish_call, finish_response, finish_tools
from ._events import (
    Event,
    new_arguments_delta,
    new_diagnostic_event,
    new_gap_text,
    new_reasoning_end,
    new_reasoning_start,
    new_tool_call_start,
    new_turn_end,
    new_turn_start,
)
from ._jsontrack import JsonTrack
from ._machine import Cursor
from ._markers import BlockScan, block_scans
from ._messages import diagnostic
from ._table import K_BLOCK, ROLES, Action, State, Trigger

if TYPE_CHECKING:
    from .._tools_policy import ToolPolicy

__all__ = ["Assembler", "Envelope", "OpenBlock", "Segment"]

_WS = " \t\n\r"
_GAP, _HEADER, _TAIL, _REASONING = State.GAP, State.HEADER, State.TAIL, State.REASONING
_CALL, _REASONING_CALL, _RESPONSE = State.CALL, State.REASONING_CALL, State.RESPONSE
# Members as module constants: looking one up on its Enum class costs several times more, and the
# assembler names them at every boundary.
_BAD_HEADER = Action.BAD_HEADER
_BEGIN_TURN = Action.BEGIN_TURN
_CLOSE_BLOCK = Action.CLOSE_BLOCK
_CLOSE_REASONING = Action.CLOSE_REASONING
_DIAG_STRAY = Action.DIAG_STRAY
_END_COMPLETION = Action.END_COMPLETION
_END_HEADER = Action.END_HEADER
_OPEN_BLOCK = Action.OPEN_BLOCK
_OPEN_REASONING = Action.OPEN_REASONING
_REOPEN_BLOCK = Action.REOPEN_BLOCK
_SPLIT_REASONING = Action.SPLIT_REASONING
_STOP = Action.STOP
_T_CLOSE_REASONING = Trigger.CLOSE_REASONING
_T_CUT = Trigger.CUT
_T_END_BLOCK = Trigger.END_BLOCK
_T_EOF = Trigger.EOF
_T_IM_END = Trigger.IM_END
_T_OPEN_CALL = Trigger.OPEN_CALL
_T_ROLE_PLAIN = Trigger.ROLE_PLAIN
A = Action
_DIAG_KEYS = {A.DIAG_FABRICATED: "HT122", A.DIAG_CALL_IN_REASONING: "HT124"}
_KIND_OF_OPENER: dict[str, ReasoningKind] = {opener: kind for kind, opener in tags.OPEN.items()}


def _start(d: Diagnostic) -> int:
    return d.span.start


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


SINK: list[Any] = _Sink()


class Segment:
    """The open (or last) reasoning segment."""

    __slots__ = ("kind", "opened", "start", "text")

    def __init__(self) -> None:
        self.kind: ReasoningKind = "think"
        self.start = 0
        self.opened = True
        self.text: list[str] = []


class Envelope:
    """The transcript envelope and the completion's end: turns, gaps, headers, call numbering."""

    __slots__ = (
        "body_start",
        "end_at",
        "end_token",
        "gap_start",
        "gaps",
        "header",
        "ordinal",
        "role",
        "stopped_at",
        "tail_text",
        "turn_start",
        "turns",
        "valid",
    )

    def __init__(self) -> None:
        self.turns: list[Any] = []
        self.gaps: list[Text] = []
        self.gap_start = 0
        self.turn_start = 0
        self.role = ""
        self.header: Span | None = None
        self.body_start = 0
        self.valid = 0  # valid calls so far in this body (their index)
        self.ordinal = 0  # blocks of calls so far (ids)
        self.end_at = -1  # completion: where the control token that ended it starts
        self.end_token = ""
        self.tail_text = False  # text after the end of the completion
        self.stopped_at: int | None = None


class OpenBlock:
    """The open call, result or catalogue block: where it is, its text so far, how it is read."""

    __slots__ = ("call", "inner", "length", "limit", "mode", "scans", "start", "text", "track")

    def __init__(self) -> None:
        self.start = self.inner = self.limit = self.length = 0
        self.text: list[str] = []
        self.mode = ""  # "" undecided, "plain", "json"
        self.call: CallBlock | None = None
        self.track: JsonTrack | None = None
        self.scans: BlockScan | None = None

    def sink(self, text: str) -> None:
        """Block text that holds no end of the block."""
        self.text.append(text)
        self.length += len(text)


class Assembler:
    """Folds boundaries into values and events (see the module docstring)."""

    __slots__ = (
        "block",
        "cur",
        "diags",
        "env",
        "events",
        "options",
        "parts",
        "policy",
        "result",
        "retain",
        "seg",
        "span",
        "stream_arguments",
        "text",
        "text_start",
        "transcript",
    )

    def __init__(
        self,
        *,
        options: ParseOptions,
        transcript: bool,
        stream_arguments: bool,
        cur: Cursor,
        span: Callable[[int, int], Span],
        policy: ToolPolicy | None,
    ) -> None:
        self.options = options
        self.transcript = transcript
        self.stream_arguments = stream_arguments
        self.cur = cur
        self.span = span
        self.policy = policy
        self.events: list[Event] = []
        self.diags: list[Diagnostic] = []
        self.parts: list[Any] = []
        self.text_start = -1  # where the text run being read starts (-1: none)
        self.text: list[str] = []  # its pieces (also: the gap's or the header's)
        self.seg = Segment()
        self.env = Envelope()
        self.block = OpenBlock()
        self.result: Completion | Transcript | None = None
        self.retain = True

    def drop_folded(self) -> None:
        """``retain=False``: keep no parts, turns, gaps or body text (events carry them), and in
        lenient mode no diagnostics (strict: the errors ``close()`` raises with)."""
        self.retain = False
        self.parts = SINK
        self.env.turns = SINK
        self.env.gaps = SINK
        self.diags = _ErrorsOnly() if self.options.strict else SINK
        if not self.transcript:
            self.text = SINK

    def oldest_open(self, floor: int) -> int:
        """The smallest offset a span may still start at, ``floor`` being the first unread one."""
        env = self.env
        state = self.cur.state
        if self.transcript:
            floor = min(floor, env.gap_start if state is _GAP else env.turn_start)
        if self.text_start >= 0:
            floor = min(floor, self.text_start)
        if self.cur.kind == K_BLOCK:
            floor = min(floor, self.block.start)
        if state is _REASONING:
            floor = min(floor, self.seg.start)
        if env.end_at >= 0:
            floor = min(floor, env.end_at)
        if env.stopped_at is not None:
            floor = min(floor, env.stopped_at)
        return floor

    def diag(self, key: str, start: int, end: int, **fields: object) -> None:
        d = diagnostic(key, self.span(start, end), strict=self.options.strict, **fields)
        self.diags.append(d)
        self.events.append(new_diagnostic_event(d))

    # ------------------------------------------------------------------ boundaries

    def boundary(self, tag: str, at: int) -> None:
        """The marker ``tag`` at absolute ``at``: take its move in the current state (``table.moves``)."""
        cur = self.cur
        move = cur.moves[tag]
        action = move.action
        trigger = move.trigger
        if action is _OPEN_BLOCK:
            self.flush_text()
            self.open_block(trigger, at, tag)  # type: ignore[arg-type]
        elif action is _CLOSE_BLOCK:
            self.finish_block(at + len(tag), closed=True, closer=trigger)
        elif move.control:
            self.control(action, trigger, tag, at)  # type: ignore[arg-type]
        elif action is _END_HEADER:
            self.header_done(at + len(tag))
        elif action is _REOPEN_BLOCK:  # unterminated; the tag opens the next block
            self.finish_block(at, closed=False)
            if cur.state is _REASONING:
                self.end_segment(at, closed=False)
            else:
                self.flush_text()
            self.open_block(trigger, at, tag)  # type: ignore[arg-type]
        elif action is _OPEN_REASONING:
            self.flush_text()
            self.start_segment(_KIND_OF_OPENER[tag], at, opened=True)
            cur.fire(trigger)  # type: ignore[arg-type]
        elif action is _CLOSE_REASONING:
            self.end_segment(at + len(tag), closed=True)
            cur.fire(trigger)  # type: ignore[arg-type]
        elif action is _SPLIT_REASONING:
            self.end_segment(at, closed=False)
            self.open_block(trigger, at, tag)  # type: ignore[arg-type]
        elif action is _STOP:
            self.diag("HT122:stop", at, at + len(tag))
            self.stop(at, trigger)  # type: ignore[arg-type]
        else:  # a diagnostic; the tag stays text of the state
            if action is _DIAG_STRAY:
                self.diag("HT121", at, at + len(tag), tag=tag)
            else:
                self.diag(_DIAG_KEYS[action], at, at + len(tag))
            cur.reader.sink(tag, at)

    def control(self, action: Action, trigger: Trigger, tag: str, at: int) -> None:
        """A control token at ``at``: ends the body or the completion, opens or closes turns."""
        env = self.env
        if action is _END_COMPLETION:
            self.end_body(at)
            env.end_at = at
            env.end_token = tag
            self.cur.fire(trigger)
            return
        if action is _BEGIN_TURN:  # <|im_start|> in a gap
            self.end_gap(at)
            self.begin_turn(trigger, at)
            return
        end = at + len(tag)
        if action is _BAD_HEADER:
            self.diag("HT003", env.turn_start, at)
            env.role = "".join(self.text)
            self.text = []
            env.header = self.span(env.turn_start, at)
        else:
            self.end_body(at)
        if trigger is _T_IM_END:  # END_TURN, or BAD_HEADER at <|im_end|>
            self.end_turn(end, self.span(at, end))
            self.cur.fire(trigger)
            env.gap_start = end
        elif action is _BAD_HEADER:
            self.end_turn(at, None)
            self.cur.fire(trigger)
            env.turn_start = at
        else:  # NEW_TURN
            self.diag("HT001", at, end)
            self.end_turn(at, None)
            self.begin_turn(trigger, at)

    def stop(self, at: int, trigger: Trigger) -> None:
        self.env.stopped_at = at
        self.flush_text()
        if self.transcript:
            self.end_turn(at, None)
        self.cur.fire(trigger)

    def finish(self, total: int) -> None:
        """The end of the input at ``total``: close whatever is open."""
        env = self.env
        state = self.cur.state
        if state is _GAP:
            self.end_gap(total)
        elif state is _HEADER:
            self.diag("HT003", env.turn_start, total)
            env.role = "".join(self.text)
            self.text = []
            env.header = self.span(env.turn_start, total)
            self.end_turn(total, None)
        elif state is _TAIL:
            if env.stopped_at is not None:
                self.diag("HT123", env.stopped_at, total)
            elif env.end_token == tags.IM_START or env.tail_text:
                self.diag("HT006", env.end_at, total)
        else:
            self.end_body(total)
            if self.transcript:
                if total > env.body_start:
                    self.diag("HT002", total, total)
                self.end_turn(total, None)
        self.cur.fire(_T_EOF)

    def folded(self, source: str, total: int) -> Completion | Transcript:
        """The result value, once the input is closed."""
        if self.result is None:
            env = self.env
            diags = tuple(sorted(self.diags, key=_start))
            if self.transcript:
                self.result = Transcript(
                    turns=tuple(env.turns),
                    gaps=tuple(env.gaps),
                    diagnostics=diags,
                    source=source,
                    stopped_at=env.stopped_at,
                )
            else:
                end = self.span(env.end_at, total) if env.end_at >= 0 else None
                self.result = Completion(
                    parts=tuple(self.parts), diagnostics=diags, source=source, end=end, stopped_at=env.stopped_at
                )
        return self.result

    # ------------------------------------------------------------------ text and reasoning

    def flush_text(self) -> None:
        start = self.text_start
        if start >= 0:
            if self.retain:
                text = "".join(self.text)
                end = start + len(text)
                self.parts.append(new_text(text, start, end, self.span(start, end)))  # eager positions
            self.text_start = -1
        self.text = [] if self.retain else SINK

    def rejoin_text(self, start: int, text: str) -> None:
        """A block at ``start`` became ``text`` (tools policy): it joins the text run before it, if adjacent."""
        prev = self.parts[-1] if self.parts else None
        if isinstance(prev, Text) and prev.span.end == start:
            self.parts.pop()
            self.text_start = prev.span.start
            self.text = [prev.text, text]
        else:
            self.text_start = start
            self.text = [text]

    def start_segment(self, kind: ReasoningKind, at: int, *, opened: bool) -> None:
        seg = self.seg
        seg.kind = self.cur.reasoning_kind = kind
        seg.start = at
        seg.opened = opened
        seg.text = []
        self.events.append(new_reasoning_start(kind, opened))

    def end_segment(self, end: int, *, closed: bool) -> None:
        seg = self.seg
        text = "".join(seg.text)
        part = None
        if text or seg.opened or closed:
            part = new_reasoning(seg.kind, text, seg.start, end, self.span(seg.start, end), seg.opened, closed)
            self.parts.append(part)
        seg.text = []
        self.events.append(new_reasoning_end(seg.kind, closed, part))

    # ------------------------------------------------------------------ envelope

    def end_gap(self, at: int) -> None:
        text = "".join(self.text)
        self.text = []
        if text:
            env = self.env
            part = new_text(text, env.gap_start, at, self.span(env.gap_start, at))
            env.gaps.append(part)
            if text.strip(_WS):
                self.diag("HT005", env.gap_start, at)
            self.events.append(new_gap_text(part))

    def begin_turn(self, trigger: Trigger, at: int) -> None:
        self.cur.fire(trigger)
        self.env.turn_start = at
        self.text = []

    def header_done(self, at: int) -> None:
        """The role header ended with its line end, which ends at ``at``: the body starts there."""
        env = self.env
        role = "".join(self.text)
        self.text = []
        env.role = role
        env.header = header = self.span(env.turn_start, at)
        env.body_start = at
        env.valid = 0
        if self.retain:
            self.parts = []
        else:
            self.text = SINK  # body text goes out as deltas only
        trigger = ROLES.get(role)
        if trigger is None:
            start = env.turn_start + len(tags.IM_START)
            self.diag("HT004", start, start + len(role), role=role)
            trigger = _T_ROLE_PLAIN
        self.events.append(new_turn_start(role, header))
        self.cur.fire(trigger)

    def end_turn(self, end: int, end_span: Span | None) -> None:
        env = self.env
        assert env.header is not None
        parts = tuple(self.parts) if self.cur.state is not _HEADER else ()
        header = env.header
        span = self.span(env.turn_start, end)
        estart = None if end_span is None else end_span.start
        turn = new_turn(env.role, parts, span.start, end, header.end, estart, (span, header, end_span))
        if self.retain:
            self.parts = []
        else:
            self.text = []  # the gap that follows is kept (GapText)
        env.turns.append(turn)
        self.events.append(new_turn_end(turn))

    def end_body(self, at: int) -> None:
        """The body ends at ``at``: close the open block and reasoning, flush text."""
        if self.cur.kind == K_BLOCK:
            self.finish_block(at, closed=False)
        if self.cur.state is _REASONING:
            self.end_segment(at, closed=False)
            self.diag("HT111", self.seg.start, at, kind=self.seg.kind)
            self.cur.fire(_T_CLOSE_REASONING)
        self.flush_text()

    # ------------------------------------------------------------------ blocks

    def open_block(self, trigger: Trigger, at: int, tag: str) -> None:
        self.cur.fire(trigger)
        block = self.block
        block.start = at
        block.inner = inner = at + len(tag)
        block.limit = inner + self.options.max_block_chars
        block.text = []
        block.length = 0
        block.mode = ""
        block.track = None
        block.scans = block_scans()[self.cur.state]
        if trigger is _T_OPEN_CALL:
            env = self.env
            ordinal = env.ordinal
            env.ordinal += 1
            block.call = CallBlock(ordinal=ordinal, block_id=self.options.ids(ordinal))
        else:
            block.call = None

    def announce(self, name: str) -> None:
        call = self.block.call
        if call is None or call.announced is not None:
            return
        if self.policy is not None and not self.policy.announces(name):
            return  # tools=: a call that will be dropped or become text is never announced
        call.announced = name
        call.streamed = []
        self.events.append(new_tool_call_start(call.ordinal, call.block_id, name))

    def arguments_delta(self, text: str) -> None:
        call = self.block.call
        if call is None or call.streamed is None or not text:
            return
        call.streamed.append(text)
        self.events.append(new_arguments_delta(call.ordinal, call.block_id, text))

    def cut(self, limit: int) -> None:
        """The open block grew past ``max_block_chars``: cut it at absolute ``limit``."""
        block = self.block
        inner = "".join(block.text)
        block.text = [inner[: self.options.max_block_chars]]
        self.finish_block(limit, closed=False, cut=True)

    def finish_block(self, end: int, *, closed: bool, cut: bool = False, closer: Trigger | None = None) -> None:
        """The open block ends at absolute ``end``: fold it into parts, events and diagnostics.

        ``closer``: the trigger of the closing marker (closed), from the table.
        """
        cur = self.cur
        state = cur.state
        block = self.block
        env = self.env
        inner = "".join(block.text)
        block.text = []
        start = block.start
        options = self.options
        assert block.scans is not None
        if state is _CALL or state is _REASONING_CALL:
            call_block = block.call
            assert call_block is not None
            parts, events, diags = finish_call(
                call_block,
                inner=inner,
                start=start,
                end=end,
                closed=closed,
                cut=cut,
                closer=block.scans.closer,
                strict=options.strict,
                max_block_chars=options.max_block_chars,
                stream_arguments=self.stream_arguments,
                first_index=env.valid,
                span_of=self.span,
            )
            if self.policy is not None:  # tools=: the policy decides before any event of the block leaves
                parts, events, diags, text = self.policy.stream_block(
                    parts,
                    events,
                    diags,
                    first_index=env.valid,
                    streamed="".join(call_block.streamed or ()) if call_block.announced is not None else None,
                    reasoning=self.seg.kind if state is _REASONING_CALL else None,
                )
                if text is not None:
                    self.rejoin_text(start, text)
            for p in parts:
                if isinstance(p, ToolCall):
                    env.valid += 1
            self.parts.extend(parts)
        else:
            finisher = finish_response if state is _RESPONSE else finish_tools
            part, events, diags = finisher(
                inner=inner,
                start=start,
                end=end,
                closed=closed,
                cut=cut,
                strict=options.strict,
                max_block_chars=options.max_block_chars,
                span_of=self.span,
            )
            self.parts.append(part)
        self.diags.extend(diags)
        self.events.extend(events)
        block.track = None
        block.call = None
        if cut:
            cur.fire(_T_CUT)
        elif closed:
            assert closer is not None
            cur.fire(closer)
        else:  # unterminated: the caller handles what ended it (a control token, an opener, the end)
            cur.fire(_T_END_BLOCK)
        if cur.state is _REASONING:
            self.start_segment(self.seg.kind, end, opened=False)
