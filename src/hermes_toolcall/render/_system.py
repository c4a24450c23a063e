"""The system/tools prompt of each dialect: the Hermes pseudo-JSON lines, the Qwen ``<tools>`` block,
and omp's catalogue + in-band prompt (``official-templates.md`` §4–§7, ``omp-dialect.md`` §2)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from importlib import resources
from typing import Any

from .._jsonio import dumps_compact, dumps_spaced
from .._profiles import DialectProfile, get_profile
from ..errors import RenderError
from ..tags import IM_END, IM_START, SYSTEM
from ._injection import check_control_tokens, check_text
from ._values import MISSING, crash, get, jinja_str, normalize_tools, require_str

__all__ = [
    "hermes_tool_line",
    "omp_guide",
    "python_type",
    "render_inband_tool_prompt",
    "render_system_prompt",
    "render_tool_catalog",
]

_HERMES_HEAD = (
    "You are a function calling AI model. You are provided with function signatures within <tools></tools> XML "
    "tags. You may call one or more functions to assist with the user query. Don't make assumptions about what "
    "values to plug into functions. Here are the available tools: <tools> "
)
_HERMES_TAIL = (
    ' </tools>Use the following pydantic model json schema for each tool call you will make: {"properties": '
    '{"name": {"title": "Name", "type": "string"}, "arguments": {"title": "Arguments", "type": "object"}}, '
    '"required": ["name", "arguments"], "title": "FunctionCall", "type": "object"}}\n'
    "For each function call return a json object with function name and arguments within <tool_call></tool_call> "
    'XML tags as follows:\n<tool_call>\n{"name": <function-name>, "arguments": <args-dict>}\n</tool_call><|im_end|>'
)
_QWEN_HEAD = (
    "# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
    "You are provided with function signatures within <tools></tools> XML tags:\n<tools>"
)
_QWEN_TAIL = (
    "\n</tools>\n\nFor each function call, return a json object with function name and arguments within "
    '<tool_call></tool_call> XML tags:\n<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n'
    "</tool_call><|im_end|>\n"
)
_BASIC_TYPES = {"string": "str", "number": "float", "integer": "int", "boolean": "bool"}
_TEMPLATE = "Hermes tool_use"


class _Recursion(Exception):
    """The template's json_to_python_type macro would recurse forever on this type."""


def python_type(spec: Any) -> str:
    """The Hermes template's ``json_to_python_type`` macro: a JSON Schema type as a Python type hint.

    Raises:
        RenderError: the schema has an unknown type string (``"null"`` …): the template recurses forever.

    >>> python_type({"type": "object", "additionalProperties": {"type": "integer"}})
    'dict[str, int]'
    >>> python_type({"type": ["string", "integer"]}), python_type({"type": "array"})
    ('Union[str,int]', 'list[Union[]]')
    """
    try:
        return _python_type(spec)
    except _Recursion:
        raise RenderError(
            f"JSON Schema type {get(spec, 'type')!r} has no Python mapping; the {_TEMPLATE} template "
            "raises RecursionError on it (an unknown type string such as \"null\", also inside a type list)"
        ) from None


def _python_type(spec: Any) -> str:
    kind = get(spec, "type")
    try:
        basic = _BASIC_TYPES.get(kind) if kind is not MISSING else None
    except TypeError:  # unhashable type value (a list or dict): not in the map
        basic = None
    if basic is not None:
        return basic
    if isinstance(kind, str) and kind == "array":
        return "list[Union[]]"  # the macro passes ``spec|items`` (a generator): its ``type`` is undefined
    if isinstance(kind, str) and kind == "object":
        extra = get(spec, "additionalProperties")
        return "dict" if extra is MISSING else f"dict[str, {_python_type(extra)}]"
    if kind is MISSING:
        return "Union[]"  # Undefined is iterable (and empty)
    if isinstance(kind, str):
        if kind:
            raise _Recursion  # iterating a non-empty unknown string recurses on its characters forever
        return "Union[]"
    if isinstance(kind, (list, tuple, dict, set, frozenset)):
        return "Union[" + ",".join(_python_type({"type": t}) for t in kind) + "]"
    return "Any"


def hermes_tool_line(tool: Mapping[str, Any], *, index: int | None = None, allow_injection: bool = False) -> str:
    """One tool of the Hermes ``tool_use`` catalogue: the template's hand-built pseudo-JSON (not valid JSON).

    Unless ``allow_injection``, a control token or ``</tools>`` inside the tool is refused.

    Raises:
        RenderError: the template cannot render this tool (no name, no description, no parameters,
            unknown parameter types), or it holds a control token or ``</tools>``.

    >>> hermes_tool_line({"name": "now", "description": "Time.", "parameters": {"type": "object", "properties": {}}})
    '{"type": "function", "function": {"name": "now", "description": "now() - Time.\\n\\n", "parameters": {}}'
    """
    where = f"tool {index}" if index is not None else "the tool"
    if not allow_injection:
        check_control_tokens((), [tool])
    fn = get(tool, "function")
    if fn is not MISSING:
        tool = fn
    name = require_str(get(tool, "name"), _TEMPLATE, f"{where}: name", None)
    params = get(tool, "parameters")
    if not isinstance(params, Mapping):
        raise crash(_TEMPLATE, f"{where}: parameters {'is missing' if params is MISSING else 'is not an object'}")
    props = get(params, "properties")
    if props is MISSING:
        items: list[tuple[Any, Any]] = []
    elif isinstance(props, Mapping):
        items = list(props.items())
    else:
        raise crash(_TEMPLATE, f"{where}: parameters.properties is not an object", error="TypeError")
    try:
        types = [_python_type(f) for _, f in items]
        ret = get(tool, "return")
        ret_type = f" -> {_python_type(ret)}" if ret is not MISSING else ""
    except _Recursion:
        raise RenderError(
            f"{where}: a parameter has an unknown JSON Schema type (such as \"null\", also inside a type list); "
            f"the {_TEMPLATE} template raises RecursionError on it"
        ) from None
    signature = ", ".join(f"{require_str(k, _TEMPLATE, f'{where}: parameter name', None)}: {t}"
                          for (k, _), t in zip(items, types, strict=True))
    description = require_str(get(tool, "description"), _TEMPLATE, f"{where}: description", None)
    parts = [f'{{"type": "function", "function": {{"name": "{name}", "description": "{name}({signature}){ret_type}'
             f' - {description}\n\n']
    if items:
        parts.append("    Args:\n")
        for (k, f), t in zip(items, types, strict=True):
            parts.append(f"        {k}({t}): {jinja_str(get(f, 'description')).strip()}")
    if ret is not MISSING:
        ret_desc = get(ret, "description")
        if ret_desc is not MISSING:
            ret_text = require_str(ret_desc, _TEMPLATE, f"{where}: return.description", None)
            parts.append("\n    Returns:\n        " + ret_text)
    parts.append('", "parameters": ')
    parts.append(dumps_spaced(params) if items else "{}")
    parts.append("}")
    return "".join(parts)


def render_system_prompt(
    tools: Sequence[Mapping[str, Any]] | None,
    *,
    dialect: str | DialectProfile = "hermes",
    system: str | None = None,
    allow_injection: bool = False,
) -> str:
    """The tools system turn exactly as the dialect's template writes it (``""`` when it writes none).

    For ``hermes``/``hermes-vllm`` this is the fixed system turn (``system`` is ignored: the
    templates render system messages as separate turns); for the Qwen dialects the system turn
    with ``system`` merged before ``# Tools`` (or the dialect's default system text); for ``omp``
    the in-band prompt as a system turn, appended to ``system`` after a blank line.

    Unless ``allow_injection``, the prompt must parse back to one system turn holding exactly these
    tools (``_roundtrip.verify_prompt``): control tokens and ``</tools>`` in the tools or ``system`` are refused.

    Raises:
        RenderError: the template cannot render these tools, or the prompt would not parse back to them.

    >>> prompt = render_system_prompt([{"type": "function", "function": {"name": "f"}}], dialect="qwen3")
    >>> print(prompt[:125])
    <|im_start|>system
    # Tools
    <BLANKLINE>
    You may call one or more functions to assist with the user query.
    <BLANKLINE>
    You are provided with function
    >>> prompt.splitlines()[7]
    '{"type": "function", "function": {"name": "f"}}'
    """
    profile = get_profile(dialect)
    listed = normalize_tools(tools)
    if not allow_injection:
        from ._roundtrip import verify_prompt  # local import: roundtrip imports the parser

        check_control_tokens((), listed)
        if system is not None:
            check_text(system, where="system", index=None)
        prompt = render_system_prompt(listed, dialect=profile, system=system, allow_injection=True)
        verify_prompt(prompt, listed if listed or profile.tools_block == "hermes" else None, profile)
        return prompt
    if profile.tools_block == "hermes":
        if listed is None and profile.tools_none == "error":
            raise RenderError(f"tools=None: the {profile.name} template raises TypeError; pass tools=[]")
        lines = "\n".join(hermes_tool_line(t, index=i, allow_injection=True) for i, t in enumerate(listed or ()))
        return f"{IM_START}{SYSTEM}\n" + _HERMES_HEAD + lines + _HERMES_TAIL + profile.tools_turn_suffix
    if profile.tools_block == "qwen":
        if not listed:
            return ""
        head = system + "\n\n" if system is not None else (
            profile.default_system_with_tools + "\n\n" if profile.default_system_with_tools is not None else "")
        body = "".join("\n" + dumps_spaced(t) for t in listed)
        return f"{IM_START}{SYSTEM}\n" + head + _QWEN_HEAD + body + _QWEN_TAIL
    if profile.tools_block in ("xml-list", "json-list"):
        from ._xml import xml_tools_section

        return xml_tools_section(listed, profile, system) if listed else ""
    if not listed:
        return ""
    prompt = render_inband_tool_prompt(listed, allow_injection=True)
    text = system + "\n\n" + prompt if system is not None else prompt
    return f"{IM_START}{SYSTEM}\n" + text + f"{IM_END}\n"


@lru_cache(maxsize=4)
def _prompt_file(name: str) -> str:
    return resources.files(__package__).joinpath("prompts").joinpath(name).read_text(encoding="utf-8")


def omp_guide(name: str = "hermes.md") -> str:
    """An omp prompt text, byte-exact: ``prompt-template.md``, ``hermes.md`` or ``qwen3.md``.

    >>> omp_guide().startswith("## Format guide")
    True
    """
    if name not in ("prompt-template.md", "hermes.md", "qwen3.md"):
        raise RenderError(f"unknown omp prompt text {name!r}")
    return _prompt_file(name)


def render_tool_catalog(tools: Iterable[Mapping[str, Any]], *, allow_injection: bool = False) -> str:
    """omp's ``renderToolCatalog``: one compact JSON line per tool (a control token or ``</tools>`` inside a
    tool is refused unless ``allow_injection``).

    Raises:
        RenderError: a tool has no string name, or holds a control token or ``</tools>``.

    >>> render_tool_catalog([{"type": "function", "function": {"name": "ls"}}])
    '{"type":"function","function":{"name":"ls","description":"","parameters":{}}}'
    """
    tools = list(tools)
    if not allow_injection:
        check_control_tokens((), tools)
    lines = []
    for i, tool in enumerate(tools):
        fn = get(tool, "function")
        fn = fn if isinstance(fn, Mapping) else tool
        name = get(fn, "name")
        if not isinstance(name, str):
            raise RenderError(f"tool {i}: name is missing or not a string")
        description = get(fn, "description")
        params = get(fn, "parameters")
        entry = {
            "name": name,
            "description": "" if description is MISSING or description is None else description,
            "parameters": {} if params is MISSING or params is None else params,
        }
        lines.append(dumps_compact({"type": "function", "function": entry}))
    return "\n".join(lines)


def render_inband_tool_prompt(tools: Iterable[Mapping[str, Any]], *, guide: str = "hermes.md",
                              allow_injection: bool = False) -> str:
    """omp's ``renderInbandToolPrompt``: ``prompt-template.md`` with the first ``{{TOOLS}}`` replaced by the
    catalogue, then the first ``{{DIALECT}}`` by the trimmed guide; ends with exactly one newline.

    Raises:
        RenderError: as ``render_tool_catalog``.

    >>> render_inband_tool_prompt([{"name": "ls"}]).splitlines()[8]
    '{"type":"function","function":{"name":"ls","description":"","parameters":{}}}'
    """
    text = omp_guide("prompt-template.md").replace(
        "{{TOOLS}}", render_tool_catalog(tools, allow_injection=allow_injection), 1)
    text = text.replace("{{DIALECT}}", omp_guide(guide).strip(" \t\n\r\f\v"), 1)
    return text.rstrip("\n") + "\n"
