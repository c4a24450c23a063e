"""All JSON goes through this module: fast decoding with orjson, exact encodings for rendering.

Three encodings are offered because the format needs exactly these: ``dumps_spaced`` is Python's
``json.dumps`` default (``", "``/``": "``, as transformers' ``tojson``), ``dumps_compact`` is
``JSON.stringify``-like compact output (omp), and ``dumps_fast`` is orjson's compact bytes decoded,
for hot paths where only validity matters.
"""

from __future__ import annotations

import json
import re
from typing import Any

import orjson

from .errors import DecodeError

__all__ = [
    "DecodeError",
    "dumps_compact",
    "dumps_fast",
    "dumps_spaced",
    "loads",
    "loads_or_none",
    "loads_shape_or_none",
]


def loads(text: str) -> Any:
    """Decode strict JSON (RFC 8259: no NaN/Infinity, no trailing data).

    Raises:
        DecodeError: with the character offset of the problem.

    >>> loads('{"a": [1, true, null]}')
    {'a': [1, True, None]}
    """
    if _LONG_DIGITS(text) is None:  # orjson turns integers beyond 64 bits into floats: let json keep them
        try:
            return orjson.loads(text)
        except orjson.JSONDecodeError:
            pass  # orjson also rejects valid JSON it cannot represent (lone surrogates)
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise DecodeError(exc.msg, exc.pos) from exc
    except ValueError as exc:  # from _reject_constant
        raise DecodeError(str(exc), -1) from exc
    except RecursionError as exc:
        raise DecodeError("JSON nested too deeply", -1) from exc


# a JSON integer beyond 64 bits has at least 19 digits and no leading zero ([0-9]: JSON digits are ASCII)
_LONG_DIGITS = re.compile(r"[1-9][0-9]{18}").search


def loads_or_none(text: str) -> Any:
    """Decode strict JSON, or return None when ``text`` is not JSON (``null`` also gives None)."""
    try:
        return loads(text)
    except DecodeError:
        return None


def loads_shape_or_none(text: str) -> Any:
    """Decode strict JSON when only its shape and strings are read, or None when it is not JSON.

    Skips the big-integer check of `loads` (a regex pass, which costs more than orjson's decoding):
    an integer beyond 64 bits may come back as a float. Everything else is as `loads_or_none`.

    >>> loads_shape_or_none('{"name": "f", "content": 1}')
    {'name': 'f', 'content': 1}
    >>> loads_shape_or_none("{'a': 1}") is None
    True
    """
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return loads_or_none(text)  # lone surrogates, nesting: the same answer as `loads_or_none`


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def dumps_spaced(obj: Any) -> str:
    """Python ``json.dumps`` defaults with ``ensure_ascii=False``: the transformers ``tojson`` output.

    >>> dumps_spaced({"city": "Zürich", "n": [1, 2]})
    '{"city": "Zürich", "n": [1, 2]}'
    """
    return json.dumps(obj, ensure_ascii=False)


def dumps_compact(obj: Any) -> str:
    """Compact ``,``/``:`` separators, raw non-ASCII, insertion order (omp's ``JSON.stringify``).

    >>> dumps_compact({"a": "ü", "b": [1, 2]})
    '{"a":"ü","b":[1,2]}'
    """
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def dumps_fast(obj: Any) -> str:
    """Compact JSON via orjson (falls back to ``dumps_compact`` for values orjson rejects)."""
    try:
        return orjson.dumps(obj).decode("utf-8")
    except (TypeError, orjson.JSONEncodeError):
        return dumps_compact(obj)
