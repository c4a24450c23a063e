"""A fast first pass over call arguments with ``jsonschema-rs``, where its verdict is jsonschema's.

Most calls in a dataset are valid, and checking a valid instance is most of the cost of ``validate``.
When ``jsonschema_rs`` is installed (the ``[fast]`` extra) a schema it can check *with the same
verdict as jsonschema* is compiled once (tool sets are cached by content, so once per dataset); an
instance it finds valid is valid, and anything else (invalid, or an instance it cannot take, such as
a string with a lone surrogate) goes to jsonschema, which writes the findings: findings never change.

Left to jsonschema alone: schemas with ``pattern``/``patternProperties`` (ECMA 262 regular
expressions against Python's ``re``: ``\\d`` is ASCII in one and Unicode in the other), with
``multipleOf`` (jsonschema divides binary floats, so 0.3 is not a multiple of 0.1 there), with
``format`` (checked only with ``--check-formats``, which never takes the fast path), with a ``$ref``
or ``$dynamicRef`` (a reference cycle makes jsonschema report that the schema cannot be applied,
which must stay a finding), or with a ``$schema`` other than the drafts both know.
The fast verdict is also taken only for an instance made of JSON values alone (``json_only``): a
NaN or an infinity (``1e999`` decodes to one) compares otherwise in Rust than in Python, so under a
``not`` jsonschema-rs called ``{"not": {"maximum": 0}}`` valid for NaN where jsonschema finds it
invalid; and a tuple is an array for jsonschema-rs but not for jsonschema. For the same reason a schema
that holds anything but JSON values (a NaN ``const`` reads as ``null`` in jsonschema-rs) stays with
jsonschema.
``tests/test_validate_fastschema.py`` checks that the findings are the same with and without the fast
pass on generated schemas and instances, the nasty ones included.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Mapping
from typing import Any

__all__ = ["compile_fast", "fast_safe", "fast_valid", "json_only"]

_UNSAFE = frozenset({"pattern", "patternProperties", "format", "multipleOf"})
_DRAFTS = frozenset(
    {
        "https://json-schema.org/draft/2020-12/schema",
        "https://json-schema.org/draft/2019-09/schema",
        "http://json-schema.org/draft-07/schema#",
        "http://json-schema.org/draft-07/schema",
        "http://json-schema.org/draft-06/schema#",
        "http://json-schema.org/draft-06/schema",
        "http://json-schema.org/draft-04/schema#",
        "http://json-schema.org/draft-04/schema",
    }
)
_MISSING: Any = object()
_RS: Any = _MISSING


def _rs() -> Any:
    global _RS
    if _RS is _MISSING:
        try:
            _RS = importlib.import_module("jsonschema_rs")
        except ImportError:
            _RS = None
    return _RS


_NAMED = frozenset({"properties", "$defs", "definitions", "dependentSchemas", "dependencies"})  # name -> schema
_LISTS = frozenset({"allOf", "anyOf", "oneOf", "prefixItems", "items"})  # schemas (items: a list in draft 4)
_ONE = frozenset(
    {
        "items",
        "additionalItems",
        "additionalProperties",
        "not",
        "if",
        "then",
        "else",
        "contains",
        "propertyNames",
        "unevaluatedItems",
        "unevaluatedProperties",
    }
)


def fast_safe(schema: Any, *, top: bool = True) -> bool:
    """Whether jsonschema-rs gives jsonschema's verdicts on ``schema`` (see the module docstring).

    >>> fast_safe({"type": "object", "properties": {"pattern": {"type": "integer"}}})
    True
    >>> fast_safe({"type": "object", "properties": {"n": {"type": "string", "pattern": "^\\d+$"}}})
    False
    """
    if isinstance(schema, bool):
        return True
    if not isinstance(schema, Mapping):
        return False  # jsonschema refuses it before any instance is checked
    for key, value in schema.items():
        if key in _UNSAFE:
            return False
        if key in ("$ref", "$dynamicRef", "$recursiveRef"):
            return False  # a reference cycle makes jsonschema fail ("cannot be applied"): it must say so
        if key == "$schema" and (not top or value not in _DRAFTS):
            return False
        if key in _NAMED and isinstance(value, Mapping):
            subs = [v for v in value.values() if not isinstance(v, list)]  # draft-7 dependencies: name lists
        elif key in _LISTS and isinstance(value, list):
            subs = value
        elif key in _ONE:
            subs = [value]
        else:
            continue  # a value (enum, const, required, …) or an annotation
        if not all(fast_safe(sub, top=False) for sub in subs):
            return False
    return True


def compile_fast(schema: Any) -> Any:
    """A jsonschema-rs validator for ``schema``, or None (not installed, not safe, or it refuses it)."""
    rs = _rs()
    if rs is None or not fast_safe(schema) or not json_only(schema):  # a NaN in the schema: rs reads null
        return None
    try:
        return rs.validator_for(schema, validate_formats=False, offline=True)
    except Exception:  # jsonschema-rs refuses the schema: jsonschema alone decides
        return None


def fast_valid(validator: Any, instance: Any) -> bool:
    """True when the fast validator finds ``instance`` valid and that verdict is jsonschema's (``json_only``).

    False also when it cannot take the instance: jsonschema decides then.
    """
    try:
        valid = bool(validator.is_valid(instance))
    except Exception:  # an instance it cannot convert (lone surrogates, an int subclass): not decided here
        return False
    return valid and json_only(instance)


_SCALARS = frozenset({str, int, bool, type(None)})


def json_only(value: Any) -> bool:
    """Whether ``value`` holds only dicts, lists, strings, ints, bools, None and finite floats (exact types).

    >>> json_only({"a": [1, 2.5, None, True, "x"]}), json_only({"a": float("nan")}), json_only((1, 2))
    (True, False, False)
    """
    stack = [value]
    pop, push = stack.pop, stack.extend
    while stack:
        item = pop()
        kind = item.__class__
        if kind in _SCALARS:
            continue
        if kind is dict:
            push(item.values())
        elif kind is list:
            push(item)
        elif kind is not float or not math.isfinite(item):
            return False
    return True
