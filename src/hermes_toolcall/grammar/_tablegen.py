"""Writes ``grammar/_tables.py``: ``hermes.lark`` compiled by Lark, read through Lark's public serialisation.

For every option variant, Lark compiles the grammar (``_parser.lark_parser``) and this module reads
the result through ``Lark.save`` (Lark's documented way to store a compiled LALR parser; the same
serialised form ``lark.tools.standalone`` embeds), never through Lark's private attributes:

* the LALR(1) table: per state, each symbol's action (shift or goto to a state, or reduce by a
  rule, of which the driver needs only the left-hand side and the length);
* the terminals (name, regexp, priority, the width estimate Lark keeps for each pattern);
* the contextual lexer of every state, built as Lark documents it: the terminals the state accepts,
  tried in Lark's documented precedence (highest priority, then the longest possible match, then
  the longest pattern, then the name).

States are renumbered canonically (breadth first from the start rules, symbols in sorted order):
Lark's own numbering depends on the interpreter's hash seed, the canonical one only on the grammar,
so the file is the same on every run and with every Lark that compiles the same automaton. The
option variants share one table (only the terminals differ), which is checked here.

Anything this module does not understand in the serialised form (a lexer feature the driver lacks,
a changed layout) raises ``TableGenError`` naming the Lark version: the contract failed loudly.
``tests/test_grammar_tables.py`` regenerates the file and compares it with the committed one.

Run ``python scripts/gen_grammar_tables.py`` after editing ``hermes.lark`` or ``_parser.py``'s variants.
"""

from __future__ import annotations

import hashlib
import io
import pickle
import re
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import TableGenError
from ..tags import REASONING_KINDS
from ._parser import GRAMMAR, START_RULES, Variant, lark_parser

__all__ = ["TABLES_PATH", "TableGenError", "VariantKey", "generate", "grammar_sha256", "variants", "write"]

TABLES_PATH = Path(__file__).with_name("_tables.py")
VariantKey = tuple[tuple[str, ...], bool, bool]


def grammar_sha256() -> str:
    """The SHA-256 of ``hermes.lark`` as the package reads it (recorded in the tables).

    >>> len(grammar_sha256())
    64
    """
    return hashlib.sha256(GRAMMAR.encode("utf-8")).hexdigest()


def variants() -> tuple[Variant, ...]:
    """Every option variant the engine can ask for, with its reasoning kinds in canonical order."""
    subsets: list[tuple[str, ...]] = [tuple(REASONING_KINDS)]
    subsets += [(k,) for k in REASONING_KINDS] + [()]
    return tuple(
        Variant(kinds=kinds, calls_in_reasoning=cir, stop_at_fabricated=stop)
        for kinds in subsets
        for cir in (False, True)
        for stop in (False, True)
    )


def _fail(what: str) -> TableGenError:
    import lark

    return TableGenError(f"Lark {lark.__version__}: {what} (grammar/_tablegen.py reads Lark's serialised parser)")


def _get(obj: Any, key: str, where: str) -> Any:
    if not isinstance(obj, dict) or key not in obj:
        raise _fail(f"the serialised parser has no {where}.{key}")
    return obj[key]


def _deref(obj: Any, memo: dict[Any, Any], where: str) -> Any:
    """A memoised object of the serialised form (``{"@": n}``), or the object itself."""
    if isinstance(obj, dict) and "@" in obj:
        if obj["@"] not in memo:
            raise _fail(f"{where} refers to a missing memo entry {obj['@']}")
        return memo[obj["@"]]
    return obj


@dataclass(frozen=True, slots=True, kw_only=True)
class _Terminal:
    name: str
    regexp: str
    priority: int
    max_width: int
    length: int  # of the pattern's definition (the literal, or the regexp source)
    literal: str | None  # the string of a string terminal


@dataclass(frozen=True, slots=True, kw_only=True)
class _Compiled:
    """One variant's compiled grammar, states still in Lark's numbering."""

    rows: dict[int, dict[str, int | tuple[str, int]]]  # state -> symbol -> target state | (origin, length)
    start: dict[str, int]
    end: dict[str, int]
    terminals: dict[str, _Terminal]


def _serialised(variant: Variant) -> tuple[dict[str, Any], dict[Any, Any]]:
    buf = io.BytesIO()
    # the variant's edit hook is a closure (not picklable) and not part of the compiled result
    lark_parser(variant).save(buf, exclude_options=("edit_terminals",))
    saved = pickle.loads(buf.getvalue())  # our own bytes, written just above
    return _get(saved, "data", "save()"), _get(saved, "memo", "save()")


def _terminal(raw: Any) -> _Terminal:
    name = str(_get(raw, "name", "terminal"))  # plain str: some Lark versions keep Token objects
    pattern = _get(raw, "pattern", f"terminal {name}")
    kind = _get(pattern, "__type__", f"terminal {name}.pattern")
    value = _get(pattern, "value", f"terminal {name}.pattern")
    if _get(pattern, "flags", f"terminal {name}.pattern"):
        raise _fail(f"terminal {name} has regexp flags (the driver does not apply them)")
    if kind == "PatternStr":
        return _Terminal(
            name=name,
            regexp=re.escape(str(value)),
            priority=_get(raw, "priority", name),
            max_width=len(value),
            length=len(value),
            literal=str(value),
        )
    if kind == "PatternRE":
        width = _get(pattern, "_width", f"terminal {name}.pattern")
        if not isinstance(width, (list, tuple)) or len(width) != 2:
            raise _fail(f"terminal {name} has no width estimate")
        return _Terminal(
            name=name,
            regexp=str(value),
            priority=_get(raw, "priority", name),
            max_width=int(width[1]),
            length=len(value),
            literal=None,
        )
    raise _fail(f"terminal {name} has a pattern of unknown type {kind}")


def _compile(variant: Variant) -> _Compiled:
    data, memo = _serialised(variant)
    frontend = _get(data, "parser", "data")
    lexer_conf = _get(frontend, "lexer_conf", "parser")
    if _get(lexer_conf, "lexer_type", "lexer_conf") != "contextual":
        raise _fail("the parser does not use the contextual lexer")
    if _get(lexer_conf, "ignore", "lexer_conf"):
        raise _fail("the grammar ignores terminals (%ignore: the driver has no skipped tokens)")
    if _get(lexer_conf, "g_regex_flags", "lexer_conf") or _get(lexer_conf, "use_bytes", "lexer_conf"):
        raise _fail("the lexer uses global regexp flags or bytes")
    terminals: dict[str, _Terminal] = {}
    for ref in _get(lexer_conf, "terminals", "lexer_conf"):
        t = _terminal(_deref(ref, memo, "lexer_conf.terminals"))
        terminals[t.name] = t
    table = _get(frontend, "parser", "parser")
    names = _get(table, "tokens", "parse table")
    rows: dict[int, dict[str, int | tuple[str, int]]] = {}
    for state, actions in _get(table, "states", "parse table").items():
        row: dict[str, int | tuple[str, int]] = {}
        for token, action in actions.items():
            if token not in names or not isinstance(action, (list, tuple)) or len(action) != 2:
                raise _fail(f"state {state} has an action of unknown form {action!r}")
            code, arg = action
            if code == 0:  # shift (or goto, for a nonterminal)
                row[str(names[token])] = int(arg)
            elif code == 1:  # reduce
                rule = _deref(arg, memo, f"state {state}")
                origin = str(_get(_get(rule, "origin", "rule"), "name", "rule.origin"))
                row[str(names[token])] = (origin, len(_get(rule, "expansion", "rule")))
            else:
                raise _fail(f"state {state} has an action of unknown kind {code!r}")
        rows[int(state)] = row
    start = {str(k): int(v) for k, v in _get(table, "start_states", "parse table").items()}
    end = {str(k): int(v) for k, v in _get(table, "end_states", "parse table").items()}
    if sorted(start) != sorted(START_RULES) or sorted(end) != sorted(START_RULES):
        raise _fail(f"the start rules are {sorted(start)}, not {sorted(START_RULES)}")
    return _Compiled(rows=rows, start=start, end=end, terminals=terminals)


def _canonical_numbering(c: _Compiled) -> dict[int, int]:
    """Lark's state numbers to canonical ones: breadth first from the start rules, symbols sorted."""
    order: dict[int, int] = {}
    queue: deque[int] = deque()
    for rule in START_RULES:
        if c.start[rule] not in order:
            order[c.start[rule]] = len(order)
            queue.append(c.start[rule])
    while queue:
        row = c.rows[queue.popleft()]
        for symbol in sorted(row):
            target = row[symbol]
            if isinstance(target, int) and target not in order:
                order[target] = len(order)
                queue.append(target)
    if len(order) != len(c.rows):
        raise _fail(f"{len(c.rows) - len(order)} states are not reachable from the start rules")
    return order


def _lexer(c: _Compiled, row: dict[str, Any]) -> tuple[_Terminal, ...]:
    """The contextual lexer of one state: its terminals in Lark's documented precedence."""
    accepted = [c.terminals[s] for s in row if s in c.terminals]
    accepted.sort(key=lambda t: (-t.priority, -t.max_width, -t.length, t.name))
    for lit in accepted:
        for rx in accepted:
            if lit.literal is None or rx.literal is not None or lit.priority != rx.priority:
                continue  # Lark folds a string into a regexp terminal only at equal priority
            m = re.match(rx.regexp, lit.literal)
            if m is not None and m.group(0) == lit.literal:
                # Lark would fold the string terminal into the regexp one with a callback
                raise _fail(f"terminal {rx.name} matches the whole literal of {lit.name} in one state")
    return tuple(accepted)


@dataclass(slots=True)
class _Tables:
    rules: list[tuple[str, int]]
    states: list[dict[str, int]]
    start: dict[str, int]
    end: dict[str, int]
    patterns: list[str]
    lexers: list[tuple[tuple[str, int], ...]]
    variant_lexers: dict[VariantKey, tuple[int, ...]]


def _tables() -> _Tables:
    shared: tuple[Any, ...] | None = None
    out: _Tables | None = None
    pattern_ids: dict[str, int] = {}
    lexer_ids: dict[tuple[tuple[str, int], ...], int] = {}
    for variant in variants():
        c = _compile(variant)
        number = _canonical_numbering(c)
        by_number = sorted(number, key=number.__getitem__)
        reduces = sorted({t for row in c.rows.values() for t in row.values() if isinstance(t, tuple)})
        rule_ids = {rule: k for k, rule in enumerate(reduces)}
        states = [
            {s: (number[t] if isinstance(t, int) else ~rule_ids[t]) for s, t in sorted(c.rows[old].items())}
            for old in by_number
        ]
        start = {r: number[c.start[r]] for r in START_RULES}
        end = {r: number[c.end[r]] for r in START_RULES}
        table = (reduces, states, start, end)
        if shared is None:
            shared = table
            out = _Tables(
                rules=reduces, states=states, start=start, end=end, patterns=[], lexers=[], variant_lexers={}
            )
        elif table != shared:
            raise _fail(f"variant {variant} has another LALR table (the variants may only change terminals)")
        assert out is not None
        per_state: list[int] = []
        for old in by_number:
            lexer = tuple(
                (t.name, pattern_ids.setdefault(t.regexp, len(pattern_ids))) for t in _lexer(c, c.rows[old])
            )
            per_state.append(lexer_ids.setdefault(lexer, len(lexer_ids)))
        out.variant_lexers[(variant.kinds, variant.calls_in_reasoning, variant.stop_at_fabricated)] = tuple(per_state)
    assert out is not None
    out.patterns = list(pattern_ids)
    out.lexers = list(lexer_ids)
    return out


_HEADER = '''\
"""``hermes.lark`` compiled by Lark: the LALR(1) table and every option variant's contextual lexer.

GENERATED by ``python scripts/gen_grammar_tables.py`` (``grammar/_tablegen.py``) through Lark's public
serialisation (``Lark.save``); do not edit. ``tests/test_grammar_tables.py`` regenerates it and
compares. ``grammar/_driver.py`` runs it; docs/grammar.md describes the layout.
"""

# ruff: noqa: E501
from __future__ import annotations
'''


def generate() -> str:
    """The source text of ``grammar/_tables.py`` for the current ``hermes.lark`` (compiles every variant).

    Raises:
        TableGenError: Lark's serialised parser is not in the form this module reads.
    """
    t = _tables()
    lines = [_HEADER, f"GRAMMAR_SHA256 = {grammar_sha256()!r}", ""]
    lines.append("# reduce actions: (nonterminal, number of symbols popped); the table codes rule k as ~k")
    lines.append("RULES: tuple[tuple[str, int], ...] = (")
    lines += [f"    {rule!r}," for rule in t.rules]
    lines.append(")")
    lines.append("START_STATES: dict[str, int] = {")
    lines += [f"    {k!r}: {v}," for k, v in t.start.items()]
    lines.append("}")
    lines.append("END_STATES: dict[str, int] = {")
    lines += [f"    {k!r}: {v}," for k, v in t.end.items()]
    lines.append("}")
    lines.append("# per state: symbol -> next state (shift a terminal, goto after a reduction) or ~rule (reduce)")
    lines.append("STATES: tuple[dict[str, int], ...] = (")
    for k, row in enumerate(t.states):
        items = ", ".join(f"{s!r}: {v}" for s, v in row.items())
        lines.append(f"    {{{items}}},  # {k}")
    lines.append(")")
    lines.append("# the terminals' regexps")
    lines.append("PATTERNS: tuple[str, ...] = (")
    lines += [f"    {p!r},  # {k}" for k, p in enumerate(t.patterns)]
    lines.append(")")
    lines.append("# contextual lexers: the terminals tried in one state, in Lark's order, as (name, pattern)")
    lines.append("LEXERS: tuple[tuple[tuple[str, int], ...], ...] = (")
    for k, lexer in enumerate(t.lexers):
        items = ", ".join(f"({name!r}, {p})" for name, p in lexer)
        lines.append(f"    ({items}{',' if len(lexer) == 1 else ''}),  # {k}")
    lines.append(")")
    lines.append("# per variant (reasoning kinds, calls_in_reasoning, stop_at_fabricated): each state's lexer")
    lines.append("VARIANT_LEXERS: dict[tuple[tuple[str, ...], bool, bool], tuple[int, ...]] = {")
    for key, per_state in t.variant_lexers.items():
        lines.append(f"    {key!r}: {per_state!r},")
    lines.append("}")
    return "\n".join(lines) + "\n"


def write(path: Path = TABLES_PATH) -> bool:
    """Regenerate the tables file; returns whether it changed."""
    text = generate()
    if path.exists() and path.read_text(encoding="utf-8") == text:
        return False
    path.write_text(text, encoding="utf-8")
    return True
