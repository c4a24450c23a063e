"""Tool results as ``<tool_response>`` blocks, and omp's text extraction from result contents."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .._template_values import jinja_str
from ..tags import RESP_CLOSE, RESP_OPEN

__all__ = ["content_text", "render_tool_response", "render_tool_responses"]


def content_text(content: Any) -> str:
    """omp's text of a content value: a string, or the text parts concatenated (images as ``[Image: mime]``).

    >>> content_text([{"type": "text", "text": "a"}, {"type": "image", "mime_type": "image/png"}])
    'a[Image: image/png]'
    """
    if isinstance(content, str):
        return content
    if isinstance(content, (list, tuple)):
        out = []
        for part in content:
            if isinstance(part, str):
                out.append(part)
            elif isinstance(part, dict):
                kind = part.get("type")
                if kind == "text" or (kind is None and "text" in part):
                    out.append(jinja_str(part.get("text", "")))
                elif kind in ("image", "image_url"):
                    out.append(_image(part))
        return "".join(out)
    return jinja_str(content) if content is not None else ""


def _image(part: dict[str, Any]) -> str:
    mime = part.get("mime_type") or part.get("mimeType")
    url = part.get("image_url")
    if mime is None and isinstance(url, dict):
        url = url.get("url")
    if mime is None and isinstance(url, str) and url.startswith("data:"):
        mime = url[5:].split(";", 1)[0].split(",", 1)[0] or None
    return f"[Image: {mime}]" if mime else "[Image]"


def render_tool_response(content: Any, *, allow_injection: bool = False) -> str:
    """One ``<tool_response>`` block with the content inserted raw (non-strings printed as Python ``str()``).

    Unless ``allow_injection``, content that would not parse back as this one result (a control token, a
    ``</tool_response>`` or ``<tool_response>`` that ends the block early, an open JSON string) is refused.

    Raises:
        RenderError: with ``field="content"`` and the offset.

    >>> render_tool_response('{"time": "21:04"}')
    '<tool_response>\\n{"time": "21:04"}\\n</tool_response>'
    """
    text = jinja_str(content)
    if not allow_injection:
        from .._injection import check_block, check_text

        check_text(text, where="content", index=None)
        check_block("\n" + text + "\n", closer=RESP_CLOSE, opener=RESP_OPEN, where="content",
                    index=None)
    return f"{RESP_OPEN}\n" + text + f"\n{RESP_CLOSE}"


def render_tool_responses(contents: Iterable[Any], *, allow_injection: bool = False) -> str:
    """Consecutive results joined by ``\\n``, as every dialect writes a run of results inside one turn.

    >>> render_tool_responses(["AAA", "BBB"])
    '<tool_response>\\nAAA\\n</tool_response>\\n<tool_response>\\nBBB\\n</tool_response>'
    """
    return "\n".join(render_tool_response(c, allow_injection=allow_injection) for c in contents)
