"""The XML call body (``<function=NAME>`` with ``<parameter=KEY>`` values) as grammar nodes.

Every literal comes from the dialect's renderer (``_shape.xml_shape``): the block's head and tail, the
parameter's frame, and how a value of each JSON type is written (``True``/``False``/``None``, ``str``
numbers, ``tojson`` containers, strings raw). A value's grammar is the union of the readings the parser
gives its schema's types (``_xmltypes``): null (``None``, ``null``), boolean (``True``, ``False``,
``true``, ``false``), integer and number (JSON numbers), object and array (JSON under the schema),
string (text); an ``enum``/``const`` is its members as the template writes them.

A string value is text in which the parser never sees a structural closer (docs/parsing.md §8.2): no
control token, no ``<parameter=``, ``<function=`` or ``</function`` (which the parser may take as
structure or as a literal block it counts), and a ``</parameter`` only as ``</parameter>`` followed by
something other than whitespace or ``<`` (so ``print("</parameter>")`` is a value). That is a regular
subset of the parser's lookahead rule, which also counts nested literal parameters (not regular).
"""

from __future__ import annotations

from typing import Any

from ..errors import UsageError
from ..tags import CONTROL, FUNCTION_CLOSE, FUNCTION_OPEN, PARAMETER_CLOSE, PARAMETER_OPEN
from ._ir import CUT, Block, Free, Json, Lit, Node, Pattern, Rep, alt, literal, seq
from ._shape import XmlShape

__all__ = ["string_value", "xml_arguments", "xml_call"]

INTEGER = r"-?(?:0|[1-9][0-9]*)"
NUMBER = r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?"
_TYPES = ("null", "boolean", "integer", "number", "object", "array", "string")

# a string value: see the module docstring
_STRING_MARKERS = (*CONTROL, PARAMETER_OPEN, FUNCTION_OPEN, FUNCTION_CLOSE[:-1])
_STRING_GUARDS = ((PARAMETER_CLOSE[:-1], True, ">"), (PARAMETER_CLOSE, False, " \t\r\n<"))


def string_value() -> Free:
    """Text the parser reads back whole as one parameter's value."""
    return Free(_STRING_MARKERS, "value", _STRING_GUARDS)


def _types(schema: Any) -> frozenset[str] | None:
    from .._xmltypes import allowed_types

    return allowed_types(schema)


def _narrow(schema: Any, kind: str) -> Any:
    """The part of ``schema`` that describes values of JSON type ``kind`` (an object or an array)."""
    for key in ("anyOf", "oneOf"):
        alternatives = schema.get(key) if isinstance(schema, dict) else None
        if isinstance(alternatives, list) and alternatives:
            parts = [_narrow(a, kind) for a in alternatives if kind in (_types(a) or _TYPES)]
            return parts[0] if len(parts) == 1 else {"anyOf": parts}
    out = {k: v for k, v in schema.items() if k not in ("nullable", "enum", "const")} if isinstance(schema, dict) \
        else {}
    out["type"] = kind
    return out


def _value(schema: Any, shape: XmlShape) -> Node:
    members = None
    if isinstance(schema, dict):
        if "const" in schema:
            members = [schema["const"]]
        elif isinstance(schema.get("enum"), list) and schema["enum"]:
            members = list(schema["enum"])
    if members is not None:
        return alt(Lit(shape.written(m)) for m in dict.fromkeys(shape.written(m) for m in members))
    types = _types(schema)
    if types is None or "string" in types:
        options: list[Node] = [string_value()]  # any reading is a string, when the schema allows one
    else:
        options = []
    for kind in _TYPES:
        if types is None or kind not in types or kind == "string":
            continue
        if kind == "null":
            options.append(alt([Lit(shape.null), Lit("null")]))
        elif kind == "boolean":
            options.append(alt([Lit(shape.true), Lit(shape.false), Lit("true"), Lit("false")]))
        elif kind == "integer":
            options.append(Pattern(INTEGER))
        elif kind == "number":
            options.append(Pattern(NUMBER))
        else:
            options.append(Json.of(_narrow(schema, kind), item_sep=shape.item_sep, key_sep=shape.key_sep,
                                   excludes=CUT))
    if types is None:
        return options[0]
    return alt(options)


def xml_arguments(name: str, schema: Any, shape: XmlShape) -> Node | None:
    """The parameters of one call to ``name``: the declared ones in the schema's order, each required one once,
    each other one at most once (None: the call takes none, ``<function=NAME>\\n</function>``)."""
    props = schema.get("properties") if isinstance(schema, dict) else None
    if not isinstance(props, dict) or not props:
        return None
    required = set(schema.get("required", ())) if isinstance(schema.get("required"), list) else set()
    items: list[Node] = []
    for key, sub in props.items():
        if not shape.writable(key):
            raise UsageError(f"tool {name!r}: the parameter name {key!r} cannot be written in an XML body")
        one = seq([literal(shape.param_head + key + shape.key_end), _value(sub, shape), literal(shape.value_end)])
        items.append(one if key in required else Rep(one, 0, 1))
    return seq(items)


def xml_call(name: str, schema: Any, shape: XmlShape) -> Block:
    """One tool's XML call block."""
    return Block(name=name, head=literal(shape.head + name + shape.name_end),
                 arguments=xml_arguments(name, schema, shape), tail=literal(shape.tail))

