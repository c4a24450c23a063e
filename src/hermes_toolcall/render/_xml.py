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
from ..errors import DecodeError, RenderError
from ..tags import CALL_CLOSE, CALL_OPEN, IM_END, IM_START, TOOLS_CLOSE, TOOLS_OPEN
from ._fastjson import spaced
from ._values import MISSING, crash, jinja_str

__all__ = [
    "FUNCTION_CLOSE",
    "FUNCTION_OPEN",
    "PARAMETER_CLOSE",
    "PARAMETER_OPEN",
    "attr",
    "plain_name",
    "xml_arguments",
    "xml_call",
    "xml_catalogue",
    "xml_tools_section",
    "xml_value",
]

FUNCTION_OPEN, FUNCTION_CLOSE = "<function=", "</function>"
PARAMETER_OPEN, PARAMETER_CLOSE = "<parameter=", "</parameter>"


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
            out.append("\n</parameter>")
    out.append(_extra_keys(params, ("type", "properties", "required") if hoist else ("type", "properties")))
    if hoist:
        required = attr(params, "required")
        if required is not MISSING:
            out.append("\n<required>" + _tojson(required) + "</required>")
    out.append("\n</parameters>")
    out.append(_extra_keys(tool, ("type", "name", "description", "parameters")))
    out.append("\n</function>")
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
        return f"{IM_START}system\n" + section + ("\n\n" + tail if tail else "") + f"{IM_END}\n"
    lead = system if system is not None else profile.default_system_with_tools
    if lead is None:
        head = ""
    elif profile.system_separator == "always" or lead:
        head = lead + "\n\n"
    else:
        head = lead
    return f"{IM_START}system\n" + head + section + f"{IM_END}\n"


# --- the guard's value check ----------------------------------------------------------------------

_KINDS = frozenset({"string", "integer", "number", "boolean", "null", "object", "array"})
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?").fullmatch
_LITERALS = {"True": True, "False": False, "None": None, "true": True, "false": False, "null": None}


def _json_kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def schema_kinds(schema: Any) -> frozenset[str] | None:
    """The JSON types a parameter schema allows, or None when it names none the decoders type by.

    Read: ``type`` (a name or a list of names), the alternatives of ``anyOf``/``oneOf`` (one that names no
    type allows every type), the members' types of ``enum``/``const`` when nothing else names a type, and
    ``nullable: true`` (the union of all of them: a superset of what a decoder allows).

    >>> sorted(schema_kinds({"anyOf": [{"type": "integer"}, {"type": "null"}]}))
    ['integer', 'null']
    >>> schema_kinds({"description": "free"}) is None, sorted(schema_kinds({"enum": [1, "a"]}))
    (True, ['integer', 'string'])
    """
    if not isinstance(schema, Mapping):
        return None
    kinds: set[str] = set()
    named = False
    kind = schema.get("type")
    if isinstance(kind, str):
        kinds.add(kind)
        named = True
    elif isinstance(kind, list) and all(isinstance(k, str) for k in kind):
        kinds.update(kind)
        named = True
    for key in ("anyOf", "oneOf"):
        alternatives = schema.get(key)
        if isinstance(alternatives, list) and alternatives:
            named = True
            for alternative in alternatives:
                sub = schema_kinds(alternative)
                kinds.update(_KINDS if sub is None else sub)
    if not named:
        members = [schema["const"]] if "const" in schema else schema.get("enum")
        if isinstance(members, list) and members:
            kinds.update(_json_kind(m) for m in members)
    if schema.get("nullable") is True:
        kinds.add("null")
    known = kinds & _KINDS
    return frozenset(known) if known else None


def _json(text: str) -> Any:
    try:
        return loads(text)
    except DecodeError:
        return _NONE


_NONE: Any = object()  # a reading the check cannot predict (a repaired container): never equal to a value


def readings(text: str, kinds: frozenset[str] | None) -> list[Any]:
    """Every value a parameter's VALUE text may be read back as under a schema allowing ``kinds`` (None: no
    usable schema): by each allowed type (null: ``null``/``None``; boolean: ``true``/``True``/``false``/``False``;
    integer: an integral JSON number; number: a JSON number; object/array: strict JSON, and an unpredictable
    reading for text a decoder repairs: a Python literal, near-JSON, a JSON string holding one), and the text
    itself as a string (a string type, or the fallback when no type reads it). Without a schema: null, boolean,
    a JSON number, a strict JSON object or array, or the string. Whitespace around a non-string value does not
    count. A decoder that returns one of these (docs/parsing.md §8.2) reads a value back exactly when this list
    holds nothing but the value.

    >>> readings("5", frozenset({"integer"})), readings("5", frozenset({"string", "integer"}))
    ([5], [5, '5'])
    >>> readings("True", None), readings("Paris", None)
    ([True, 'True'], ['Paris'])
    """
    t = text.strip(" \t\n\r")
    literal = _LITERALS.get(t, _NONE)
    number = _json(t) if _NUMBER(t) else _NONE
    decoded = _json(t) if t[:1] in ("{", "[") else _NONE
    out: list[Any] = []
    if kinds is None:
        if literal is not _NONE:
            out.append(literal)
        if number is not _NONE:
            out.append(number)
        if type(decoded) in (dict, list):
            out.append(decoded)
        out.append(text)
        return out
    for kind in ("null", "boolean", "integer", "number", "object", "array"):
        if kind not in kinds:
            continue
        if kind == "null" and literal is None and t in ("null", "None"):
            out.append(None)
        elif kind == "boolean" and isinstance(literal, bool):
            out.append(literal)
        elif kind == "integer" and number is not _NONE and (
                type(number) is int or (isinstance(number, float) and number.is_integer())):
            out.append(number)
            if type(number) is float:
                out.append(int(number))  # an integral float may be read as the integer
        elif kind == "number" and number is not _NONE:
            out.append(number)
        elif kind in ("object", "array"):
            want = dict if kind == "object" else list
            if type(decoded) is want:
                out.append(decoded)
            elif t[:1] in ("{", "[", "(", '"'):
                out.append(_NONE)  # a decoder may repair it into a container
    if "string" in kinds or not out:
        out.append(text)
    return out


def _canon(value: Any) -> str | None:
    if value is _NONE:
        return None
    try:
        return spaced(value)
    except (TypeError, ValueError, RecursionError):
        return None


def value_reads_back(value: Any, text: str, schema: Any) -> bool:
    """Whether ``text`` (the VALUE ``value`` renders as) can only read back as ``value`` under ``schema``.

    >>> value_reads_back(True, "True", {"type": "boolean"}), value_reads_back("True", "True", {"type": "boolean"})
    (True, False)
    >>> value_reads_back("a </parameter> b", "a </parameter> b", {"type": "string"})
    True
    """
    want = _canon(value)
    if want is None:
        return False
    return all(_canon(r) == want for r in readings(text, schema_kinds(schema)))


def argument_schemas(tools: Sequence[Any] | None) -> dict[str, Any]:
    """``{tool name: its parameters schema}`` (the first tool of a name wins)."""
    out: dict[str, Any] = {}
    for tool in tools or ():
        fn = attr(tool, "function")
        fn = fn if isinstance(fn, Mapping) else tool
        name = attr(fn, "name")
        if isinstance(name, str) and name not in out:
            out[name] = attr(fn, "parameters")
    return out


def parameter_schema(parameters: Any, key: Any) -> Any:
    """The schema of the argument ``key`` in a tool's ``parameters``: ``properties[key]``, else
    ``additionalProperties`` when it is a schema object, else None (read without a schema).

    >>> parameter_schema({"properties": {"n": {"type": "integer"}}}, "n"), parameter_schema({}, "x")
    ({'type': 'integer'}, None)
    """
    if not isinstance(parameters, Mapping) or not isinstance(key, str):
        return None
    properties = parameters.get("properties")
    if isinstance(properties, Mapping) and key in properties:
        return properties[key]
    extra = parameters.get("additionalProperties")
    return extra if isinstance(extra, Mapping) else None
