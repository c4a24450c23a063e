"""A faster ``_jsonio.dumps_spaced`` for the values rendering writes most (call arguments, tool definitions).

orjson writes the compact form; the spaced form (``json.dumps(obj, ensure_ascii=False)``) is that text with a
space after every ``,`` and ``:`` that stands *outside* a string. The strings are found by splitting at ``"``:
once each escape pair ``\\\\`` and ``\\"`` is masked by a control character (orjson escapes every control
character, so none stands raw in its output), the pieces alternate outside / inside a string. Where the two
writers could differ the value goes to ``json.dumps`` itself: a float (orjson and Python format some
differently), a ``null`` that may be a NaN or an infinity (orjson writes them as ``null``), anything orjson
refuses (integers beyond 64 bits, lone surrogates, keys that are not strings) or writes only because it knows
the type (dataclasses, dates and subclasses are passed through to a refusal; a UUID, an ``Enum`` member, a
tuple are caught by reading the text back and comparing it with the value).
"""

from __future__ import annotations

import re
from typing import Any

from ._jsonio import dumps_fast, dumps_native, dumps_spaced, loads_shape_or_none

__all__ = ["spaced", "spaced_compact"]

_FLOATISH = re.compile(r"[0-9][.eE]").search
_SCALARS = frozenset({str, int, bool, type(None)})


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
    compact = dumps_native(obj)  # refuses dataclasses, dates and subclasses (json.dumps refuses them too, or
    if compact is None:  # writes a subclass of str/int/dict/list as its base type: the fallback does)
        return dumps_spaced(obj)
    if type(obj) is dict and _SCALARS.issuperset(map(type, obj.values())):
        # a flat object of plain scalars: orjson wrote each as json.dumps does; when its only ":" and "," are
        # the n - 1 separators and n key ends, no string holds one and the separators are all there is to space
        n = len(obj)
        if compact.count(":") == n and compact.count(",") == (n - 1 if n else 0):
            return compact.replace(",", ", ").replace(":", ": ")
    elif (type(obj) is not dict and type(obj) is not list) or loads_shape_or_none(compact) != obj:
        # a tuple, a value orjson wrote by its own reading of a type, a NaN or an infinity (written as null)
        return dumps_spaced(obj)
    text = spaced_compact(compact)
    return text if text is not None else dumps_spaced(obj)


def spaced_compact(compact: str) -> str | None:
    """The spaced text of orjson's compact text of a value of plain JSON types (dicts, lists, strings,
    integers, booleans, None, finite floats; no NaN or infinity: the caller knows), or None when it may
    differ from ``json.dumps`` (a float: orjson and Python format some differently).

    >>> spaced_compact('{"a":"x, y: z","b":[1,{"c":"\\\\\\\\\\\\""}]}')
    '{"a": "x, y: z", "b": [1, {"c": "\\\\\\\\\\\\""}]}'
    >>> spaced_compact('[1.5]') is None
    True
    """
    masked = "\\" in compact
    if masked:
        compact = compact.replace("\\\\", "\x01").replace('\\"', "\x02")
    parts = compact.split('"')
    outside = "\x00".join(parts[::2])
    if ("." in outside or "e" in outside or "E" in outside) and _FLOATISH(outside):
        return None
    parts[::2] = outside.replace(",", ", ").replace(":", ": ").split("\x00")
    text = '"'.join(parts)
    if masked:
        text = text.replace("\x02", '\\"').replace("\x01", "\\\\")
    return text
