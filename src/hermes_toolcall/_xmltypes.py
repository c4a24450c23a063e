"""Typing the values of an XML body (``<parameter=KEY>\\nVALUE\\n</parameter>``) by the tool's JSON Schema.

The XML-body templates write every argument as text: strings raw, numbers with Python ``str``,
``True``/``False``/``None`` for the JSON literals, mappings and lists with ``tojson``. The text alone
does not say which JSON value it was (``42`` is the integer or the string ``"42"``); the parameter's
schema does. This module is that reading, once, for both engines and for the render guard
(docs/parsing.md §8.2 has the table):

- **with a schema** for the parameter, the types it allows (``type``, a name or a list; the
  alternatives of ``anyOf``/``oneOf``; ``nullable: true``; the members of ``enum``/``const``) are
  tried in the order null, boolean, integer, number, object, array, string, and the first that
  reads the text wins; with ``enum``/``const``, a reading that is a member wins first. A value
  none of them reads stays the string, as written (``untyped``: a warning naming the parameter).
- **without a schema** (no ``tools=``, an undeclared tool or parameter, a schema that names no
  type): null, boolean, a JSON number, a strict JSON object or array, else the string.

Readings: null is ``null`` or ``None``; boolean ``true``/``false``/``True``/``False``; integer a JSON
number whose value is integral (``7``, ``-0``, ``3.0``, digits of any length, exact); number any
JSON number (kept as written in the JSON text: ``3.0`` stays ``3.0``, ``1e400`` is ``inf`` in the
value and ``1e400`` in the text); object and array strict JSON (the text as written), else, with a
schema, a Python literal or near-JSON read safely (``{'k': True}``; ``repaired``: a recovery).
Around a non-string value, whitespace does not count; a string is the text exactly.

>>> typed = type_value("True", {"type": "boolean"})
>>> typed.value, typed.json, typed.problem
(True, 'true', None)
>>> type_value("42", {"type": "string"}).json
'"42"'
>>> type_value("abc", {"type": "integer"}).problem
'untyped'
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from json.encoder import encode_basestring  # what json.dumps(ensure_ascii=False) writes for a string
from typing import Any, Literal

from . import _jsonio as jsonio
from ._lenient_json import scan
from .errors import DecodeError

__all__ = ["TYPE_ORDER", "Typed", "Typer", "allowed_types", "parameter_schema", "schemaless_string", "type_value",
           "typer"]

_WS = " \t\n\r"
#: the order in which the allowed types are tried: the most specific reading first, the string last
TYPE_ORDER: tuple[str, ...] = ("null", "boolean", "integer", "number", "object", "array", "string")
_KNOWN = frozenset(TYPE_ORDER)
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_NULLS = ("null", "None")
_BOOLS = {"true": True, "True": True, "false": False, "False": False}

Problem = Literal["untyped", "repaired"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Typed:
    """One parameter value read by its schema.

    Attributes:
        value: the JSON value (``arguments[KEY]``).
        json: its JSON text in ``arguments_json`` (numbers and strict-JSON containers as written).
        problem: None; ``"untyped"`` (no allowed type reads the text: kept as the string);
            ``"repaired"`` (a container read as a Python literal or near-JSON).
        detail: what the message says: the allowed types (untyped) or the repairs (repaired).
    """

    value: Any
    json: str
    problem: Problem | None = None
    detail: str = ""


def _string(text: str) -> Typed:
    return Typed(value=text, json=encode_basestring(text))


def _read_number(text: str, *, integral: bool) -> Typed | None:
    if _NUMBER.fullmatch(text) is None:
        return None
    try:
        value = jsonio.loads(text)
    except DecodeError:  # pragma: no cover - the pattern is JSON's number grammar
        return None
    if integral and not (isinstance(value, int) or (math.isfinite(value) and float(value).is_integer())):
        return None
    return Typed(value=value, json=text)


_REPAIRS = {"HT202": "Python literal syntax", "HT203": "a trailing comma", "HT204": "raw control characters"}


def _read_container(text: str, kind: type, *, repair: bool) -> Typed | None:
    opener = "{" if kind is dict else "["
    if repair and text.startswith('"'):  # a JSON string holding the value (a template that encoded it twice)
        inner = jsonio.loads_or_none(text)
        if isinstance(inner, str):
            typed = _read_container(inner.strip(_WS), kind, repair=True)
            if typed is not None:
                json_text = typed.json if typed.problem else jsonio.dumps_spaced(typed.value)
                return Typed(value=typed.value, json=json_text, problem="repaired", detail="a JSON string holding it")
        return None
    if not text.startswith(opener):
        return None
    try:
        value = jsonio.loads(text)
    except DecodeError:
        value = None
    else:
        return Typed(value=value, json=text) if type(value) is kind else None
    if not repair:
        return None
    result = scan(text, multiple=False)
    if result.error is not None or type(result.values[0].value) is not kind:
        return None
    value = result.values[0].value
    try:
        json_text = jsonio.dumps_spaced(value)
    except (RecursionError, ValueError):
        return None
    if jsonio.has_nonfinite(value):
        return None
    repairs = ", ".join(dict.fromkeys(_REPAIRS[r.code] for r in result.recoveries if r.code in _REPAIRS))
    return Typed(value=value, json=json_text, problem="repaired", detail=repairs or "near-JSON")


def _read(text: str, kind: str, *, repair: bool) -> Typed | None:
    """``text`` read as a value of the JSON type ``kind``, or None when it is not one."""
    if kind == "string":
        return _string(text)
    t = text.strip(_WS)
    if kind == "null":
        return Typed(value=None, json="null") if t in _NULLS else None
    if kind == "boolean":
        b = _BOOLS.get(t)
        return None if b is None else Typed(value=b, json="true" if b else "false")
    if kind == "integer":
        return _read_number(t, integral=True)
    if kind == "number":
        return _read_number(t, integral=False)
    return _read_container(t, dict if kind == "object" else list, repair=repair)


def _json_type(value: Any) -> str:
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


def _members(schema: Mapping[str, Any]) -> list[Any] | None:
    if "const" in schema:
        return [schema["const"]]
    enum = schema.get("enum")
    return list(enum) if isinstance(enum, list) and enum else None


def allowed_types(schema: Any) -> frozenset[str] | None:
    """The JSON types a value schema allows, or None when it names none (any value).

    ``type`` (a name or a list), the alternatives of ``anyOf``/``oneOf`` (each read the same way;
    one that names no type allows any), ``nullable: true`` and the members of ``enum``/``const``
    are read; ``$ref``, ``allOf`` and the other keywords are not followed.

    >>> sorted(allowed_types({"anyOf": [{"type": "integer"}, {"type": "null"}]}))
    ['integer', 'null']
    >>> allowed_types({"description": "anything"}) is None
    True
    """
    if not isinstance(schema, Mapping):
        return None
    found: set[str] | None = None
    declared = schema.get("type")
    if isinstance(declared, str):
        found = {declared}
    elif isinstance(declared, list) and all(isinstance(t, str) for t in declared):
        found = set(declared)
    for key in ("anyOf", "oneOf"):
        alternatives = schema.get(key)
        if isinstance(alternatives, list) and alternatives:
            union: set[str] = set()
            for alt in alternatives:
                types = allowed_types(alt)
                if types is None:
                    union = set(_KNOWN)
                    break
                union |= types
            found = union if found is None else found & union
    if found is None:
        members = _members(schema)
        if members is None:
            return None
        found = {_json_type(m) for m in members}
    if schema.get("nullable") is True:
        found.add("null")
    known = found & _KNOWN
    return frozenset(known) if known else None  # only unknown names: as if none were named


def _same(a: Any, b: Any) -> bool:
    """JSON equality: a boolean is never a number, 1 equals 1.0."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return bool(a == b)
    return type(a) is type(b) and bool(a == b)


def parameter_schema(parameters: Any, key: str) -> tuple[bool, Any]:
    """The schema of the parameter ``key`` in a tool's ``parameters`` schema: ``(found, schema)``.

    ``properties[key]``, else ``additionalProperties`` when it is a schema object; else not found
    (the value is then read without a schema).

    >>> parameter_schema({"properties": {"n": {"type": "integer"}}}, "n")
    (True, {'type': 'integer'})
    >>> parameter_schema({"properties": {}}, "x")
    (False, None)
    """
    if not isinstance(parameters, Mapping):
        return False, None
    properties = parameters.get("properties")
    if isinstance(properties, Mapping) and key in properties:
        return True, properties[key]
    extra = parameters.get("additionalProperties")
    if isinstance(extra, Mapping):
        return True, extra
    return False, None


def type_value(text: str, schema: Any, *, found: bool = True) -> Typed:
    """Read a parameter's value text (its newlines already stripped) as the schema says.

    Args:
        text: the value as written between the parameter's newlines.
        schema: the parameter's schema (see ``parameter_schema``).
        found: False when there is no schema for the parameter: the reading without a schema.

    Returns:
        The ``Typed`` value; ``problem`` says whether it fit no allowed type or was repaired.

    >>> type_value("None", {"type": ["string", "null"]}).value is None
    True
    >>> type_value("12345678901234567890", {"type": "number"}).json
    '12345678901234567890'
    >>> type_value("[1, 'a']", None, found=False).value
    "[1, 'a']"
    """
    types = allowed_types(schema) if found else None
    if types is None:
        return _typed(text, None, None)
    members = _members(schema) if isinstance(schema, Mapping) else None
    return _typed(text, tuple(kind for kind in TYPE_ORDER if kind in types), members)


_SCHEMALESS_ORDER = ("null", "boolean", "number", "object", "array")  # integer: read by number, the same values
_NON_STRING_START = "-0123456789{[nNtTfF"  # only these can start a non-string reading


def schemaless_string(text: str) -> bool:
    """Whether ``text`` read without a schema can only be the string itself (no other reading can start so).

    >>> schemaless_string("Paris"), schemaless_string("  "), schemaless_string(" 42"), schemaless_string("null")
    (True, True, False, False)
    >>> schemaless_string("now"), schemaless_string(" True "), schemaless_string("[1]")
    (True, False, False)
    """
    t = text.strip(_WS)
    # a letter starts a reading only as the whole of a null or boolean literal (a number starts with - or a
    # digit, a container with a bracket): "now", "the file" read as themselves
    return not t or t[0] not in _NON_STRING_START or (t[0] in "nNtTfF" and t not in _NULLS and t not in _BOOLS)


def _typed(text: str, ordered: tuple[str, ...] | None, members: list[Any] | None) -> Typed:
    """``type_value`` once the schema is read: its types in ``TYPE_ORDER`` (None: no schema) and members."""
    if ordered is None:
        if not schemaless_string(text):
            for kind in _SCHEMALESS_ORDER:
                typed = _read(text, kind, repair=False)
                if typed is not None:
                    return typed
        return _string(text)
    if members is not None:
        for kind in ordered:
            typed = _read(text, kind, repair=True)
            if typed is not None and any(_same(typed.value, m) for m in members):
                return typed
    for kind in ordered:
        typed = _read(text, kind, repair=True)
        if typed is not None:
            return typed
    wanted = " or ".join(ordered) if ordered else "no type"
    return Typed(value=text, json=encode_basestring(text), problem="untyped", detail=wanted)


class Typer:
    """``type_value`` for the parameters of one tool (``typer(parameters)``): what the schema says of each
    key (``parameter_schema``, ``allowed_types``) is read once per key."""

    __slots__ = ("_facts", "_parameters", "strings")

    def __init__(self, parameters: Any) -> None:
        self._parameters = parameters
        self._facts: dict[str, tuple[tuple[str, ...] | None, list[Any] | None]] = {}
        #: the keys whose value can only be a string (the text as it is, JSON-encoded)
        self.strings: set[str] = set()

    def __call__(self, key: str, text: str) -> Typed:
        """The value ``text`` of the parameter ``key``, read as its schema says."""
        if key in self.strings:
            return Typed(value=text, json=encode_basestring(text))
        facts = self._facts.get(key)
        if facts is None:
            parameters = self._parameters
            found, schema = parameter_schema(parameters, key) if parameters is not None else (False, None)
            types = allowed_types(schema) if found else None
            members = _members(schema) if found and isinstance(schema, Mapping) else None
            if types == frozenset({"string"}) and members is None:
                self.strings.add(key)
                return Typed(value=text, json=encode_basestring(text))
            ordered = None if types is None else tuple(kind for kind in TYPE_ORDER if kind in types)
            facts = self._facts[key] = (ordered, members)
        return _typed(text, facts[0], facts[1])


_TYPERS: dict[int, Typer] = {}  # id(parameters) -> its typer (the typer holds the schema, so the id stays its)


def typer(parameters: Any) -> Typer:
    """The ``Typer`` of a tool's ``parameters`` schema (cached per schema object).

    >>> typer({"properties": {"n": {"type": "integer"}}})("n", "7").value
    7
    """
    hit = _TYPERS.get(id(parameters))
    if hit is not None and hit._parameters is parameters:
        return hit
    if len(_TYPERS) > 256:  # schemas of finished requests: let them go
        _TYPERS.clear()
    made = _TYPERS[id(parameters)] = Typer(parameters)
    return made
