"""Scanning the body of an open block (call, result, catalogue): JSON-aware or plain, to its end.

A block body whose first non-blank character is ``{``/``[`` is scanned JSON-aware (a marker inside a
JSON string does not end it; a control token always does, R2), with ``jsontrack`` following the
structure as far as the events need: the top-level ``name`` (``ToolCallStart``) and, with
``stream_arguments``, the raw text of ``arguments`` (``ArgumentsDelta``). Other bodies are scanned
for their end markers only. A body longer than ``max_block_chars`` is cut (``HT114``).

Once nothing but the end of the block is looked for (plain bodies, and JSON bodies past their name),
a chunk without ``<`` cannot end the block and produces no event: the parser defers it (``_defer``)
and this scanner reads the deferred text in one pass when a chunk that may end the block arrives.
"""

from __future__ import annotations

import re

from .blocks import CallBlock
from .buffer import held_from
from .core import T
from .events import new_arguments_delta, new_tool_call_start
from .fold import Fold
from .jsontrack import PHASE_MIN, PHASE_NAME, JsonTrack
from .markers import CALL_OPEN
from .table import State, Trigger

__all__ = ["BlockScan"]

_WS = " \t\n\r"
_REASONING = State.REASONING
# The inside of a JSON string with no quote, no "<" and no escape left open: it cannot end the string.
# The usual start of a call body: the top-level name first, plain (no escapes).
_NAME_PREFIX = re.compile(r'\{[ \t\n\r]*"name"[ \t\n\r]*:[ \t\n\r]*"([\w.\-]+)"')
_STRING_BODY = re.compile(r'[^"\\<]*(?:\\[^<][^"\\<]*)*', re.DOTALL)
_SKIP_STRING = _STRING_BODY.match


class BlockScan(Fold):
    """Scans the open block's body; ends it at its closer, a new opener, a control token or the cut."""

    def _init_block(self) -> None:
        self._b_start = self._b_inner = self._b_limit = self._b_len = 0
        self._b_text = []
        self._b_mode = ""
        self._b_call = None
        self._track = None

    def _open_block(self, trigger: Trigger, at: int, tag: str) -> None:
        self._fire(trigger)
        self._b_start = at
        self._b_inner = inner = at + len(tag)
        self._b_limit = inner + self.options.max_block_chars
        self._b_text = []
        self._b_len = 0
        self._b_mode = ""
        self._track = None
        if trigger is T.OPEN_CALL:
            ordinal = self._ordinal
            self._ordinal += 1
            self._b_call = CallBlock(ordinal=ordinal, block_id=self.options.ids(ordinal))
        else:
            self._b_call = None

    def _fast_block(self, chunk: str) -> bool:
        """Take a chunk without ``<`` that fits the bound into a JSON block whose name or arguments are
        still followed, when it holds no token (inside a string: no quote that ends it; a backslash at
        its end is held back); False if it may (the scanner then reads it)."""
        track = self._track
        if track is None:
            return False
        if track.in_string:
            if '"' in chunk or "\\" in chunk:
                body = _SKIP_STRING(chunk)
                assert body is not None  # it matches the empty string
                k = body.end()
                if k < len(chunk):
                    if k < len(chunk) - 1 or chunk[k] != "\\":
                        return False  # the string may end here
                    # an escape cut by the end of the chunk: hold the backslash back, as the scanner does
                    self._pending = "\\"
                    chunk = chunk[:k]
                    if not chunk:
                        return True
            if track.str_pieces is not None:
                track.str_pieces.append(chunk)
            if track.args_start >= 0 and track.args_end < 0:
                self._arguments_delta(chunk)
        elif track.phase != PHASE_MIN or '"' in chunk:
            return False
        self._b_text.append(chunk)
        self._b_len += len(chunk)
        return True

    def _scan_block(self, data: str, i: int, final: bool) -> tuple[int, bool]:
        limit = self._b_limit  # absolute offset of the cut
        pos = self._pos
        if not self._b_mode:
            n = len(data)
            k = i
            while k < n and data[k] in _WS:
                k += 1
            if k > i:
                self._b_text.append(data[i:k])
                self._b_len += k - i
                if pos + k > limit:
                    return self._cut(limit), False
            if k == n:
                return n, False
            first = data[k]
            if first in "{[" and self._blocks[self.state].opener is not None:
                self._b_mode = "json"
                self._track = track = JsonTrack(
                    first=first, want_name=self._b_call is not None, want_args=self.stream_arguments
                )
                if track.phase == PHASE_NAME:
                    m = _NAME_PREFIX.match(data, k)
                    if m is not None and pos + m.end() - 1 < limit:  # the usual start, in one step
                        track.read_name_prefix(m.group(1))
                        self._announce(m.group(1))
                        return self._scan_json(data, m.end(), final, limit, seg=k)
            else:
                self._b_mode = "plain"
            i = k
        if self._b_mode == "plain":
            return self._scan_plain(data, i, final, limit)
        return self._scan_json(data, i, final, limit)

    def _sink_block(self, text: str) -> None:
        self._b_text.append(text)
        self._b_len += len(text)

    def _scan_plain(self, data: str, i: int, final: bool, limit: int) -> tuple[int, bool]:
        scans = self._blocks[self.state]
        pos = self._pos
        n = len(data)
        endpos = min(n, limit - pos + 16)
        m = scans.plain.pattern.search(data, i, endpos)
        if m is None:
            h = n if (final or endpos < n) else held_from(data, i, scans.plain.held)
            if h > i:
                self._sink_block(data[i:h])
            if pos + h > limit:
                return self._cut(limit), False
            if h < n:
                self._held = scans.plain.held.prefixes  # what the held tail may still become
            return h, h < n
        j = m.start()
        if pos + j > limit:
            self._sink_block(data[i:j])
            return self._cut(limit), False
        if j > i:
            self._sink_block(data[i:j])
        return self._block_end(m.group(), pos + j, j), False

    def _scan_json(self, data: str, i: int, final: bool, limit: int, seg: int = -1) -> tuple[int, bool]:
        """Scan a JSON body from ``data[i]`` (``seg``: where the text not yet kept starts, if before ``i``)."""
        scans = self._blocks[self.state]
        track = self._track
        assert track is not None
        pos = self._pos
        n = len(data)
        endpos = min(n, limit - pos + 16)
        if seg < 0:
            seg = i  # start of text not yet sunk into the block
        str_from = i if track.str_pieces is not None else -1
        args_from = i if (track.args_start >= 0 and track.args_end < 0) else -1
        room = pos + n <= limit  # no cut can fall inside the data
        while True:
            if track.in_string:
                if room:  # skip the string's plain text and escapes (the loop would step over them one by one)
                    skip = _SKIP_STRING(data, i)
                    assert skip is not None  # it matches the empty string
                    i = skip.end()
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
                    self._sink_block(data[seg:h])
                if str_from >= 0 and track.str_pieces is not None:
                    track.str_pieces.append(data[str_from:h])
                if pos + h > limit:
                    if args_from >= 0:
                        self._arguments_delta(data[args_from : limit - pos])
                    return self._cut(limit), False
                if args_from >= 0 and h > args_from:
                    self._arguments_delta(data[args_from:h])
                if h < n:
                    self._held = scan.held.prefixes  # what the held tail may still become
                return h, h < n
            j = m.start()
            tok = m.group()
            if tok[0] == '"' and len(tok) > 1:  # whole strings (quotes-only scanning)
                if pos + m.end() - 1 < limit:
                    i = m.end()
                    continue
                tok = '"'
            if pos + j > limit or (pos + j == limit and len(tok) == 1):
                self._sink_block(data[seg:j])
                if args_from >= 0:
                    self._arguments_delta(data[args_from : limit - pos])
                return self._cut(limit), False
            if not track.in_string and track.phase != PHASE_MIN and j > i:
                track.other_text(data[i:j])
            if len(tok) > 2:  # a marker: the block ends here
                if j > seg:
                    self._sink_block(data[seg:j])
                if args_from >= 0 and j > args_from:
                    self._arguments_delta(data[args_from:j])
                return self._block_end(tok, pos + j, j), False
            if tok == "\\":
                if j + 1 >= n and not final:
                    if j > seg:
                        self._sink_block(data[seg:j])
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
                if track.open_container(tok, pos + j - self._b_inner) and self.stream_arguments:
                    args_from = j
            else:  # } ]
                if track.close_container(pos + j - self._b_inner) and args_from >= 0:
                    self._arguments_delta(data[args_from:i])
                    args_from = -1

    def _announce(self, name: str) -> None:
        call = self._b_call
        if call is None or call.announced is not None:
            return
        if self._policy is not None and not self._policy.announces(name):
            return  # tools=: a call that will be dropped or become text is never announced
        call.announced = name
        call.streamed = []
        self._events.append(new_tool_call_start(call.ordinal, call.block_id, name))

    def _arguments_delta(self, text: str) -> None:
        call = self._b_call
        if call is None or call.streamed is None or not text:
            return
        call.streamed.append(text)
        self._events.append(new_arguments_delta(call.ordinal, call.block_id, text))

    def _block_end(self, tag: str, at: int, j: int) -> int:
        """A marker at ``at`` ends the open block; returns the next index of the data."""
        scans = self._blocks[self.state]
        if tag == scans.closer:
            self._finish_block(at + len(tag), closed=True, closer_len=len(tag))
            return j + len(tag)
        if tag == scans.opener:  # unterminated; the tag opens the next block
            self._finish_block(at, closed=False, closer_len=0)
            if self.state is _REASONING:
                self._end_segment(at, closed=False)
                trigger = T.OPEN_CALL
            else:
                self._flush_text()
                trigger = T.OPEN_CALL if tag == CALL_OPEN else T.OPEN_RESPONSE
            self._open_block(trigger, at, tag)
            return j + len(tag)
        self._control(tag, at)  # a control token: the body ends
        return j + len(tag)

    def _cut(self, limit: int) -> int:
        """The open block grew past ``max_block_chars``: cut it at absolute ``limit``; rescan after it."""
        inner = "".join(self._b_text)
        self._b_text = [inner[: self.options.max_block_chars]]
        self._finish_block(limit, closed=False, closer_len=0, cut=True)
        return limit - self._pos
