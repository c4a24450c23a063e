"""The XML-body pieces: a call as ``<function=NAME>`` with one ``<parameter=KEY>`` per argument
(chatml-family.md §2), and the guard's check that a value reads back. The XML family's two catalogues are
written by ``_system_prompt`` (below ``render``).

Values print as the templates print them (``_template_values.xml_value``): mappings and non-string sequences
with ``tojson``, everything else with Jinja's ``| string`` (Python ``str``: ``True``, ``None``, ``1e-07``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from .._fastjson import spaced
from .._jsonio import loads
from .._profiles import DialectProfile
from .._schema import load_tools
from .._template_values import MISSING, crash, jinja_str, xml_value
from .._xmltypes import allowed_types, parameter_schema, schemaless_string, type_value
from ..errors import DecodeError, RenderError
from ..tags import (
    CALL_CLOSE,
    CALL_OPEN,
    FUNCTION_CLOSE,
    FUNCTION_OPEN,
    PARAMETER_CLOSE,
    PARAMETER_OPEN,
)

__all__ = [
    "ArgumentSchemas",
    "argument_schemas",
    "declared_parameters",
    "plain_name",
    "value_reads_back",
    "xml_arguments",
    "xml_call",
]

_PLAIN_NAME = re.compile(r"[^\s<>\x00-\x1f\x7f](?:[^<>\x00-\x1f\x7f]{0,254}[^\s<>\x00-\x1f\x7f])?").fullmatch


#: names and keys found plain (``plain_name``), for the next call: they repeat across a conversation
_PLAIN_SEEN: set[str] = set()


def plain_name(value: Any) -> bool:
    """Whether a call name or argument key is written where no reading of the body can take it differently.

    >>> plain_name("get weather"), plain_name(" x"), plain_name("a>b"), plain_name("")
    (True, False, False, False)
    """
    if type(value) is str and value in _PLAIN_SEEN:
        return True
    if isinstance(value, str) and _PLAIN_NAME(value) is not None:
        if type(value) is str:
            if len(_PLAIN_SEEN) >= 4096:
                _PLAIN_SEEN.clear()
            _PLAIN_SEEN.add(value)
        return True
    return False


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


def declared_parameters(tools: Sequence[Any] | None) -> dict[str, Any]:
    """``{tool name: its parameters as given}`` with ``argument_schemas``'s names (the first tool of a name),
    before any check of the schema: the guard's cheap first look (``ArgumentSchemas``).

    >>> declared_parameters([{"name": "f", "parameters": {"properties": {"k": {"type": "strnig"}}}}])
    {'f': {'properties': {'k': {'type': 'strnig'}}}}
    """
    out: dict[str, Any] = {}
    for tool in tools or ():
        if type(tool) is not dict and not isinstance(tool, Mapping):
            continue
        fn = tool.get("function")
        if type(fn) is not dict and not isinstance(fn, Mapping):
            if "name" not in tool:
                continue
            fn = tool
        name = fn.get("name")
        if isinstance(name, str) and name and name not in out:
            out[name] = fn.get("parameters")
    return out


_UNTYPED = "untyped"  # no schema as given for the argument: read without one
_STRING = "string"  # a schema allowing strings only (enum or const or not): every text reads as itself
_TYPED = "typed"  # any other schema


def _kind(parameters: Any, key: str) -> str:
    """How the schema ``parameters`` (as given, maybe invalid) reads the argument ``key``: ``_UNTYPED``,
    ``_STRING`` or ``_TYPED`` (``type_value`` with the types ``("string",)`` gives the text itself, a member of
    the enum or const or not: a text no member matches falls back to the string reading)."""
    found, schema = parameter_schema(parameters, key)
    if not found:
        return _UNTYPED
    try:
        types = allowed_types(schema)
    except (TypeError, ValueError, AttributeError, RecursionError):
        return _TYPED
    if types == _ONLY_STRING:  # an enum or a const does not change it: a text not a member is kept as the string
        return _STRING
    return _TYPED


_ONLY_STRING = frozenset({"string"})


class ArgumentSchemas:
    """The guard's value check for one render's tools (``value_reads_back`` under ``argument_schemas``), with the
    schemas checked only when it matters.

    A parse types a value by its tool's schema when that schema is valid JSON Schema, else by none; checking a
    schema is costly (jsonschema's ``check_schema``), so a value that reads back as itself under the schema as
    given and under no schema alike passes without it: both readings a parse could make give the value. Only
    when the two differ are the tools read by ``argument_schemas`` (cached by content), and the value judged by
    the one reading the parse makes.

    >>> schemas = ArgumentSchemas([{"name": "f", "parameters": {"properties": {"n": {"type": "integer"}}}}])
    >>> schemas.reads_back("f", 5, "5", "n"), schemas.reads_back("f", "5", "5", "n"), schemas.checked is None
    (True, False, True)
    """

    __slots__ = ("checked", "declared", "kinds", "tools")

    def __init__(self, tools: Sequence[Any] | None) -> None:
        self.tools = tools
        self.declared = declared_parameters(tools)
        #: ``(name, key)`` -> how the schema as given reads that argument (``_kind``; the first look, once per pair)
        self.kinds: dict[tuple[Any, str], str] = {}
        #: ``argument_schemas(tools)``, computed the first time a value needs it
        self.checked: dict[str, Any] | None = None

    def parameters(self, name: Any) -> Any:
        """The schema a parse types ``name``'s arguments with (None: none)."""
        if not isinstance(name, str):
            return None
        if self.checked is None:
            self.checked = argument_schemas(self.tools)
        return self.checked.get(name)

    def reads_back(self, name: Any, value: Any, text: str, key: str) -> bool:
        """``value_reads_back(value, text, self.parameters(name), key)``, the schemas checked only when the
        readings with and without the given schema differ."""
        given = self.declared.get(name) if isinstance(name, str) else None
        kind = self.kinds.get((name, key)) if given is not None else _UNTYPED
        if kind is None:
            kind = self.kinds[name, key] = _kind(given, key)
        if kind is _STRING and type(value) is str and text == value and schemaless_string(value):
            # a schema allowing strings only reads the text as itself, and so does the reading
            # without a schema: both readings a parse could make give the value
            return True
        if kind is _UNTYPED:  # no reading by a schema, valid or not
            if type(value) is str and schemaless_string(value):
                return True  # its text is itself, which reads back as the string it is
            if type(value) is int and -(2**63) <= value < 2**63:
                return True  # its text is a JSON integer, read back as that number
            return value_reads_back(value, text, None, key)
        try:  # the schema as given may not be a valid one: its reading may fail where no parse reads it
            with_schema = value_reads_back(value, text, given, key)
        except (TypeError, ValueError, AttributeError, RecursionError):
            with_schema = None
        if with_schema is not None and with_schema == value_reads_back(value, text, None, key):
            return with_schema
        return value_reads_back(value, text, self.parameters(name), key)


def argument_schemas(tools: Sequence[Any] | None) -> dict[str, Any]:
    """``{tool name: its parameters schema}`` as the parsers read ``tools=`` (``_schema.load_tools``: the first
    tool of a name; a schema that is not a valid JSON Schema types nothing), so the guard and the parse type a
    value by the same schema.

    >>> argument_schemas([{"name": "f", "parameters": {"properties": {"k": {"type": "strnig"}}}}])
    {'f': None}
    """
    return {name: spec.schema for name, spec in load_tools(tools).tools.items()}
