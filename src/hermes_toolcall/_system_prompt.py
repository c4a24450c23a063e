"""The system/tools prompt of each dialect: the Hermes pseudo-JSON lines, the Qwen ``<tools>`` block, the
XML family's two catalogues (chatml-family.md §2), and omp's catalogue + in-band prompt
(``official-templates.md`` §4–§7, ``omp-dialect.md`` §2).

The writer alone, below ``render``: ``render.render_system_prompt`` adds the injection guard (which parses),
and the request view (``_request``) reads catalogues back with it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from importlib import resources
from typing import Any

from ._fastjson import spaced
from ._injection import check_control_tokens
from ._jsonio import dumps_compact
from ._profiles import DialectProfile
from ._template_values import MISSING, crash, get, jinja_str, normalize_tools, require_str, xml_value
from .errors import RenderError
from .tags import FUNCTION_CLOSE, IM_END, IM_START, PARAMETER_CLOSE, SYSTEM, TOOLS_CLOSE, TOOLS_OPEN

__all__ = [
    "hermes_tool_line",
    "omp_guide",
    "python_type",
    "render_inband_tool_prompt",
    "render_tool_catalog",
    "system_prompt",
    "xml_catalogue",
    "xml_tools_section",
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
    parts.append(spaced(params) if items else "{}")
    parts.append("}")
    return "".join(parts)


def system_prompt(tools: Sequence[Mapping[str, Any]] | None, profile: DialectProfile, system: str | None) -> str:
    """The tools system turn exactly as the dialect's template writes it (``""`` when it writes none), unchecked:
    ``render.render_system_prompt`` is this text with the injection guard.

    Raises:
        RenderError: the template cannot render these tools.

    >>> from hermes_toolcall import get_profile
    >>> system_prompt([{"type": "function", "function": {"name": "f"}}], get_profile("qwen3"), None).splitlines()[7]
    '{"type": "function", "function": {"name": "f"}}'
    """
    listed = normalize_tools(tools)
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
        body = "".join("\n" + spaced(t) for t in listed)
        return f"{IM_START}{SYSTEM}\n" + head + _QWEN_HEAD + body + _QWEN_TAIL
    if profile.tools_block in ("xml-list", "json-list"):
        return xml_tools_section(listed, profile, system) if listed else ""
    if not listed:
        return ""
    prompt = render_inband_tool_prompt(listed, allow_injection=True)
    text = system + "\n\n" + prompt if system is not None else prompt
    return f"{IM_START}{SYSTEM}\n" + text + f"{IM_END}\n"


@lru_cache(maxsize=4)
def _prompt_file(name: str) -> str:
    return resources.files(__package__).joinpath("render", "prompts", name).read_text(encoding="utf-8")


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


# --- the XML family's catalogues -----------------------------------------------------------------


def _trim(value: Any) -> str:
    return jinja_str(value).strip()


def _extra_keys(spec: Any, handled: Sequence[str]) -> str:
    """The templates' ``render_extra_keys``: every other key as ``\\n<KEY>VALUE</KEY>``."""
    if type(spec) is not dict and not isinstance(spec, Mapping):
        return ""
    out = []
    for key, value in spec.items():
        if key in handled:
            continue
        name = jinja_str(key)
        out.append(f"\n<{name}>" + xml_value(value) + f"</{name}>")
    return "".join(out)


def _xml_tool(tool: Any, profile: DialectProfile) -> str:
    fn = get(tool, "function")
    if fn is not MISSING:
        tool = fn
    hoist = profile.catalogue_keys == "enum-first-required-last"
    out = ["\n<function>\n<name>" + jinja_str(get(tool, "name")) + "</name>"]
    description = get(tool, "description")
    if description is not MISSING:
        out.append("\n<description>" + _trim(description) + "</description>")
    out.append("\n<parameters>")
    params = get(tool, "parameters")
    props = get(params, "properties")
    if (type(params) is dict or isinstance(params, Mapping)) and (type(props) is dict or isinstance(props, Mapping)):
        for key, spec in props.items():
            out.append("\n<parameter>\n<name>" + jinja_str(key) + "</name>")
            kind = get(spec, "type")
            if kind is not MISSING:
                out.append("\n<type>" + jinja_str(kind) + "</type>")
            desc = get(spec, "description")
            if desc is not MISSING:
                out.append("\n<description>" + _trim(desc) + "</description>")
            handled: tuple[str, ...] = ("name", "type", "description")
            if hoist:
                enum = get(spec, "enum")
                if enum is not MISSING:
                    out.append("\n<enum>" + spaced(enum) + "</enum>")
                handled += ("enum",)
            out.append(_extra_keys(spec, handled))
            out.append("\n" + PARAMETER_CLOSE)
    out.append(_extra_keys(params, ("type", "properties", "required") if hoist else ("type", "properties")))
    if hoist:
        required = get(params, "required")
        if required is not MISSING:
            out.append("\n<required>" + spaced(required) + "</required>")
    out.append("\n</parameters>")
    out.append(_extra_keys(tool, ("type", "name", "description", "parameters")))
    out.append("\n" + FUNCTION_CLOSE)
    return "".join(out)


def xml_catalogue(tools: Sequence[Any], profile: DialectProfile) -> str:
    """The ``<tools>…</tools>`` block of an XML-family template (``tools_block`` ``xml-list`` or ``json-list``).

    Raises:
        RenderError: a tool holds a value without JSON text.

    >>> from hermes_toolcall import get_profile
    >>> print(xml_catalogue([{"name": "ls", "parameters": {"properties": {"p": {"type": "string"}}}}],
    ...                     get_profile("qwen3-coder")))
    <tools>
    <function>
    <name>ls</name>
    <parameters>
    <parameter>
    <name>p</name>
    <type>string</type>
    </parameter>
    </parameters>
    </function>
    </tools>
    """
    try:
        if profile.tools_block == "xml-list":
            body = "".join(_xml_tool(t, profile) for t in tools)
        else:
            body = "".join("\n" + spaced(t) for t in tools)
    except (TypeError, ValueError) as exc:
        raise RenderError(f"a tool holds a value the {profile.name} template cannot print: {exc}") from exc
    return TOOLS_OPEN + body + f"\n{TOOLS_CLOSE}"


def xml_tools_section(tools: Sequence[Any], profile: DialectProfile, system: str | None) -> str:
    """The tools system turn of an XML-family template, ``system`` being the system text the template merges
    into it (None: no system message; the profile's default text, if any, is used).

    >>> from hermes_toolcall import get_profile
    >>> xml_tools_section([{"name": "ls"}], get_profile("qwen3.5"), "Be brief.")[-34:]
    '</IMPORTANT>\\n\\nBe brief.<|im_end|>\\n'
    """
    section = profile.tools_intro + xml_catalogue(tools, profile) + profile.tools_instructions
    if profile.system_with_tools == "after":
        tail = system.strip() if system is not None else ""
        return f"{IM_START}{SYSTEM}\n" + section + ("\n\n" + tail if tail else "") + f"{IM_END}\n"
    lead = system if system is not None else profile.default_system_with_tools
    if lead is None:
        head = ""
    elif profile.system_separator == "always" or lead:
        head = lead + "\n\n"
    else:
        head = lead
    return f"{IM_START}{SYSTEM}\n" + head + section + f"{IM_END}\n"
