"""The grammar ``hermes.lark`` and its option variants: tokens out (the driver), or Lark's parse tree.

The grammar file is read once at import. The options that change lexing (reasoning kinds of the
profile, ``calls_in_reasoning``, ``stop_at_fabricated_response``) change a few terminal patterns
through Lark's ``edit_terminals`` hook, as the grammar's comments say; the rules never change.
``tokens`` runs the tables Lark compiled (``grammar/_tables.py``, written by ``grammar/_tablegen.py``)
with ``grammar/_driver.py``: no tree, and no Lark at run time. ``parse_tree`` runs Lark's own parser
of the same variant (built once and cached), the reference the driver is tested against.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import TYPE_CHECKING, Any

from ..errors import GrammarBug
from ..tags import FUNCTION_OPEN, REASONING_KINDS, RESP_OPEN
from . import _tables as tables
from ._driver import Driver, DriverError

if TYPE_CHECKING:  # Lark is imported only where its own parser runs (parse_tree, tablegen)
    from lark import Lark, Token, Tree

__all__ = [
    "FAB_STOP",
    "GRAMMAR",
    "START_RULES",
    "GrammarBug",
    "Variant",
    "a_text_pattern",
    "driver",
    "lark_parser",
    "parse_tree",
    "token_batches",
    "tokens",
    "tree_tokens",
]

GRAMMAR: str = resources.files(__package__).joinpath("hermes.lark").read_text(encoding="utf-8")

START_RULES: tuple[str, ...] = (
    "transcript",
    "completion",
    "resume_a_t",
    "resume_u_t",
    "resume_s_t",
    "resume_think_t",
    "resume_scratch_t",
    "resume_think_c",
    "resume_scratch_c",
    "open_think_c",
    "open_scratch_c",
)

_CTRL = r"\|im_(?:start|end)\|>"
_KIND_TERMINALS = {
    "think": ("THINK_BLOCK", "THINK_OPEN", "THINK_TEXT", "THINK_CLOSE", "STRAY_THINK"),
    "scratch_pad": ("SCRATCH_BLOCK", "SCRATCH_OPEN", "SCRATCH_TEXT", "SCRATCH_CLOSE", "STRAY_SCRATCH"),
}
# the rest of a block opened by the prompt: goes with the whole-block terminal (calls_in_reasoning=False)
_REST_TERMINALS = {"think": "THINK_REST", "scratch_pad": "SCRATCH_REST"}


@dataclass(frozen=True, slots=True, kw_only=True)
class Variant:
    """The option values that change lexing."""

    kinds: tuple[str, ...] = ("think", "scratch_pad")
    calls_in_reasoning: bool = False
    stop_at_fabricated: bool = False

    @property
    def key(self) -> tuple[tuple[str, ...], bool, bool]:
        """The variant's key in ``_tables.VARIANT_LEXERS`` (reasoning kinds once each, canonical order).

        >>> Variant(kinds=("scratch_pad", "think")).key
        (('think', 'scratch_pad'), False, False)
        """
        kinds = tuple(k for k in REASONING_KINDS if k in self.kinds)
        return (kinds, self.calls_in_reasoning, self.stop_at_fabricated)


def _never(name: str) -> str:
    """A one-character pattern that never matches (unique per terminal, so Lark keeps them apart)."""
    return f"(?!~)~{name}"


# the FAB pattern under stop_at_fabricated_response (hermes.lark's comment at FAB quotes it)
FAB_STOP = re.escape(RESP_OPEN) + r"[\s\S]*"


_FUNCTION = re.escape(FUNCTION_OPEN[1:])  # a bare function's opener (FUNC_OPEN) ends a text run too


def a_text_pattern(kinds: tuple[str, ...]) -> str:
    """The A_TEXT pattern: text up to a marker of the assistant context with these reasoning kinds.

    With every kind it is hermes.lark's A_TEXT (tests/test_grammar.py); a variant without a kind
    uses it in place of the grammar's, as the grammar's comment at A_TEXT says.

    >>> a_text_pattern(()) == a_text_pattern(("think", "scratch_pad"))
    False
    """
    tags = "|".join(("tool_call", *(k for k in REASONING_KINDS if k in kinds), "tool_response"))
    return rf"(?:[^<]+|<(?!\/?(?:{tags})>|{_CTRL}|{_FUNCTION}))+"


def _edit(variant: Variant) -> Any:
    disabled: set[str] = set()
    all_kinds = set(REASONING_KINDS) <= set(variant.kinds)
    for kind, names in _KIND_TERMINALS.items():
        if kind not in variant.kinds:
            disabled.update(names)
            disabled.add(_REST_TERMINALS[kind])
        elif variant.calls_in_reasoning:
            disabled.add(names[0])
            disabled.add(_REST_TERMINALS[kind])
        else:
            disabled.update(names[1:4])

    def edit(term: Any) -> None:
        if term.name in disabled:
            term.pattern = _regexp(_never(term.name))
        elif term.name == "A_TEXT" and not all_kinds:
            term.pattern = _regexp(a_text_pattern(variant.kinds))
        elif term.name == "FAB" and variant.stop_at_fabricated:
            term.pattern = _regexp(FAB_STOP)

    return edit


def _regexp(pattern: str) -> Any:
    from lark.lexer import PatternRE

    return PatternRE(pattern)


@lru_cache(maxsize=16)
def lark_parser(variant: Variant) -> Lark:
    """Lark's LALR parser of ``hermes.lark`` with the contextual lexer, for one option variant (cached).

    >>> lark_parser(Variant()).options.parser
    'lalr'
    """
    from lark import Lark

    return Lark(
        GRAMMAR,
        parser="lalr",
        lexer="contextual",
        start=list(START_RULES),
        edit_terminals=_edit(variant),
        maybe_placeholders=False,
    )


@lru_cache(maxsize=1)
def _check_tables() -> None:
    if tables.GRAMMAR_SHA256 != hashlib.sha256(GRAMMAR.encode("utf-8")).hexdigest():
        raise GrammarBug("grammar/_tables.py was generated from another hermes.lark: run scripts/gen_grammar_tables.py")


@lru_cache(maxsize=16)
def driver(variant: Variant) -> Driver:
    """The driver of one option variant (cached): the compiled tables, run without Lark.

    Raises:
        GrammarBug: ``grammar/_tables.py`` is stale (generated from another ``hermes.lark``).

    >>> driver(Variant()) is driver(Variant(kinds=("scratch_pad", "think")))
    True
    """
    _check_tables()
    key = variant.key
    if key != (variant.kinds, variant.calls_in_reasoning, variant.stop_at_fabricated):
        return driver(Variant(kinds=key[0], calls_in_reasoning=key[1], stop_at_fabricated=key[2]))
    return Driver(tables.VARIANT_LEXERS[key])


def parse_tree(text: str, start: str, variant: Variant) -> Tree[Token]:
    """The parse tree of ``text`` from the start rule ``start``.

    Raises:
        GrammarBug: Lark rejected the input (the grammar is total, so this is a bug to report).

    >>> parse_tree("hi", "completion", Variant()).data == "completion"
    True
    """
    from lark.exceptions import LarkError

    try:
        return lark_parser(variant).parse(text, start=start)
    except LarkError as exc:  # pragma: no cover - the grammar is total
        raise GrammarBug(f"grammar rejected the input ({start}): {exc}") from exc


def tokens(text: str, start: str, variant: Variant, offset: int = 0) -> list[tuple[str, int, int]]:
    """The tokens of ``text`` in document order, as ``(terminal, start, end)`` shifted by ``offset``.

    Runs Lark's compiled table without building a tree (``grammar/_driver.py``); the tokens are
    those of the leaves of ``parse_tree`` (checked by ``tests/test_grammar_driver.py``).

    Raises:
        GrammarBug: the input was rejected (the grammar is total, so this is a bug to report).

    >>> tokens("a</think>", "completion", Variant())
    [('A_TEXT', 0, 1), ('STRAY_THINK', 1, 9)]
    """
    try:
        return driver(variant).tokens(text, start, offset)
    except DriverError as exc:  # pragma: no cover - the grammar is total
        raise GrammarBug(f"grammar rejected the input: {exc}") from exc


def token_batches(text: str, start: str, variant: Variant, pos: int = 0) -> Iterator[list[tuple[str, int, int]]]:
    """The tokens of ``text[pos:]`` in document order, in batches, with offsets into ``text``.

    What ``tokens`` returns, produced as it is read (``Driver.batches``): the whole-text parse holds
    one batch of tokens at a time, not the tokens of the whole input beside the values built from them.

    Raises:
        GrammarBug: the input was rejected (the grammar is total, so this is a bug to report).

    >>> [t for batch in token_batches("xa</think>", "completion", Variant(), 1) for t in batch]
    [('A_TEXT', 1, 2), ('STRAY_THINK', 2, 10)]
    """
    try:
        yield from driver(variant).batches(text, start, pos)
    except DriverError as exc:  # pragma: no cover - the grammar is total
        raise GrammarBug(f"grammar rejected the input: {exc}") from exc


def tree_tokens(text: str, start: str, variant: Variant, offset: int = 0) -> list[tuple[str, int, int]]:
    """The leaves of Lark's own parse tree in document order (the reference for ``tokens``).

    >>> tree_tokens("a</think>", "completion", Variant()) == tokens("a</think>", "completion", Variant())
    True
    """
    from lark import Tree

    out: list[tuple[str, int, int]] = []
    stack: list[Any] = [iter(parse_tree(text, start, variant).children)]
    append = out.append
    while stack:
        for child in stack[-1]:
            if isinstance(child, Tree):
                stack.append(iter(child.children))
                break
            append((child.type, child.start_pos + offset, child.end_pos + offset))
        else:
            stack.pop()
    return out
