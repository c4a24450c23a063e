"""The tree as an llguidance grammar (its Lark dialect, with inline ``%json``).

Tags that are tokens of the tokenizer are written as token references (``<tool_call>``): llguidance
treats every added token as special, so a written-out tag never matches it. Runs of literal and free
text are merged into one terminal: llguidance's lexer is greedy, so free text followed by a separate
``"\\n"`` terminal would swallow the newline and then meet a special token it cannot end on.

A tag the tokenizer lacks is written as text, and then the text before a call goes into the terminal
of the call's head: the lexer reads on while any terminal can still match and looks back one byte
only, so free text (content before a call, the newlines after ``</think>``) ending a terminal of its
own would read the ``<tool_call`` of the next as more text and fail on its ``>``. In one terminal,
the lexer's automaton follows both readings, and the free text (which holds no tag) ends where the
tag begins; a text-only completion is one terminal too, so that the two stay alike up to the tag.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from .._jsonio import dumps_compact
from ._ir import Alt, Block, Free, Json, Lit, Node, Pattern, Rep, Seq, Tag, avoiding, escape

__all__ = ["strings_avoiding", "to_lark"]


def _string(text: str) -> str:
    """A Lark string literal for ``text``."""
    out = ['"']
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\r":
            out.append("\\r")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\x{ord(ch):02x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


class _Writer:
    def __init__(self, is_token: Callable[[str], bool]) -> None:
        self.is_token = is_token
        self.lines: list[str] = []
        self.names: dict[str, str] = {}  # definition -> name, terminals and rules alike

    def define(self, definition: str, name: str) -> str:
        """The name of ``definition``, defined once (``name``, numbered if taken)."""
        found = self.names.get(definition)
        if found is not None:
            return found
        taken = set(self.names.values())
        unique, n = name, 1
        while unique in taken:
            unique, n = f"{name}{n}", n + 1
        self.names[definition] = unique
        self.lines.append(f"{unique}: {definition}")
        return unique

    def lexical(self, node: Node) -> bool:
        """Text the lexer can match as (part of) one terminal.

        An optional or repeated sequence is not: llguidance's lexer is greedy and does not give back what it read,
        so a terminal that ends with an optional ``<parameter=a>…`` would take the ``<`` of a ``</function>``
        that follows and fail on the ``/``. As its own rule, the parser chooses between the two lexemes."""
        if isinstance(node, (Lit, Free, Pattern)):
            return True
        if isinstance(node, Tag):
            return not self.is_token(node.text)
        if isinstance(node, Rep):  # a repeated literal (``"\n"*``) is; an optional part is its own rule
            return isinstance(node.node, Lit)
        if isinstance(node, (Seq, Alt)):
            items = node.items if isinstance(node, Seq) else node.options
            return bool(items) and all(self.lexical(n) for n in items)
        return False

    def lex(self, node: Node) -> str:
        """A terminal expression for a lexical node."""
        if isinstance(node, (Lit, Tag)):
            return _string(node.text)
        if isinstance(node, Free):
            regex = avoiding(node.excludes, guards=node.guards)
            return self.define("/" + regex.replace("/", "\\/") + "/", node.role.upper())
        if isinstance(node, Pattern):
            return "/" + node.regex.replace("/", "\\/") + "/"
        if isinstance(node, Rep):
            return f"({self.lex(node.node)}){_count(node)}"
        if isinstance(node, Seq):
            return "(" + " ".join(self.lex(n) for n in node.items) + ")"
        if isinstance(node, Alt):
            return "(" + " | ".join(self.lex(n) for n in node.options) + ")"
        raise TypeError(node)

    def text(self, node: Node) -> bool:
        """Text one terminal can hold, optional and repeated parts included: no JSON, call block or token."""
        if isinstance(node, (Lit, Free, Pattern)):
            return True
        if isinstance(node, Tag):
            return not self.is_token(node.text)
        if isinstance(node, Rep):
            return self.text(node.node)
        if isinstance(node, (Seq, Alt)):
            return all(self.text(n) for n in (node.items if isinstance(node, Seq) else node.options))
        return False

    def text_led(self, node: Node) -> bool:
        """Whether a call's head, written as text, can open ``node`` (where text before it must join that head)."""
        if isinstance(node, Block):
            return self.text(node.head.items[0] if isinstance(node.head, Seq) and node.head.items else node.head)
        if isinstance(node, Alt):
            return any(self.text_led(o) for o in node.options)
        if isinstance(node, Seq):  # its first part that is not text (the text before it joins it)
            rest = [n for n in node.items if not self.text(n)]
            return bool(rest) and self.text_led(rest[0])
        return False

    def unit(self, run: list[Node]) -> str:
        """One terminal for a run of text."""
        if len(run) == 1 and self.lexical(run[0]):
            return self.expr(run[0])
        return self.define(" ".join(self.lex(n) for n in run), "T")

    def runs(self, run: list[Node]) -> list[str]:
        """A run of text as terminals and rules: the lexical parts merged, an optional part its own rule."""
        parts: list[str] = []
        merged: list[Node] = []
        for item in (*run, None):
            if item is not None and self.lexical(item):
                merged.append(item)
                continue
            if merged:
                parts.append(self.unit(merged))
                merged = []
            if item is not None:
                parts.append(self.expr(item))
        return parts

    def opening(self, prefix: tuple[Node, ...], node: Node, *, last: bool, name: str = "r") -> str:
        """``prefix`` (text) then ``node``, the prefix inside the terminal of each call head written as text that
        opens ``node`` (see the module docstring). ``last``: nothing but the end of the completion follows, so a
        terminal may end in optional or free text."""
        if isinstance(node, Alt):
            return self.define(" | ".join(self.opening(prefix, o, last=last) for o in node.options), name)
        if isinstance(node, Block) and prefix and self.text_led(node):
            return self.block(node, self.unit([*prefix, node.head]))
        items = node.items if isinstance(node, Seq) else (node,)
        parts: list[str] = []
        run = list(prefix)
        for i, item in enumerate(items):
            if self.text(item):
                run.append(item)
                continue
            ends = last and i == len(items) - 1
            if run and self.text_led(item):
                parts.append(self.opening(tuple(run), item, last=ends))
            else:
                parts += self.runs(run)
                parts.append(self.opening((), item, last=ends) if isinstance(item, (Alt, Seq)) else self.expr(item))
            run = []
        if run:
            parts += [self.unit(run)] if last else self.runs(run)
        if not parts:
            raise ValueError("an empty sequence has no Lark form")
        return parts[0] if len(parts) == 1 else self.define(" ".join(parts), name)

    def block(self, node: Block, head: str) -> str:
        """A call block whose head is written ``head``."""
        rest = (node.tail,) if node.arguments is None else (node.arguments, node.tail)
        label = "call_" + re.sub(r"[^a-z0-9_]", "_", node.name.lower())
        return self.define(" ".join([head, *(self.expr(n) for n in rest)]), label)

    def expr(self, node: Node, name: str = "r") -> str:
        if isinstance(node, Seq) and not node.items:
            raise ValueError("an empty sequence has no Lark form")
        if self.lexical(node):
            text = self.lex(node)
            return text if isinstance(node, Free) else self.define(text, "T")
        if isinstance(node, Tag):
            return node.text
        if isinstance(node, Json):
            schema = node.value
            if node.excludes:
                schema = strings_avoiding(schema, node.excludes)
            if isinstance(schema, dict):
                options = {"whitespace_flexible": False, "item_separator": escape(node.item_sep),
                           "key_separator": escape(node.key_sep)}
                schema = {**schema, "x-guidance": options}
            return self.define("%json " + dumps_compact(schema), "arguments")
        if isinstance(node, Block):
            return self.block(node, self.expr(node.head))
        if isinstance(node, Seq):
            return self.define(" ".join(self.runs(list(node.items))), name)
        if isinstance(node, Alt):
            return self.define(" | ".join(self.expr(o) for o in node.options), name)
        if isinstance(node, Rep):
            return self.define(f"({self.expr(node.node)}){_count(node)}", name)
        raise TypeError(node)


# keywords whose subschemas admit values of the instance (Draft 2020-12 and older): one, a list, a map; not ``not``
# or ``if``, whose subschemas test values (narrowing those would widen the schema)
_ONE = ("items", "additionalItems", "contains", "then", "else", "propertyNames", "unevaluatedItems",
        "unevaluatedProperties", "additionalProperties")
_MANY = ("allOf", "anyOf", "oneOf", "prefixItems")
_MAP = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
_APPLIED = ("anyOf", "oneOf", "allOf", "$ref")  # an untyped schema with these admits what its subschemas admit
_ANY = "hermes_toolcall_json"  # the ``$defs`` entry for any JSON value whose strings match the pattern


def strings_avoiding(schema: Any, excludes: tuple[str, ...]) -> Any:
    """``schema`` with no string it admits holding one of ``excludes`` (llguidance's ``%json``, whose ``pattern``
    applies to a string's value): string values (with a ``pattern`` of their own: both, through ``allOf``), the
    keys of objects that admit undeclared ones (``patternProperties`` for ``additionalProperties``, its regex
    leaving the declared names out, so that no declared property meets it), and every string of a value the
    schema leaves open (``{}``, ``true``, an untyped schema, free items and properties: a recursive ``$defs``
    entry). ``enum`` and ``const`` members are left as they are; so are the keys of an object with
    ``patternProperties`` of its own or a declared name holding the texts' lead character (only their values are
    checked).

    >>> s = strings_avoiding({"type": "object", "properties": {"a": {"type": "string"}}}, ("<x>",))
    >>> s["properties"]["a"]["pattern"] == "^" + avoiding(["<x>"]) + "$", s["additionalProperties"]
    (True, False)
    >>> s["patternProperties"] == {"^" + avoiding(["<x>"], but=["a"]) + "$": {"$ref": "#/$defs/hermes_toolcall_json"}}
    True
    """
    pattern = "^" + avoiding(excludes) + "$"
    lead = excludes[0][0]
    root = schema if isinstance(schema, dict) else {}
    found = root.get("$defs")
    defs: dict[str, Any] = found if isinstance(found, dict) else {}
    name = _ANY
    while name in defs:
        name += "_"
    ref = {"$ref": f"#/$defs/{name}"}
    used = False

    def walk(node: Any) -> Any:
        nonlocal used
        if node is True:
            used = True
            return dict(ref)
        if not isinstance(node, dict):
            return node
        out = dict(node)
        for key in _ONE:
            if key in out and not (key == "items" and isinstance(out[key], list)):
                out[key] = walk(out[key])
        if isinstance(out.get("items"), list):  # an older tuple form
            out["items"] = [walk(s) for s in out["items"]]
        for key in _MANY:
            if isinstance(out.get(key), list):
                out[key] = [walk(s) for s in out[key]]
        for key in _MAP:
            if isinstance(out.get(key), dict):
                out[key] = {k: walk(s) for k, s in out[key].items()}
        if "enum" in out or "const" in out:
            return out
        kind = out.get("type")
        kinds = {kind} if isinstance(kind, str) else set(kind) if isinstance(kind, list) else None
        if kinds is None and any(k in out for k in _APPLIED):
            return out  # what it admits comes from the subschemas, each walked
        if kinds is None or "string" in kinds:
            if "pattern" in out:
                out["allOf"] = [*out.get("allOf", []), {"pattern": pattern}]
            else:
                out["pattern"] = pattern
        if (kinds is None or "array" in kinds) and "items" not in out:
            used = True
            out["items"] = dict(ref)
        free = out.get("additionalProperties", True)
        if (kinds is None or "object" in kinds) and free is not False and "unevaluatedProperties" not in out:
            if free is True:
                used = True
                free = dict(ref)
            declared = list(out["properties"]) if isinstance(out.get("properties"), dict) else []
            if "patternProperties" in out or any(lead in key for key in declared):
                out["additionalProperties"] = free
            else:
                out["patternProperties"] = {"^" + avoiding(excludes, but=declared) + "$": free}
                out["additionalProperties"] = False
        return out

    out = walk(schema)
    if used and isinstance(out, dict):
        out["$defs"] = {**out.get("$defs", {}), name: walk({})}  # the schema's own, walked, and the open value
    return out


def _count(node: Rep) -> str:
    if node.high is None:
        return "*" if node.low == 0 else "+" if node.low == 1 else f"{{{node.low},}}"
    return f"{{{node.low},{node.high}}}"


def to_lark(tree: Node, *, is_token: Callable[[str], bool]) -> str:
    """The llguidance grammar for ``tree``; ``is_token(tag)`` says whether a tag is written as a token reference."""
    w = _Writer(is_token)
    start = w.opening((), tree, last=True, name="completion")
    return "%llguidance {}\n\nstart: " + start + "\n" + "\n".join(reversed(w.lines)) + "\n"
