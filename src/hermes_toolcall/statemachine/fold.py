"""Folding what the scanners read into values: text and reasoning parts, finished blocks, turns, gaps.

Called at tag boundaries (never per chunk): the transcript envelope (control tokens, role headers,
turns and the text between them), the end of a body or of the input, and the end of a block (whose
rules are ``blocks``). Events for the folded values are appended to the current event list.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from ..construct import new_reasoning, new_text, new_turn
from ..model import Completion, Diagnostic, ReasoningKind, Span, Text, ToolCall, Transcript
from .blocks import finish_call, finish_response, finish_tools
from .core import K_BLOCK, Core, T
from .events import new_gap_text, new_reasoning_end, new_reasoning_start, new_turn_end, new_turn_start
from .markers import IM_END, IM_START
from .table import State, Trigger

if TYPE_CHECKING:
    from ..tools_policy import ToolPolicy

__all__ = ["Fold"]

_WS = " \t\n\r"
_ROLES: dict[str, Trigger] = {
    "assistant": T.ROLE_ASSISTANT,
    "user": T.ROLE_RESULTS,
    "tool": T.ROLE_RESULTS,
    "system": T.ROLE_CATALOGUE,
    "developer": T.ROLE_CATALOGUE,
}
_CLOSERS = {
    State.CALL: T.CLOSE_CALL,
    State.REASONING_CALL: T.CLOSE_CALL,
    State.RESPONSE: T.CLOSE_RESPONSE,
    State.TOOLS: T.CLOSE_TOOLS,
}
_GAP, _HEADER, _TAIL, _REASONING = State.GAP, State.HEADER, State.TAIL, State.REASONING
_CALL, _REASONING_CALL, _RESPONSE = State.CALL, State.REASONING_CALL, State.RESPONSE


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


_SINK = _Sink()


class Fold(Core):
    """Builds parts, turns, gaps and the final result; handles the transcript envelope."""

    _result: Completion | Transcript | None
    _policy: ToolPolicy | None  # tools=: set by the parser before any input
    _retain: bool

    def _init_fold(self) -> None:
        self._parts = []
        self._turns = []
        self._gaps = []
        self._valid = 0
        self._ordinal = 0
        self._text_start = -1
        self._text = []
        self._gap_start = 0
        self._turn_start = 0
        self._role = ""
        self._header = None
        self._body_start = 0
        self._r_kind = "think"
        self._r_start = 0
        self._r_opened = True
        self._r_text = []
        self._end_at = -1
        self._end_token = ""
        self._tail_text = False
        self._stopped_at = None
        self._result = None
        self._retain = True

    def _drop_folded(self) -> None:
        """``retain=False``: keep no source, parts, turns, gaps or body text (events carry them), and
        in lenient mode no diagnostics (strict: the errors ``close()`` raises with)."""
        self._retain = False
        self._chunks = _SINK
        self._parts = _SINK
        self._turns = _SINK
        self._gaps = _SINK
        self._diags = _ErrorsOnly() if self._strict else _SINK
        if not self._transcript:
            self._text = _SINK

    def _forget_lines(self, unread: int) -> None:
        """``retain=False``: forget the line starts before every offset a span may still start at.

        ``unread`` is the offset of the first character not scanned yet (held back, deferred or new).
        """
        floor = unread - len(self._pending) - sum(map(len, self._defer))
        state = self.state
        if self._transcript:
            floor = min(floor, self._gap_start if state is _GAP else self._turn_start)
        if self._text_start >= 0:
            floor = min(floor, self._text_start)
        if self._kind == K_BLOCK:
            floor = min(floor, self._b_start)
        if state is _REASONING:
            floor = min(floor, self._r_start)
        if self._end_at >= 0:
            floor = min(floor, self._end_at)
        if self._stopped_at is not None:
            floor = min(floor, self._stopped_at)
        self._lines.forget(floor)

    # ------------------------------------------------------------------ text and reasoning

    def _flush_text(self) -> None:
        start = self._text_start
        if start >= 0:
            if self._retain:
                text = "".join(self._text)
                self._parts.append(new_text(text, self._span(start, start + len(text))))
            self._text_start = -1
        self._text = [] if self._retain else _SINK

    def _rejoin_text(self, start: int, text: str) -> None:
        """A block at ``start`` became ``text`` (tools policy): it joins the text run before it, if adjacent."""
        prev = self._parts[-1] if self._parts else None
        if isinstance(prev, Text) and prev.span.end == start:
            self._parts.pop()
            self._text_start = prev.span.start
            self._text = [prev.text, text]
        else:
            self._text_start = start
            self._text = [text]

    def _start_segment(self, kind: ReasoningKind, at: int, *, opened: bool) -> None:
        self._r_kind = kind
        self._r_start = at
        self._r_opened = opened
        self._r_text = []
        self._events.append(new_reasoning_start(kind, opened))

    def _end_segment(self, end: int, *, closed: bool) -> None:
        text = "".join(self._r_text)
        part = None
        if text or self._r_opened or closed:
            part = new_reasoning(self._r_kind, text, self._span(self._r_start, end), self._r_opened, closed)
            self._parts.append(part)
        self._r_text = []
        self._events.append(new_reasoning_end(self._r_kind, closed, part))

    # ------------------------------------------------------------------ envelope

    def _control(self, tag: str, at: int) -> None:
        """A control token at ``at``: ends the body (or the completion), opens or closes turns."""
        state = self.state
        if not self._transcript:
            self._end_body(at)
            self._end_at = at
            self._end_token = tag
            self._fire(T.END_OF_COMPLETION)
            return
        if state is _GAP:  # <|im_start|>
            self._end_gap(at)
            self._begin_turn(at)
            return
        if state is _HEADER:
            self._diag("HT003", self._turn_start, at)
            self._role = "".join(self._text)
            self._text = []
            self._header = self._span(self._turn_start, at)
            if tag == IM_END:
                self._end_turn(at + len(tag), self._span(at, at + len(tag)))
                self._fire(T.IM_END)
                self._gap_start = at + len(tag)
            else:
                self._end_turn(at, None)
                self._fire(T.IM_START)
                self._turn_start = at
            return
        self._end_body(at)
        if tag == IM_END:
            self._end_turn(at + len(tag), self._span(at, at + len(tag)))
            self._fire(T.IM_END)
            self._gap_start = at + len(tag)
        else:
            self._diag("HT001", at, at + len(tag))
            self._end_turn(at, None)
            self._begin_turn(at)

    def _stop(self, at: int) -> None:
        self._stopped_at = at
        self._flush_text()
        if self._transcript:
            self._end_turn(at, None)
        self._fire(T.STOP)

    def _end_gap(self, at: int) -> None:
        text = "".join(self._text)
        self._text = []
        if text:
            part = new_text(text, self._span(self._gap_start, at))
            self._gaps.append(part)
            if text.strip(_WS):
                self._diag("HT005", self._gap_start, at)
            self._events.append(new_gap_text(part))

    def _begin_turn(self, at: int) -> None:
        self._fire(T.IM_START)
        self._turn_start = at
        self._text = []

    def _header_done(self, at: int) -> None:
        role = "".join(self._text)
        self._text = []
        self._role = role
        self._header = header = self._span(self._turn_start, at + 1)
        self._body_start = at + 1
        self._valid = 0
        if self._retain:
            self._parts = []
        else:
            self._text = _SINK  # body text goes out as deltas only
        trigger = _ROLES.get(role)
        if trigger is None:
            start = self._turn_start + len(IM_START)
            self._diag("HT004", start, start + len(role), role=role)
            trigger = T.ROLE_PLAIN
        self._events.append(new_turn_start(role, header))
        self._fire(trigger)

    def _end_turn(self, end: int, end_span: Span | None) -> None:
        assert self._header is not None
        parts = tuple(self._parts) if self.state is not _HEADER else ()
        turn = new_turn(self._role, parts, self._span(self._turn_start, end), self._header, end_span)
        if self._retain:
            self._parts = []
        else:
            self._text = []  # the gap that follows is kept (GapText)
        self._turns.append(turn)
        self._events.append(new_turn_end(turn))

    def _end_body(self, at: int) -> None:
        """The body ends at ``at``: close the open block and reasoning, flush text."""
        if self._kind == K_BLOCK:
            self._finish_block(at, closed=False, closer_len=0)
        if self.state is _REASONING:
            self._end_segment(at, closed=False)
            self._diag("HT111", self._r_start, at, kind=self._r_kind)
            self._fire(T.CLOSE_REASONING)
        self._flush_text()

    def _finish(self) -> None:
        """The end of the input: close whatever is open."""
        total = self._total
        state = self.state
        if state is _GAP:
            self._end_gap(total)
        elif state is _HEADER:
            self._diag("HT003", self._turn_start, total)
            self._role = "".join(self._text)
            self._text = []
            self._header = self._span(self._turn_start, total)
            self._end_turn(total, None)
        elif state is _TAIL:
            if self._stopped_at is not None:
                self._diag("HT123", self._stopped_at, total)
            elif self._end_token == IM_START or self._tail_text:
                self._diag("HT006", self._end_at, total)
        else:
            self._end_body(total)
            if self._transcript:
                if total > self._body_start:
                    self._diag("HT002", total, total)
                self._end_turn(total, None)
        self._fire(T.EOF)

    def _folded(self) -> Completion | Transcript:
        """The result value, once the input is closed."""
        if self._result is None:
            diags = tuple(sorted(self._diags, key=_start))
            source = "".join(self._chunks)
            if self._transcript:
                self._result = Transcript(
                    turns=tuple(self._turns),
                    gaps=tuple(self._gaps),
                    diagnostics=diags,
                    source=source,
                    stopped_at=self._stopped_at,
                )
            else:
                end = self._span(self._end_at, self._total) if self._end_at >= 0 else None
                self._result = Completion(
                    parts=tuple(self._parts), diagnostics=diags, source=source, end=end, stopped_at=self._stopped_at
                )
        return self._result

    # ------------------------------------------------------------------ blocks

    def _finish_block(self, end: int, *, closed: bool, closer_len: int, cut: bool = False) -> None:
        """The open block ends at absolute ``end``: fold it into parts, events and diagnostics."""
        state = self.state
        inner = "".join(self._b_text)
        self._b_text = []
        start = self._b_start
        if state is _CALL or state is _REASONING_CALL:
            assert self._b_call is not None
            parts, events, diags = finish_call(
                self._b_call,
                inner=inner,
                start=start,
                end=end,
                closed=closed,
                cut=cut,
                closer=self._blocks[state].closer,
                strict=self._strict,
                max_block_chars=self.options.max_block_chars,
                stream_arguments=self.stream_arguments,
                first_index=self._valid,
                span_of=self._span,
            )
            if self._policy is not None:  # tools=: the policy decides before any event of the block leaves
                call_block = self._b_call
                parts, events, diags, text = self._policy.stream_block(
                    parts,
                    events,
                    diags,
                    first_index=self._valid,
                    streamed="".join(call_block.streamed or ()) if call_block.announced is not None else None,
                    reasoning=self._r_kind if state is _REASONING_CALL else None,
                )
                if text is not None:
                    self._rejoin_text(start, text)
            for p in parts:
                if isinstance(p, ToolCall):
                    self._valid += 1
            self._parts.extend(parts)
        else:
            finisher = finish_response if state is _RESPONSE else finish_tools
            part, events, diags = finisher(
                inner=inner,
                start=start,
                end=end,
                closed=closed,
                cut=cut,
                strict=self._strict,
                max_block_chars=self.options.max_block_chars,
                span_of=self._span,
            )
            self._parts.append(part)
        self._diags.extend(diags)
        self._events.extend(events)
        self._track = None
        self._b_call = None
        if closed or cut:
            self._fire(T.CUT if cut else _CLOSERS[state])
        else:  # unterminated: the caller handles what ended it (a control token, an opener, the end)
            self._fire(T.END_BLOCK)
        if self.state is _REASONING:
            self._start_segment(self._r_kind, end, opened=False)
