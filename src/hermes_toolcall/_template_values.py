"""Input normalisation for rendering, and the Jinja value semantics the templates rely on (below ``render``:
the system-prompt writer of ``_system_prompt`` and the request view of ``_request`` use them too).

Messages and tools arrive as OpenAI-shaped dicts or as ``Message`` values. They are brought to
the shape transformers hands to a template (``official-templates.md`` §2): plain dicts, keys whose
value is None dropped. transformers also aliases reasoning (the first of ``reasoning_content``,
``thinking``, ``reasoning`` becomes ``reasoning_content``); the renderer reads it through ``reasoning_of``,
which gives the same value without copying the message.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ._fastjson import spaced
from ._parts import FunctionCall, Message
from .errors import RenderError

__all__ = [
    "MISSING",
    "call_function",
    "crash",
    "get",
    "jinja_str",
    "normalize_messages",
    "normalize_tools",
    "reasoning_of",
    "require_str",
    "tool_name",
    "xml_value",
]


class _Missing:
    """The value of a key a message does not have (Jinja's ``Undefined``): prints as ``""``."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()



def crash(template: str, what: str, *, index: int | None = None, error: str = "UndefinedError") -> RenderError:
    """A RenderError for an input the official template cannot render (the template would raise)."""
    where = f"message {index}: " if index is not None else ""
    return RenderError(
        f"{where}{what}; the {template} template raises {error} on this input", message_index=index
    )


def jinja_str(value: Any) -> str:
    """What ``{{ value }}`` prints: ``""`` for a missing value, else Python ``str()``.

    >>> jinja_str({"a": 1}), jinja_str(MISSING), jinja_str("x")
    ("{'a': 1}", '', 'x')
    """
    if value is MISSING:
        return ""
    return value if isinstance(value, str) else str(value)


def require_str(value: Any, template: str, what: str, index: int | None) -> str:
    """``value`` when it is a string; else the RenderError for the template's ``+`` on it."""
    if isinstance(value, str):
        return value
    if value is MISSING:
        raise crash(template, f"{what} is missing", index=index)
    raise crash(template, f"{what} is a {type(value).__name__}, not a string", index=index, error="TypeError")


def _call_dict(call: Any) -> Any:
    if isinstance(call, FunctionCall):
        out: dict[str, Any] = {"type": "function", "function": {"name": call.name, "arguments": call.arguments}}
        if call.id is not None:
            out = {"id": call.id, **out}
        return out
    return call


def _message_dict(message: Message) -> dict[str, Any]:
    out: dict[str, Any] = {"role": message.role}
    if message.content is not None:
        out["content"] = message.content
    if message.reasoning is not None:
        out["reasoning_content"] = message.reasoning
    if message.tool_calls:
        out["tool_calls"] = [_call_dict(c) for c in message.tool_calls]
    if message.tool_call_id is not None:
        out["tool_call_id"] = message.tool_call_id
    if message.name is not None:
        out["name"] = message.name
    return out


def normalize_messages(messages: Iterable[Mapping[str, Any] | Message]) -> list[dict[str, Any]]:
    """Messages as transformers passes them to a template: dicts with None-valued keys dropped.

    Plain dicts that need no change pass through as they are (never mutated); ``FunctionCall``
    values inside ``tool_calls`` are rendered as they are (see ``_calls.call_json``).

    Raises:
        RenderError: a message is neither a mapping nor a ``Message``.

    >>> normalize_messages([{"role": "assistant", "content": None, "thinking": "t"}])
    [{'role': 'assistant', 'thinking': 't'}]
    """
    return [m if type(m) is dict and None not in m.values() else _normalize_one(m, i) for i, m in enumerate(messages)]


def _normalize_one(message: Mapping[str, Any] | Message, index: int) -> dict[str, Any]:
    if isinstance(message, Message):
        return _message_dict(message)
    if isinstance(message, Mapping):
        m = {k: v for k, v in message.items() if v is not None}
        if type(message) is not dict and "tool_calls" in m and isinstance(m["tool_calls"], (list, tuple)):
            m["tool_calls"] = [_call_dict(c) for c in m["tool_calls"]]
        return m
    raise RenderError(f"message {index}: expected a dict or a Message, got {type(message).__name__}",
                      message_index=index)


def reasoning_of(message: Mapping[str, Any]) -> Any:
    """The reasoning transformers passes as ``reasoning_content``: the first of ``reasoning_content``,
    ``thinking``, ``reasoning`` that is set (MISSING when none is).

    >>> reasoning_of({"role": "assistant", "reasoning": "r"})
    'r'
    """
    r = message.get("reasoning_content")
    if r is None:
        r = message.get("thinking")
        if r is None:
            r = message.get("reasoning")
            if r is None:
                return MISSING
    return r


def normalize_tools(tools: Iterable[Mapping[str, Any]] | None) -> list[Mapping[str, Any]] | None:
    """The tools as a list (None stays None).

    Raises:
        RenderError: a tool is not a mapping.
    """
    if tools is None:
        return None
    out = list(tools)
    for i, tool in enumerate(out):
        if type(tool) is not dict and not isinstance(tool, Mapping):
            raise RenderError(f"tool {i}: expected a dict, got {type(tool).__name__}")
    return out


def get(mapping: Any, key: str) -> Any:
    """``mapping.key`` with Jinja's lookup: the value, or MISSING."""
    if type(mapping) is dict or isinstance(mapping, Mapping):
        return mapping.get(key, MISSING)
    return MISSING


def tool_name(tool: Any) -> Any:
    """The name of an OpenAI tool object (``function.name``, or ``name`` of a flat one).

    >>> tool_name({"type": "function", "function": {"name": "ls"}}), tool_name({"name": "ls"}), tool_name(1)
    ('ls', 'ls', MISSING)
    """
    fn = get(tool, "function")
    return get(fn if isinstance(fn, Mapping) else tool, "name")


def call_function(call: Any) -> Any:
    """The ``function`` object of an OpenAI tool call, or the call itself when it is flat."""
    if isinstance(call, FunctionCall):
        return {"name": call.name, "arguments": call.arguments}
    fn = get(call, "function")
    return fn if isinstance(fn, Mapping) and fn else call


def _is_sequence(value: Any) -> bool:
    """Jinja's ``is sequence``: has a length and item access."""
    try:
        len(value)
        value.__getitem__  # noqa: B018 - the test is whether the attribute exists
    except Exception:  # any failure means "not a sequence", as in Jinja
        return False
    return True


def xml_value(value: Any) -> str:
    """A parameter's VALUE text in the XML-body templates: ``tojson`` for a mapping or a non-string sequence,
    else ``| string``.

    Raises:
        TypeError, ValueError: the value has no JSON text (the template's ``tojson`` raises too).

    >>> xml_value(True), xml_value(None), xml_value(1e-07), xml_value([1, None]), xml_value("a <b>")
    ('True', 'None', '1e-07', '[1, null]', 'a <b>')
    """
    if type(value) is str:
        return value
    if type(value) is dict or type(value) is list:
        return spaced(value)
    if type(value) is int or type(value) is bool or value is None:
        return str(value)
    if isinstance(value, Mapping) or (not isinstance(value, str) and _is_sequence(value)):
        return spaced(value)
    return jinja_str(value)
