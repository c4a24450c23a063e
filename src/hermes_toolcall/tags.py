"""The format's vocabulary: every tag literal, its length, the roles, and which tags end a text run in which context.

One module holds the literals (docs/parsing.md §1, §3.6) and the role names (§3.2), so that no engine
counts characters by hand (``len(CALL_OPEN)``, not ``11``) or spells a role twice. The per-context
sets say which markers end a text run in each body context; ``hermes.lark``'s text terminals stop at
exactly these (checked by ``tests/test_tags.py``).

>>> len(IM_START), len(CALL_OPEN), CLOSE["think"]
(12, 11, '</think>')
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final, Literal

__all__ = [
    "ASSISTANT",
    "CALL_CLOSE",
    "CALL_OPEN",
    "CATALOGUE_ROLES",
    "CLOSE",
    "CONTROL",
    "DEVELOPER",
    "FUNCTION_CLOSE",
    "FUNCTION_OPEN",
    "IM_END",
    "IM_START",
    "OPEN",
    "PARAMETER_CLOSE",
    "PARAMETER_OPEN",
    "REASONING_KINDS",
    "RESP_CLOSE",
    "RESP_OPEN",
    "RESULT_ROLES",
    "ROLES",
    "SCRATCH_CLOSE",
    "SCRATCH_OPEN",
    "SYSTEM",
    "THINK_CLOSE",
    "THINK_OPEN",
    "TOOL",
    "TOOLS_CLOSE",
    "TOOLS_OPEN",
    "TOOL_RESPONSE",
    "USER",
    "ReasoningKind",
    "assistant_markers",
    "canonical_kinds",
    "catalogue_markers",
    "gap_markers",
    "other_markers",
    "reasoning_markers",
    "result_markers",
]

# control tokens (the ChatML envelope)
IM_START = "<|im_start|>"
IM_END = "<|im_end|>"
CONTROL: tuple[str, ...] = (IM_START, IM_END)

# roles (the header of a turn, §3.2): the known ones; any other role is HT004's
# (Final: each name has its literal type, so a ``Literal["tool", "user"]`` field takes it)
SYSTEM: Final = "system"
USER: Final = "user"
ASSISTANT: Final = "assistant"
TOOL: Final = "tool"
DEVELOPER: Final = "developer"
TOOL_RESPONSE: Final = "tool_response"  # Step 3.5's result turns
ROLES: tuple[str, ...] = (SYSTEM, USER, ASSISTANT, TOOL, TOOL_RESPONSE, DEVELOPER)
#: roles whose body may hold a ``<tools>`` catalogue
CATALOGUE_ROLES: tuple[str, ...] = (SYSTEM, DEVELOPER)
#: roles whose body may hold ``<tool_response>`` results
RESULT_ROLES: tuple[str, ...] = (USER, TOOL, TOOL_RESPONSE)

# blocks
CALL_OPEN, CALL_CLOSE = "<tool_call>", "</tool_call>"
RESP_OPEN, RESP_CLOSE = "<tool_response>", "</tool_response>"
TOOLS_OPEN, TOOLS_CLOSE = "<tools>", "</tools>"

# the XML call body (Qwen3-Coder, Qwen3.5+, Nemotron 3, Step 3.5): `<function=NAME>`, `<parameter=KEY>`
FUNCTION_OPEN, FUNCTION_CLOSE = "<function=", "</function>"
PARAMETER_OPEN, PARAMETER_CLOSE = "<parameter=", "</parameter>"

# reasoning, per kind, in the canonical order of the kinds
ReasoningKind = Literal["think", "scratch_pad"]
REASONING_KINDS: tuple[ReasoningKind, ...] = ("think", "scratch_pad")
THINK_OPEN, THINK_CLOSE = "<think>", "</think>"
SCRATCH_OPEN, SCRATCH_CLOSE = "<scratch_pad>", "</scratch_pad>"
OPEN: dict[ReasoningKind, str] = {"think": THINK_OPEN, "scratch_pad": SCRATCH_OPEN}
CLOSE: dict[ReasoningKind, str] = {"think": THINK_CLOSE, "scratch_pad": SCRATCH_CLOSE}


def canonical_kinds(kinds: Iterable[ReasoningKind]) -> tuple[ReasoningKind, ...]:
    """The reasoning kinds among ``kinds``, once each, in the canonical order.

    >>> canonical_kinds(["scratch_pad", "think", "think"])
    ('think', 'scratch_pad')
    """
    wanted = set(kinds)
    return tuple(k for k in REASONING_KINDS if k in wanted)


def gap_markers() -> tuple[str, ...]:
    """Markers that end text outside any turn: only a header opens a turn (§3.1)."""
    return (IM_START,)


def assistant_markers(kinds: Iterable[ReasoningKind]) -> tuple[str, ...]:
    """Markers that end a text run of an assistant body, with these reasoning kinds enabled.

    >>> assistant_markers(["think"])[2:]
    ('<tool_call>', '</tool_call>', '<tool_response>', '</tool_response>', '<think>', '</think>')
    """
    ks = canonical_kinds(kinds)
    reasoning = tuple(t for k in ks for t in (OPEN[k], CLOSE[k]))
    return (*CONTROL, CALL_OPEN, CALL_CLOSE, RESP_OPEN, RESP_CLOSE, *reasoning)


def reasoning_markers(kind: ReasoningKind) -> tuple[str, ...]:
    """Markers that end a text run inside reasoning of ``kind`` split by calls (calls_in_reasoning)."""
    return (*CONTROL, CLOSE[kind], CALL_OPEN)


def result_markers() -> tuple[str, ...]:
    """Markers that end a text run of a user or tool body."""
    return (*CONTROL, RESP_OPEN, RESP_CLOSE)


def catalogue_markers() -> tuple[str, ...]:
    """Markers that end a text run of a system or developer body."""
    return (*CONTROL, TOOLS_OPEN, TOOLS_CLOSE)


def other_markers() -> tuple[str, ...]:
    """Markers that end the body of a turn of an unknown role: control tokens only."""
    return CONTROL
