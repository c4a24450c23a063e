"""The tree as an xgrammar structural tag (the JSON vLLM's ``structural_tag`` and SGLang's ``response_format`` take).

Calls become ``tag`` formats (begin, JSON-schema content, end); free text ``any_text`` with the
markers it may not contain; the rest ``sequence``, ``or``, ``repeat`` and ``const_string``. xgrammar
matches a tag's text against each token's decoded bytes, added tokens included, so tags stay strings.
A JSON value's strings keep out the control tokens' texts with the format's own ``excludes`` (the text as
written, keys and nested strings included; enum members holding one are dropped), which is the library's
reading of them exactly (a JSON escape such as ``\u007c`` hides a text from both).
"""

from __future__ import annotations

from typing import Any

from ._ir import Alt, Block, Free, Json, Lit, Node, Pattern, Rep, Seq, Tag, avoiding

__all__ = ["to_structural_tag"]


def _const(node: Node) -> str | None:
    if isinstance(node, (Lit, Tag)):
        return node.text
    if isinstance(node, Seq) and all(isinstance(n, (Lit, Tag)) for n in node.items):
        return "".join(n.text for n in node.items if isinstance(n, (Lit, Tag)))
    return None


def _bounds_length(schema: Any) -> bool:
    """Whether ``schema`` has a ``minLength`` or ``maxLength`` anywhere (a key of that name counts too).

    xgrammar 0.2.8 drops a string's length bounds where a ``json_schema`` format has ``excludes`` (with a warning), so
    such a schema goes without them: its strings keep the length bound and may hold a control token's text
    (docs/constrained.md §5)."""
    if isinstance(schema, dict):
        return "minLength" in schema or "maxLength" in schema or any(_bounds_length(v) for v in schema.values())
    if isinstance(schema, list):
        return any(_bounds_length(v) for v in schema)
    return False


def _format(node: Node) -> dict[str, Any]:
    text = _const(node)
    if text is not None:
        return {"type": "const_string", "value": text}
    if isinstance(node, Free):
        if node.guards:  # beyond excluded strings: xgrammar's regex format
            return {"type": "regex", "pattern": avoiding(node.excludes, guards=node.guards)}
        return {"type": "any_text", "excludes": list(node.excludes)}
    if isinstance(node, Pattern):
        return {"type": "regex", "pattern": node.regex}
    if isinstance(node, Json):
        schema = node.value
        if node.excludes and not _bounds_length(schema):
            return {"type": "json_schema", "json_schema": schema, "excludes": list(node.excludes)}
        return {"type": "json_schema", "json_schema": schema}
    if isinstance(node, Block):
        begin, end = _const(node.head), _const(node.tail)
        if node.arguments is None:
            return _format(Seq((node.head, node.tail)))
        if begin is not None and end is not None:  # xgrammar's own form of a call
            return {"type": "tag", "begin": begin, "content": _format(node.arguments), "end": end}
        return _format(Seq((node.head, node.arguments, node.tail)))
    if isinstance(node, Seq):
        items = list(node.items)
        elements: list[dict[str, Any]] = []
        run: list[str] = []
        for item in (*items, None):
            text = _const(item) if item is not None else None
            if text is not None:
                run.append(text)
                continue
            if run:
                elements.append({"type": "const_string", "value": "".join(run)})
                run = []
            if item is not None:
                elements.append(_format(item))
        return elements[0] if len(elements) == 1 else {"type": "sequence", "elements": elements}
    if isinstance(node, Alt):
        return {"type": "or", "elements": [_format(o) for o in node.options]}
    if isinstance(node, Rep):
        inner = _format(node.node)
        if node.high is None and node.low in (0, 1):
            return {"type": "star" if node.low == 0 else "plus", "content": inner}
        if (node.low, node.high) == (0, 1):
            return {"type": "optional", "content": inner}
        return {"type": "repeat", "min": node.low, "max": -1 if node.high is None else node.high, "content": inner}
    raise TypeError(node)


def to_structural_tag(tree: Node) -> dict[str, Any]:
    """``{"type": "structural_tag", "format": …}`` for ``tree``."""
    return {"type": "structural_tag", "format": _format(tree)}
