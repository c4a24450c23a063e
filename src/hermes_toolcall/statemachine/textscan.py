"""Scanning the unread input: text outside blocks, the markers that end it, the held-back suffix.

``_run`` reads the unread data (the held-back tail, any deferred block text and the new chunk) state
by state: text states are searched with the state's compiled alternation of markers (``markers``);
a marker fires the machine's trigger and folds what it ends; at the end of the data, the longest
suffix that is a proper prefix of a marker valid in the state is held back (``buffer.held_from``)
until the next chunk proves or disproves it, or ``close()`` releases it.
"""

from __future__ import annotations

from ..model import ReasoningKind
from .blockscan import BlockScan
from .buffer import held_from
from .core import K_BLOCK, K_BODY, K_TAIL, T
from .events import new_reasoning_delta, new_text_delta
from .markers import CALL_OPEN, RESP_OPEN, TOOLS_OPEN
from .table import State

__all__ = ["TextScan"]

_WS = " \t\n\r"
_GAP, _HEADER, _REASONING, _TAIL = State.GAP, State.HEADER, State.REASONING, State.TAIL
_ASSISTANT, _RESULTS, _CATALOGUE = State.ASSISTANT, State.RESULTS, State.CATALOGUE


class TextScan(BlockScan):
    """Runs the scanners over the unread data and handles the markers found outside blocks."""

    def _run(self, data: str, *, final: bool) -> None:
        n = len(data)
        i = 0
        while i < n:
            kind = self._kind
            if kind == K_BLOCK:
                i, held = self._scan_block(data, i, final)
            elif kind == K_TAIL:
                self._sink(data[i:], self._pos + i)
                i, held = n, False
            else:
                i, held = self._scan_text(data, i, final)
            if held:
                break
        self._pending = data[i:] if i else data

    def _sink(self, text: str, at: int) -> None:
        """Text of the current (text) state that is known not to hold a marker (``at`` = absolute offset)."""
        state = self.state
        if state is _REASONING:
            self._r_text.append(text)
            self._events.append(new_reasoning_delta(self._r_kind, text))
        elif state is _HEADER or state is _GAP:
            self._text.append(text)
        elif state is _TAIL:
            if text.strip(_WS):
                self._tail_text = True
        else:
            if self._text_start < 0:
                self._text_start = at
            self._text.append(text)
            self._events.append(new_text_delta(text))

    def _scan_text(self, data: str, i: int, final: bool) -> tuple[int, bool]:
        scan = self._scan
        assert scan is not None
        m = scan.pattern.search(data, i)
        if m is None:
            h = len(data) if final else held_from(data, i, scan.held)
            if h > i:
                self._sink(data[i:h], self._pos + i)
            return h, h < len(data)
        j = m.start()
        if j > i:
            if self._kind == K_BODY:  # as _sink
                if self._text_start < 0:
                    self._text_start = self._pos + i
                text = data[i:j]
                self._text.append(text)
                self._events.append(new_text_delta(text))
            else:
                self._sink(data[i:j], self._pos + i)
        return self._marker(m.group(), self._pos + j, j), False

    def _marker(self, tag: str, at: int, j: int) -> int:
        """Handle ``tag`` found at absolute ``at`` (index ``j`` of the data); returns the next index."""
        state = self.state
        after = j + len(tag)
        if tag == "\n":  # the end of a role header (the one marker that is not a tag)
            self._header_done(at)
            return after
        if tag[1] == "|":  # <|im_start|> / <|im_end|>
            self._control(tag, at)
            return after
        if state is _GAP:  # only <|im_start|> is a marker here
            return after
        if state is _REASONING:
            if tag == CALL_OPEN:
                if self.options.calls_in_reasoning:
                    self._end_segment(at, closed=False)
                    self._open_block(T.OPEN_CALL, at, tag)
                else:
                    self._diag("HT124", at, at + len(tag))
                    self._sink(tag, at)
                return after
            self._end_segment(at + len(tag), closed=True)
            self._fire(T.CLOSE_REASONING)
            return after
        if tag == CALL_OPEN and state is _ASSISTANT:
            self._flush_text()
            self._open_block(T.OPEN_CALL, at, tag)
        elif tag == RESP_OPEN and state is _RESULTS:
            self._flush_text()
            self._open_block(T.OPEN_RESPONSE, at, tag)
        elif tag == TOOLS_OPEN and state is _CATALOGUE:
            self._flush_text()
            self._open_block(T.OPEN_TOOLS, at, tag)
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
            self._fire(T.OPEN_REASONING)
        return after
