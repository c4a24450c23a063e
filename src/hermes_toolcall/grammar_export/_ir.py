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
    "CUT",
    "Alphabet",
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


Guard = tuple[str, bool, str]  # (prefix, only, chars): see avoiding
Alphabet = tuple[str, str]  # (the body of a negated class of the characters text holds, a regex for its other units)


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
    """Any text that contains none of ``excludes`` (each starting with ``<``) and keeps the ``guards`` (see
    ``avoiding``); ``role`` names it (``content``)."""

    excludes: tuple[str, ...]
    role: str = "text"
    guards: tuple[Guard, ...] = ()


@dataclass(frozen=True, slots=True)
class Pattern:
    """Text matching ``regex``, written in the subset that Python ``re``, Rust ``regex`` and xgrammar share."""

    regex: str


@dataclass(frozen=True, slots=True)
class Json:
    """A JSON value valid under ``schema`` (held as compact JSON text), written with these separators; no string in
    it (a value or a key, at any depth) holds one of ``excludes`` as written (see ``CUT``)."""

    schema: str
    item_sep: str
    key_sep: str
    excludes: tuple[str, ...] = ()

    @property
    def value(self) -> Any:
        """The schema as a value."""
        from .._jsonio import loads

        return loads(self.schema)

    @classmethod
    def of(cls, schema: Any, *, item_sep: str, key_sep: str, excludes: tuple[str, ...] = ()) -> Json:
        """The node for ``schema`` (any JSON value)."""
        return cls(schema=dumps_compact(schema), item_sep=item_sep, key_sep=key_sep, excludes=excludes)


@dataclass(frozen=True, slots=True)
class Block:
    """One tool's call block: ``head`` (up to the arguments), ``arguments`` (None: nothing), ``tail``."""

    name: str
    head: Node
    arguments: Node | None
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

#: texts the parser reads as a control token wherever they stand, inside a JSON string too: a call's JSON holding
#: one is cut off there (HT102), so no string of a call's JSON may hold one (``Json.excludes``)
CUT: tuple[str, ...] = CONTROL

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


def avoiding(markers: Iterable[str], *, guards: Iterable[Guard] = (), nonempty: bool = False,
             alphabet: Alphabet | None = None, but: Iterable[str] = ()) -> str:
    """A regex (no lookaround) for the strings that contain none of ``markers`` (``nonempty``: but not ``""``;
    ``but``: and are none of these texts, which may not hold the markers' lead character).

    ``guards`` are ``(prefix, only, chars)``: after ``prefix`` the next character must be one of ``chars``
    (``only`` True) or must not be (False), and the text may not end right after ``prefix``.

    ``alphabet`` (``(body, units)``; not with ``guards``): the text is a sequence of single characters outside
    the negated class ``[^body]`` and of ``units`` (an escape sequence of a JSON string's text); a unit never
    starts a marker and breaks off any partial one.

    Every marker and prefix starts with the same character, which occurs nowhere else in them (``<`` for
    the family's tags). From the automaton that tracks how much of a marker was just read: ``U`` reads a
    partial marker cut short by a new lead character, ``T`` one broken off by any other character, ``E``
    one cut by the end of the text.

    >>> import re
    >>> rx = avoiding(["<a>", "<b"])
    >>> [bool(re.fullmatch(rx, s)) for s in ("x<a", "<<a>", "a<b", "<c>", "<a<", "<a>")]
    [True, False, False, True, True, False]
    >>> rx = avoiding([], guards=[("</p", True, ">"), ("</p>", False, " <")])
    >>> [bool(re.fullmatch(rx, s)) for s in ('a</p>"', "a</p> b", "a</px", "a</p", "a</p>", "a</q>")]
    [True, False, False, False, False, True]
    >>> rx = avoiding(["<a>"], but=["ab", "a"])
    >>> [bool(re.fullmatch(rx, s)) for s in ("", "a", "ab", "abc", "b", "a<", "ab<a>", "ac<b", "<")]
    [True, False, False, True, True, True, False, True, True]
    >>> rx = avoiding(["<a>"], alphabet=('"', "&q;"))  # a toy escape: text holds no bare quote, and "&q;"
    >>> [bool(re.fullmatch(rx, s)) for s in ("x<&q;a>", "x<a>", 'x"', "<a&q;>", "&q;<a")]
    [True, False, False, True, True]
    """
    marks = sorted(set(markers))
    rules = list(guards)
    body, units = alphabet if alphabet is not None else ("", None)
    if rules and alphabet is not None:
        raise ValueError("guards and an alphabet cannot be combined")
    words = [*marks, *(g[0] for g in rules)]
    lead = words[0][0]
    if any(not w or w[0] != lead or lead in w[1:] for w in words):
        raise ValueError(f"markers must all start with one character that occurs only there: {words!r}")
    trie: dict[str, Any] = {}
    for w in words:
        node = trie
        for ch in w[1:]:
            node = node.setdefault(ch, {})
    for m in marks:
        node = trie
        for ch in m[1:]:
            node = node[ch]
        node[""] = True  # a complete marker: reading it is never allowed
    for prefix, only, chars in rules:
        node = trie
        for ch in prefix[1:]:
            node = node[ch]
        node[" guard"] = (only, frozenset(chars))

    def allowed(node: dict[str, Any], ch: str) -> bool:
        rule = node.get(" guard")
        return rule is None or (ch in rule[1]) == rule[0]

    def paths(node: dict[str, Any], end: str | None) -> str | None:
        """Paths through the partial markers below ``node`` ended by ``end`` (None: a breaking character;
        ``""``: the end of the text); None when there is none."""
        kids = sorted(k for k in node if len(k) == 1)
        options = []
        for k in kids:
            if "" in node[k] or not allowed(node, k):
                continue
            rest = paths(node[k], end)
            if rest is not None:
                options.append(escape(k) + rest)
        rule = node.get(" guard")
        if end is None:
            if rule is not None and rule[0]:  # only these may follow: each is a child or breaks off
                breaks = sorted(c for c in rule[1] if c != lead and c not in kids)
                if breaks:
                    options.append("[" + "".join(_class_escape(c) for c in breaks) + "]")
            else:
                banned = [lead, *kids, *(sorted(rule[1]) if rule is not None else [])]
                options.append("[^" + body + "".join(_class_escape(c) for c in dict.fromkeys(banned)) + "]")
                if units is not None:
                    options.append(units)
        elif end == "":
            if rule is None:
                options.append("")
        elif allowed(node, lead):
            options.append(end)
        return "(?:" + "|".join(options) + ")" if options else None

    head = escape(lead)
    back = paths(trie, head)  # U: back to the lead
    out = paths(trie, None)  # T: broken off
    tail = paths(trie, "")  # E: the text ends inside a partial marker (or right after the lead)
    loop = f"{back}*" if back is not None else ""
    other = f"[^{body}{_class_escape(lead)}]" + (f"|{units}" if units is not None else "")
    step = f"(?:{other}" + (f"|{head}{loop}{out}" if out is not None else "") + ")"
    end = f"{head}{loop}{tail}" if tail is not None else None
    names = sorted(set(but))
    if names:
        if nonempty or any(lead in n for n in names):
            raise ValueError(f"texts to leave out must not hold {lead!r} (nor with nonempty): {names!r}")
        return _but(names, lead=lead, other=other, chunk=f"{head}{loop}{out}" if out is not None else None,
                    step=step, end=end)
    if nonempty:
        return f"(?:{step}+(?:{end})?|{end})" if end is not None else f"{step}+"
    return f"{step}*(?:{end})?" if end is not None else f"{step}*"


def _but(names: list[str], *, lead: str, other: str, chunk: str | None, step: str, end: str | None) -> str:
    """``avoiding``'s regex without the texts ``names``, from its parts: ``other`` (a character or unit that is not
    the lead), ``chunk`` (a partial marker, from the lead, broken off), ``step`` and ``end``.

    A name holds no lead, so reading a prefix of a name leaves no partial marker. A text that is no name is: a
    proper prefix of one that is not a name itself; or a path of the names' trie, then a character or unit that
    leaves it (``other`` without the path's next characters, or a chunk, or the end inside a partial marker), then
    any text without the markers.
    """
    trie: dict[str, Any] = {}
    for name in names:
        node = trie
        for ch in name:
            node = node.setdefault(ch, {})
        node[""] = True

    def kids(node: dict[str, Any]) -> list[str]:
        return sorted(k for k in node if k)

    def path(node: dict[str, Any]) -> str:  # any path of the trie, the empty one and the names included
        return "(?:" + "|".join(["", *(escape(k) + path(node[k]) for k in kids(node))]) + ")"

    def short(node: dict[str, Any]) -> str | None:  # a path that is no name
        options = [] if "" in node else [""]
        for k in kids(node):
            rest = short(node[k])
            if rest is not None:
                options.append(escape(k) + rest)
        return "(?:" + "|".join(options) + ")" if options else None

    def off(node: dict[str, Any]) -> str:  # a path, then a character or unit that is neither the lead nor on it
        banned = "".join(_class_escape(k) for k in kids(node))
        leave = other.replace("]", banned + "]", 1) if banned else other
        return "(?:" + "|".join([leave, *(escape(k) + off(node[k]) for k in kids(node))]) + ")"

    paths = path(trie)
    first = off(trie) + (f"|{paths}{chunk}" if chunk is not None else "")
    options = [f"(?:{first}){step}*" + (f"(?:{end})?" if end is not None else "")]
    proper = short(trie)
    if proper is not None:
        options.append(proper)
    if end is not None:
        options.append(f"{paths}{end}")
    return "(?:" + "|".join(options) + ")"
