"""A tree-less runner of ``grammar/_tables.py``: the LALR table and contextual lexer of ``hermes.lark``.

Lark compiles the grammar; ``grammar/_tablegen.py`` writes what it compiled into ``_tables.py`` (the
LALR(1) parse table, and for every parser state and option variant the terminals the contextual
lexer tries there, in Lark's priority order). This module runs those tables; it needs nothing of
Lark at run time. Lark's own parser builds a parse tree, calling a Python callback per reduction;
the grammar engine only needs the tokens in document order, so the tables run without the tree:

* per parser state, the alternation of the state's terminals in Lark's order (the contextual
  lexer's leftmost-alternative match, the same as Lark's scanner), compiled twice: whole, for a
  position holding ``<``, and without the terminals whose pattern starts with a literal ``<`` for
  any other position (they cannot match there, so the leftmost match is the same);
* the LALR stack of states, with every (stack, terminal) step memoised: the grammar's lists are
  left-recursive, so the reachable stacks are few, and after warming up a token costs one regex
  match and two dictionary lookups.
* the tokens come in batches (``Driver.batches``), matched in place in the whole text: the
  whole-text parse holds one batch at a time beside the values it builds, and a token's start is
  the int object the previous token ended with (docs/performance.md, "Whole-text parse memory").

It accepts exactly what Lark's parser accepts and returns exactly its tokens;
``tests/test_grammar_driver.py`` checks that on the corpus and on hypothesis inputs for every
option variant and start rule. ``_parser.parse_tree`` keeps Lark's own parser for that check.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from functools import cache

from ..errors import DriverError
from . import _tables as tables

__all__ = ["BATCH_CHARS", "FIRST_BATCH_CHARS", "Driver", "DriverError"]

Tok = tuple[str, int, int]

#: Characters of text per batch of ``Driver.batches``, at most: small enough that a batch's tokens are
#: a negligible part of a large parse's memory, large enough that refilling costs nothing measurable.
BATCH_CHARS = 1 << 16
#: Characters of the first batch; each next batch is twice as long, up to ``BATCH_CHARS``. A reader
#: that stops early (the whole-text parse resumes after each size cut with a new token pass) has
#: lexed little past the point where it stopped.
FIRST_BATCH_CHARS = 1 << 10


@cache
def _lexer(index: int) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """``tables.LEXERS[index]`` compiled: whole, and without the terminals that start with ``<``."""
    groups = [(f"(?P<{name}>{tables.PATTERNS[p]})", tables.PATTERNS[p]) for name, p in tables.LEXERS[index]]
    others = [group for group, regexp in groups if not regexp.startswith("<")] or ["(?!)"]
    return re.compile("|".join(group for group, _ in groups)), re.compile("|".join(others))


class Driver:
    """Runs the compiled grammar with one option variant's lexers over texts, returning their tokens.

    Args:
        lexers: the lexer of each parser state (a value of ``_tables.VARIANT_LEXERS``).

    >>> Driver(tables.VARIANT_LEXERS[(("think", "scratch_pad"), False, False)]).tokens("hi<|im_end|>", "completion")
    [('A_TEXT', 0, 2), ('IM_END', 2, 12)]
    """

    __slots__ = ("_ids", "_lexer_of", "_next", "_patterns", "_stacks", "_text_patterns")

    def __init__(self, lexers: Sequence[int]) -> None:
        if len(lexers) != len(tables.STATES):
            raise DriverError(f"{len(lexers)} lexers for {len(tables.STATES)} parser states")
        self._lexer_of: list[tuple[re.Pattern[str], re.Pattern[str]]] = [_lexer(k) for k in lexers]
        # interned stacks: id -> stack, stack -> id, id -> {terminal: next id}, id -> lexer pattern
        self._stacks: list[tuple[int, ...]] = []
        self._ids: dict[tuple[int, ...], int] = {}
        self._next: list[dict[str, int]] = []
        self._patterns: list[re.Pattern[str]] = []  # for a position holding "<"
        self._text_patterns: list[re.Pattern[str]] = []  # for any other position

    def _intern(self, stack: tuple[int, ...]) -> int:
        sid = self._ids.get(stack)
        if sid is None:
            sid = self._ids[stack] = len(self._stacks)
            self._stacks.append(stack)
            self._next.append({})
            whole, others = self._lexer_of[stack[-1]]
            self._patterns.append(whole)
            self._text_patterns.append(others)
        return sid

    def _step(self, sid: int, term: str, end_state: int | None = None) -> int:
        """The stack after feeding ``term`` (reductions, then the shift); -1 when rejected.

        For the end marker (``end_state`` given) the result is the accepting stack's id.
        """
        stack = list(self._stacks[sid])
        states = tables.STATES
        while True:
            act = states[stack[-1]].get(term)
            if act is None:
                return -1
            if act >= 0:  # shift
                stack.append(act)
                break
            origin, size = tables.RULES[~act]  # reduce, then goto
            if size:
                del stack[-size:]
            goto = states[stack[-1]].get(origin)
            if goto is None or goto < 0:  # pragma: no cover - a compiled table is consistent
                return -1
            stack.append(goto)
            if end_state is not None and stack[-1] == end_state:
                break
        nxt = self._intern(tuple(stack))
        self._next[sid][term] = nxt
        return nxt

    def tokens(self, text: str, start: str, offset: int = 0) -> list[Tok]:
        """The tokens of ``text`` parsed from ``start``, as ``(terminal, start, end)`` shifted by ``offset``.

        Raises:
            DriverError: the text is not in the language (the grammar is total: a bug).
        """
        out: list[Tok] = []
        for batch in self.batches(text, start):
            out.extend(batch)
        if offset:
            return [(term, s + offset, e + offset) for term, s, e in out]
        return out

    def batches(self, text: str, start: str, pos: int = 0, size: int | None = None) -> Iterator[list[Tok]]:
        """The tokens of ``text[pos:]`` parsed from ``start``, in batches of about ``size`` characters.

        Offsets are those of ``text`` (no terminal looks behind its start, so matching in place from
        ``pos`` is matching the slice). A token's start is the previous token's end, the same int
        object, so the spans built from them share their ints. Batches are never empty; a consumer
        that reads them as they come holds the tokens of one batch at a time, not of the whole text.

        Args:
            text: the whole text.
            start: the start rule.
            pos: where parsing starts.
            size: characters per batch at most (a batch ends at the first token ending that far
                past its start); default ``BATCH_CHARS``. The first batch covers
                ``FIRST_BATCH_CHARS`` (or ``size`` when smaller), each next one twice its predecessor.

        Raises:
            DriverError: the text is not in the language (the grammar is total: a bug), when the
                batch holding the offending token (or the end of input) is asked for.

        >>> d = Driver(tables.VARIANT_LEXERS[(("think", "scratch_pad"), False, False)])
        >>> list(d.batches("hi<|im_end|>", "completion", 2))
        [[('IM_END', 2, 12)]]
        """
        if size is None:
            size = BATCH_CHARS
        step = min(FIRST_BATCH_CHARS, size)
        sid = self._intern((tables.START_STATES[start],))
        nexts = self._next
        patterns = self._patterns
        text_patterns = self._text_patterns
        out: list[Tok] = []
        append = out.append
        n = len(text)
        mark = pos + step
        while pos < n:
            m = (patterns if text[pos] == "<" else text_patterns)[sid].match(text, pos)
            if m is None:
                raise DriverError(f"no terminal matches at offset {pos} ({start})")
            term = m.lastgroup
            end = m.end()
            assert term is not None and end > pos  # named groups only; Lark forbids empty terminals
            append((term, pos, end))
            nxt = nexts[sid].get(term)
            if nxt is None:
                nxt = self._step(sid, term)
                if nxt < 0:
                    raise DriverError(f"unexpected {term} at offset {pos} ({start})")
            sid = nxt
            pos = end
            if end >= mark:
                yield out
                out = []
                append = out.append
                if step < size:
                    step = min(2 * step, size)
                mark = end + step
        if "$END" not in nexts[sid] and self._step(sid, "$END", tables.END_STATES[start]) < 0:
            raise DriverError(f"unexpected end of input ({start})")
        if out:
            yield out
