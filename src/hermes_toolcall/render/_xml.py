"""The XML-body pieces: a call as ``<function=NAME>`` with one ``<parameter=KEY>`` per argument, and the two
tools advertisements of the XML family (chatml-family.md §2): the XML-like ``<function><name>…`` list
(Qwen3-Coder, Nemotron) and ``tojson`` lines (Qwen3.5, Step), each followed by the call-format instructions.

Values print as the templates print them: mappings and non-string sequences with ``tojson``, everything else
with Jinja's ``| string`` (Python ``str``: ``True``, ``None``, ``1e-07``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from .._jsonio import loads
from .._profiles import DialectProfile
from .._schema import load_tools
from .._xmltypes import parameter_schema, type_value
from ..errors import DecodeError, RenderError
from ..tags import (
    CALL_CLOSE,
    CALL_OPEN,
    FUNCTION_CLOSE,
    FUNCTION_OPEN,
    IM_END,
    IM_START,
    PARAMETER_CLOSE,
    PARAMETER_OPEN,
    SYSTEM,
    TOOLS_CLOSE,
    TOOLS_OPEN,
)
from ._fastjson import spaced
from ._values import MISSING, crash, jinja_str

__all__ = [
    "argument_schemas",
    "attr",
    "plain_name",
    "value_reads_back",
    "xml_arguments",
    "xml_call",
    "xml_catalogue",
    "xml_tools_section",
    "xml_value",
]

def attr(value: Any, key: str) -> Any:
    """``value.key`` as Jinja reads it from the JSON-like values a template sees: the item of a mapping, else
    MISSING (Undefined)."""
    if isinstance(value, Mapping):
        return value.get(key, MISSING)
    return MISSING


_PLAIN_NAME = re.compile(r"[^\s<>\x00-\x1f\x7f](?:[^<>\x00-\x1f\x7f]{0,254}[^\s<>\x00-\x1f\x7f])?").fullmatch


def plain_name(value: Any) -> bool:
    """Whether a call name or argument key is written where no reading of the body can take it differently.

    >>> plain_name("get weather"), plain_name(" x"), plain_name("a>b"), plain_name("")
    (True, False, False, False)
    """
    return isinstance(value, str) and _PLAIN_NAME(value) is not None


def _is_sequence(value: Any) -> bool:
    """Jinja's ``is sequence``: has a length and item access."""
    try:
        len(value)
        value.__getitem__  # noqa: B018 - the test is whether the attribute exists
    except Exception:  # any failure means "not a sequence", as in Jinja
        return False
    return True


def _tojson(value: Any) -> str:
    return spaced(value)


def xml_value(value: Any) -> str:
    """A parameter's VALUE text: ``tojson`` for a mapping or a non-string sequence, else ``| string``.

    Raises:
        TypeError, ValueError: the value has no JSON text (the template's ``tojson`` raises too).

    >>> xml_value(True), xml_value(None), xml_value(1e-07), xml_value([1, None]), xml_value("a <b>")
    ('True', 'None', '1e-07', '[1, null]', 'a <b>')
    """
    if type(value) is str:
        return value
    if isinstance(value, Mapping) or (not isinstance(value, str) and _is_sequence(value)):
        return _tojson(value)
    return jinja_str(value)


def _text(value: Any, profile: DialectProfile, what: str, index: int | None) -> str:
    """A name or key as the template writes it: ``+`` needs a string (else the template raises), ``~``
    (``coerce_text``) prints anything."""
    if type(value) is str:
        return value
    if profile.coerce_text:
        return jinja_str(value)
    if value is MISSING:
        raise crash(profile.name, f"{what} is missing", index=index)
    raise crash(profile.name, f"{what} is a {type(value).__name__}, not a string", index=index, error="TypeError")


def xml_arguments(args: Any, profile: DialectProfile, index: int | None) -> Mapping[str, Any] | None:
    """The arguments mapping a call renders (None: no ``arguments`` key, nothing is rendered).

    A JSON string (the OpenAI wire form) is decoded to the object it holds (``string_arguments="decode"``:
    the templates themselves raise on a string; servers decode it first).

    Raises:
        RenderError: the arguments are not a mapping (or a JSON string of an object).
    """
    if args is MISSING:
        return None
    if isinstance(args, str) and profile.string_arguments == "decode":
        try:
            args = loads(args)
        except DecodeError as exc:
            raise RenderError(f"{'message ' + str(index) + ': ' if index is not None else ''}tool call arguments are "
                              f"not JSON: {exc}", message_index=index, field="arguments") from exc
        if not isinstance(args, dict):
            raise RenderError(f"{'message ' + str(index) + ': ' if index is not None else ''}tool call arguments are "
                              "not a JSON object (an XML body has one parameter per key)", message_index=index,
                              field="arguments")
        return args
    if not isinstance(args, Mapping):
        raise crash(profile.name, "tool call arguments are not a mapping (Can only get item pairs from a mapping)",
                    index=index, error="TypeError")
    return args


def xml_call(name: Any, args: Any, profile: DialectProfile, index: int | None = None) -> tuple[str, int]:
    """One call block and the number of parameters it writes.

    ``<tool_call>\\n<function=NAME>\\n`` + ``<parameter=KEY>\\nVALUE\\n</parameter>\\n`` per argument +
    ``</function>\\n</tool_call>``.

    Raises:
        RenderError: the template cannot render this call (a name or key that is not a string, arguments
            that are not a mapping, a value without JSON text).

    >>> xml_call("f", {"x": 1}, __import__("hermes_toolcall").get_profile("qwen3.5"))[0]
    '<tool_call>\\n<function=f>\\n<parameter=x>\\n1\\n</parameter>\\n</function>\\n</tool_call>'
    """
    out = [f"{CALL_OPEN}\n{FUNCTION_OPEN}", _text(name, profile, "the call's name", index), ">\n"]
    mapping = xml_arguments(args, profile, index)
    count = 0
    if mapping is not None:
        for key, value in mapping.items():
            try:
                text = xml_value(value)
            except (TypeError, ValueError) as exc:
                raise crash(profile.name, f"tool call argument {key!r} has no JSON text ({exc})", index=index,
                            error="TypeError") from exc
            out.append(PARAMETER_OPEN + _text(key, profile, "an argument name", index) + ">\n" + text
                       + f"\n{PARAMETER_CLOSE}\n")
            count += 1
    out.append(f"{FUNCTION_CLOSE}\n{CALL_CLOSE}")
    return "".join(out), count


# --- tools advertisements -----------------------------------------------------------------------


def _trim(value: Any) -> str:
    return jinja_str(value).strip()


def _extra_keys(spec: Any, handled: Sequence[str]) -> str:
    """The templates' ``render_extra_keys``: every other key as ``\\n<KEY>VALUE</KEY>``."""
    if not isinstance(spec, Mapping):
        return ""
    out = []
    for key, value in spec.items():
        if key in handled:
            continue
        name = jinja_str(key)
        out.append(f"\n<{name}>" + xml_value(value) + f"</{name}>")
    return "".join(out)


def _xml_tool(tool: Any, profile: DialectProfile) -> str:
    fn = attr(tool, "function")
    if fn is not MISSING:
        tool = fn
    hoist = profile.catalogue_keys == "enum-first-required-last"
    out = ["\n<function>\n<name>" + jinja_str(attr(tool, "name")) + "</name>"]
    description = attr(tool, "description")
    if description is not MISSING:
        out.append("\n<description>" + _trim(description) + "</description>")
    out.append("\n<parameters>")
    params = attr(tool, "parameters")
    props = attr(params, "properties")
    if isinstance(params, Mapping) and isinstance(props, Mapping):
        for key, spec in props.items():
            out.append("\n<parameter>\n<name>" + jinja_str(key) + "</name>")
            kind = attr(spec, "type")
            if kind is not MISSING:
                out.append("\n<type>" + jinja_str(kind) + "</type>")
            desc = attr(spec, "description")
            if desc is not MISSING:
                out.append("\n<description>" + _trim(desc) + "</description>")
            handled: tuple[str, ...] = ("name", "type", "description")
            if hoist:
                enum = attr(spec, "enum")
                if enum is not MISSING:
                    out.append("\n<enum>" + _tojson(enum) + "</enum>")
                handled += ("enum",)
            out.append(_extra_keys(spec, handled))
            out.append("\n" + PARAMETER_CLOSE)
    out.append(_extra_keys(params, ("type", "properties", "required") if hoist else ("type", "properties")))
    if hoist:
        required = attr(params, "required")
        if required is not MISSING:
            out.append("\n<required>" + _tojson(required) + "</required>")
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
            body = "".join("\n" + _tojson(t) for t in tools)
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


# --- the guard's value check ----------------------------------------------------------------------


def _canon(value: Any) -> str | None:
    try:
        return spaced(value)
    except (TypeError, ValueError, RecursionError):
        return None


def value_reads_back(value: Any, text: str, parameters: Any, key: str) -> bool:
    """Whether ``text`` (the VALUE ``value`` renders as) reads back as ``value`` when it is the argument ``key`` of
    a tool whose schema is ``parameters`` (None: an undeclared tool): the decoders' own typing
    (``_xmltypes.type_value`` under ``_xmltypes.parameter_schema``, docs/parsing.md §8.2), compared as JSON text.

    >>> integer = {"properties": {"n": {"type": "integer"}}}
    >>> value_reads_back(5, "5", integer, "n"), value_reads_back("5", "5", integer, "n")
    (True, False)
    >>> value_reads_back([1, 2.5], "[1, 2.5]", None, "n"), value_reads_back("True", "True", None, "n")
    (True, False)
    >>> value_reads_back("a </parameter> b", "a </parameter> b", {"properties": {"n": {"type": "string"}}}, "n")
    True
    """
    want = _canon(value)
    if want is None:
        return False
    found, schema = parameter_schema(parameters, key)
    return _canon(type_value(text, schema, found=found).value) == want


def argument_schemas(tools: Sequence[Any] | None) -> dict[str, Any]:
    """``{tool name: its parameters schema}`` as the parsers read ``tools=`` (``_schema.load_tools``: the first
    tool of a name; a schema that is not a valid JSON Schema types nothing), so the guard and the parse type a
    value by the same schema.

    >>> argument_schemas([{"name": "f", "parameters": {"properties": {"k": {"type": "strnig"}}}}])
    {'f': None}
    """
    return {name: spec.schema for name, spec in load_tools(tools).tools.items()}
