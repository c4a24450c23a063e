"""The readers: one per kind of state, each with its per-chunk fast path next to its scanner.

A reader reads the unread data from an index (``read``: returns where it stopped and whether it
holds the rest back), keeps the text that holds no marker (``sink``) and hands every marker to the
assembler (``Assembler.boundary``). ``fast`` takes a whole new chunk when it provably gives the same
events as ``read`` would (no marker can start in it, or only a held-back prefix of one); ``resume``
does the same for a chunk that follows a held-back tail. Either returns None when the chunk must be
read (``tests/test_statemachine_paths.py`` checks that the fast paths change nothing).

- ``BodyReader``: assistant, results, catalogue and plain bodies (text deltas);
- ``ReasoningReader``: reasoning segments (reasoning deltas);
- ``GapReader`` / ``HeaderReader``: text between turns and role headers (kept, no event);
- ``TailReader``: after the end of a completion (only whether text follows);
- ``BlockReader``: the start of a block body, which picks the ``PlainBlockReader`` or the
  ``JsonBlockReader`` (JSON-aware: a marker inside a JSON string does not end the block; a control
  token always does, R2). Once only the block's end is looked for, chunks without ``<`` are
  deferred (``InputBuffer.defer``) and read in one pass when a chunk that may end the block arrives.
"""

from __future__ import annotations

import re

from ._assembler import Assembler
from ._buffer import InputBuffer, held_from
from ._events import ArgumentsDelta, Event, TextDelta, new_reasoning_delta, new_text_delta
from ._jsontrack import PHASE_MIN, PHASE_NAME, JsonTrack
from ._machine import Cursor
from ._table import JSON_BLOCKS

__all__ = [
    "BlockReader",
    "BodyReader",
    "GapReader",
    "HeaderReader",
    "JsonBlockReader",
    "PlainBlockReader",
    "Reader",
    "ReasoningReader",
    "TailReader",
]

_WS = " \t\n\r"
_new = object.__new__
_set_text = TextDelta.__dict__["text"].__set__  # the slot's member descriptor (see construct.positional)
_set_ordinal, _set_id, _set_arguments = (ArgumentsDelta.__dict__[name].__set__ for name in ("ordinal", "id", "text"))
# The characters of a name read in one step (plain: no escapes, no "<", no quote).
_NAME_CHAR = r"[\w.\-]"
# The usual start of a call body: the top-level name first, plain (no escapes).
_NAME_PREFIX = re.compile(rf'\{{[ \t\n\r]*"name"[ \t\n\r]*:[ \t\n\r]*"({_NAME_CHAR}+)"')
# The usual start as the templates write it, up to the name: while a call body is still a start of
# that (leading blanks allowed) with the name open (``_NAME_SO_FAR``: name characters only), nothing
# can be announced yet, so the block reader defers it and reads it in one step with the chunk that
# closes the name (``BlockReader``).
_CANONICAL_HEAD = '{"name": "'
# The name so far: only what ``_NAME_PREFIX`` reads in one step; anything else (a "<" that may begin a
# marker, an escape, a quote) is read as it comes, since the scanners may have something to say about it.
_NAME_SO_FAR = re.compile(rf"{_NAME_CHAR}*\Z").match
_HEAD_MAX = 64  # a longer start is read as it comes (deferring it would re-join it at every chunk)
#: The deferred call start of ``BlockReader``; tests turn it off to compare it with the scanners
#: reading every chunk (tests/test_statemachine_paths.py).
_DEFER_HEADS = True


def _head_so_far(text: str, i: int = 0) -> bool:
    """Whether ``text[i:]`` can still become the usual start of a call body, its name not closed yet."""
    head = text[i:].lstrip(_WS) if i else text.lstrip(_WS)
    if len(head) <= len(_CANONICAL_HEAD):
        return _CANONICAL_HEAD.startswith(head)
    return head.startswith(_CANONICAL_HEAD) and _NAME_SO_FAR(head, len(_CANONICAL_HEAD)) is not None


# The inside of a JSON string with no quote, no "<" and no escape left open: it cannot end the string.
_STRING_BODY = re.compile(r'[^"\\<]*(?:\\[^<][^"\\<]*)*', re.DOTALL)
_SKIP_STRING = _STRING_BODY.match
#: The arguments-interior fast path of ``JsonBlockReader`` (``_arguments_chunk``); tests turn it off
#: to compare it with the scanner (tests/test_statemachine_paths.py).
_FAST_ARGUMENTS = True


class Reader:
    """What every reader has: the input buffer, the cursor and the assembler."""

    __slots__ = ("asm", "buf", "cur")

    def __init__(self, buf: InputBuffer, cur: Cursor, asm: Assembler) -> None:
        self.buf = buf
        self.cur = cur
        self.asm = asm

    def read(self, data: str, i: int, final: bool) -> tuple[int, bool]:
        """Read ``data`` from ``i``; (the index reached, whether the rest is held back)."""
        raise NotImplementedError

    def sink(self, text: str, at: int) -> None:
        """Text of the current state known to hold no marker (``at``: its absolute offset)."""
        raise NotImplementedError

    def fast(self, chunk: str, at: int, end: int) -> list[Event] | None:
        """The events of a new chunk at ``at`` (nothing held back or deferred), or None: read it."""
        return None

    def resume(self, data: str, end: int) -> list[Event] | None:
        """The held-back tail followed by the new chunk (``data``), or None: read it."""
        if data in self.cur.held:
            self.buf.hold(data)  # still a proper prefix of a marker: the scanner would hold it too
            return []
        return None


# ---------------------------------------------------------------------------------------- text states


class _TextReader(Reader):
    """Scans with the state's compiled alternation of markers; holds back a possible partial marker."""

    __slots__ = ()

    def read(self, data: str, i: int, final: bool) -> tuple[int, bool]:
        scan = self.cur.scan
        assert scan is not None
        m = scan.pattern.search(data, i)
        pos = self.buf.pos
        if m is None:
            h = len(data) if final else held_from(data, i, scan.held)
            if h > i:
                self.sink(data[i:h], pos + i)
            return h, h < len(data)
        j = m.start()
        tag = m.group()
        if not final and m.end() == len(data) and tag in scan.held.prefixes:
            h = j  # a marker that the next chunk may still extend ("\r" of "\r\n"): held back
        else:
            h = -1
        if j > i:
            self.sink(data[i:j], pos + i)
        if h >= 0:
            return h, True
        self.asm.boundary(tag, pos + j)
        return j + len(tag), False

    def fast(self, chunk: str, at: int, end: int) -> list[Event] | None:
        if "<" in chunk:  # text, then the start of a marker the next chunks may complete: hold it back
            p = chunk.find("<")
            if chunk[p:] not in self.cur.held:
                return None
            self.buf.hold(chunk[p:])
            if not p:
                return []
            chunk = chunk[:p]
        return self.take(chunk, at)

    def take(self, text: str, at: int) -> list[Event]:
        """``fast`` for text known to hold no marker: as ``sink``, with the events returned."""
        raise NotImplementedError


class BodyReader(_TextReader):
    """Bodies: text runs, sent as text deltas."""

    __slots__ = ()

    def sink(self, text: str, at: int) -> None:
        asm = self.asm
        if asm.text_start < 0:
            asm.text_start = at
        asm.text.append(text)
        asm.events.append(new_text_delta(text))

    def take(self, text: str, at: int) -> list[Event]:
        asm = self.asm
        if asm.text_start < 0:
            asm.text_start = at
        asm.text.append(text)
        delta = _new(TextDelta)  # as new_text_delta(text), without a Python call
        _set_text(delta, text)
        return [delta]


class ReasoningReader(_TextReader):
    """Reasoning segments: reasoning deltas."""

    __slots__ = ()

    def sink(self, text: str, at: int) -> None:
        seg = self.asm.seg
        seg.text.append(text)
        self.asm.events.append(new_reasoning_delta(seg.kind, text))

    def take(self, text: str, at: int) -> list[Event]:
        seg = self.asm.seg
        seg.text.append(text)
        return [new_reasoning_delta(seg.kind, text)]


class GapReader(_TextReader):
    """Between turns: the text is kept for the gap; no event until the gap ends."""

    __slots__ = ()

    def sink(self, text: str, at: int) -> None:
        self.asm.text.append(text)

    def take(self, text: str, at: int) -> list[Event]:
        self.asm.text.append(text)
        return []


class HeaderReader(GapReader):
    """A role header: the text is kept; a line end ends it (the markers of its scanner)."""

    __slots__ = ()

    def fast(self, chunk: str, at: int, end: int) -> list[Event] | None:
        if "<" in chunk or "\n" in chunk or "\r" in chunk:
            return None
        self.asm.text.append(chunk)
        return []


class TailReader(Reader):
    """After the end of a completion: nothing is scanned; only whether text follows matters."""

    __slots__ = ()

    def read(self, data: str, i: int, final: bool) -> tuple[int, bool]:
        self.sink(data[i:], self.buf.pos + i)
        return len(data), False

    def sink(self, text: str, at: int) -> None:
        env = self.asm.env
        if not env.tail_text and text.strip(_WS):
            env.tail_text = True

    def fast(self, chunk: str, at: int, end: int) -> list[Event] | None:
        if "<" in chunk:
            return None
        self.sink(chunk, at)
        return []


# ---------------------------------------------------------------------------------------- blocks


class BlockReader(Reader):
    """The start of a block body: blanks, then the first character picks plain or JSON-aware reading."""

    __slots__ = ("json", "plain")

    def __init__(self, buf: InputBuffer, cur: Cursor, asm: Assembler) -> None:
        super().__init__(buf, cur, asm)
        self.plain = PlainBlockReader(buf, cur, asm)
        self.json = JsonBlockReader(buf, cur, asm)

    def sink(self, text: str, at: int) -> None:
        self.asm.block.sink(text)

    def fast(self, chunk: str, at: int, end: int) -> list[Event] | None:
        # a call body that can still begin as usual ({"name": "…"), its name not closed yet: nothing
        # to announce, so the chunk waits (deferred) until the name is complete, read in one step
        if "<" in chunk or not _DEFER_HEADS:
            return None
        buf = self.buf
        block = self.asm.block
        if end > block.limit or block.call is None:
            return None
        head = "".join(buf.deferred) + chunk if buf.deferred else chunk
        if len(head) > _HEAD_MAX or not _head_so_far(head):
            return None
        buf.deferred.append(chunk)
        return []

    def resume(self, data: str, end: int) -> list[Event] | None:
        if end <= self.asm.block.limit:
            return Reader.resume(self, data, end)
        return None

    def read(self, data: str, i: int, final: bool) -> tuple[int, bool]:
        block = self.asm.block
        limit = block.limit  # absolute offset of the cut
        pos = self.buf.pos
        n = len(data)
        if (
            _DEFER_HEADS
            and not final
            and block.call is not None
            and n - i <= _HEAD_MAX
            and pos + n <= limit
            and _head_so_far(data, i)
        ):
            self.buf.defer(data[i:])  # as in ``fast``: read with the chunk that closes the name
            return n, False
        k = i
        while k < n and data[k] in _WS:
            k += 1
        if k > i:
            block.sink(data[i:k])
            if pos + k > limit:
                self.asm.cut(limit)
                return limit - pos, False
        if k == n:
            return n, False
        first = data[k]
        if first in "{[" and self.cur.state in JSON_BLOCKS:
            block.mode = "json"
            self.cur.reader = self.json
            block.track = track = JsonTrack(
                first=first, want_name=block.call is not None, want_args=self.asm.stream_arguments
            )
            if track.phase == PHASE_NAME:
                m = _NAME_PREFIX.match(data, k)
                if m is not None and pos + m.end() - 1 < limit:  # the usual start, in one step
                    name = m.group(1)
                    track.read_name_prefix(name)
                    self.asm.announce(name)
                    j = m.end()
                    rest_waits = track.phase == PHASE_MIN and not final and pos + n <= limit and data.find("<", j) < 0
                    if rest_waits and _DEFER_HEADS:
                        # only the block's end is looked for now: the rest waits, as the next chunks will
                        block.sink(data[k:j])
                        if j < n:
                            self.buf.defer(data[j:])
                            self.buf.defer_to = limit
                        return n, False
                    return self.json.read_from(data, j, final, seg=k)
            return self.json.read(data, k, final)
        block.mode = "plain"
        self.cur.reader = self.plain
        return self.plain.read(data, k, final)


class PlainBlockReader(BlockReader):
    """A block body read for its end markers only (not JSON, or a catalogue)."""

    __slots__ = ()

    def __init__(self, buf: InputBuffer, cur: Cursor, asm: Assembler) -> None:  # no sub-readers
        Reader.__init__(self, buf, cur, asm)

    def fast(self, chunk: str, at: int, end: int) -> list[Event] | None:
        block = self.asm.block
        if end > block.limit:
            return None
        if "<" not in chunk:
            buf = self.buf
            buf.deferred.append(chunk)  # as buf.defer(chunk), inlined: only the block's end is looked for
            buf.defer_to = block.limit  # and so will the next chunks without "<" (``StreamParser.feed``)
            return []
        assert block.scans is not None
        p = chunk.find("<")
        held = block.scans.plain.held.prefixes  # the block's end markers
        if chunk[p:] in held:
            # only the block's end is looked for: read the text later, hold the possible marker
            if p:
                self.buf.deferred.append(chunk[:p])
            self.buf.hold(chunk[p:])
            self.cur.held = held
            return []
        return None

    def read(self, data: str, i: int, final: bool) -> tuple[int, bool]:
        block = self.asm.block
        scans = block.scans
        assert scans is not None
        limit = block.limit
        pos = self.buf.pos
        n = len(data)
        endpos = min(n, limit - pos + 16)
        m = scans.plain.pattern.search(data, i, endpos)
        if m is None:
            h = n if (final or endpos < n) else held_from(data, i, scans.plain.held)
            if h > i:
                block.sink(data[i:h])
            if pos + h > limit:
                self.asm.cut(limit)
                return limit - pos, False
            if h < n:
                self.cur.held = scans.plain.held.prefixes  # what the held tail may still become
            return h, h < n
        j = m.start()
        if pos + j > limit:
            block.sink(data[i:j])
            self.asm.cut(limit)
            return limit - pos, False
        if j > i:
            block.sink(data[i:j])
        tag = m.group()
        self.asm.boundary(tag, pos + j)
        return j + len(tag), False


class JsonBlockReader(PlainBlockReader):
    """A JSON block body, following its structure as far as the events need (``jsontrack``): the
    top-level ``name`` (``ToolCallStart``) and, with ``stream_arguments``, the raw text of
    ``arguments`` (``ArgumentsDelta``)."""

    __slots__ = ()

    def fast(self, chunk: str, at: int, end: int) -> list[Event] | None:
        block = self.asm.block
        track = block.track
        assert track is not None
        if end > block.limit:
            return None
        if (
            track.depth >= 2
            and track.args_start >= 0 > track.args_end  # inside the streamed arguments (so phase is PHASE_ARGS)
            and "<" not in chunk
            and "\\" not in chunk
            and _FAST_ARGUMENTS
            and not self.buf.deferred
        ):
            # Inside the streamed ``arguments`` object, below its top level: the structure tracking
            # needs only whether the scan is inside a string and the depth (``JsonTrack``: colons,
            # commas and the text between tokens change nothing there, and no string is kept). The
            # quotes toggle ``in_string`` by their parity; the brackets outside strings (the even
            # pieces between quotes, or the odd ones from inside a string) move the depth. When the
            # closers could bring it down to 1 (the arguments end), the scanner reads the chunk. The
            # events are the scanner's: the chunk is one delta. Inside a string a chunk without a
            # quote changes nothing.
            if '"' in chunk or not track.in_string:
                in_string = track.in_string
                if '"' not in chunk:
                    outside = chunk
                elif chunk.count('"') == 1:
                    q = chunk.find('"')
                    outside = chunk[q + 1 :] if in_string else chunk[:q]
                    in_string = not in_string
                else:
                    pieces = chunk.split('"')
                    outside = "".join(pieces[1::2] if in_string else pieces[::2])
                    if not len(pieces) & 1:  # an odd number of quotes
                        in_string = not in_string
                depth = track.depth
                if outside:
                    if "}" in outside or "]" in outside:
                        depth -= outside.count("}") + outside.count("]")
                    if depth >= 2 and ("{" in outside or "[" in outside):
                        depth += outside.count("{") + outside.count("[")
                if depth < 2:  # the arguments may end here: the scanner reads the chunk
                    return self._scanned(chunk)
                track.depth = depth
                track.in_string = in_string
            block.text.append(chunk)
            call = block.call
            if call is None or call.streamed is None:  # not announced: no delta (``Assembler.arguments_delta``)
                return []
            call.streamed.append(chunk)
            delta = _new(ArgumentsDelta)  # as new_arguments_delta(...), without a Python call
            _set_ordinal(delta, call.ordinal)
            _set_id(delta, call.block_id)
            _set_arguments(delta, chunk)
            return [delta]
        if track.phase == PHASE_MIN:  # only the block's end is looked for, as in a plain block
            if "<" not in chunk:
                buf = self.buf
                buf.deferred.append(chunk)
                buf.defer_to = block.limit  # as in a plain block
                return []
            return PlainBlockReader.fast(self, chunk, at, end)
        if "<" in chunk or self.buf.deferred:
            return None
        return self._scanned(chunk)

    def _scanned(self, chunk: str) -> list[Event] | None:
        """The events of a chunk without ``<`` as ``_string_chunk`` takes it, or None (the scanner reads it)."""
        events: list[Event] = []
        self.asm.events = events
        return events if self._string_chunk(chunk) else None

    def resume(self, data: str, end: int) -> list[Event] | None:
        if end > self.asm.block.limit:
            return None
        if data in self.cur.held:
            self.buf.hold(data)
            return []
        pending = self.buf.pending
        if pending == "\\" and "<" not in data:
            # the escape held back inside a JSON string: the string goes on with this chunk
            events: list[Event] = []
            self.asm.events = events
            self.buf.hold("")
            if self._string_chunk(data):
                return events
            self.buf.hold(pending)
        return None

    def _string_chunk(self, chunk: str) -> bool:
        """Take a chunk without ``<`` that fits the bound into a JSON block whose name or arguments are
        still followed, when it holds no token (inside a string: no quote that ends it; a backslash at
        its end is held back); False if it may (the scanner then reads it)."""
        block = self.asm.block
        track = block.track
        assert track is not None
        if track.in_string:
            if '"' in chunk or "\\" in chunk:
                body = _SKIP_STRING(chunk)
                assert body is not None  # it matches the empty string
                k = body.end()
                if k < len(chunk):
                    if k < len(chunk) - 1 or chunk[k] != "\\":
                        return False  # the string may end here
                    # an escape cut by the end of the chunk: hold the backslash back, as the scanner does
                    self.buf.hold("\\")
                    chunk = chunk[:k]
                    if not chunk:
                        return True
            if track.str_pieces is not None:
                track.str_pieces.append(chunk)
            if track.args_start >= 0 and track.args_end < 0:
                self.asm.arguments_delta(chunk)
        elif track.phase != PHASE_MIN or '"' in chunk:
            return False
        block.text.append(chunk)
        block.length += len(chunk)
        return True

    def read(self, data: str, i: int, final: bool) -> tuple[int, bool]:
        return self.read_from(data, i, final)

    def read_from(self, data: str, i: int, final: bool, seg: int = -1) -> tuple[int, bool]:
        """Scan a JSON body from ``data[i]`` (``seg``: where the text not yet kept starts, if before ``i``)."""
        asm = self.asm
        block = asm.block
        scans = block.scans
        track = block.track
        assert scans is not None and track is not None
        limit = block.limit
        pos = self.buf.pos
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
                    block.sink(data[seg:h])
                if str_from >= 0 and track.str_pieces is not None:
                    track.str_pieces.append(data[str_from:h])
                if pos + h > limit:
                    if args_from >= 0:
                        asm.arguments_delta(data[args_from : limit - pos])
                    asm.cut(limit)
                    return limit - pos, False
                if args_from >= 0 and h > args_from:
                    asm.arguments_delta(data[args_from:h])
                if h < n:
                    self.cur.held = scan.held.prefixes  # what the held tail may still become
                return h, h < n
            j = m.start()
            tok = m.group()
            if tok[0] == '"' and len(tok) > 1:  # whole strings (quotes-only scanning)
                if pos + m.end() - 1 < limit:
                    i = m.end()
                    continue
                tok = '"'
            if pos + j > limit or (pos + j == limit and len(tok) == 1):
                block.sink(data[seg:j])
                if args_from >= 0:
                    asm.arguments_delta(data[args_from : limit - pos])
                asm.cut(limit)
                return limit - pos, False
            if not track.in_string and track.phase != PHASE_MIN and j > i:
                track.other_text(data[i:j])
            if len(tok) > 2:  # a marker: the block ends here
                if j > seg:
                    block.sink(data[seg:j])
                if args_from >= 0 and j > args_from:
                    asm.arguments_delta(data[args_from:j])
                asm.boundary(tok, pos + j)
                return j + len(tok), False
            if tok == "\\":
                if j + 1 >= n and not final:
                    if j > seg:
                        block.sink(data[seg:j])
                    if str_from >= 0 and track.str_pieces is not None:
                        track.str_pieces.append(data[str_from:j])
                    if args_from >= 0 and j > args_from:
                        asm.arguments_delta(data[args_from:j])
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
                        asm.announce(name)
                else:
                    track.open_string()
                    if track.str_pieces is not None:
                        str_from = i
            elif tok == ":":
                track.colon()
            elif tok == ",":
                track.comma()
            elif tok in "{[":
                if track.open_container(tok, pos + j - block.inner) and asm.stream_arguments:
                    args_from = j
            else:  # } ]
                if track.close_container(pos + j - block.inner) and args_from >= 0:
                    asm.arguments_delta(data[args_from:i])
                    args_from = -1
