"""Finishing blocks: from a block's inner text to parts, events and diagnostics (docs/parsing.md §5–§7).

Used by the parser when a call, result or catalogue block ends (closed, unterminated or cut). The
JSON decoding itself is the shared body module's; this module only applies the block rules.
"""

from __future__ import annotations

from collections.abc import Callable

from .. import body, diagnostics
from ..construct import new_tool_call, new_tool_response
from ..ids import sub_id
from ..model import Diagnostic, InvalidToolCall, Part, Span, ToolsBlock
from .events import (
    Event,
    new_arguments_delta,
    new_diagnostic_event,
    new_tool_call_end,
    new_tool_call_start,
    new_tool_response_event,
    new_tools_event,
)
from .messages import diagnostic, message

__all__ = ["CallBlock", "finish_call", "finish_response", "finish_tools"]

SpanOf = Callable[[int, int], Span]


class CallBlock:
    """What the parser knows about an open call block when it ends."""

    __slots__ = ("announced", "block_id", "ordinal", "streamed")

    def __init__(self, *, ordinal: int, block_id: str) -> None:
        self.ordinal = ordinal
        self.block_id = block_id
        self.announced: str | None = None  # name of the early ToolCallStart, if any
        self.streamed: list[str] | None = None  # argument deltas emitted so far (stream_arguments)


def _issue_diagnostics(
    issues: tuple[body.BodyIssue, ...], inner_start: int, span_of: SpanOf, strict: bool
) -> list[Diagnostic]:
    return [
        diagnostics.make(
            i.code, i.message, span_of(inner_start + i.start, inner_start + i.end), strict=strict, hint=i.hint
        )
        for i in issues
    ]


def finish_call(
    block: CallBlock,
    *,
    inner: str,
    start: int,
    end: int,
    closed: bool,
    cut: bool,
    closer: str,
    strict: bool,
    max_block_chars: int,
    stream_arguments: bool,
    first_index: int,
    span_of: SpanOf,
) -> tuple[list[Part], list[Event], list[Diagnostic]]:
    """Parts, events and diagnostics of a call block ``[start, end)`` whose inner body is ``inner``.

    ``first_index`` is the index the block's first valid call gets (valid calls so far).
    """
    inner_start = start + len("<tool_call>")
    raw = "<tool_call>" + inner + (closer if closed else "")
    span = span_of(start, end)
    events: list[Event] = []
    if cut:
        d = diagnostic("HT114", span, strict=strict, tag="tool_call", limit=max_block_chars)
        inv = InvalidToolCall(id=block.block_id, raw=raw, span=span, code="HT114", message=d.message, closed=False)
        events += [new_diagnostic_event(d), new_tool_call_end(block.ordinal, block.block_id, None, inv)]
        return [inv], events, [d]
    decoded = body.decode_call_body(inner, strict=strict, closed=closed)
    diags = _issue_diagnostics(decoded.issues, inner_start, span_of, strict) if decoded.issues else []
    parts: list[Part] = []
    if decoded.calls and not closed and strict:
        d = diagnostic("HT101", span, strict=strict)
        diags.append(d)
        inv = InvalidToolCall(
            id=block.block_id,
            raw=raw,
            span=span,
            code="HT101",
            message=d.message,
            name=decoded.calls[0].name,
            closed=False,
        )
        parts.append(inv)
        events.append(new_tool_call_end(block.ordinal, block.block_id, None, inv))
    elif decoded.calls:
        if not closed:
            diags.append(diagnostic("HT101", span, strict=strict))
        for k, c in enumerate(decoded.calls):
            call_id = sub_id(block.block_id, k)
            call = new_tool_call(first_index + k, call_id, c.name, c.arguments, c.arguments_json, raw, span, closed)
            parts.append(call)
            early = k == 0 and block.announced is not None
            if not early:
                events.append(new_tool_call_start(block.ordinal, call_id, c.name))
            if stream_arguments:
                sent = "".join(block.streamed or ()) if early else ""
                if c.arguments_json.startswith(sent) and len(c.arguments_json) > len(sent):
                    events.append(new_arguments_delta(block.ordinal, call_id, c.arguments_json[len(sent) :]))
            events.append(new_tool_call_end(block.ordinal, call_id, call, None))
    else:
        code = decoded.failure or "HT103"
        text = decoded.issues[-1].message if decoded.issues else message("no-call")
        inv = InvalidToolCall(
            id=block.block_id, raw=raw, span=span, code=code, message=text, name=decoded.name, closed=closed
        )
        parts.append(inv)
        events.append(new_tool_call_end(block.ordinal, block.block_id, None, inv))
    if diags:
        events[:0] = [new_diagnostic_event(d) for d in diags]
    return parts, events, diags


def finish_response(
    *, inner: str, start: int, end: int, closed: bool, cut: bool, strict: bool, max_block_chars: int, span_of: SpanOf
) -> tuple[Part, list[Event], list[Diagnostic]]:
    """The part, events and diagnostics of a ``<tool_response>`` block ``[start, end)``.

    A cut block keeps its text verbatim as ``content``, with no name.
    """
    span = span_of(start, end)
    raw = "<tool_response>" + inner + ("</tool_response>" if closed else "")
    content = inner if cut else body.response_content(inner)
    name = None if cut else body.response_name(content)
    part = new_tool_response(content, raw, span, name, closed)
    diags = []
    if cut:
        diags.append(diagnostic("HT114", span, strict=strict, tag="tool_response", limit=max_block_chars))
    elif not closed:
        diags.append(diagnostic("HT112", span, strict=strict))
    events: list[Event] = [new_diagnostic_event(d) for d in diags] if diags else []
    events.append(new_tool_response_event(part))
    return part, events, diags


def finish_tools(
    *, inner: str, start: int, end: int, closed: bool, cut: bool, strict: bool, max_block_chars: int, span_of: SpanOf
) -> tuple[Part, list[Event], list[Diagnostic]]:
    """The part, events and diagnostics of a ``<tools>`` block ``[start, end)``."""
    span = span_of(start, end)
    part = ToolsBlock(text=inner, tools=body.decode_tools_block(inner), span=span, closed=closed)
    diags = []
    if cut:
        diags.append(diagnostic("HT114", span, strict=strict, tag="tools", limit=max_block_chars))
    elif not closed:
        diags.append(diagnostic("HT113", span, strict=strict))
    events: list[Event] = [new_diagnostic_event(d) for d in diags] if diags else []
    events.append(new_tools_event(part))
    return part, events, diags
