"""Injection safety, the local checks: content that would change how its own block parses (docs/parsing.md).

These are exact for their block and run before (and besides) the round trip of ``_roundtrip.py``, which is
the definition of safe. Two kinds of content are refused: control tokens (``<|im_start|>``, ``<|im_end|>``)
anywhere, and text that would end a block early under the parsing rules: a ``</tool_response>`` (or a new
``<tool_response>``) in a result, a ``</think>``/``</scratch_pad>`` in rendered reasoning, and text
that ends a ``<tool_call>`` block early (verbatim string arguments, names with quotes).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from ._jsonio import dumps_compact
from ._parts import FunctionCall
from .errors import RenderError
from .tags import TOOLS_CLOSE

__all__ = ["block_end", "check_block", "check_control_tokens", "check_reasoning", "check_text"]

_CONTROL = re.compile(r"<\|im_(?:start|end)\|>")
_WS = " \t\n\r"
_SCAN = re.compile(r'["\\<]')


def _refuse(what: str, where: str, index: int | None, offset: int, field: str | None = None) -> RenderError:
    place = f"message {index}" if index is not None else where
    detail = f" ({where})" if index is not None and where else ""
    return RenderError(
        f"{place}{detail}: {what} at offset {offset} would change how the rendered prompt parses "
        "(pass allow_injection=True to render it anyway)",
        message_index=index,
        offset=offset,
        field=field or where,
    )


def check_text(text: str, *, where: str, index: int | None) -> None:
    """Refuse a control token in ``text``.

    Raises:
        RenderError: naming the message index (or ``where``) and the offset.

    >>> check_text("fine", where="content", index=0)
    """
    match = _CONTROL.search(text)
    if match:
        raise _refuse(f"control token {match.group()!r}", where, index, match.start())


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, (Mapping, list, tuple)):
        return [dumps_compact(value)] if _CONTROL.search(dumps_compact(value)) else []
    return []


def check_control_tokens(messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]] | None) -> None:
    """Refuse ``<|im_start|>``/``<|im_end|>`` in any content, reasoning, call or tool of the request, and
    ``</tools>`` in a tool definition (it would end the catalogue block early).

    Raises:
        RenderError: naming the message index and the offset inside the offending text.

    >>> check_control_tokens([{"role": "user", "content": "hi"}], None)
    """
    for index, message in enumerate(messages):
        for key in ("content", "reasoning_content", "thinking", "reasoning", "role"):
            value = message.get(key)
            for text in _strings(value):
                check_text(text, where=key, index=index)
        calls = message.get("tool_calls")
        if isinstance(calls, (list, tuple)):
            for k, call in enumerate(calls):
                if isinstance(call, FunctionCall):
                    fn: Any = {"name": call.name, "arguments": call.arguments}
                else:
                    fn = call.get("function") if isinstance(call, Mapping) else None
                    fn = fn if isinstance(fn, Mapping) else call
                if not isinstance(fn, Mapping):
                    continue
                for key in ("name", "arguments"):
                    for text in _strings(fn.get(key)):
                        check_text(text, where=f"tool call {k} {key}", index=index)
    for i, tool in enumerate(tools or ()):
        for text in _strings(tool):
            match = _CONTROL.search(text)
            if match:
                raise _refuse(f"control token {match.group()!r}", f"tool {i}", None, match.start(), f"tools[{i}]")
        dumped = dumps_compact(tool)
        pos = dumped.find(TOOLS_CLOSE)
        if pos >= 0:  # the catalogue block ends at the first </tools>, string or not (docs/parsing.md §7)
            raise _refuse("'</tools>' inside a tool definition", f"tool {i}", None, pos, f"tools[{i}]")


def block_end(inner: str, closer: str, opener: str) -> int:
    """Where a block whose inner body is ``inner`` ends under docs/parsing.md §5.3 (``len(inner)`` if it does not).

    JSON-aware bodies (first non-ws character ``{`` or ``[``) ignore tags inside JSON strings.

    >>> block_end('\\n{"a": "</tool_call>"}\\n', "</tool_call>", "<tool_call>")
    23
    >>> block_end('\\nx</tool_call>y\\n', "</tool_call>", "<tool_call>")
    2
    """
    stripped = inner.lstrip(_WS)
    if not stripped or stripped[0] not in "{[":
        ends = [p for p in (inner.find(closer), inner.find(opener)) if p >= 0]
        return min(ends) if ends else len(inner)
    pos = 0
    in_string = False
    n = len(inner)
    while pos < n:
        match = _SCAN.search(inner, pos)
        if match is None:
            return n
        pos = match.start()
        ch = inner[pos]
        if ch == '"':
            in_string = not in_string
            pos += 1
        elif ch == "\\":
            pos += 2 if in_string else 1
        else:
            if not in_string and (inner.startswith(closer, pos) or inner.startswith(opener, pos)):
                return pos
            pos += 1
    return n


def check_block(inner: str, *, closer: str, opener: str, where: str, index: int | None, shift: int = 1,
                field: str | None = None) -> None:
    """Refuse a block body that would not end exactly at its own closer (it would end early, or the closer
    would fall inside a JSON string); the offset is reported minus ``shift``.

    Raises:
        RenderError: naming the message index and the offset of the early end inside the content.
    """
    if "<" not in inner and "\\" not in inner and inner.count('"') % 2 == 0:
        return  # fast path: no tag can end the block early, and the closer is outside any string
    end = block_end(inner + closer, closer, opener)
    if end < len(inner):
        tag = closer if inner.startswith(closer, end) else opener
        raise _refuse(f"{tag!r} inside {where}", where, index, max(0, end - shift), field)
    if end > len(inner):
        raise _refuse(f"an unterminated JSON string in {where} (the closing {closer!r} would be inside it)", where,
                      index, max(0, len(inner) - 1 - shift), field)


def check_reasoning(text: str, *, closer: str, index: int | None, shift: int = 0,
                    field: str = "reasoning_content") -> None:
    """Refuse reasoning text that contains its closing tag (reasoning has no string awareness); ``shift``
    is added to the reported offset (the rendered text may start later in the original).

    Raises:
        RenderError: naming the message index and the offset inside the reasoning.
    """
    pos = text.find(closer)
    if pos >= 0:
        raise _refuse(f"{closer!r} inside reasoning", "reasoning", index, pos + shift, field)
