"""Random adversarial inputs without hypothesis: for ``conformance --fuzz N`` and the fuzz fallback driver.

Inputs are built from the format's own pieces (markers, partial markers, stray closers, control
tokens, JSON punctuation, quotes, backslashes, Python literals, non-ASCII) and from valid calls cut
at any point or mutated, so that a few hundred inputs reach most states of a parser.
"""

from __future__ import annotations

import itertools
import random

from ..tags import (
    ASSISTANT,
    CALL_CLOSE,
    CALL_OPEN,
    IM_END,
    IM_START,
    RESP_CLOSE,
    RESP_OPEN,
    SCRATCH_CLOSE,
    SCRATCH_OPEN,
    SYSTEM,
    THINK_CLOSE,
    THINK_OPEN,
    TOOL,
    TOOLS_CLOSE,
    TOOLS_OPEN,
    USER,
)

__all__ = ["FRAGMENTS", "MARKERS", "VALID_CALLS", "random_chunking", "random_text"]

#: Every marker of the format (docs/parsing.md §1).
MARKERS: tuple[str, ...] = (
    IM_START,
    IM_END,
    CALL_OPEN,
    CALL_CLOSE,
    THINK_OPEN,
    THINK_CLOSE,
    SCRATCH_OPEN,
    SCRATCH_CLOSE,
    RESP_OPEN,
    RESP_CLOSE,
    TOOLS_OPEN,
    TOOLS_CLOSE,
)

#: Complete, valid call blocks in the dialects' styles (spaced, compact, newline-wrapped).
VALID_CALLS: tuple[str, ...] = (
    '<tool_call>\n{"name": "get_weather", "arguments": {"location": "NYC"}}\n</tool_call>',
    '<tool_call>{"name":"bash","arguments":{"cmd":"echo </tool_call> \\"x\\""}}</tool_call>',
    '<tool_call>\n{"name": "f", "arguments": {}}\n</tool_call>',
    "<tool_call>\n{'name': 'g', 'arguments': {'a': True, 'b': None}}\n</tool_call>",
    '<tool_call>[{"name": "a", "arguments": {}}, {"name": "b", "arguments": {"x": [1, 2.5, -3e2]}}]</tool_call>',
    '<tool_call>{"name": "h", "arguments": "{\\"k\\": \\"v\\"}"}</tool_call>',
    '<tool_call>{"arguments": {"q": "什么 ✓ é"}, "name": "search"}</tool_call>',
)

#: Small pieces the generator strings together.
FRAGMENTS: tuple[str, ...] = (
    *MARKERS,
    *(m[:k] for m in MARKERS for k in (1, 2, len(m) - 1)),  # partial markers
    f"{IM_START}{ASSISTANT}\n",
    f"{IM_START}{USER}\n",
    f"{IM_START}{TOOL}\n",
    f"{IM_START}{SYSTEM}\n",
    "\n",
    " ",
    "\t",
    "\r\n",
    "{",
    "}",
    "[",
    "]",
    '"',
    "'",
    "\\",
    '\\"',
    ":",
    ",",
    '"name"',
    '"arguments"',
    '{"name": "f", "arguments": {',
    '{"name": "f", "arguments": {}}',
    "True",
    "None",
    "{'a': 'b'}",
    "é",
    "北京",
    "😀",
    "\x00",
    "\u2028",
    "text",
    "Hello, ",
    "<",
    ">",
    "/",
    "|",
)


def _mutate(rng: random.Random, text: str) -> str:
    if not text:
        return text
    k = rng.randrange(len(text))
    op = rng.randrange(4)
    if op == 0:  # delete a character
        return text[:k] + text[k + 1 :]
    if op == 1:  # duplicate a character
        return text[: k + 1] + text[k:]
    if op == 2:  # insert a fragment
        return text[:k] + rng.choice(FRAGMENTS) + text[k:]
    return text[:k]  # truncate


def random_text(rng: random.Random, *, max_pieces: int = 12) -> str:
    """One adversarial input: fragments, valid calls, their truncations and mutations.

    Args:
        rng: the random source (seed it for reproducible runs).
        max_pieces: the largest number of pieces strung together.

    Returns:
        The text.

    >>> isinstance(random_text(random.Random(0)), str)
    True
    """
    pieces = []
    for _ in range(rng.randint(1, max_pieces)):
        roll = rng.random()
        if roll < 0.2:
            pieces.append(rng.choice(MARKERS))
        elif roll < 0.55:
            pieces.append(rng.choice(FRAGMENTS))
        elif roll < 0.75:
            pieces.append(rng.choice(VALID_CALLS))
        elif roll < 0.9:
            call = rng.choice(VALID_CALLS)
            pieces.append(call[: rng.randrange(len(call))])
        else:
            pieces.append(_mutate(rng, rng.choice(VALID_CALLS)))
    return "".join(pieces)


def random_chunking(rng: random.Random, text: str) -> tuple[str, ...]:
    """Cut ``text`` at random points (at least one chunk; empty chunks are allowed).

    >>> "".join(random_chunking(random.Random(1), "abcdef"))
    'abcdef'
    """
    if not text:
        return ("",)
    cuts = sorted(rng.randint(0, len(text)) for _ in range(rng.randint(0, min(len(text), 8))))
    bounds = [0, *cuts, len(text)]
    return tuple(text[a:b] for a, b in itertools.pairwise(bounds))
