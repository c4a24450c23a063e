"""Schema-guided coercion of call arguments (``coerce_arguments=True``): lossless conversions only.

Models often quote numbers and booleans (``"days": "7"``). When the tool's JSON Schema gives a
value a type it does not have, and the value converts *without loss*, it is converted, and each
conversion is a named recovery (``HT210``–``HT214``, a warning; an error in strict mode, where nothing
is converted) with the JSON path and the position of the value:

- a string holding exactly a JSON integer literal to ``integer`` (``"7"``; never ``"7.5"``, ``"07"``,
  ``" 7"``, ``"-0"``), to ``number`` also a JSON number literal that a float holds exactly in its
  shortest form (``"12.5"``; never ``"0.1000000000000000055511151231257827"``);
- ``"true"`` / ``"false"`` to ``boolean`` (never ``"yes"``, ``"True"``, ``"1"``), ``"null"`` to ``null``;
- a number to ``string`` where the schema says string: its JSON text (``10001`` to ``"10001"``).

The schema is read where it says a type: ``type`` (a name or a list, tried in order), ``anyOf``/``oneOf``
alternatives' types, ``properties``, ``additionalProperties`` and ``items`` (a schema). ``$ref`` and
other keywords are not followed. A value whose type the schema allows is never touched.
``arguments_json`` keeps its text: each converted value's JSON text is replaced in place.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from . import _diagnostics as diagnostics
from . import _jsonio as jsonio
from ._diagnostics import message
from ._locate import locate
from ._model import Diagnostic, Span, ToolCall
from .tags import CALL_CLOSE, CALL_OPEN

__all__ = ["Conversion", "coerce_call", "conversions"]

Path = tuple[str | int, ...]

_INT = re.compile(r"-?(?:0|[1-9][0-9]*)")
_NUM = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_CALL_OPEN = len(CALL_OPEN)
_CALL_CLOSE = CALL_CLOSE


@dataclass(frozen=True, slots=True, kw_only=True)
class Conversion:
    """One lossless conversion: where (``path`` from the arguments object), the code, old and new value."""

    code: str
    path: Path
    old: Any
    new: Any
    text: str  # the new value's JSON text
    want: str  # the schema type converted to


def _schema_types(schema: Mapping[str, Any]) -> tuple[str, ...] | None:
    t = schema.get("type")
    if isinstance(t, str):
        return (t,)
    if isinstance(t, list) and all(isinstance(x, str) for x in t):
        return tuple(t)
    for key in ("anyOf", "oneOf"):
        alternatives = schema.get(key)
        if isinstance(alternatives, list):
            found: list[str] = []
            for alt in alternatives:
                if isinstance(alt, Mapping):
                    found += _schema_types(alt) or ()
            return tuple(dict.fromkeys(found)) or None
    return None


def _value_types(value: Any) -> frozenset[str]:
    if isinstance(value, bool):
        return frozenset({"boolean"})
    if isinstance(value, int):
        return frozenset({"integer", "number"})
    if isinstance(value, float):
        return frozenset({"number", "integer"}) if value.is_integer() else frozenset({"number"})
    if isinstance(value, str):
        return frozenset({"string"})
    if value is None:
        return frozenset({"null"})
    if isinstance(value, dict):
        return frozenset({"object"})
    if isinstance(value, list):
        return frozenset({"array"})
    return frozenset()


def _integer(text: str) -> int | None:
    if _INT.fullmatch(text) and text != "-0":
        try:
            return int(text)
        except ValueError:  # more digits than int() converts (sys.get_int_max_str_digits)
            return None
    return None


def _number(text: str) -> int | float | None:
    as_int = _integer(text)
    if as_int is not None:
        return as_int
    if not _NUM.fullmatch(text):
        return None
    value = float(text)
    if not math.isfinite(value) or Decimal(repr(value)) != Decimal(text):
        return None  # the float would not hold the written number
    return value


def _convert(value: Any, want: str, path: Path, text_at: Callable[[Path], str | None]) -> Conversion | None:
    new: Any
    if isinstance(value, str):
        if want == "integer":
            code, new = "HT210", _integer(value)
        elif want == "number":
            code, new = "HT211", _number(value)
        elif want == "boolean":
            code, new = "HT212", {"true": True, "false": False}.get(value)
        elif want == "null":
            if value != "null":
                return None
            return Conversion(code="HT214", path=path, old=value, new=None, text="null", want=want)
        else:
            return None
        if new is None:
            return None
        return Conversion(code=code, path=path, old=value, new=new, text=value, want=want)
    if want == "string" and isinstance(value, int | float) and not isinstance(value, bool):
        literal = text_at(path)
        if literal is None:
            return None
        return Conversion(code="HT213", path=path, old=value, new=literal, text=jsonio.dumps_spaced(literal), want=want)
    return None


def _walk(value: Any, schema: Any, path: Path, text_at: Callable[[Path], str | None], out: list[Conversion]) -> None:
    if not isinstance(schema, Mapping):
        return
    types = _schema_types(schema)
    if types is not None and not (_value_types(value) & set(types)):
        for want in types:
            conv = _convert(value, want, path, text_at)
            if conv is not None:
                out.append(conv)
                return
    if isinstance(value, dict):
        props = schema.get("properties")
        extra = schema.get("additionalProperties")
        for key, item in value.items():
            if isinstance(props, Mapping) and key in props:
                _walk(item, props[key], (*path, key), text_at, out)
            elif isinstance(extra, Mapping):
                _walk(item, extra, (*path, key), text_at, out)
    elif isinstance(value, list):
        items = schema.get("items")
        if isinstance(items, Mapping):
            for i, item in enumerate(value):
                _walk(item, items, (*path, i), text_at, out)


def conversions(arguments: Any, schema: Any, arguments_json: str) -> list[Conversion]:
    """The lossless conversions that make ``arguments`` closer to ``schema``, in document order.

    >>> schema = {"type": "object", "properties": {"n": {"type": "integer"}, "x": {"type": "integer"}}}
    >>> [(c.code, c.path, c.new) for c in conversions({"n": "7", "x": "7.5"}, schema, '{"n": "7", "x": "7.5"}')]
    [('HT210', ('n',), 7)]
    """

    def text_at(path: Path) -> str | None:
        loc = locate(arguments_json, path)
        return None if loc is None else arguments_json[loc[0] : loc[1]]

    out: list[Conversion] = []
    _walk(arguments, schema, (), text_at, out)
    return out


def _replaced(obj: Any, path: Path, new: Any) -> Any:
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(obj, dict):
        copy = dict(obj)
        copy[head] = _replaced(obj[head], rest, new)
        return copy
    items = list(obj)
    assert isinstance(head, int)
    items[head] = _replaced(items[head], rest, new)
    return items


def _path_text(path: Path) -> str:
    out = []
    for key in path:
        if isinstance(key, int):
            out.append(f"[{key}]")
        elif key.isidentifier():
            out.append(f".{key}")
        else:
            out.append(f"[{jsonio.dumps_spaced(key)}]")
    return "".join(out)


def _arguments_offset(call: ToolCall) -> int | None:
    """Offset of ``call.arguments_json`` in ``call.raw`` when it is the source text of the body, else None."""
    raw = call.raw
    end = len(raw) - len(_CALL_CLOSE) if call.closed and raw.endswith(_CALL_CLOSE) else len(raw)
    inner = raw[_CALL_OPEN:end]
    loc = locate(inner, ("arguments",))
    if loc is None or inner[loc[0] : loc[1]] != call.arguments_json:
        return None
    return _CALL_OPEN + loc[0]


def _span_in(call: ToolCall, start: int, end: int) -> Span:
    """The span of ``raw[start:end]`` of the call's block, with its line:column."""
    raw, span = call.raw, call.span
    lines = raw.count("\n", 0, start)
    column = span.column + start if not lines else start - raw.rfind("\n", 0, start)
    return Span(start=span.start + start, end=span.start + end, line=span.line + lines, column=column)


def _what(conv: Conversion) -> str:
    old = conv.new if conv.code == "HT213" else jsonio.dumps_spaced(conv.old)  # a number: as written
    return f"{old} was read as {conv.text}"


def coerce_call(call: ToolCall, schema: Any, *, strict: bool) -> tuple[ToolCall, list[Diagnostic]]:
    """The call with its arguments converted to ``schema`` where lossless, and one diagnostic per conversion.

    In strict mode nothing is converted and each conversion that would apply is an error.

    >>> from hermes_toolcall import parse_completion
    >>> c = parse_completion('<tool_call>{"name": "f", "arguments": {"n": "7"}}</tool_call>').tool_calls[0]
    >>> new, diags = coerce_call(c, {"properties": {"n": {"type": "integer"}}}, strict=False)
    >>> new.arguments, new.arguments_json, [(d.code, d.span.start, d.message) for d in diags]
    ({'n': 7}, '{"n": 7}', [('HT210', 44, 'f: arguments.n: "7" was read as 7 (schema type integer)')])
    """
    found = conversions(call.arguments, schema, call.arguments_json)
    if not found:
        return call, []
    base = _arguments_offset(call)
    diags: list[Diagnostic] = []
    text = call.arguments_json
    arguments: Any = call.arguments
    splices: list[tuple[int, int, str]] = []
    for conv in found:
        loc = locate(call.arguments_json, conv.path)
        if base is not None and loc is not None:
            span = _span_in(call, base + loc[0], base + loc[1])
        else:
            span = call.span
        if loc is not None:
            splices.append((loc[0], loc[1], conv.text))
        msg = message("HT21x", tool=call.name, path=_path_text(conv.path), what=_what(conv), want=conv.want)
        diags.append(diagnostics.make(conv.code, msg, span, strict=strict))
        arguments = _replaced(arguments, conv.path, conv.new)
    if strict:
        return call, diags
    if len(splices) == len(found):
        for start, end, new_text in sorted(splices, reverse=True):
            text = text[:start] + new_text + text[end:]
    else:  # pragma: no cover - a value the walk found is always located in its own JSON text
        text = jsonio.dumps_spaced(arguments)
    return dataclasses.replace(call, arguments=arguments, arguments_json=text), diags
