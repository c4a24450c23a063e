"""One grammar, three back ends: the completion as a small tree that each emitter writes in its engine's syntax.

The tree is built once from the dialect's bytes (``_shape``), the tools and the choice; ``_lark``,
``_regex`` and ``_xgrammar`` only translate nodes. A structural decision (which frames a choice
allows, how many calls, what free text may contain) lives here and nowhere else.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from .._jsonio import dumps_compact
from ..tags import CALL_CLOSE, CALL_OPEN, CLOSE, CONTROL, OPEN, RESP_CLOSE, RESP_OPEN

__all__ = [
    "Alt",
    "Block",
    "Free",
    "Json",
    "Lit",
    "Node",
    "Pattern",
    "Rep",
    "Seq",
    "Tag",
    "alt",
    "avoiding",
    "literal",
    "seq",
]


@dataclass(frozen=True, slots=True)
class Lit:
    """Literal text (no vocabulary tag inside: ``literal`` splits those out as ``Tag``)."""

    text: str


@dataclass(frozen=True, slots=True)
class Tag:
    """A vocabulary tag (``<tool_call>``): one added token in the family's tokenizers."""

    text: str


@dataclass(frozen=True, slots=True)
class Free:
    """Any text that contains none of ``excludes`` (each starting with ``<``); ``role`` names it (``content``)."""

    excludes: tuple[str, ...]
    role: str = "text"


@dataclass(frozen=True, slots=True)
class Pattern:
    """Text matching ``regex``, written in the subset that Python ``re``, Rust ``regex`` and xgrammar share."""

    regex: str


@dataclass(frozen=True, slots=True)
class Json:
    """A JSON value valid under ``schema`` (held as compact JSON text), written with these separators."""

    schema: str
    item_sep: str
    key_sep: str

    @property
    def value(self) -> Any:
        """The schema as a value."""
        from .._jsonio import loads

        return loads(self.schema)

    @classmethod
    def of(cls, schema: Any, *, item_sep: str, key_sep: str) -> Json:
        """The node for ``schema`` (any JSON value)."""
        return cls(schema=dumps_compact(schema), item_sep=item_sep, key_sep=key_sep)


@dataclass(frozen=True, slots=True)
class Block:
    """One tool's call block: ``head`` (up to the arguments), ``arguments``, ``tail``."""

    name: str
    head: Node
    arguments: Node
    tail: Node


@dataclass(frozen=True, slots=True)
class Seq:
    """The items one after the other."""

    items: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class Alt:
    """One of the options."""

    options: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class Rep:
    """``node`` repeated ``low`` to ``high`` times (None: unbounded)."""

    node: Node
    low: int
    high: int | None


Node = Lit | Tag | Free | Pattern | Json | Block | Seq | Alt | Rep

# the vocabulary's tags, longest first so that a tag is never split by a shorter one
_TAGS = tuple(sorted({*CONTROL, CALL_OPEN, CALL_CLOSE, RESP_OPEN, RESP_CLOSE, *OPEN.values(), *CLOSE.values()},
                     key=len, reverse=True))
_TAG_RE = re.compile("|".join(re.escape(t) for t in _TAGS))


def literal(text: str) -> Node:
    """``text`` as literal nodes, each vocabulary tag in it a ``Tag``.

    >>> literal("<tool_call>\\n{")
    Seq(items=(Tag(text='<tool_call>'), Lit(text='\\n{')))
    """
    items: list[Node] = []
    at = 0
    for m in _TAG_RE.finditer(text):
        if m.start() > at:
            items.append(Lit(text[at : m.start()]))
        items.append(Tag(m.group()))
        at = m.end()
    if at < len(text):
        items.append(Lit(text[at:]))
    return seq(items)


def seq(items: Iterable[Node]) -> Node:
    """A sequence, flattened, without empty literals; one item stands alone, none is ``Seq(())``."""
    out: list[Node] = []
    for item in items:
        if isinstance(item, Seq):
            out.extend(item.items)
        elif not (isinstance(item, Lit) and not item.text):
            out.append(item)
    return out[0] if len(out) == 1 else Seq(tuple(out))


def alt(options: Iterable[Node]) -> Node:
    """A choice; one option stands alone."""
    opts = tuple(options)
    return opts[0] if len(opts) == 1 else Alt(opts)


# --- text avoiding markers, as a plain regular expression ---------------------------------------

_META = set("\\.+*?()|[]{}^$#&-~")


def escape(text: str) -> str:
    """``text`` as a regex matching itself: only metacharacters escaped (Rust's ``regex`` reads ``\\<`` as a
    word boundary, so ``<`` and ``>`` stay bare), control characters as ``\\xNN``.

    >>> escape("<|im_end|>\\n")
    '<\\\\|im_end\\\\|>\\\\n'
    """
    out = []
    for ch in text:
        if ch in _META:
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
    return "".join(out)


def _class_escape(ch: str) -> str:
    return "\\" + ch if ch in "\\]^-[&~" else escape(ch)


def avoiding(markers: Iterable[str], *, nonempty: bool = False) -> str:
    """A regex (no lookaround) for the strings that contain none of ``markers`` (``nonempty``: but not ``""``).

    Every marker starts with the same character, which occurs nowhere else in any marker (``<`` for the
    family's tags). From the automaton that tracks how much of a marker was just read: ``U`` reads a
    partial marker cut short by a new lead character, ``T`` one broken off by any other character, ``E``
    one cut by the end of the text.

    >>> import re
    >>> rx = avoiding(["<a>", "<b"])
    >>> [bool(re.fullmatch(rx, s)) for s in ("x<a", "<<a>", "a<b", "<c>", "<a<", "<a>")]
    [True, False, False, True, True, False]
    """
    marks = sorted(set(markers))
    lead = marks[0][0]
    if any(not m or m[0] != lead or lead in m[1:] for m in marks):
        raise ValueError(f"markers must all start with one character that occurs only there: {marks!r}")
    trie: dict[str, Any] = {}
    for m in marks:
        node = trie
        for ch in m[1:]:
            node = node.setdefault(ch, {})
        node[""] = True  # a complete marker: reading it is never allowed

    def paths(node: dict[str, Any], end: str | None) -> str:
        """Paths through the partial markers below ``node`` ended by ``end`` (None: a breaking character)."""
        kids = sorted(k for k in node if k)
        options = [escape(k) + paths(node[k], end) for k in kids if "" not in node[k]]
        if end is None:
            options.append("[^" + "".join(_class_escape(c) for c in [lead, *kids]) + "]")
        else:
            options.append(end)
        return "(?:" + "|".join(options) + ")"

    back = paths(trie, escape(lead))  # U: back to the lead
    out = paths(trie, None)  # T: broken off
    tail = paths(trie, "")  # E: the text ends inside a partial marker (or right after the lead)
    head = escape(lead)
    step = f"(?:[^{_class_escape(lead)}]|{head}{back}*{out})"
    end = f"{head}{back}*{tail}"
    return f"{step}*(?:{end})?" if not nonempty else f"(?:{step}+(?:{end})?|{end})"
