"""Tool calls as each dialect writes them: ``<tool_call>\\n{"name": …, "arguments": …}\\n</tool_call>``."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .._fastjson import spaced
from .._jsonio import dumps_compact, loads
from .._model import FunctionCall
from .._profiles import DialectProfile, get_profile
from .._template_values import MISSING, call_function, crash, get, jinja_str
from ..errors import DecodeError, RenderError
from ..tags import CALL_CLOSE, CALL_OPEN

__all__ = ["call_json", "render_tool_call", "render_tool_calls"]


def _json(value: Any, profile: DialectProfile, index: int | None) -> str:
    try:
        return dumps_compact(value) if profile.json_style == "compact" else spaced(value)
    except (TypeError, ValueError) as exc:
        raise crash(profile.name, f"tool call arguments are not JSON-serialisable ({exc})", index=index,
                    error="TypeError") from exc


def call_json(call: Mapping[str, Any] | FunctionCall, *, dialect: str | DialectProfile = "hermes",
              index: int | None = None) -> str:
    """The JSON line inside a ``<tool_call>`` block, exactly as the dialect writes it.

    ``call`` is an OpenAI tool call (``{"function": {"name", "arguments"}}``), a flat
    ``{"name", "arguments"}`` dict or a ``FunctionCall``. ``index`` names the message in errors.

    Raises:
        RenderError: the template cannot render this call (no ``arguments`` in the Qwen dialects,
            arguments omp cannot decode).

    >>> call_json({"name": "f", "arguments": '{"a":1}'}, dialect="hermes")
    '{"name": "f", "arguments": {"a":1}}'
    >>> call_json({"name": "f", "arguments": '{"a":1}'}, dialect="qwen2.5")
    '{"name": "f", "arguments": "{\\\\"a\\\\":1}"}'
    """
    profile = get_profile(dialect)
    if isinstance(call, FunctionCall):
        fn: Any = {"name": call.name, "arguments": call.arguments}
    else:
        fn = call_function(call)
    name = jinja_str(get(fn, "name"))
    args = get(fn, "arguments")
    if profile.string_arguments == "decode":  # omp: a nested object, always
        if isinstance(args, str):
            try:
                args = loads(args)
            except DecodeError as exc:
                raise RenderError(f"tool call arguments are not JSON: {exc}", message_index=index) from exc
        if args is MISSING:
            args = {}
        return dumps_compact({"name": name, "arguments": args}) if isinstance(name, str) else ""
    if args is MISSING:
        if profile.missing_arguments == "stray-comma":
            return f'{{"name": "{name}", }}'
        if profile.missing_arguments == "omit":
            return f'{{"name": "{name}"}}'
        if profile.missing_arguments == "empty-object":
            args = {}
        else:
            raise crash(profile.name, "a tool call has no arguments", index=index, error="TypeError")
    text = args if isinstance(args, str) and profile.string_arguments == "verbatim" else _json(args, profile, index)
    return f'{{"name": "{name}", "arguments": {text}}}'


def render_tool_call(call: Mapping[str, Any] | FunctionCall, *, dialect: str | DialectProfile = "hermes",
                     allow_injection: bool = False, tools: Sequence[Mapping[str, Any]] | None = None) -> str:
    """One ``<tool_call>`` block; it parses back to exactly this call, or ``RenderError`` (``field`` ``name`` or
    ``arguments``, ``arguments.KEY`` in an XML body) unless ``allow_injection``.

    ``tools`` types an XML body's values for the guard (docs/dialects.md, "The guard on XML bodies"): without
    them, only string values that read as nothing else render.

    Raises:
        RenderError: the call cannot be rendered, or would not parse back to itself.

    >>> render_tool_call({"name": "get_time", "arguments": {"timezone": "Asia/Tokyo"}})
    '<tool_call>\\n{"name": "get_time", "arguments": {"timezone": "Asia/Tokyo"}}\\n</tool_call>'
    >>> render_tool_call({"name": "read", "arguments": {"path": "a.ts"}}, dialect="omp")
    '<tool_call>\\n{"name":"read","arguments":{"path":"a.ts"}}\\n</tool_call>'
    >>> print(render_tool_call({"name": "read", "arguments": '{"path": "a.ts"}'}, dialect="qwen3.5"))
    <tool_call>
    <function=read>
    <parameter=path>
    a.ts
    </parameter>
    </function>
    </tool_call>
    """
    profile = get_profile(dialect)
    fn = {"name": call.name, "arguments": call.arguments} if isinstance(call, FunctionCall) else call_function(call)
    if profile.body_kind == "xml":
        from ._xml import xml_call

        block = xml_call(get(fn, "name"), get(fn, "arguments"), profile)[0]
        if not allow_injection:
            from ._roundtrip import verify_xml_call_block  # local import: roundtrip imports the parser

            verify_xml_call_block(block, get(fn, "name"), get(fn, "arguments"), profile, tools)
        return block
    block = f"{CALL_OPEN}\n" + call_json(call, dialect=profile) + f"\n{CALL_CLOSE}"
    if not allow_injection:
        from ._roundtrip import verify_call_block  # local import: roundtrip imports the parser

        verify_call_block(block, get(fn, "name"), get(fn, "arguments"), profile)
    return block


def render_tool_calls(calls: Iterable[Mapping[str, Any] | FunctionCall], *,
                      dialect: str | DialectProfile = "hermes", allow_injection: bool = False,
                      tools: Sequence[Mapping[str, Any]] | None = None) -> str:
    """Parallel calls: consecutive ``<tool_call>`` blocks joined by the dialect's ``call_separator`` (``""`` for no
    calls), each guarded as ``render_tool_call``.

    >>> render_tool_calls([{"name": "a", "arguments": {}}, {"name": "b", "arguments": {}}], dialect="omp")
    '<tool_call>\\n{"name":"a","arguments":{}}\\n</tool_call>\\n<tool_call>\\n{"name":"b","arguments":{}}\\n</tool_call>'
    """
    profile = get_profile(dialect)
    return profile.call_separator.join(render_tool_call(c, dialect=profile, allow_injection=allow_injection,
                                                        tools=tools) for c in calls)

