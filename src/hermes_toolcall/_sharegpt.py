"""ShareGPT senders: who a turn's ``from`` names, and the calls a ``function_call`` turn writes as JSON.

The senders of the public datasets are built in: the Hermes function-calling sets (``system``, ``human``,
``gpt``, ``tool``), the OpenAI-style names (``user``, ``assistant``), and LLaMA-Factory / glaive exports,
whose assistant calls are a turn of their own (``function_call``: the call as JSON, ``{"name",
"arguments"}`` or a list of them for parallel calls) answered by ``observation`` turns. Any other sender
set is mapped with ``parse_roles("from=role,…")`` (CLI ``--sharegpt-roles``). ``validate`` and
``convert-dataset`` read ShareGPT records through this one table.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from . import _jsonio as jsonio
from .errors import UsageError
from .tags import ASSISTANT, SYSTEM, TOOL, USER

__all__ = ["CALL", "ROLES", "SENDERS", "SentCall", "parse_roles", "senders", "sent_calls"]

CALL = "function_call"
"""The role of a turn whose value is the assistant's call(s) written as JSON (LLaMA-Factory, glaive)."""

ROLES = (SYSTEM, USER, ASSISTANT, TOOL, CALL)
"""What a sender can stand for."""

SENDERS: Mapping[str, str] = {
    SYSTEM: SYSTEM,
    "human": USER,
    USER: USER,
    "gpt": ASSISTANT,
    ASSISTANT: ASSISTANT,
    TOOL: TOOL,
    "function_response": TOOL,
    "observation": TOOL,  # LLaMA-Factory, glaive
    "function_call": CALL,  # LLaMA-Factory, glaive
}
"""The built-in senders."""


def parse_roles(spec: str | None) -> tuple[tuple[str, str], ...]:
    """``from=role,…`` as (sender, role) pairs; a role is one of ``ROLES``.

    Raises:
        UsageError: an item is not ``from=role`` or names an unknown role.

    >>> parse_roles("ipython=tool, bot=assistant")
    (('ipython', 'tool'), ('bot', 'assistant'))
    """
    if not spec:
        return ()
    out = []
    for item in spec.split(","):
        sender, eq, role = item.strip().partition("=")
        sender, role = sender.strip(), role.strip()
        if not eq or not sender:
            raise UsageError(f"--sharegpt-roles: {item.strip()!r} is not FROM=ROLE (e.g. ipython=tool)")
        if role not in ROLES:
            raise UsageError(f"--sharegpt-roles: {sender}={role}: the role is one of {', '.join(ROLES)}")
        out.append((sender, role))
    return tuple(out)


def senders(extra: tuple[tuple[str, str], ...] = ()) -> dict[str, str]:
    """The sender table: the built-in senders, then ``extra`` (which wins)."""
    return {**SENDERS, **dict(extra)}


@dataclass(frozen=True, slots=True, kw_only=True)
class SentCall:
    """One call of a ``function_call`` turn: its name, its arguments as written (an object or a JSON string),
    and where they are in the turn's JSON (``path``, for positions)."""

    name: str
    arguments: Any
    path: tuple[str | int, ...]


def sent_calls(value: str) -> tuple[SentCall, ...] | str:
    """The calls of a ``function_call`` turn's value, or why it holds none (a message).

    >>> sent_calls('{"name": "f", "arguments": {"a": 1}}')
    (SentCall(name='f', arguments={'a': 1}, path=('arguments',)),)
    >>> sent_calls('[{"name": "f"}]')
    'call 0 has no `arguments` (an object or its JSON text)'
    """
    data = jsonio.loads_or_none(value)
    if data is None:
        return "a function_call turn holds the call as JSON: {name, arguments} or a list of them"
    items = data if isinstance(data, list) else [data]
    prefix: tuple[int, ...] | tuple[()] = ()
    out = []
    for k, item in enumerate(items):
        where = f"call {k}" if isinstance(data, list) else "the call"
        prefix = (k,) if isinstance(data, list) else ()
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            return f"{where} is not an object with a string `name`"
        args = item.get("arguments", item.get("parameters"))
        if not isinstance(args, dict | str):
            return f"{where} has no `arguments` (an object or its JSON text)"
        key = "arguments" if "arguments" in item else "parameters"
        out.append(SentCall(name=item["name"], arguments=args, path=(*prefix, key)))
    if not out:
        return "a function_call turn with an empty list of calls"
    return tuple(out)
