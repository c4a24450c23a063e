"""Finishing blocks: from a block's inner text to parts, events and diagnostics (docs/parsing.md §5–§7).

Used by the parser when a call, result or catalogue block ends (closed, unterminated or cut). What
the block means (parts, diagnostics) is decided by the block rules both engines share
(``_blockrules``); this module says it as the stream's events.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

from .. import _blockrules
from .. import _diagnostics as diagnostics
from .._diagnostics import message
from .._events import (
    Event,
    new_arguments_delta,
    new_diagnostic_event,
    new_tool_call_end,
    new_tool_call_start,
    new_tool_response_event,
    new_tools_event,
)
from .._model import Diagnostic, InvalidToolCall, Part, Span, ToolCall
from .._xmlbody import BodyKind, scan_bare_function
from ..tags import CALL_OPEN, RESP_CLOSE, RESP_OPEN

__all__ = ["CallBlock", "CallState", "finish_bare", "finish_call", "finish_response", "finish_tools"]

SpanOf = Callable[[int, int], Span]

_CALL_OPEN = len(CALL_OPEN)


class CallBlock:
    """What the parser knows about an open call block: its number and id, the name announced early
    (``ToolCallStart`` before the block ends) and the argument text streamed since.

    >>> call = CallBlock(ordinal=0, block_id="call_0")
    >>> call.announce("f"); call.stream('{"a"'); call.stream(": 1}")
    >>> call.announced, call.streamed
    ('f', ['{"a"', ': 1}'])
    """

    __slots__ = ("announced", "block_id", "ordinal", "streamed")

    def __init__(self, *, ordinal: int, block_id: str) -> None:
        self.ordinal = ordinal
        self.block_id = block_id
        self.announced: str | None = None  # name of the early ToolCallStart, if any
        self.streamed: list[str] | None = None  # argument deltas emitted so far (stream_arguments)

    def announce(self, name: str) -> None:
        """The call was announced as ``name``; its argument deltas are recorded from now on."""
        self.announced = name
        self.streamed = []

    def stream(self, text: str) -> None:
        """An argument delta was sent (the call was announced)."""
        assert self.streamed is not None
        self.streamed.append(text)


class CallState(Protocol):
    """What ``finish_call`` reads of an open call block (``CallBlock``, or the assembler's ``Block``)."""

    @property
    def ordinal(self) -> int: ...
    @property
    def block_id(self) -> str: ...
    @property
    def announced(self) -> str | None: ...
    @property
    def streamed(self) -> list[str] | None: ...


def finish_call(
    block: CallState,
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
    tools: Mapping[str, Any] | None = None,
    expect: BodyKind = "json",
    recovery: Diagnostic | None = None,
) -> tuple[list[Part], list[Event], list[Diagnostic]]:
    """Parts, events and diagnostics of a call block ``[start, end)`` whose inner body is ``inner``
    (``recovery``: a recovery of the whole block, ``_blockrules.call_block``'s).

    ``first_index`` is the index the block's first valid call gets (valid calls so far). The parts
    and diagnostics are the shared block rules'; the events say them in stream order: the
    diagnostics, then per call ``ToolCallStart`` (unless announced early), the arguments not yet
    streamed, ``ToolCallEnd``; or one ``ToolCallEnd`` carrying the ``InvalidToolCall``.
    """
    parts, diags = _blockrules.call_block(
        block_id=block.block_id,
        inner=inner,
        inner_start=start + _CALL_OPEN,
        raw=CALL_OPEN + inner + closer if closed else CALL_OPEN + inner,
        span=span_of(start, end),
        closed=closed,
        cut=cut,
        strict=strict,
        limit=max_block_chars,
        first_index=first_index,
        span_of=span_of,
        tools=tools,
        expect=expect,
        recovery=recovery,
    )
    return parts, _call_events(block, parts, diags, stream_arguments), diags


def finish_bare(
    block: CallState,
    *,
    text: str,
    start: int,
    strict: bool,
    max_block_chars: int,
    stream_arguments: bool,
    first_index: int,
    span_of: SpanOf,
    tools: Mapping[str, Any] | None = None,
    expect: BodyKind = "json",
) -> tuple[list[Part], list[Event], list[Diagnostic]]:
    """Parts, events and diagnostics of the complete bare function ``text`` at ``start`` (``HT234``).

    ``text`` is what ``_xmlbody.scan_bare_function`` read there, bounded by ``bare_extent`` (the
    parser's ``BareReader``); its body is decoded by the same function, as the grammar engine does.
    """
    body = scan_bare_function(text, 0, strict=strict, tools=tools)
    assert body is not None, "a bare function the stream found complete"
    span = span_of(start, start + len(text))
    parts, diags = _blockrules.call_block(
        block_id=block.block_id,
        inner=text,
        inner_start=start,
        raw=text,
        span=span,
        closed=True,
        cut=False,
        strict=strict,
        limit=max_block_chars,
        first_index=first_index,
        span_of=span_of,
        tools=tools,
        expect=expect,
        decoded=body.body,
        recovery=diagnostics.make("HT234", message("HT234"), span, strict=strict),
    )
    return parts, _call_events(block, parts, diags, stream_arguments), diags


def _call_events(block: CallState, parts: list[Part], diags: list[Diagnostic], stream_arguments: bool) -> list[Event]:
    """The events of a finished call block: its diagnostics, then per call ``ToolCallStart`` (unless
    announced early), the arguments not yet streamed, ``ToolCallEnd``; or the ``InvalidToolCall``'s end."""
    events: list[Event] = [new_diagnostic_event(d) for d in diags] if diags else []
    ordinal = block.ordinal
    for k, p in enumerate(parts):
        if isinstance(p, InvalidToolCall):  # the block's only part
            events.append(new_tool_call_end(ordinal, block.block_id, None, p))
            continue
        assert isinstance(p, ToolCall)
        early = k == 0 and block.announced is not None
        if not early:
            events.append(new_tool_call_start(ordinal, p.id, p.name))
        if stream_arguments:
            sent = "".join(block.streamed or ()) if early else ""
            args = p.arguments_json
            if args.startswith(sent) and len(args) > len(sent):
                events.append(new_arguments_delta(ordinal, p.id, args[len(sent) :]))
        events.append(new_tool_call_end(ordinal, p.id, p, None))
    return events


def finish_response(
    *, inner: str, start: int, end: int, closed: bool, cut: bool, strict: bool, max_block_chars: int, span_of: SpanOf
) -> tuple[Part, list[Event], list[Diagnostic]]:
    """The part, events and diagnostics of a ``<tool_response>`` block ``[start, end)``.

    A cut block keeps its text verbatim as ``content``, with no name.
    """
    part, diags = _blockrules.response_block(
        inner=inner,
        raw=RESP_OPEN + inner + RESP_CLOSE if closed else RESP_OPEN + inner,
        span=span_of(start, end),
        closed=closed,
        cut=cut,
        strict=strict,
        limit=max_block_chars,
    )
    return part, _with_diagnostics(diags, new_tool_response_event(part)), diags


def finish_tools(
    *, inner: str, start: int, end: int, closed: bool, cut: bool, strict: bool, max_block_chars: int, span_of: SpanOf
) -> tuple[Part, list[Event], list[Diagnostic]]:
    """The part, events and diagnostics of a ``<tools>`` block ``[start, end)``."""
    part, diags = _blockrules.tools_block(
        inner=inner, span=span_of(start, end), closed=closed, cut=cut, strict=strict, limit=max_block_chars
    )
    return part, _with_diagnostics(diags, new_tools_event(part)), diags


def _with_diagnostics(diags: list[Diagnostic], event: Event) -> list[Event]:
    """The events of a one-part block: its diagnostics, then ``event``."""
    events: list[Event] = [new_diagnostic_event(d) for d in diags] if diags else []
    events.append(event)
    return events
