"""Blocks of a body (docs/parsing.md §4.2, §5–§7): reasoning, calls, results, catalogues.

``BlockReader`` holds what block reading needs (the source, the options, line:column spans, the
diagnostics, the call ordinal, how far the input was read) and turns one block token into parts and
diagnostics. It finds the block's extent (closer, end of input, or the size cut of §5.4: it returns
the cut offset and the caller resumes there); what the finished block means is decided by the
block rules both engines share (``_blockrules``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from .. import _blockrules
from .. import _diagnostics as diagnostics
from .._construct import new_reasoning, new_text
from .._diagnostics import message
from .._model import Diagnostic, Part, ReasoningKind, Span, ToolCall
from .._options import ParseOptions
from .._positions import LineIndex
from .._xmlbody import XmlBlock, bare_extent, body_kind, scan_bare_function, scan_xml_block
from ..tags import CALL_CLOSE, CALL_OPEN, CLOSE, OPEN, RESP_CLOSE, RESP_OPEN, TOOLS_CLOSE, TOOLS_OPEN
from ._parser import Variant, token_batches

__all__ = ["BlockReader", "Body", "Segment"]

_OPEN_LEN = {kind: len(tag) for kind, tag in OPEN.items()}
_CALL_OPEN, _CALL_CLOSE = len(CALL_OPEN), len(CALL_CLOSE)
_RESP_OPEN, _RESP_CLOSE = len(RESP_OPEN), len(RESP_CLOSE)
_TOOLS_OPEN, _TOOLS_CLOSE = len(TOOLS_OPEN), len(TOOLS_CLOSE)
_WS = " \t\n\r"
# the items of a reasoning block read as with calls_in_reasoning (trailing_calls)
_TEXT_ITEMS = frozenset({"THINK_TEXT", "SCRATCH_TEXT"})
_CALL_ITEMS = frozenset({"CALL_DONE", "CALL_JSON", "CALL_PLAIN", "CALL_XML"})
_RESUME = {"think": "resume_think_c", "scratch_pad": "resume_scratch_c"}
TEXT, CALL, BAD, GIVEN = range(4)  # a text item, a call that holds a call, any other call block, a run given back


@dataclass(slots=True)
class Segment:
    """A reasoning segment being read (calls_in_reasoning=True)."""

    kind: ReasoningKind
    start: int
    opened: bool
    text_start: int
    text_end: int


class Body:
    """The parts of one body being read, and the pending text run (a plain class: one per turn)."""

    __slots__ = ("calls", "parts", "segment", "text_end", "text_start")

    def __init__(self) -> None:
        self.parts: list[Part] = []
        self.text_start = -1
        self.text_end = -1
        self.segment: Segment | None = None
        self.calls = 0


class BlockReader:
    """Shared state of one parse, and the readers of block tokens."""

    def __init__(self, source: str, options: ParseOptions) -> None:
        self.src = source
        self.opts = options
        self.index = LineIndex(source)
        self.span: Callable[[int, int], Span] = self.index.spanner()  # hot: the spans a parse builds
        self.diags: list[Diagnostic] = []
        self.ordinal = 0
        self.reach = 0  # end offset of the last token consumed (or of the last cut)
        self.schemas = _blockrules.tool_schemas(options.tools)  # XML values are typed by them
        self.expect = options.profile.body_kind

    def diag(self, code: str, message: str, start: int, end: int, hint: str | None = None) -> None:
        """Record a diagnostic with the catalogue severity for the mode (strict or lenient)."""
        self.diags.append(diagnostics.make(code, message, self.span(start, end), strict=self.opts.strict, hint=hint))

    def next_id(self) -> str:
        """The id of the next call block (§5.6: every opened block has an ordinal)."""
        block_id = self.opts.ids(self.ordinal)
        self.ordinal += 1
        return block_id

    def reasoning_block(self, kind: ReasoningKind, body: Body, s: int, e: int, *, opened: bool = True) -> None:
        """A whole reasoning block token (calls_in_reasoning=False); ``opened=False``: its opener was
        in the prompt (the token is the rest of the block)."""
        src = self.src
        inner_start = s + _OPEN_LEN[kind] if opened else s
        closer = CLOSE[kind]
        closed = e - inner_start >= len(closer) and src.startswith(closer, e - len(closer))
        inner_end = e - len(closer) if closed else e
        find = src.find
        run = None
        split: set[int] = set()
        at = find(CALL_OPEN, inner_start, inner_end)
        if at >= 0 and (not closed or inner_end - at > self.room):  # (else no run passes its room)
            items = self.held_items(kind, inner_start, inner_end)
            split = self.split_points(items)
            run = None if closed else self.trailing_calls(items)
        end = e if run is None else run[0][1]  # the calls that end a block never closed leave it (HT242)
        if opened or closed or end > inner_start:  # (a block the prompt opened, left at once, gives no part)
            text = src[inner_start : min(inner_end, end)]
            body.parts.append(new_reasoning(kind, text, s, end, self.index, opened, closed))
        while 0 <= at < min(inner_end, end):
            if not split or all(p not in split for p in range(at + 1, at + _CALL_OPEN)):
                self.diag("HT124", message("HT124"), at, at + _CALL_OPEN)
            at = find(CALL_OPEN, at + _CALL_OPEN, min(inner_end, end))
        if not closed:  # after the HT124s, as a stream finds them (they tie at 0 when the prompt opened it)
            self.diag("HT111", message("HT111", kind=kind), s, end)
        for item, ts, te in run or ():
            if item == TEXT:
                body.parts.append(new_text(src[ts:te], ts, te, self.index))
            else:
                self.closing_call(body, kind, ts, te)

    @property
    def room(self) -> int:
        """The room of a run of blocks held in reasoning: one block's at ``max_block_chars``, tags included."""
        return _CALL_OPEN + self.opts.max_block_chars + _CALL_CLOSE

    def held_items(self, kind: ReasoningKind, start: int, end: int) -> list[tuple[int, int, int]]:
        """``[start, end)``, the text of a reasoning block (``calls_in_reasoning`` off), as a stream
        holds and gives it back (docs/parsing.md §4.2): its items (``reasoning_items``), where a run of
        blocks and whitespace that passes its room from its first tag is given back (``GIVEN``, up to
        where it passed it: ``passed``) and the text is read on from there (``held_long``)."""
        room = self.room
        items = list(self.reasoning_items(kind, start, end))
        k = 0
        while (found := self.passed(items, k, room)) is not None:
            k, cut = found  # items[k] holds the cut: read on from it until the reading meets the old one
            new = [(GIVEN, items[k][1], cut)]
            j = k
            for item in self.reasoning_items(kind, cut, end):
                new.append(item)
                while j < len(items) and items[j][2] < item[2]:
                    j += 1
                if j < len(items) and items[j][2] == item[2]:
                    j += 1
                    break
            else:
                j = len(items)
            items[k:j] = new
        return items

    def split_points(self, items: list[tuple[int, int, int]]) -> set[int]:
        """Where a stream stops holding inside the text (a run given back, a block cut by its size):
        a ``<tool_call>`` across such a point is never read whole (no ``HT124``)."""
        cut = _CALL_OPEN + self.opts.max_block_chars
        return {e for item, s, e in items if item == GIVEN or (item == BAD and e == s + cut)}

    def trailing_calls(self, items: list[tuple[int, int, int]]) -> list[tuple[int, int, int]] | None:
        """The calls that end a reasoning block never closed, its ``held_items`` given (docs/parsing.md
        §4.2): the text read as with ``calls_in_reasoning`` (text, and call blocks whose extent is the
        one a call has: §5.3, §5.4), a block whose body is plain is text; the items after the last text
        that is not whitespace (or given back), when they hold at least one block and each block is
        closed and holds a call when read leniently: ``(TEXT or CALL, start, end)`` from the first block
        on. Else None.
        """
        k = len(items)
        while k > 0 and not self.ends_run(*items[k - 1]):
            k -= 1
        run = items[k:]
        while run and run[0][0] == TEXT:
            run.pop(0)
        if not run or any(item == BAD for item, _, _ in run):
            return None
        return run

    def ends_run(self, item: int, s: int, e: int) -> bool:
        """Whether an item is text that ends a run of blocks: not whitespace, or given back."""
        return item == GIVEN or (item == TEXT and bool(self.src[s:e].strip(_WS)))

    def passed(self, items: list[tuple[int, int, int]], k: int, room: int) -> tuple[int, int] | None:
        """The first run of blocks and whitespace in ``items[k:]`` that passes ``room`` from its first
        tag: the item where, and the offset; or None. A block's ``<tool_call>`` or ``</tool_call>``
        across that point is kept whole (the offset after it), as a stream keeps the tags it reads."""
        src = self.src
        first = -1
        for at in range(k, len(items)):
            item, s, e = items[at]
            if item != CALL and item != BAD and (first < 0 or self.ends_run(item, s, e)):
                first = -1  # text (a plain block too): no run, or it ends the run
                continue
            if first < 0:
                first = s
            bound = first + room
            if e <= bound:
                continue
            if item != TEXT and s < bound < s + _CALL_OPEN:
                return at, s + _CALL_OPEN
            if item != TEXT and e - _CALL_CLOSE < bound and src.startswith(CALL_CLOSE, e - _CALL_CLOSE):
                return at, e
            return at, bound
        return None

    def reasoning_items(self, kind: ReasoningKind, start: int, end: int) -> Iterator[tuple[int, int, int]]:
        """``[start, end)`` (the text of a reasoning block, no closer in it) as ``(TEXT / CALL / BAD,
        start, end)`` items, the grammar's tokens with ``calls_in_reasoning``; a block is read to its end
        (an XML body by ``scan_xml_block``) and cut by the size bound, and the text is tokenized again
        after a block that ends elsewhere than its token."""
        opts, src = self.opts, self.src
        variant = Variant(kinds=tuple(opts.profile.reasoning_kinds), calls_in_reasoning=True)
        pos = start
        while pos < end:
            restart = end
            for batch in token_batches(src, _RESUME[kind], variant, pos):
                for typ, ts, te in batch:
                    if ts >= end or (typ not in _TEXT_ITEMS and typ not in _CALL_ITEMS):
                        return
                    if typ in _TEXT_ITEMS:
                        yield (TEXT, ts, te)
                        continue
                    item, item_end = self.reasoning_block_item(typ, ts, te)
                    yield (item, ts, item_end)
                    if item_end != te:
                        restart = item_end
                        break
                else:
                    continue
                break
            pos = restart

    def reasoning_block_item(self, typ: str, s: int, e: int) -> tuple[int, int]:
        """A call token ``[s, e)`` inside reasoning as an item: its kind and its end (``trailing_calls``)."""
        src, opts = self.src, self.opts
        b = s + _CALL_OPEN
        if typ == "CALL_XML":
            block = scan_xml_block(src, b, strict=False, tools=self.schemas)
            closed = block.how == "closed"
            inner_end = block.end
            e = inner_end + _CALL_CLOSE if closed else inner_end
        else:
            closed = typ == "CALL_DONE"
            inner_end = e - _CALL_CLOSE if closed else e
            if body_kind(src[b:inner_end]) == "plain":
                return TEXT, e
        if inner_end - b > opts.max_block_chars:
            return BAD, b + opts.max_block_chars
        if not closed:
            return BAD, e
        inner = src[b:inner_end]
        decoded = _blockrules.decode_body(inner, strict=False, closed=True, tools=self.schemas, expect=self.expect)
        return (CALL if decoded.calls else BAD), e

    def closing_call(self, body: Body, kind: ReasoningKind, s: int, e: int) -> None:
        """A closed call block ``[s, e)`` that ends a reasoning block never closed: a call (``HT242``)."""
        opts, src = self.opts, self.src
        b = s + _CALL_OPEN
        span = self.span(s, e)
        parts, diags = _blockrules.call_block(
            block_id=self.next_id(),
            inner=src[b : e - _CALL_CLOSE],
            inner_start=b,
            raw=src[s:e],
            span=span,
            closed=True,
            cut=False,
            strict=opts.strict,
            limit=opts.max_block_chars,
            first_index=body.calls,
            span_of=self.span,
            pos=self.index,
            tools=self.schemas,
            expect=self.expect,
            recovery=diagnostics.make("HT242", message("HT242", kind=kind), span, strict=opts.strict),
        )
        body.parts += parts
        if type(parts[0]) is ToolCall:
            body.calls += len(parts)
        self.diags += diags

    def extent(self, b: int, inner_end: int, e: int) -> tuple[int, int, bool]:
        """A block's inner end and end once the size bound (§5.4) is applied, and whether it cut.

        ``b`` is where the inner text starts; a cut block ends ``max_block_chars`` after it.
        """
        cut = b + self.opts.max_block_chars
        if inner_end > cut:
            self.reach = cut
            return cut, cut, True
        return inner_end, e, False

    def call_block(self, body: Body, typ: str, s: int, e: int) -> int | None:
        """One ``<tool_call>`` block token at ``[s, e)``; returns where to parse on when the block ends
        elsewhere than the token (cut by the size bound, or an XML block, whose token is its head)."""
        b = s + _CALL_OPEN
        decoded = None
        moved = False
        if typ == "CALL_XML":  # the XML reader says where the body ends (the token: where a plain block would)
            block = scan_xml_block(self.src, b, strict=self.opts.strict, tools=self.schemas)
            closed = block.how == "closed"
            xml_end = block.end + _CALL_CLOSE if closed else block.end
            moved = xml_end != e
            inner_end, e, cut = self.extent(b, block.end, xml_end)
            decoded = None if cut else block.body
            self.reach = e
        else:
            closed = typ == "CALL_DONE"
            inner_end, e, cut = self.extent(b, e - _CALL_CLOSE if closed else e, e)
        opts, src = self.opts, self.src
        block_id = self.next_id()
        if closed and not cut:  # the guard: the usual block, one call as written
            call = _blockrules.common_call(
                block_id=block_id,
                inner=src[b:inner_end],
                raw=src[s:e],
                start=s,
                end=e,
                pos=self.index,
                first_index=body.calls,
                expect=self.expect,
                decoded=decoded,
            )
            if call is not None:
                body.parts.append(call)
                body.calls += 1
                return e if moved else None
        parts, diags = _blockrules.call_block(
            block_id=block_id,
            inner=src[b:inner_end],
            inner_start=b,
            raw=src[s:e],
            span=self.span(s, e),
            closed=closed and not cut,
            cut=cut,
            strict=opts.strict,
            limit=opts.max_block_chars,
            first_index=body.calls,
            span_of=self.span,
            pos=self.index,
            tools=self.schemas,
            expect=self.expect,
            decoded=decoded,
        )
        body.parts += parts
        if type(parts[0]) is ToolCall:  # valid calls, all of them, or one InvalidToolCall
            body.calls += len(parts)
        self.diags += diags
        return e if cut or moved else None

    def bare_probe(self, s: int) -> XmlBlock | None:
        """The complete bare function a ``<function=`` in assistant text at ``s`` opens, within the size
        bound (``_xmlbody.bare_extent``), else None (the tag is text)."""
        block = scan_bare_function(self.src, s, strict=self.opts.strict, tools=self.schemas)
        return None if block is None else bare_extent(self.src, s, block, self.opts.max_block_chars)

    def bare_function(self, body: Body, s: int, block: XmlBlock) -> int:
        """The bare function ``block`` at ``s`` (``bare_probe``) as a call, with ``HT234``; returns its end."""
        opts, src = self.opts, self.src
        e = block.end
        span = self.span(s, e)
        parts, diags = _blockrules.call_block(
            block_id=self.next_id(),
            inner=src[s:e],
            inner_start=s,
            raw=src[s:e],
            span=span,
            closed=True,
            cut=False,
            strict=opts.strict,
            limit=opts.max_block_chars,
            first_index=body.calls,
            span_of=self.span,
            pos=self.index,
            tools=self.schemas,
            expect=self.expect,
            decoded=block.body,
            recovery=diagnostics.make("HT234", message("HT234"), span, strict=opts.strict),
        )
        body.parts += parts
        if type(parts[0]) is ToolCall:
            body.calls += len(parts)
        self.diags += diags
        self.reach = e
        return e

    def response_block(self, body: Body, typ: str, s: int, e: int) -> int | None:
        """One ``<tool_response>`` block token; returns the cut offset when it was cut."""
        b = s + _RESP_OPEN
        closed = typ == "RESP_DONE"
        inner_end, e, cut = self.extent(b, e - _RESP_CLOSE if closed else e, e)
        src = self.src
        part, diags = _blockrules.response_block(
            inner=src[b:inner_end],
            raw=src[s:e],
            span=self.span(s, e),
            pos=self.index,
            closed=closed and not cut,
            cut=cut,
            strict=self.opts.strict,
            limit=self.opts.max_block_chars,
        )
        body.parts.append(part)
        self.diags += diags
        return e if cut else None

    def tools_block(self, body: Body, s: int, e: int) -> int | None:
        """One ``<tools>`` block token (closer included when present); returns the cut offset if cut."""
        src = self.src
        b = s + _TOOLS_OPEN
        closed = e - b >= _TOOLS_CLOSE and src.startswith(TOOLS_CLOSE, e - _TOOLS_CLOSE)
        inner_end, e, cut = self.extent(b, e - _TOOLS_CLOSE if closed else e, e)
        part, diags = _blockrules.tools_block(
            inner=src[b:inner_end],
            span=self.span(s, e),
            pos=self.index,
            closed=closed and not cut,
            cut=cut,
            strict=self.opts.strict,
            limit=self.opts.max_block_chars,
        )
        body.parts.append(part)
        self.diags += diags
        return e if cut else None
