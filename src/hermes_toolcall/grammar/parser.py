"""The Lark LALR parser of ``hermes.lark``: one cached parser per option variant, tokens out.

The grammar file is read once at import. The options that change lexing (reasoning kinds of the
profile, ``calls_in_reasoning``, ``stop_at_fabricated_response``) change a few terminal patterns
through Lark's ``edit_terminals`` hook; the rules never change. Each variant's parser is built
once and cached. Lark compiles the grammar; ``tokens`` runs the compiled table with
``grammar/driver.py`` (no tree), and ``parse_tree`` runs Lark's own parser.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

from lark import Lark, Token, Tree
from lark.exceptions import LarkError

from ..errors import HermesError
from .driver import Driver, DriverError

__all__ = ["GRAMMAR", "START_RULES", "GrammarBug", "Variant", "lark_parser", "parse_tree", "tokens", "tree_tokens"]

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


class GrammarBug(HermesError):
    """The grammar rejected an input: a bug, since the grammar is total (never raised in practice)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Variant:
    """The option values that change lexing."""

    kinds: tuple[str, ...] = ("think", "scratch_pad")
    calls_in_reasoning: bool = False
    stop_at_fabricated: bool = False


def _never(name: str) -> str:
    """A one-character pattern that never matches (unique per terminal, so Lark keeps them apart)."""
    return f"(?!~)~{name}"


def a_text_pattern(kinds: tuple[str, ...]) -> str:
    """The A_TEXT pattern: text up to a marker of the assistant context with these reasoning kinds."""
    tags = "|".join(("tool_call", *(k for k in ("think", "scratch_pad") if k in kinds), "tool_response"))
    return rf"(?:[^<]+|<(?!\/?(?:{tags})>|{_CTRL}))+"


def _edit(variant: Variant) -> Any:
    disabled: set[str] = set()
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
        elif term.name == "A_TEXT":
            term.pattern = _regexp(a_text_pattern(variant.kinds))
        elif term.name == "FAB" and variant.stop_at_fabricated:
            term.pattern = _regexp(r"<tool_response>[\s\S]*")

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
    return Lark(
        GRAMMAR,
        parser="lalr",
        lexer="contextual",
        start=list(START_RULES),
        edit_terminals=_edit(variant),
        maybe_placeholders=False,
    )


@lru_cache(maxsize=16)
def _driver(variant: Variant) -> Driver:
    return Driver(lark_parser(variant))


def parse_tree(text: str, start: str, variant: Variant) -> Tree[Token]:
    """The parse tree of ``text`` from the start rule ``start``.

    Raises:
        GrammarBug: Lark rejected the input (the grammar is total, so this is a bug to report).

    >>> parse_tree("hi", "completion", Variant()).data == "completion"
    True
    """
    try:
        return lark_parser(variant).parse(text, start=start)
    except LarkError as exc:  # pragma: no cover - the grammar is total
        raise GrammarBug(f"grammar rejected the input ({start}): {exc}") from exc


def tokens(text: str, start: str, variant: Variant, offset: int = 0) -> list[tuple[str, int, int]]:
    """The tokens of ``text`` in document order, as ``(terminal, start, end)`` shifted by ``offset``.

    Runs Lark's compiled table without building a tree (``grammar/driver.py``); the tokens are
    those of the leaves of ``parse_tree`` (checked by ``tests/test_grammar_driver.py``).

    Raises:
        GrammarBug: the input was rejected (the grammar is total, so this is a bug to report).

    >>> tokens("a</think>", "completion", Variant())
    [('A_TEXT', 0, 1), ('STRAY_THINK', 1, 9)]
    """
    try:
        return _driver(variant).tokens(text, start, offset)
    except DriverError as exc:  # pragma: no cover - the grammar is total
        raise GrammarBug(f"grammar rejected the input: {exc}") from exc


def tree_tokens(text: str, start: str, variant: Variant, offset: int = 0) -> list[tuple[str, int, int]]:
    """The leaves of Lark's own parse tree in document order (the reference for ``tokens``).

    >>> tree_tokens("a</think>", "completion", Variant()) == tokens("a</think>", "completion", Variant())
    True
    """
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
