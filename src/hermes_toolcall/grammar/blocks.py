"""Blocks of a body (docs/parsing.md §4.2, §5–§7): reasoning, calls, results, catalogues.

``BlockReader`` holds what block reading needs (the source, the options, line:column spans, the
diagnostics, the call ordinal, how far the input was read) and turns one block token into parts and
diagnostics, including the size cut of §5.4 (it returns the cut offset; the caller resumes there).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .. import diagnostics
from ..body import decode_call_body, decode_tools_block, response_content, response_name
from ..construct import new_reasoning, new_tool_call, new_tool_response
from ..diagnostics import message
from ..ids import sub_id
from ..model import (
    Diagnostic,
    InvalidToolCall,
    Part,
    ReasoningKind,
    Span,
    ToolResponse,
    ToolsBlock,
)
from ..options import ParseOptions
from ..positions import LineIndex

__all__ = ["BlockReader", "Body", "Segment"]

_OPEN_LEN = {"think": 7, "scratch_pad": 13}
_CLOSE_TAG = {"think": "</think>", "scratch_pad": "</scratch_pad>"}
_CALL_TAG = "<tool_call>"


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
        self.span: Callable[[int, int], Span] = self.index.span  # hot: one span per part, header, end
        self.diags: list[Diagnostic] = []
        self.ordinal = 0
        self.reach = 0  # end offset of the last token consumed (or of the last cut)

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
        closer = _CLOSE_TAG[kind]
        closed = e - inner_start >= len(closer) and src.startswith(closer, e - len(closer))
        inner_end = e - len(closer) if closed else e
        body.parts.append(new_reasoning(kind, src[inner_start:inner_end], self.span(s, e), opened, closed))
        find = src.find
        at = find(_CALL_TAG, inner_start, inner_end)
        while at >= 0:
            self.diag("HT124", message("HT124"), at, at + 11)
            at = find(_CALL_TAG, at + 11, inner_end)
        if not closed:  # after the HT124s, as a stream finds them (they tie at 0 when the prompt opened it)
            self.diag("HT111", message("HT111", kind=kind), s, e)

    def call_block(self, body: Body, typ: str, s: int, e: int) -> int | None:
        """One ``<tool_call>`` block token at ``[s, e)``; returns the cut offset when it was cut."""
        src = self.src
        b = s + 11
        closed = typ == "CALL_DONE"
        inner_end = e - 12 if closed else e
        block_id = self.next_id()
        limit = self.opts.max_block_chars
        if inner_end - b > limit:
            cut = b + limit
            text = message("HT114", tag="tool_call", limit=limit)
            body.parts.append(
                InvalidToolCall(
                    id=block_id, raw=src[s:cut], span=self.span(s, cut), code="HT114", message=text, closed=False
                )
            )
            self.diag("HT114", text, s, cut)
            self.reach = cut
            return cut
        end = e
        raw = src[s:end]
        span = self.span(s, end)
        decoded = decode_call_body(src[b:inner_end], strict=self.opts.strict, closed=closed)
        for issue in decoded.issues:
            self.diag(issue.code, issue.message, b + issue.start, b + issue.end, issue.hint)
        if not decoded.calls:
            text = decoded.issues[-1].message if decoded.issues else message("no-call")
            code = decoded.failure or "HT103"
            body.parts.append(
                InvalidToolCall(
                    id=block_id, raw=raw, span=span, code=code, message=text, name=decoded.name, closed=closed
                )
            )
            return None
        if not closed:
            text = message("HT101")
            self.diag("HT101", text, s, end)
            if self.opts.strict:
                body.parts.append(
                    InvalidToolCall(
                        id=block_id,
                        raw=raw,
                        span=span,
                        code="HT101",
                        message=text,
                        name=decoded.calls[0].name,
                        closed=False,
                    )
                )
                return None
        for k, call in enumerate(decoded.calls):
            body.parts.append(
                new_tool_call(
                    body.calls, sub_id(block_id, k), call.name, call.arguments, call.arguments_json, raw, span, closed
                )
            )
            body.calls += 1
        return None

    def response_block(self, body: Body, typ: str, s: int, e: int) -> int | None:
        """One ``<tool_response>`` block token; returns the cut offset when it was cut."""
        src = self.src
        b = s + 15
        closed = typ == "RESP_DONE"
        inner_end = e - 16 if closed else e
        limit = self.opts.max_block_chars
        if inner_end - b > limit:
            cut = b + limit
            kept = src[b:cut]
            body.parts.append(
                ToolResponse(content=kept, raw=src[s:cut], span=self.span(s, cut), name=None, closed=False)
            )
            self.diag("HT114", message("HT114", tag="tool_response", limit=limit), s, cut)
            self.reach = cut
            return cut
        end = e
        content = response_content(src[b:inner_end])
        body.parts.append(new_tool_response(content, src[s:end], self.span(s, end), response_name(content), closed))
        if not closed:
            self.diag("HT112", message("HT112"), s, end)
        return None

    def tools_block(self, body: Body, s: int, e: int) -> int | None:
        """One ``<tools>`` block token (closer included when present); returns the cut offset if cut."""
        src = self.src
        b = s + 7
        closed = e - b >= 8 and src.startswith("</tools>", e - 8)
        inner_end = e - 8 if closed else e
        limit = self.opts.max_block_chars
        if inner_end - b > limit:
            cut = b + limit
            kept = src[b:cut]
            body.parts.append(
                ToolsBlock(text=kept, tools=decode_tools_block(kept), span=self.span(s, cut), closed=False)
            )
            self.diag("HT114", message("HT114", tag="tools", limit=limit), s, cut)
            self.reach = cut
            return cut
        inner = src[b:inner_end]
        body.parts.append(ToolsBlock(text=inner, tools=decode_tools_block(inner), span=self.span(s, e), closed=closed))
        if not closed:
            self.diag("HT113", message("HT113"), s, e)
        return None
