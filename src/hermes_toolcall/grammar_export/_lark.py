"""The tree as an llguidance grammar (its Lark dialect, with inline ``%json``).

Tags that are tokens of the tokenizer are written as token references (``<tool_call>``): llguidance
treats every added token as special, so a written-out tag never matches it. Runs of literal and free
text are merged into one terminal: llguidance's lexer is greedy, so free text followed by a separate
``"\\n"`` terminal would swallow the newline and then meet a special token it cannot end on.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from .._jsonio import dumps_compact
from ._ir import Alt, Block, Free, Json, Lit, Node, Pattern, Rep, Seq, Tag, avoiding, escape

__all__ = ["to_lark"]


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
            if isinstance(schema, dict):
                options = {"whitespace_flexible": False, "item_separator": escape(node.item_sep),
                           "key_separator": escape(node.key_sep)}
                schema = {**schema, "x-guidance": options}
            return self.define("%json " + dumps_compact(schema), "arguments")
        if isinstance(node, Block):
            label = "call_" + re.sub(r"[^a-z0-9_]", "_", node.name.lower())
            pieces = (node.head, node.tail) if node.arguments is None else (node.head, node.arguments, node.tail)
            return self.define(" ".join(self.expr(n) for n in pieces), label)
        if isinstance(node, Seq):
            parts: list[str] = []
            run: list[Node] = []
            for item in (*node.items, None):
                if item is not None and self.lexical(item):
                    run.append(item)
                    continue
                if run:
                    parts.append(self.expr(run[0]) if len(run) == 1 else self.define(
                        " ".join(self.lex(n) for n in run), "T"))
                    run = []
                if item is not None:
                    parts.append(self.expr(item))
            return self.define(" ".join(parts), name)
        if isinstance(node, Alt):
            return self.define(" | ".join(self.expr(o) for o in node.options), name)
        if isinstance(node, Rep):
            return self.define(f"({self.expr(node.node)}){_count(node)}", name)
        raise TypeError(node)


def _count(node: Rep) -> str:
    if node.high is None:
        return "*" if node.low == 0 else "+" if node.low == 1 else f"{{{node.low},}}"
    return f"{{{node.low},{node.high}}}"


def to_lark(tree: Node, *, is_token: Callable[[str], bool]) -> str:
    """The llguidance grammar for ``tree``; ``is_token(tag)`` says whether a tag is written as a token reference."""
    w = _Writer(is_token)
    start = w.expr(tree, "completion")
    return "%llguidance {}\n\nstart: " + start + "\n" + "\n".join(reversed(w.lines)) + "\n"
