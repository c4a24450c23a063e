"""The tree as one regular expression for outlines-core (JSON values through its own schema compiler).

The whole pattern is anchored at the end (``…$``): outlines-core 0.2.14's ``Index`` drops every token
that leaves an accepting state for a non-accepting one (``regex-automata`` reports a match one byte
late and the index reads that flag as "complete"), so ``a(?:bc)?`` cannot produce ``abc`` unanchored.
With the anchor no state is a match before the end of the text and every edge is kept. A pattern
that can match ``""`` cannot carry the anchor (the index then has no universal start state), and an
unanchored empty alternative (``…$|``) brings the bug back for every one-byte token at the start, so
the regex leaves the empty completion out: ``(?:<non-empty>)$``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from ..errors import UsageError
from ._ir import Alt, Block, Free, Json, Lit, Node, Pattern, Rep, Seq, Tag, avoiding, escape

__all__ = ["anchored", "strings_avoiding", "to_regex", "typed"]

JsonRegex = Callable[[Json], str]


def _count(node: Rep, low: int | None = None) -> str:
    lo = node.low if low is None else low
    if node.high is None:
        return "*" if lo == 0 else "+" if lo == 1 else f"{{{lo},}}"
    return f"{{{lo},{node.high}}}"


# outlines-core's regex for a JSON string: a quote, characters outside a negated class or escapes, a quote
_STRING = re.compile(r'"\(\[\^(?P<body>[^\]]*)\]\|(?P<units>\\\\[^|()]*)\)\*"')


def strings_avoiding(regex: str, string: str, excludes: tuple[str, ...]) -> str:
    r"""``regex`` (outlines-core's for a JSON value) with each of its JSON strings, ``string`` (its regex for
    ``{"type": "string"}``: values, free keys and the strings of open values alike), made one that holds none of
    ``excludes`` as written. A string with a length bound, a ``pattern`` or a ``format`` has a regex of its own and
    is left as it is.

    Raises:
        UsageError: ``string`` is not the form outlines-core 0.2.14 writes (``"([^…]|\\[…])*"``).

    >>> rx = strings_avoiding(r'\{"k":"([^"\\]|\\["\\])*"\}', r'"([^"\\]|\\["\\])*"', ("<a>",))
    >>> [bool(re.fullmatch(rx, s)) for s in (r'{"k":"x<a"}', r'{"k":"x<a>"}', r'{"k":"<\"a>"}', r'{"k":"a"b"}')]
    [True, False, True, False]
    """
    found = _STRING.fullmatch(string)
    if found is None:
        raise UsageError(f"outlines-core writes a JSON string as {string!r}, not in the form grammar_export knows "
                         "(outlines-core 0.2.14): it cannot keep control tokens out of the strings")
    guarded = '"' + avoiding(excludes, alphabet=(found["body"], found["units"])) + '"'
    return regex.replace(string, guarded)


_TYPES = ["null", "boolean", "number", "string", "array", "object"]  # every JSON value (an integer is a number)
_ONE = ("items", "additionalItems", "contains", "then", "else", "additionalProperties")
_MANY = ("allOf", "anyOf", "oneOf", "prefixItems")
_MAP = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
_APPLIED = ("anyOf", "oneOf", "allOf", "$ref", "enum", "const", "not")


def typed(schema: Any) -> Any:
    """``schema`` with each subschema that admits every type written with them all (``"type": [...]``; ``true`` too).

    outlines-core 0.2.14 writes the regex of an untyped property (``{}``) as an alternation without a group around
    it, which cuts the object's regex: no value of it matched, and ``{"s": "x"null}`` did. With the types written
    out it writes one group.

    >>> props = typed({"type": "object", "properties": {"u": {}, "n": {"type": "integer"}, "t": True}})["properties"]
    >>> [len(s["type"]) if isinstance(s["type"], list) else s["type"] for s in props.values()]
    [6, 'integer', 6]
    """
    if schema is True:
        return {"type": list(_TYPES)}
    if not isinstance(schema, dict):
        return schema
    out = dict(schema)
    for key in _ONE:
        if key in out and not isinstance(out[key], (bool, list)):
            out[key] = typed(out[key])
    for key in _MANY:
        if isinstance(out.get(key), list):
            out[key] = [typed(s) for s in out[key]]
    for key in _MAP:
        if isinstance(out.get(key), dict):
            out[key] = {k: typed(s) for k, s in out[key].items()}
    if "type" not in out and not any(k in out for k in _APPLIED):
        out["type"] = list(_TYPES)
    return out


def to_regex(tree: Node, *, json_regex: JsonRegex) -> str:
    """The regex for ``tree``; ``json_regex`` writes one JSON value's regex (outlines-core's compiler)."""
    if isinstance(tree, (Lit, Tag)):
        return escape(tree.text)
    if isinstance(tree, Free):
        return avoiding(tree.excludes, guards=tree.guards)
    if isinstance(tree, Pattern):
        return f"(?:{tree.regex})"
    if isinstance(tree, Json):
        return f"(?:{json_regex(tree)})"
    if isinstance(tree, Block):
        parts = (tree.head, tree.arguments, tree.tail) if tree.arguments is not None else (tree.head, tree.tail)
        return "".join(to_regex(n, json_regex=json_regex) for n in parts)
    if isinstance(tree, Seq):
        return "".join(to_regex(n, json_regex=json_regex) for n in tree.items)
    if isinstance(tree, Alt):
        return "(?:" + "|".join(to_regex(n, json_regex=json_regex) for n in tree.options) + ")"
    if isinstance(tree, Rep):
        return f"(?:{to_regex(tree.node, json_regex=json_regex)})" + _count(tree)
    raise TypeError(tree)


def nullable(tree: Node) -> bool:
    """Whether ``tree`` matches the empty text."""
    if isinstance(tree, (Lit, Tag)):
        return not tree.text
    if isinstance(tree, Free):
        return True
    if isinstance(tree, Pattern):
        return re.fullmatch(tree.regex, "") is not None
    if isinstance(tree, (Json, Block)):
        return False
    if isinstance(tree, Seq):
        return all(nullable(n) for n in tree.items)
    if isinstance(tree, Alt):
        return any(nullable(n) for n in tree.options)
    if isinstance(tree, Rep):
        return tree.low == 0 or nullable(tree.node)
    raise TypeError(tree)


def _nonempty(tree: Node, json_regex: JsonRegex) -> str:
    """The regex for what ``tree`` matches, the empty text excepted."""
    if not nullable(tree):
        return to_regex(tree, json_regex=json_regex)
    if isinstance(tree, Free):
        return avoiding(tree.excludes, guards=tree.guards, nonempty=True)
    if isinstance(tree, Seq):  # the first item that is not empty, then the rest as they are
        items = tree.items
        return "(?:" + "|".join(
            _nonempty(items[i], json_regex) + "".join(to_regex(n, json_regex=json_regex) for n in items[i + 1 :])
            for i in range(len(items))) + ")"
    if isinstance(tree, Alt):
        return "(?:" + "|".join(_nonempty(n, json_regex) for n in tree.options if not _empty_only(n)) + ")"
    if isinstance(tree, Rep):
        rest = _count(tree, 0) if tree.high is None else f"{{0,{tree.high - 1}}}"
        return f"(?:{_nonempty(tree.node, json_regex)}(?:{to_regex(tree.node, json_regex=json_regex)}){rest})"
    raise TypeError(tree)


def _empty_only(tree: Node) -> bool:
    return isinstance(tree, (Lit, Tag)) and not tree.text


def anchored(tree: Node, *, json_regex: JsonRegex) -> str:
    """The regex for ``tree`` (the empty text excepted), anchored at the end so that outlines-core's ``Index`` keeps
    every edge."""
    return f"(?:{_nonempty(tree, json_regex)})$"
