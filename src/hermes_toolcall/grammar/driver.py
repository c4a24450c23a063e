"""A tree-less runner of the LALR table and contextual lexer that Lark compiles from ``hermes.lark``.

Lark compiles the grammar: the LALR(1) parse table, and for every parser state the terminals the
contextual lexer may try there, in Lark's priority order. Lark's own parser then builds a parse
tree, calling a Python callback per reduction; the grammar engine only needs the tokens in document
order, so this module runs the same table without the tree:

* per parser state, the alternation of the state's terminals in Lark's order (the contextual
  lexer's leftmost-alternative match, the same as Lark's scanner), compiled twice: whole, for a
  position holding ``<``, and without the terminals whose pattern starts with a literal ``<`` for
  any other position (they cannot match there, so the leftmost match is the same);
* the LALR stack of states, with every (stack, terminal) step memoised: the grammar's lists are
  left-recursive, so the reachable stacks are few, and after warming up a token costs one regex
  match and two dictionary lookups.

It accepts exactly what Lark's parser accepts and returns exactly its tokens;
``tests/test_grammar_driver.py`` checks that on the corpus and on hypothesis inputs for every
option variant and start rule. ``parser.parse_tree`` keeps Lark's own parser for that check.
"""

from __future__ import annotations

import re
from typing import Any

from lark import Lark

__all__ = ["Driver", "DriverError"]

Tok = tuple[str, int, int]


class DriverError(Exception):
    """The table rejected the input, or Lark's compiled lexer uses a feature this runner lacks."""


class Driver:
    """Runs one compiled grammar (one option variant) over texts, returning their tokens.

    >>> from hermes_toolcall.grammar.parser import Variant, lark_parser
    >>> Driver(lark_parser(Variant())).tokens("hi<|im_end|>", "completion")
    [('A_TEXT', 0, 2), ('IM_END', 2, 12)]
    """

    __slots__ = (
        "_actions",
        "_end_states",
        "_ids",
        "_lexer_of",
        "_next",
        "_patterns",
        "_stacks",
        "_start_states",
        "_text_patterns",
    )

    def __init__(self, lark: Lark) -> None:
        frontend: Any = lark.parser
        table: Any = frontend.parser.parser.parse_table
        lexer: Any = frontend.lexer
        if not hasattr(lexer, "lexers"):
            raise DriverError("the Lark instance has no contextual lexer")
        self._actions: dict[int, dict[str, tuple[bool, Any]]] = {
            state: {term: (action.name == "Shift", arg) for term, (action, arg) in actions.items()}
            for state, actions in table.states.items()
        }
        self._start_states: dict[str, int] = dict(table.start_states)
        self._end_states: dict[str, int] = dict(table.end_states)
        compiled: dict[int, tuple[re.Pattern[str], re.Pattern[str]]] = {}
        self._lexer_of: dict[int, tuple[re.Pattern[str], re.Pattern[str]]] = {}
        for state, basic in lexer.lexers.items():
            key = id(basic)
            if key not in compiled:
                basic.scanner  # noqa: B018 - builds Lark's scanner, which sets `callback`
                if basic.callback:
                    raise DriverError(f"terminal callbacks are not supported: {sorted(basic.callback)}")
                regexps = [(t.name, t.pattern.to_regexp()) for t in basic.terminals]
                groups = [(f"(?P<{name}>{regexp})", regexp) for name, regexp in regexps]
                others = [group for group, regexp in groups if not regexp.startswith("<")] or ["(?!)"]
                compiled[key] = (
                    re.compile("|".join(group for group, _ in groups), basic.g_regex_flags),
                    re.compile("|".join(others), basic.g_regex_flags),
                )
            self._lexer_of[state] = compiled[key]
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
        actions = self._actions
        while True:
            act = actions[stack[-1]].get(term)
            if act is None:
                return -1
            shift, arg = act
            if shift:
                stack.append(arg)
                break
            size = len(arg.expansion)
            if size:
                del stack[-size:]
            goto = actions[stack[-1]].get(arg.origin.name)
            if goto is None or not goto[0]:  # pragma: no cover - a compiled table is consistent
                return -1
            stack.append(goto[1])
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
        sid = self._intern((self._start_states[start],))
        nexts = self._next
        patterns = self._patterns
        text_patterns = self._text_patterns
        out: list[Tok] = []
        append = out.append
        pos = 0
        n = len(text)
        while pos < n:
            m = (patterns if text[pos] == "<" else text_patterns)[sid].match(text, pos)
            if m is None:
                raise DriverError(f"no terminal matches at offset {pos + offset} ({start})")
            term = m.lastgroup
            end = m.end()
            assert term is not None and end > pos  # named groups only; Lark forbids empty terminals
            append((term, pos + offset, end + offset))
            nxt = nexts[sid].get(term)
            if nxt is None:
                nxt = self._step(sid, term)
                if nxt < 0:
                    raise DriverError(f"unexpected {term} at offset {pos + offset} ({start})")
            sid = nxt
            pos = end
        if "$END" not in nexts[sid] and self._step(sid, "$END", self._end_states[start]) < 0:
            raise DriverError(f"unexpected end of input ({start})")
        return out
