"""``StreamParser``: the streaming engine (docs/parsing.md, fed chunk by chunk).

The parser keeps only a short unread tail (a possible partial marker) and the text of the block
currently open; it fires the machine's triggers (``table``) at tag boundaries and scans the text
between them with the compiled scanners of ``markers``. Every event is emitted at a position fixed
by the input, so merged events and ``result()`` do not depend on the chunking.
"""

from __future__ import annotations

from typing import Literal

from ..errors import StreamError, UsageError
from ..ids import IdFactory
from ..model import Completion, Diagnostic, Part, Reasoning, ReasoningKind, Span, Text, ToolCall, Transcript, Turn
from ..options import DEFAULT_MAX_BLOCK_CHARS, ParseOptions
from ..profiles import DialectProfile
from .blocks import CallBlock, finish_call, finish_response, finish_tools
from .buffer import Lines, held_from
from .events import (
    ArgumentsDelta,
    DiagnosticEvent,
    Event,
    GapText,
    ReasoningDelta,
    ReasoningEnd,
    ReasoningStart,
    TextDelta,
    ToolCallStart,
    TurnEnd,
    TurnStart,
)
from .jsontrack import PHASE_MIN, JsonTrack
from .markers import CALL_OPEN, IM_END, IM_START, RESP_OPEN, TOOLS_OPEN, block_scans, text_scans
from .messages import diagnostic
from .table import State, Trigger, next_state

__all__ = ["StreamParser"]

_WS = " \t\n\r"
_ROLES: dict[str, Trigger] = {
    "assistant": Trigger.ROLE_ASSISTANT,
    "user": Trigger.ROLE_RESULTS,
    "tool": Trigger.ROLE_RESULTS,
    "system": Trigger.ROLE_CATALOGUE,
    "developer": Trigger.ROLE_CATALOGUE,
}
_BLOCK_STATES = frozenset({State.CALL, State.REASONING_CALL, State.RESPONSE, State.TOOLS})
_FAST_TEXT = frozenset({State.ASSISTANT, State.RESULTS, State.CATALOGUE, State.PLAIN, State.GAP, State.REASONING})
_BODY_TEXT = frozenset({State.ASSISTANT, State.RESULTS, State.CATALOGUE, State.PLAIN})


class StreamParser:
    """Parse a completion or a transcript fed in chunks; ``result()`` equals the whole-text parse.

    Args:
        level: ``completion`` (one assistant body) or ``transcript`` (ChatML).
        dialect: dialect name or profile.
        strict: no recoveries; ``close()`` raises ``StreamError`` when errors were found.
        calls_in_reasoning: a ``<tool_call>`` inside reasoning is a call.
        stream_arguments: emit ``ArgumentsDelta`` events with the raw text of ``arguments``.
        stop_at_fabricated_response: stop at a ``<tool_response>`` in an assistant body.
        max_block_chars: largest block body before ``HT114``.
        ids: call id factory (default: random OpenAI-like ids).
        options: ready-made ``ParseOptions`` (then the option keywords above are ignored).

    Raises:
        UsageError: an unknown level or dialect, or a bad option value.

    >>> p = StreamParser()
    >>> [type(e).__name__ for e in p.feed("Hi <tool")]
    ['TextDelta']
    >>> events = p.feed('_call>{"name": "f", "arguments": {}}</tool_call>') + p.close()
    >>> [type(e).__name__ for e in events]
    ['ToolCallStart', 'ToolCallEnd']
    >>> p.result().tool_calls[0].name
    'f'
    """

    def __init__(
        self,
        *,
        level: Literal["completion", "transcript"] = "completion",
        dialect: str | DialectProfile = "hermes",
        strict: bool = False,
        calls_in_reasoning: bool = False,
        stream_arguments: bool = False,
        stop_at_fabricated_response: bool = False,
        max_block_chars: int = DEFAULT_MAX_BLOCK_CHARS,
        ids: IdFactory | None = None,
        options: ParseOptions | None = None,
    ) -> None:
        if level not in ("completion", "transcript"):
            raise UsageError(f"unknown level {level!r} (completion or transcript)")
        opts = options or ParseOptions.make(
            dialect=dialect,
            strict=strict,
            calls_in_reasoning=calls_in_reasoning,
            stop_at_fabricated_response=stop_at_fabricated_response,
            max_block_chars=max_block_chars,
            ids=ids,
        )
        self.options = opts
        self.level = level
        self.stream_arguments = stream_arguments
        self._strict = opts.strict
        self._kinds = opts.profile.reasoning_kinds
        self._scans = text_scans(self._kinds)
        self._blocks = block_scans()
        self._transcript = level == "transcript"
        self.state = State.GAP if self._transcript else State.ASSISTANT
        self._pending = ""
        self._pos = 0  # absolute offset of _pending[0]
        self._chunks: list[str] = []
        self._total = 0
        self._lines = Lines()
        self._events: list[Event] = []
        self._diags: list[Diagnostic] = []
        self._parts: list[Part] = []
        self._turns: list[Turn] = []
        self._gaps: list[Text] = []
        self._valid = 0
        self._ordinal = 0
        self._text_start = -1
        self._text: list[str] = []
        # gap / header / turn
        self._gap_start = 0
        self._turn_start = 0
        self._role = ""
        self._header: Span | None = None
        self._body_start = 0
        # reasoning segment
        self._r_kind: ReasoningKind = "think"
        self._r_start = 0
        self._r_opened = True
        self._r_text: list[str] = []
        # open block
        self._b_start = 0
        self._b_inner = 0
        self._b_text: list[str] = []
        self._b_len = 0
        self._b_mode = ""  # "" undecided, "plain", "json"
        self._b_call: CallBlock | None = None
        self._track: JsonTrack | None = None
        # completion end / stop
        self._end_at = -1
        self._end_token = ""
        self._tail_text = False
        self._stopped_at: int | None = None
        self._closed = False
        self._result: Completion | Transcript | None = None
        #: the events of ``close()`` (also when it raised ``StreamError`` in strict mode)
        self.closing_events: list[Event] = []

    # ------------------------------------------------------------------ public API

    def feed(self, chunk: str) -> list[Event]:
        """Feed the next piece of the input; returns the events it completes.

        Raises:
            StreamError: the parser was already closed.
        """
        if self._closed:
            raise StreamError("feed() after close()")
        if not chunk:
            return []
        total = self._total
        if "\n" in chunk:
            self._lines.extend(chunk, total)
        self._chunks.append(chunk)
        self._total = total + len(chunk)
        if not self._pending:  # fast paths: a chunk that cannot hold a marker or a token
            state = self.state
            if state in _BODY_TEXT and "<" not in chunk:
                self._pos = total + len(chunk)
                if self._text_start < 0:
                    self._text_start = total
                self._text.append(chunk)
                return [TextDelta(text=chunk)]
        events: list[Event] = []
        self._events = events
        if not self._pending:
            state = self.state
            if state in _FAST_TEXT:
                if "<" not in chunk:
                    self._pos = total + len(chunk)
                    self._sink(chunk, total)
                    return events
            elif state in _BLOCK_STATES and self._fast_block(chunk):
                self._pos = total + len(chunk)
                return events
        data = self._pending + chunk
        self._run(data, final=False)
        return events

    def close(self) -> list[Event]:
        """Signal the end of the input: flush the held tail, close open blocks and turns.

        Raises:
            StreamError: strict mode found error diagnostics (``result()`` and ``closing_events``
                are still available), or the parser was already closed.
        """
        if self._closed:
            raise StreamError("close() called twice")
        events: list[Event] = []
        self._events = events
        if self._pending:
            self._run(self._pending, final=True)
        self._finish()
        self._closed = True
        self.closing_events = events
        if self._strict:
            errors = [d for d in self._diags if d.severity == "error"]
            if errors:
                raise StreamError("strict streaming found errors", sorted(errors, key=_start))
        return events

    def result(self) -> Completion | Transcript:
        """The folded result: the same value ``parse_completion`` / ``parse_transcript`` give.

        Raises:
            StreamError: ``close()`` was not called yet.
        """
        if not self._closed:
            raise StreamError("result() before close()")
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

    # ------------------------------------------------------------------ helpers

    def _span(self, start: int, end: int) -> Span:
        return self._lines.span(start, end)

    def _fire(self, trigger: Trigger) -> None:
        self.state = next_state(self.state, trigger)

    def _diag(self, key: str, start: int, end: int, **fields: object) -> None:
        d = diagnostic(key, self._span(start, end), strict=self._strict, **fields)
        self._diags.append(d)
        self._events.append(DiagnosticEvent(diagnostic=d))

    def _add_diags(self, diags: list[Diagnostic]) -> None:
        self._diags.extend(diags)

    def _sink(self, text: str, at: int) -> None:
        """Text of the current state that is known not to hold a marker (``at`` = absolute offset)."""
        state = self.state
        if state in _BLOCK_STATES:
            self._b_text.append(text)
            self._b_len += len(text)
        elif state is State.REASONING:
            self._r_text.append(text)
            self._events.append(ReasoningDelta(kind=self._r_kind, text=text))
        elif state is State.HEADER or state is State.GAP:
            self._text.append(text)
        elif state is State.TAIL:
            if text.strip(_WS):
                self._tail_text = True
        else:
            if self._text_start < 0:
                self._text_start = at
            self._text.append(text)
            self._events.append(TextDelta(text=text))

    def _flush_text(self) -> None:
        if self._text_start >= 0:
            end = self._text_start + sum(len(t) for t in self._text)
            self._parts.append(Text(text="".join(self._text), span=self._span(self._text_start, end)))
        self._text_start = -1
        self._text = []

    # ------------------------------------------------------------------ driver

    def _run(self, data: str, *, final: bool) -> None:
        n = len(data)
        i = 0
        while i < n:
            state = self.state
            if state in _BLOCK_STATES:
                i, held = self._scan_block(data, i, final)
            elif state is State.TAIL:
                self._sink(data[i:], self._pos + i)
                i, held = n, False
            else:
                i, held = self._scan_text(data, i, final)
            if held:
                break
        self._pending = data[i:]
        self._pos += i

    def _scan_text(self, data: str, i: int, final: bool) -> tuple[int, bool]:
        state = self.state
        scan = self._scans[f"reasoning:{self._r_kind}" if state is State.REASONING else state]
        m = scan.pattern.search(data, i)
        if m is None:
            h = len(data) if final else held_from(data, i, scan.held)
            if h > i:
                self._sink(data[i:h], self._pos + i)
            return h, h < len(data)
        j = m.start()
        if j > i:
            self._sink(data[i:j], self._pos + i)
        return self._marker(m.group(), self._pos + j, j), False

    # ------------------------------------------------------------------ markers outside blocks

    def _marker(self, tag: str, at: int, j: int) -> int:
        """Handle ``tag`` found at absolute ``at`` (index ``j`` of the data); returns the next index."""
        state = self.state
        after = j + len(tag)
        if tag == IM_START or tag == IM_END:
            self._control(tag, at)
            return after
        if state is State.GAP:  # only <|im_start|> is a marker here
            return after
        if state is State.HEADER:  # "\n"
            self._header_done(at)
            return after
        if state is State.REASONING:
            if tag == CALL_OPEN:
                if self.options.calls_in_reasoning:
                    self._end_segment(at, closed=False)
                    self._open_block(Trigger.OPEN_CALL, at, tag)
                else:
                    self._diag("HT124", at, at + len(tag))
                    self._sink(tag, at)
                return after
            self._end_segment(at + len(tag), closed=True)
            self._fire(Trigger.CLOSE_REASONING)
            return after
        if tag == CALL_OPEN and state is State.ASSISTANT:
            self._flush_text()
            self._open_block(Trigger.OPEN_CALL, at, tag)
        elif tag == RESP_OPEN and state is State.RESULTS:
            self._flush_text()
            self._open_block(Trigger.OPEN_RESPONSE, at, tag)
        elif tag == TOOLS_OPEN and state is State.CATALOGUE:
            self._flush_text()
            self._open_block(Trigger.OPEN_TOOLS, at, tag)
        elif tag == RESP_OPEN:  # fabricated result in an assistant body
            if self.options.stop_at_fabricated_response:
                self._diag("HT122:stop", at, at + len(tag))
                self._stop(at)
            else:
                self._diag("HT122", at, at + len(tag))
                self._sink(tag, at)
        elif tag.startswith("</"):
            self._diag("HT121", at, at + len(tag), tag=tag)
            self._sink(tag, at)
        else:  # <think> / <scratch_pad>
            self._flush_text()
            kind: ReasoningKind = "think" if tag == "<think>" else "scratch_pad"
            self._start_segment(kind, at, opened=True)
            self._fire(Trigger.OPEN_REASONING)
        return after

    def _stop(self, at: int) -> None:
        self._stopped_at = at
        self._flush_text()
        if self._transcript:
            self._end_turn(at, None)
        self._fire(Trigger.STOP)

    def _start_segment(self, kind: ReasoningKind, at: int, *, opened: bool) -> None:
        self._r_kind = kind
        self._r_start = at
        self._r_opened = opened
        self._r_text = []
        self._events.append(ReasoningStart(kind=kind, opened=opened))

    def _end_segment(self, end: int, *, closed: bool) -> None:
        text = "".join(self._r_text)
        part = None
        if text or self._r_opened or closed:
            part = Reasoning(
                kind=self._r_kind,
                text=text,
                span=self._span(self._r_start, end),
                opened=self._r_opened,
                closed=closed,
            )
            self._parts.append(part)
        self._r_text = []
        self._events.append(ReasoningEnd(kind=self._r_kind, closed=closed, part=part))

    # ------------------------------------------------------------------ envelope

    def _control(self, tag: str, at: int) -> None:
        """A control token at ``at``: ends the body (or the completion), opens or closes turns."""
        state = self.state
        if not self._transcript:
            self._end_body(at)
            self._end_at = at
            self._end_token = tag
            self._fire(Trigger.END_OF_COMPLETION)
            return
        if state is State.GAP:  # <|im_start|>
            self._end_gap(at)
            self._begin_turn(at)
            return
        if state is State.HEADER:
            self._diag("HT003", self._turn_start, at)
            self._role = "".join(self._text)
            self._text = []
            self._header = self._span(self._turn_start, at)
            if tag == IM_END:
                self._end_turn(at + len(tag), self._span(at, at + len(tag)))
                self._fire(Trigger.IM_END)
                self._gap_start = at + len(tag)
            else:
                self._end_turn(at, None)
                self._fire(Trigger.IM_START)
                self._turn_start = at
            return
        self._end_body(at)
        if tag == IM_END:
            self._end_turn(at + len(tag), self._span(at, at + len(tag)))
            self._fire(Trigger.IM_END)
            self._gap_start = at + len(tag)
        else:
            self._diag("HT001", at, at + len(tag))
            self._end_turn(at, None)
            self._begin_turn(at)

    def _end_gap(self, at: int) -> None:
        text = "".join(self._text)
        self._text = []
        if text:
            part = Text(text=text, span=self._span(self._gap_start, at))
            self._gaps.append(part)
            if text.strip(_WS):
                self._diag("HT005", self._gap_start, at)
            self._events.append(GapText(text=part))

    def _begin_turn(self, at: int) -> None:
        self._fire(Trigger.IM_START)
        self._turn_start = at
        self._text = []

    def _header_done(self, at: int) -> None:
        role = "".join(self._text)
        self._text = []
        self._role = role
        self._header = self._span(self._turn_start, at + 1)
        self._body_start = at + 1
        self._valid = 0
        self._parts = []
        trigger = _ROLES.get(role)
        if trigger is None:
            start = self._turn_start + len(IM_START)
            self._diag("HT004", start, start + len(role), role=role)
            trigger = Trigger.ROLE_PLAIN
        self._events.append(TurnStart(role=role, header=self._header))
        self._fire(trigger)

    def _end_turn(self, end: int, end_span: Span | None) -> None:
        assert self._header is not None
        turn = Turn(
            role=self._role,
            parts=tuple(self._parts) if self.state is not State.HEADER else (),
            span=self._span(self._turn_start, end),
            header=self._header,
            end=end_span,
        )
        self._parts = []
        self._turns.append(turn)
        self._events.append(TurnEnd(turn=turn))

    def _end_body(self, at: int) -> None:
        """The body ends at ``at``: close the open block and reasoning, flush text."""
        state = self.state
        if state in _BLOCK_STATES:
            self._finish_block(at, closed=False, closer_len=0)
            state = self.state
        if state is State.REASONING:
            self._end_segment(at, closed=False)
            self._diag("HT111", self._r_start, at, kind=self._r_kind)
            self._fire(Trigger.CLOSE_REASONING)
        self._flush_text()

    def _finish(self) -> None:
        total = self._total
        state = self.state
        if state is State.GAP:
            self._end_gap(total)
        elif state is State.HEADER:
            self._diag("HT003", self._turn_start, total)
            self._role = "".join(self._text)
            self._text = []
            self._header = self._span(self._turn_start, total)
            self._end_turn(total, None)
        elif state is State.TAIL:
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
        self.state = next_state(self.state, Trigger.EOF)

    # ------------------------------------------------------------------ blocks

    def _open_block(self, trigger: Trigger, at: int, tag: str) -> None:
        self._fire(trigger)
        self._b_start = at
        self._b_inner = at + len(tag)
        self._b_text = []
        self._b_len = 0
        self._b_mode = ""
        self._track = None
        if trigger is Trigger.OPEN_CALL:
            ordinal = self._ordinal
            self._ordinal += 1
            self._b_call = CallBlock(ordinal=ordinal, block_id=self.options.ids(ordinal))
        else:
            self._b_call = None

    def _fast_block(self, chunk: str) -> bool:
        """Take a chunk into the open block when it holds no token or marker start; False if it may."""
        if self._b_len + len(chunk) > self.options.max_block_chars or "<" in chunk:
            return False
        mode = self._b_mode
        if mode == "json":
            track = self._track
            assert track is not None
            if '"' in chunk or (track.in_string and "\\" in chunk):
                return False
            if not track.in_string and track.phase != PHASE_MIN:
                return False
            if track.str_pieces is not None:
                track.str_pieces.append(chunk)
            if track.args_start >= 0 and track.args_end < 0:
                self._arguments_delta(chunk)
        elif mode != "plain":
            return False
        self._b_text.append(chunk)
        self._b_len += len(chunk)
        return True

    def _scan_block(self, data: str, i: int, final: bool) -> tuple[int, bool]:
        scans = self._blocks[self.state]
        n = len(data)
        limit = self._b_inner + self.options.max_block_chars  # absolute offset of the cut
        pos = self._pos
        if not self._b_mode:
            k = i
            while k < n and data[k] in _WS:
                k += 1
            if k > i:
                self._sink(data[i:k], pos + i)
                if pos + k > limit:
                    return self._cut(data, limit), False
            if k == n:
                return n, False
            first = data[k]
            if first in "{[" and scans.opener is not None:
                self._b_mode = "json"
                self._track = JsonTrack(
                    first=first, want_name=self._b_call is not None, want_args=self.stream_arguments
                )
            else:
                self._b_mode = "plain"
            i = k
        if self._b_mode == "plain":
            return self._scan_plain(data, i, final, limit)
        return self._scan_json(data, i, final, limit)

    def _scan_plain(self, data: str, i: int, final: bool, limit: int) -> tuple[int, bool]:
        scans = self._blocks[self.state]
        pos = self._pos
        n = len(data)
        endpos = min(n, limit - pos + 16)
        m = scans.plain.pattern.search(data, i, endpos)
        if m is None:
            h = n if (final or endpos < n) else held_from(data, i, scans.plain.held)
            if h > i:
                self._sink(data[i:h], pos + i)
            if pos + h > limit:
                return self._cut(data, limit), False
            return h, h < n
        j = m.start()
        if pos + j > limit:
            self._sink(data[i:j], pos + i)
            return self._cut(data, limit), False
        if j > i:
            self._sink(data[i:j], pos + i)
        return self._block_end(m.group(), pos + j, j), False

    def _scan_json(self, data: str, i: int, final: bool, limit: int) -> tuple[int, bool]:
        scans = self._blocks[self.state]
        track = self._track
        assert track is not None
        pos = self._pos
        n = len(data)
        endpos = min(n, limit - pos + 16)
        seg = i  # start of text not yet sunk into the block
        str_from = i if track.str_pieces is not None else -1
        args_from = i if (track.args_start >= 0 and track.args_end < 0) else -1
        while True:
            if track.in_string:
                scan = scans.in_string
            elif track.phase == PHASE_MIN:
                scan = scans.out_min
            else:
                scan = scans.out_full
            m = scan.pattern.search(data, i, endpos)
            if m is None:
                h = n if (final or endpos < n) else held_from(data, i, scan.held)
                if not track.in_string and track.phase != PHASE_MIN and h > i:
                    track.other_text(data[i:h])
                if h > seg:
                    self._sink(data[seg:h], pos + seg)
                if str_from >= 0 and track.str_pieces is not None:
                    track.str_pieces.append(data[str_from:h])
                if pos + h > limit:
                    if args_from >= 0:
                        self._arguments_delta(data[args_from : limit - pos])
                    return self._cut(data, limit), False
                if args_from >= 0 and h > args_from:
                    self._arguments_delta(data[args_from:h])
                return h, h < n
            j = m.start()
            tok = m.group()
            if tok[0] == '"' and len(tok) > 1:  # a whole string (quotes-only scanning)
                if pos + m.end() - 1 < limit:
                    i = m.end()
                    continue
                tok = '"'
            if pos + j > limit or (pos + j == limit and len(tok) == 1):
                self._sink(data[seg:j], pos + seg)
                if args_from >= 0:
                    self._arguments_delta(data[args_from : limit - pos])
                return self._cut(data, limit), False
            if not track.in_string and track.phase != PHASE_MIN and j > i:
                track.other_text(data[i:j])
            if len(tok) > 2:  # a marker: the block ends here
                if j > seg:
                    self._sink(data[seg:j], pos + seg)
                if args_from >= 0 and j > args_from:
                    self._arguments_delta(data[args_from:j])
                return self._block_end(tok, pos + j, j), False
            inner_j = pos + j - self._b_inner
            if tok == "\\":
                if j + 1 >= n and not final:
                    if j > seg:
                        self._sink(data[seg:j], pos + seg)
                    if str_from >= 0 and track.str_pieces is not None:
                        track.str_pieces.append(data[str_from:j])
                    if args_from >= 0 and j > args_from:
                        self._arguments_delta(data[args_from:j])
                    return j, True
                # the escaped character is literal, but a control token still ends the block (R2)
                i = j + 1 if j + 1 < n and data[j + 1] == "<" else j + 2
                continue
            i = j + 1
            if tok == '"':
                if track.in_string:
                    if str_from >= 0 and track.str_pieces is not None:
                        track.str_pieces.append(data[str_from:i])
                    str_from = -1
                    name = track.close_string()
                    if name is not None:
                        self._announce(name)
                else:
                    track.open_string()
                    if track.str_pieces is not None:
                        str_from = i
            elif tok == ":":
                track.colon()
            elif tok == ",":
                track.comma()
            elif tok in "{[":
                if track.open_container(tok, inner_j) and self.stream_arguments:
                    args_from = j
            else:  # } ]
                if track.close_container(inner_j) and args_from >= 0:
                    self._arguments_delta(data[args_from:i])
                    args_from = -1

    def _announce(self, name: str) -> None:
        call = self._b_call
        if call is None or call.announced is not None:
            return
        call.announced = name
        call.streamed = []
        self._events.append(ToolCallStart(ordinal=call.ordinal, id=call.block_id, name=name))

    def _arguments_delta(self, text: str) -> None:
        call = self._b_call
        if call is None or call.streamed is None or not text:
            return
        call.streamed.append(text)
        self._events.append(ArgumentsDelta(ordinal=call.ordinal, id=call.block_id, text=text))

    def _block_end(self, tag: str, at: int, j: int) -> int:
        """A marker at ``at`` ends the open block; returns the next index of the data."""
        scans = self._blocks[self.state]
        if tag == scans.closer:
            self._finish_block(at + len(tag), closed=True, closer_len=len(tag))
            return j + len(tag)
        if tag == scans.opener:  # unterminated; the tag opens the next block
            self._finish_block(at, closed=False, closer_len=0)
            return self._marker_after_block(tag, at, j)
        self._control(tag, at)  # a control token: the body ends
        return j + len(tag)

    def _marker_after_block(self, tag: str, at: int, j: int) -> int:
        if self.state is State.REASONING:
            self._end_segment(at, closed=False)
            trigger = Trigger.OPEN_CALL
        else:
            self._flush_text()
            trigger = Trigger.OPEN_CALL if tag == CALL_OPEN else Trigger.OPEN_RESPONSE
        self._open_block(trigger, at, tag)
        return j + len(tag)

    def _cut(self, data: str, limit: int) -> int:
        """The open block grew past ``max_block_chars``: cut it at absolute ``limit``; rescan after it."""
        inner = "".join(self._b_text)
        keep = self.options.max_block_chars
        self._b_text = [inner[:keep]]
        self._finish_block(limit, closed=False, closer_len=0, cut=True)
        return limit - self._pos

    def _finish_block(self, end: int, *, closed: bool, closer_len: int, cut: bool = False) -> None:
        state = self.state
        inner = "".join(self._b_text)
        self._b_text = []
        start = self._b_start
        span_of = self._span
        if state is State.CALL or state is State.REASONING_CALL:
            assert self._b_call is not None
            scans = self._blocks[state]
            parts, events, diags = finish_call(
                self._b_call,
                inner=inner,
                start=start,
                end=end,
                closed=closed,
                cut=cut,
                closer=scans.closer,
                strict=self._strict,
                max_block_chars=self.options.max_block_chars,
                stream_arguments=self.stream_arguments,
                first_index=self._valid,
                span_of=span_of,
            )
            self._valid += sum(1 for p in parts if isinstance(p, ToolCall))
            self._parts.extend(parts)
        else:
            finisher = finish_response if state is State.RESPONSE else finish_tools
            part, events, diags = finisher(
                inner=inner,
                start=start,
                end=end,
                closed=closed,
                cut=cut,
                strict=self._strict,
                max_block_chars=self.options.max_block_chars,
                span_of=span_of,
            )
            self._parts.append(part)
        self._diags.extend(diags)
        self._events.extend(events)
        self._track = None
        self._b_call = None
        if closed or cut:
            self._fire(Trigger.CUT if cut else _CLOSERS[state])
            if self.state is State.REASONING:
                self._start_segment(self._r_kind, end, opened=False)
        else:  # unterminated: the caller handles what ended it (a control token, an opener, the end)
            self._fire(Trigger.END_BLOCK)
            if self.state is State.REASONING:
                self._start_segment(self._r_kind, end, opened=False)


_CLOSERS = {
    State.CALL: Trigger.CLOSE_CALL,
    State.REASONING_CALL: Trigger.CLOSE_CALL,
    State.RESPONSE: Trigger.CLOSE_RESPONSE,
    State.TOOLS: Trigger.CLOSE_TOOLS,
}


def _start(d: Diagnostic) -> int:
    return d.span.start
