"""The block rules, once for both engines: a finished block to parts and diagnostics (docs/parsing.md §5–§7).

An engine finds a block and where it ends (closed by its closer, unterminated, or cut by the size
bound of §5.4); that is what a chunking can break, so each engine keeps it. What the finished
block *means* is decided here and only here:

* a call block: the body decoding (``_body.decode_call_body``) with its diagnostics placed at
  absolute offsets; ``HT114`` for a cut block (an ``InvalidToolCall``, no decoding); ``HT103`` (or
  the decoder's failure code) when no call is recovered; ``HT101`` for an unterminated block, an
  ``InvalidToolCall`` in strict mode; otherwise one ``ToolCall`` per recovered call, ids by
  ``_ids.sub_id`` and indices from ``first_index``;
* a ``<tool_response>`` block: its content and name, ``HT114`` when cut (the text kept verbatim,
  no name), ``HT112`` when unterminated;
* a ``<tools>`` catalogue: its decoded tools, ``HT114`` when cut, ``HT113`` when unterminated.

The grammar engine appends the results to its body; the streaming engine also turns them into its
events (``statemachine/_blocks.py``). Each function takes the block's text (``inner`` without the
tags, ``raw`` with them), its span and the mode, and returns new values only.

>>> from hermes_toolcall._positions import LineIndex
>>> src = '<tool_call>{"name": "f", "arguments": {}}</tool_call>'
>>> span_of = LineIndex(src).span
>>> parts, diags = call_block(block_id="call_0", inner=src[11:-12], inner_start=11, raw=src,
...     span=span_of(0, len(src)), closed=True, cut=False, strict=False, limit=1 << 20,
...     first_index=0, span_of=span_of)
>>> [(type(p).__name__, p.name, p.index) for p in parts], diags
([('ToolCall', 'f', 0)], [])
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

from . import _diagnostics as diagnostics
from ._body import (
    BodyIssue,
    CallBody,
    canonical_call,
    decode_call_body,
    decode_tools_block,
    response_content,
    response_name,
)
from ._construct import new_tool_call, new_tool_response
from ._diagnostics import message
from ._ids import sub_id
from ._model import Diagnostic, InvalidToolCall, Part, Span, ToolCall, ToolResponse, ToolsBlock
from ._xmlbody import BodyKind, body_kind, decode_xml_body
from .tags import CALL_OPEN, FUNCTION_OPEN, RESP_OPEN, TOOLS_OPEN

__all__ = ["SpanOf", "call_block", "decode_body", "response_block", "tool_schemas", "tools_block"]

SpanOf = Callable[[int, int], Span]

# the tag names the HT114 message says ("tool_call", not "<tool_call>")
_CALL_TAG, _RESP_TAG, _TOOLS_TAG = CALL_OPEN[1:-1], RESP_OPEN[1:-1], TOOLS_OPEN[1:-1]


class _Schemas(Mapping[str, Any]):
    """A tool set seen as name -> ``parameters`` schema (what the XML body decoder reads)."""

    __slots__ = ("_tools",)

    def __init__(self, tools: Mapping[str, Any]) -> None:
        self._tools = tools

    def __getitem__(self, name: str) -> Any:
        return self._tools[name].schema

    def __iter__(self) -> Iterator[str]:
        return iter(self._tools)

    def __len__(self) -> int:
        return len(self._tools)


def tool_schemas(tools: Any) -> Mapping[str, Any] | None:
    """The declared tools of ``ParseOptions.tools`` (a ``ToolSet``, or None) as name -> ``parameters`` schema.

    >>> from hermes_toolcall._options import ParseOptions
    >>> opts = ParseOptions.make(tools=[{"name": "f", "parameters": {"type": "object"}}])
    >>> dict(tool_schemas(opts.tools))
    {'f': {'type': 'object'}}
    """
    return None if tools is None else _Schemas(tools.tools)


_KIND_NAMES = {"json": "a JSON body", "xml": "an XML body (<function=…>)"}
_KIND_PLURALS = {"json": "JSON bodies", "xml": "XML bodies"}


def decode_body(
    inner: str,
    *,
    strict: bool,
    closed: bool,
    tools: Mapping[str, Any] | None = None,
    expect: BodyKind = "json",
    decoded: CallBody | None = None,
) -> CallBody:
    """Decode a call block's body by what it starts with (``body_kind``): JSON, XML, or plain text (``HT103``).

    A JSON or XML body that is not the dialect's kind (``expect``) is read all the same, with
    ``HT238`` first (lenient); strict mode makes it the block's failure. ``decoded``: an XML body
    already read (``scan_xml_block`` found its extent), only judged here.

    >>> decode_body('<function=f>\\n</function>', strict=False, closed=True).issues[0].code
    'HT238'
    >>> decode_body('<function=f>\\n</function>', strict=False, closed=True, expect="xml").calls[0].name
    'f'
    """
    kind = "xml" if decoded is not None else body_kind(inner)  # a body given decoded is an XML one
    if decoded is None and kind == "xml":
        decoded = decode_xml_body(inner, strict=strict, closed=closed, tools=tools)
    if decoded is None:
        decoded = decode_call_body(inner, strict=strict, closed=closed)
    if kind == expect or kind == "plain":
        return decoded
    lead = len(inner) - len(inner.lstrip(" \t\n\r"))
    width = len(FUNCTION_OPEN) if kind == "xml" else 1
    message = f"{_KIND_NAMES[kind]} where the dialect writes {_KIND_PLURALS[expect]}"
    message += "; not recovered in strict mode" if strict else "; read by what it starts with"
    issue = BodyIssue(
        code="HT238", message=message, start=lead, end=lead + width, hint=diagnostics.CATALOGUE["HT238"].fix
    )
    if strict:
        return CallBody(calls=(), issues=(issue,), failure="HT238", name=decoded.name)
    return CallBody(calls=decoded.calls, issues=(issue, *decoded.issues), failure=decoded.failure, name=decoded.name)


def _cut_diagnostic(tag: str, span: Span, *, strict: bool, limit: int) -> Diagnostic:
    return diagnostics.make("HT114", message("HT114", tag=tag, limit=limit), span, strict=strict)


def call_block(
    *,
    block_id: str,
    inner: str,
    inner_start: int,
    raw: str,
    span: Span,
    closed: bool,
    cut: bool,
    strict: bool,
    limit: int,
    first_index: int,
    span_of: SpanOf,
    pos: Any = None,
    tools: Mapping[str, Any] | None = None,
    expect: BodyKind = "json",
    decoded: CallBody | None = None,
    recovery: Diagnostic | None = None,
) -> tuple[list[Part], list[Diagnostic]]:
    """The parts and diagnostics of one finished ``<tool_call>`` block (or bare function).

    Args:
        block_id: the id of the block (from the id factory, by the block's ordinal).
        inner: the body between the tags (for a cut block: what was kept).
        inner_start: the absolute offset of ``inner`` (diagnostics of the body are placed from it).
        raw: the block as written, tags included (what was kept, when cut).
        span: the block's span (up to the cut, when cut).
        closed: the closer was read.
        cut: the block was cut by the size bound ``limit`` (§5.4).
        strict: strict mode (an unterminated block is an ``InvalidToolCall``; severities).
        limit: ``max_block_chars``, said in the ``HT114`` message.
        first_index: the index of the block's first valid call (valid calls so far in the body).
        span_of: absolute offsets to a span.
        pos: where the parts' line:column come from (the parse's line index; default: ``span``).
        tools: the declared tools, name -> ``parameters`` schema (``tool_schemas``): XML values are
            typed by them.
        expect: the dialect's body kind (``profile.body_kind``): a body of the other kind is ``HT238``.
        decoded: the body already decoded (``decode_body``'s ``decoded``).
        recovery: a recovery of the whole block, said before its own diagnostics (``HT234``: a bare
            function read as a call; ``HT242``: a call that ends a reasoning block never closed): in
            strict mode the block is an ``InvalidToolCall`` with its code.

    Returns:
        Either ``ToolCall`` parts (one per recovered call) or one ``InvalidToolCall``, and the
        diagnostics in the order the block gives them.

    >>> from hermes_toolcall._positions import LineIndex
    >>> span_of = LineIndex("<tool_call>{").span
    >>> parts, diags = call_block(block_id="c", inner="{", inner_start=11, raw="<tool_call>{",
    ...     span=span_of(0, 12), closed=False, cut=False, strict=True, limit=10, first_index=0,
    ...     span_of=span_of)
    >>> parts[0].code, [d.code for d in diags]
    ('HT102', ['HT102'])
    """
    if cut:
        d = _cut_diagnostic(_CALL_TAG, span, strict=strict, limit=limit)
        return [InvalidToolCall(id=block_id, raw=raw, span=span, code="HT114", message=d.message, closed=False)], [d]
    at = span if pos is None else pos
    decoded = decode_body(inner, strict=strict, closed=closed, tools=tools, expect=expect, decoded=decoded)
    if recovery is None:
        return _parts(block_id, decoded, raw, span, at, closed, strict, first_index, inner_start, span_of)
    if strict:
        code, text = recovery.code, recovery.message
        return [InvalidToolCall(id=block_id, raw=raw, span=span, code=code, message=text, name=decoded.name)], [
            recovery
        ]
    parts, diags = _parts(block_id, decoded, raw, span, at, closed, strict, first_index, inner_start, span_of)
    return parts, [recovery, *diags]


def common_call(
    *,
    block_id: str,
    inner: str,
    raw: str,
    start: int,
    end: int,
    pos: Any,
    first_index: int,
    expect: BodyKind,
    decoded: CallBody | None = None,
) -> ToolCall | None:
    """The part of a closed, uncut call block of the dialect's body kind holding one call read without
    an issue: a JSON body as the templates write it (``{"name": "…", "arguments": {…}}``, ``_body``'s
    fast path), or an XML body already read (``decoded``, as ``call_block`` takes it); else None.

    A guard in front of ``call_block``: its part is the one ``call_block`` gives such a block (no
    diagnostics), without the general reading (tests/test_blockrules.py).
    """
    if decoded is not None:  # an XML body (the grammar engine read its extent)
        if expect != "xml" or decoded.issues or len(decoded.calls) != 1:
            return None
        call = decoded.calls[0]
    else:
        fast = canonical_call(inner) if expect == "json" else None
        if fast is None:
            return None
        call = fast
    return new_tool_call(
        first_index, block_id, call.name, call.arguments, call.arguments_json, raw, start, end, pos, True
    )


def _parts(
    block_id: str,
    decoded: CallBody,
    raw: str,
    span: Span,
    at: Any,
    closed: bool,
    strict: bool,
    first_index: int,
    inner_start: int,
    span_of: SpanOf,
) -> tuple[list[Part], list[Diagnostic]]:
    issues = decoded.issues
    calls = decoded.calls
    if closed and len(calls) == 1 and not issues:  # the common block: one call, as written
        c = calls[0]
        start, end = span.start, span.end
        call = new_tool_call(first_index, block_id, c.name, c.arguments, c.arguments_json, raw, start, end, at, True)
        return [call], []
    diags = [
        diagnostics.make(
            i.code, i.message, span_of(inner_start + i.start, inner_start + i.end), strict=strict, hint=i.hint
        )
        for i in issues
    ]
    if not calls:
        text = issues[-1].message if issues else message("no-call")
        code = decoded.failure or "HT103"
        invalid = InvalidToolCall(
            id=block_id, raw=raw, span=span, code=code, message=text, name=decoded.name, closed=closed
        )
        return [invalid], diags
    if not closed:
        d = diagnostics.make("HT101", message("HT101"), span, strict=strict)
        diags.append(d)
        if strict:
            invalid = InvalidToolCall(
                id=block_id, raw=raw, span=span, code="HT101", message=d.message, name=calls[0].name, closed=False
            )
            return [invalid], diags
    where = span.start, span.end
    parts: list[Part] = [
        new_tool_call(
            first_index + k, sub_id(block_id, k), c.name, c.arguments, c.arguments_json, raw, *where, at, closed
        )
        for k, c in enumerate(calls)
    ]
    return parts, diags


def response_block(
    *, inner: str, raw: str, span: Span, closed: bool, cut: bool, strict: bool, limit: int, pos: Any = None
) -> tuple[ToolResponse, list[Diagnostic]]:
    """The part and diagnostics of one finished ``<tool_response>`` block.

    Args:
        inner: the text between the tags (for a cut block: what was kept).
        raw: the block as written, tags included.
        span: the block's span.
        closed: the closer was read.
        cut: the block was cut by the size bound (its text is kept verbatim, with no name).
        strict: strict mode (severities).
        limit: ``max_block_chars``, said in the ``HT114`` message.
        pos: where the part's line:column come from (the parse's line index; default: ``span``).

    Returns:
        The ``ToolResponse`` and its diagnostics (``HT114`` or ``HT112``, or none).

    >>> from hermes_toolcall._model import Span
    >>> part, diags = response_block(inner="ok", raw="<tool_response>ok", span=Span(start=0, end=17,
    ...     line=1, column=1), closed=False, cut=False, strict=False, limit=10)
    >>> part.content, [d.code for d in diags]
    ('ok', ['HT112'])
    """
    at = span if pos is None else pos
    if cut:
        return new_tool_response(inner, raw, span.start, span.end, at, None, False), [
            _cut_diagnostic(_RESP_TAG, span, strict=strict, limit=limit)
        ]
    content = response_content(inner)
    part = new_tool_response(content, raw, span.start, span.end, at, response_name(content), closed)
    if closed:
        return part, []
    return part, [diagnostics.make("HT112", message("HT112"), span, strict=strict)]


def tools_block(
    *, inner: str, span: Span, closed: bool, cut: bool, strict: bool, limit: int, pos: Any = None
) -> tuple[ToolsBlock, list[Diagnostic]]:
    """The part and diagnostics of one finished ``<tools>`` catalogue block.

    Args:
        inner: the text between the tags (for a cut block: what was kept).
        span: the block's span.
        closed: the closer was read.
        cut: the block was cut by the size bound.
        strict: strict mode (severities).
        limit: ``max_block_chars``, said in the ``HT114`` message.
        pos: where the part's line:column come from (the parse's line index; default: ``span``).

    Returns:
        The ``ToolsBlock`` and its diagnostics (``HT114`` or ``HT113``, or none).

    >>> from hermes_toolcall._model import Span
    >>> part, diags = tools_block(inner="", span=Span(start=0, end=7, line=1, column=1),
    ...     closed=True, cut=False, strict=False, limit=10)
    >>> part.tools, diags
    ((), [])
    """
    at = span if pos is None else pos
    tools = decode_tools_block(inner)
    part = ToolsBlock(text=inner, tools=tools, _start=span.start, _end=span.end, _pos=at, closed=closed and not cut)
    if cut:
        return part, [_cut_diagnostic(_TOOLS_TAG, span, strict=strict, limit=limit)]
    if closed:
        return part, []
    return part, [diagnostics.make("HT113", message("HT113"), span, strict=strict)]
