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
``tests/test_validate_fastschema.py`` checks the verdicts agree on generated schemas and instances.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

__all__ = ["compile_fast", "fast_safe", "fast_valid"]

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
    if rs is None or not fast_safe(schema):
        return None
    try:
        return rs.validator_for(schema, validate_formats=False, offline=True)
    except Exception:  # jsonschema-rs refuses the schema: jsonschema alone decides
        return None


def fast_valid(validator: Any, instance: Any) -> bool:
    """True when the fast validator finds ``instance`` valid (False also when it cannot take it)."""
    try:
        return bool(validator.is_valid(instance))
    except Exception:  # an instance it cannot convert (lone surrogates, huge numbers): not decided here
        return False
