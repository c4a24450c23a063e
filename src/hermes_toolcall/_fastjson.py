"""A faster ``_jsonio.dumps_spaced`` for the values rendering writes most (call arguments).

``dumps_fast`` (orjson) writes the compact form; adding a space after every ``,`` and ``:`` gives the
spaced form exactly when no string contains ``,`` or ``:`` and no float is present (orjson and Python
format some floats differently). Both conditions are verified, and anything else falls back to
``dumps_spaced``, so the output is always byte-identical to Python's ``json.dumps`` (NaN and Infinity,
which orjson writes as ``null``, are caught the same way).
"""

from __future__ import annotations

import re
from typing import Any

from ._jsonio import dumps_fast, dumps_spaced, loads
from .errors import DecodeError

__all__ = ["spaced"]

_FLOATISH = re.compile(r"[0-9][.eE]")


def spaced(obj: Any) -> str:
    """``json.dumps(obj, ensure_ascii=False)``, computed through orjson when that is provably identical.

    Raises:
        TypeError, ValueError: as ``json.dumps`` (the value is not JSON-serialisable).

    >>> spaced({"location": "Paris", "n": [1, 2]})
    '{"location": "Paris", "n": [1, 2]}'
    >>> spaced({"t": "12:30, ok", "x": 0.00001})
    '{"t": "12:30, ok", "x": 1e-05}'
    """
    if type(obj) is str:
        # a JSON string has no separators, and orjson escapes exactly what json.dumps(ensure_ascii=False)
        # escapes (checked for every code point in tests/test_render_fastjson.py)
        return dumps_fast(obj)
    try:
        compact = dumps_fast(obj)
    except (TypeError, ValueError):
        return dumps_spaced(obj)
    # a float always shows "." or an exponent sign; only then pay for the precise search
    if ("." in compact or "e+" in compact or "e-" in compact) and _FLOATISH.search(compact):
        return dumps_spaced(obj)
    if type(obj) is dict:
        # a flat object (its only brace is its own): every ":" and "," is structural iff the counts match
        n = len(obj)
        if (compact.count(":") == n and compact.count(",") == (n - 1 if n else 0) and compact.count("{") == 1
                and "[" not in compact and "null" not in compact):  # orjson writes NaN/Infinity as null
            return compact.replace(",", ", ").replace(":", ": ")
    result = compact.replace(",", ", ").replace(":", ": ")
    if result == compact:  # no separators at all: identical unless a NaN/Infinity became null or a tuple a list
        if "null" not in compact and (type(obj) is dict or type(obj) is list or type(obj) is str):
            return compact
        return dumps_spaced(obj)
    try:
        same = loads(result) == obj
    except DecodeError:
        same = False
    return result if same else dumps_spaced(obj)
