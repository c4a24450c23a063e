"""All JSON goes through this module: fast decoding with orjson, exact encodings for rendering.

Three encodings are offered because the format needs exactly these: ``dumps_spaced`` is Python's
``json.dumps`` default (``", "``/``": "``, as transformers' ``tojson``), ``dumps_compact`` is
``JSON.stringify``-like compact output (omp), and ``dumps_fast`` is orjson's compact bytes decoded,
for hot paths where only validity matters.

**Integers of any length** are decoded exactly and encoded back to the same digits, whatever
Python's int/str conversion limit (``sys.get_int_max_str_digits()``, 4,300 digits by default, which
this module never changes): an integer longer than the limit is decoded piecewise into an
`ExactInt` (an ``int`` that keeps its decimal text), and the encoders write every integer's exact
digits. Converting such an integer costs about 1 s per million digits (superlinear).

**Nesting** is limited to `MAX_NESTING` (512) levels of arrays and objects, the library's own limit,
whatever the interpreter's recursion limit: every decoder here rejects deeper text with a
`DecodeError` at the first opener past the limit, before any recursive decoder sees it. (Python's
``json`` recurses in C as deep as the text goes once ``sys.setrecursionlimit`` allows it, which a
100,000-deep text turns into a segmentation fault; at the default limit it is a ``RecursionError``.)

**Numbers beyond the float range** (``1e400``, a 400-digit decimal) are valid JSON and decode to
``±inf``. The rendering encoders write them as Python's ``json.dumps`` does (``Infinity``, as the
official templates' ``tojson``); ``dumps_report``, the CLI's reports, writes valid JSON whatever the
value: ``1e999`` / ``-1e999`` (which decode back to ``±inf``), and ``null`` for NaN.
"""

from __future__ import annotations

import json
import math
import re
import secrets
import sys
from functools import lru_cache
from typing import Any

import orjson

from .errors import DecodeError

__all__ = [
    "MAX_NESTING",
    "DecodeError",
    "ExactInt",
    "check_nesting",
    "dumps_compact",
    "dumps_fast",
    "dumps_pretty",
    "dumps_report",
    "dumps_spaced",
    "has_nonfinite",
    "int_text",
    "loads",
    "loads_or_none",
    "loads_pairs",
    "loads_shape_or_none",
    "parse_int",
    "value_depth_over",
]


#: The deepest nesting of arrays and objects any decoder here reads (the library's own limit, the same
#: whatever ``sys.getrecursionlimit()``; docs/parsing.md §13).
MAX_NESTING = 512

# what the depth scan reads: a string (possibly unterminated), or a bracket
_STRUCTURE = re.compile(r'"(?:[^"\\]|\\.)*"?|[\[\]{}]', re.DOTALL)


def check_nesting(text: str, inside: int = 0) -> None:
    """Raise `DecodeError` when ``text`` nests arrays/objects deeper than `MAX_NESTING` (outside strings).

    ``inside``: the levels that enclose ``text`` where it was found (a slice of a larger value).
    Two counts in C when the text has at most `MAX_NESTING` openers (it cannot be too deep); a scan of
    its strings and brackets otherwise.

    Raises:
        DecodeError: at the offset of the first opener past the limit.

    >>> check_nesting("[" * 512 + "]" * 512)
    >>> try:
    ...     check_nesting("[" * 513)
    ... except DecodeError as exc:
    ...     print(exc, exc.position)
    nested deeper than 512 levels 512
    """
    limit = MAX_NESTING - inside
    if text.count("[") + text.count("{") <= limit:
        return
    depth = 0
    for m in _STRUCTURE.finditer(text):
        c = text[m.start()]
        if c == "[" or c == "{":
            depth += 1
            if depth > limit:
                raise DecodeError(f"nested deeper than {MAX_NESTING} levels", m.start())
        elif c == "]" or c == "}":
            depth -= 1


def loads(text: str, inside: int = 0) -> Any:
    """Decode strict JSON (RFC 8259: no NaN/Infinity, no trailing data), nested at most `MAX_NESTING` deep.

    ``inside``: the levels that enclose ``text`` (a slice of a larger value), counted in the limit.

    Raises:
        DecodeError: with the character offset of the problem.

    >>> loads('{"a": [1, true, null]}')
    {'a': [1, True, None]}
    """
    check_nesting(text, inside)
    if not _long_digits(text):  # orjson turns integers beyond 64 bits into floats: let json keep them
        try:
            return orjson.loads(text)
        except orjson.JSONDecodeError:
            pass  # orjson also rejects valid JSON it cannot represent (lone surrogates)
    try:
        return json.loads(text, parse_constant=_reject_constant, parse_int=parse_int)
    except json.JSONDecodeError as exc:
        raise DecodeError(exc.msg, exc.pos) from exc
    except ValueError as exc:  # from _reject_constant
        raise DecodeError(str(exc), -1) from exc
    except RecursionError as exc:
        raise DecodeError("JSON nested too deeply", -1) from exc


# a JSON integer beyond 64 bits has at least 19 digits and no leading zero ([0-9]: JSON digits are ASCII)
_LONG_DIGITS = re.compile(r"[1-9][0-9]{18}").search
# every byte of the UTF-8 text a "0" when it is an ASCII digit, a "." otherwise (a multi-byte character's
# bytes are all 0x80 or above: never a digit), so a run of 19 digits is a run of 19 "0"s
_DIGIT_BYTES = bytes(0x30 if 0x30 <= b <= 0x39 else 0x2E for b in range(256))
_DIGIT_RUN = b"0" * 19


def _long_digits(text: str) -> bool:
    """Whether ``text`` holds 19 digits in a row, the first not a zero (``_LONG_DIGITS``).

    The run is looked for in C first (the text's bytes mapped to digit or not, then a substring
    search: a fifth of the regular expression's time on a dataset record); only a text with such a
    run asks the expression about its leading zero.

    >>> _long_digits('{"a": 12345678901234567890}'), _long_digits('{"a": 1234567890123456789.5}')
    (True, True)
    >>> _long_digits('{"a": 123456789012345678}'), _long_digits('"0000000000000000000000"')
    (False, False)
    """
    if _DIGIT_RUN not in text.encode("utf-8", "surrogatepass").translate(_DIGIT_BYTES):
        return False
    return _LONG_DIGITS(text) is not None


# ------------------------------------------------------------------ integers beyond the str limit

_PIECE = 600  # digits converted by int() in one piece (under any limit Python accepts: 0 or >= 640)


class ExactInt(int):
    """An integer decoded from more digits than Python's int/str limit; ``str``/``repr`` give those digits.

    It is an ``int`` (equal to, and hashing as, the same value); arithmetic gives plain ints.

    >>> n = parse_int("9" * 5000)
    >>> isinstance(n, ExactInt), n % 10, str(n) == "9" * 5000
    (True, 9, True)
    """

    text: str

    def __str__(self) -> str:
        return self.text

    __repr__ = __str__

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (int(self), self.text))


def _rebuild(value: int, text: str) -> ExactInt:
    n = int.__new__(ExactInt, value)
    n.text = text
    return n


@lru_cache(maxsize=64)
def _pow10(k: int) -> int:
    power: int = 10**k
    return power


def _digits_value(digits: str) -> int:
    """The value of an unsigned run of decimal digits, converted in pieces (no int/str limit)."""
    if len(digits) <= _PIECE:
        return int(digits)
    low = len(digits) // 2
    return _digits_value(digits[:-low]) * _pow10(low) + _digits_value(digits[-low:])


def _over_limit(ndigits: int) -> bool:
    limit = sys.get_int_max_str_digits()
    return limit > 0 and ndigits > limit


def parse_int(text: str) -> int:
    """``int(text)`` for a JSON/Python integer literal of any length (an `ExactInt` beyond the limit).

    >>> parse_int("-12")
    -12
    """
    if len(text) <= 640 or not _over_limit(len(text)):
        return int(text)
    digits = text.lstrip("+-").lstrip("0") or "0"  # canonical digits (a Python literal may pad with zeros)
    negative = text.startswith("-") and digits != "0"
    return _rebuild(-_digits_value(digits) if negative else _digits_value(digits), "-" + digits if negative else digits)


def int_text(n: int) -> str:
    """The decimal digits of any integer (``str(n)`` without the int/str limit).

    >>> int_text(-(10**5000)) == "-1" + "0" * 5000
    True
    """
    if isinstance(n, ExactInt):
        return n.text
    if n.bit_length() < 2000:  # about 600 digits: under any limit
        return int.__repr__(n)
    if n < 0:
        return "-" + _abs_text(-n, 0)
    return _abs_text(n, 0)


def _abs_text(n: int, width: int) -> str:
    if n.bit_length() < 1990:  # under 600 digits
        return int.__repr__(n).rjust(width, "0")
    k = int(n.bit_length() * 0.30103) // 2
    high, low = divmod(n, _pow10(k))
    return _abs_text(high, max(width - k, 0)) + _abs_text(low, k)


def value_depth_over(obj: Any, limit: int = MAX_NESTING) -> bool:
    """Whether ``obj`` nests dicts, lists and tuples deeper than ``limit`` levels (iterative: any depth).

    >>> value_depth_over([[1]], 2), value_depth_over([[[1]]], 2)
    (False, True)
    """
    stack = [(obj, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict):
            items: Any = value.values()
        elif isinstance(value, (list, tuple)):
            items = value
        else:
            continue
        if depth > limit:
            return True
        stack.extend((v, depth + 1) for v in items if isinstance(v, (dict, list, tuple)))
    return False


def _check_value_nesting(obj: Any) -> None:
    """Raise ``ValueError`` when ``obj`` nests deeper than `MAX_NESTING` (before ``json`` recurses in C).

    orjson encodes at most 255 levels, so a value it encodes is shallow enough; only a value it refuses
    (too deep, or an integer beyond 64 bits, a lone surrogate, a key that is not a string) is walked.
    """
    if type(obj) is str or type(obj) is int or type(obj) is float or obj is None or type(obj) is bool:
        return
    try:
        orjson.dumps(obj, option=orjson.OPT_NON_STR_KEYS)
        return
    except (TypeError, orjson.JSONEncodeError):
        pass
    if value_depth_over(obj):
        raise ValueError(f"the value is nested deeper than {MAX_NESTING} levels")


def _dump(
    obj: Any, separators: tuple[str, str] | None, *, finite: bool = False, indent: int | None = None
) -> str:
    """``json.dumps(obj, ensure_ascii=False, separators=…, indent=…)`` with integers of any length written
    exactly (and, with ``finite``, non-finite floats as ``±1e999`` / ``null``).

    Raises:
        ValueError: as ``json.dumps``, and for a value nested deeper than `MAX_NESTING`.
    """
    _check_value_nesting(obj)
    try:
        return json.dumps(obj, ensure_ascii=False, separators=separators, allow_nan=not finite, indent=indent)
    except ValueError as exc:
        if "integer string conversion" not in str(exc) and "float values" not in str(exc):
            raise
    while True:
        nonce = f"\x00hermes-int-{secrets.token_hex(8)}-"
        found: list[str] = []
        text = json.dumps(_mark(obj, nonce, found, finite), ensure_ascii=False, separators=separators, indent=indent)
        quoted = [json.dumps(f"{nonce}{i}\x00") for i in range(len(found))]
        if all(text.count(q) == 1 for q in quoted):  # no string of the value looked like a marker
            for q, digits in zip(quoted, found, strict=True):
                text = text.replace(q, digits)
            return text


def _mark(obj: Any, nonce: str, found: list[str], finite: bool = False) -> Any:
    """A copy of ``obj`` where each integer beyond the limit is a marker string (its digits in ``found``);
    with ``finite``, each non-finite float too (``1e999``, ``-1e999``, ``null``)."""
    if isinstance(obj, int) and not isinstance(obj, bool):
        if isinstance(obj, ExactInt) or obj.bit_length() > 2000:
            found.append(int_text(obj))
            return f"{nonce}{len(found) - 1}\x00"
        return obj
    if finite and isinstance(obj, float) and not math.isfinite(obj):
        found.append("null" if math.isnan(obj) else "1e999" if obj > 0 else "-1e999")
        return f"{nonce}{len(found) - 1}\x00"
    if isinstance(obj, dict):
        return {_key(k): _mark(v, nonce, found, finite) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_mark(v, nonce, found, finite) for v in obj]
    return obj


def has_nonfinite(obj: Any) -> bool:
    """Whether a float in ``obj`` (dicts, lists, tuples, at any depth) is ``±inf`` or NaN.

    >>> has_nonfinite({"a": [1.5, {"b": float("inf")}]}), has_nonfinite([1, "inf"])
    (True, False)
    """
    stack = [obj]
    while stack:
        value = stack.pop()
        if isinstance(value, float):
            if not math.isfinite(value):
                return True
        elif isinstance(value, dict):
            stack.extend(value.values())
        elif isinstance(value, (list, tuple)):
            stack.extend(value)
    return False


def _key(key: Any) -> Any:
    return int_text(key) if isinstance(key, int) and not isinstance(key, bool) else key


def loads_pairs(text: str) -> Any:
    """Decode strict JSON with every object as a list of ``(key, value)`` pairs (duplicate keys kept).

    Raises:
        DecodeError: the text is not strict JSON, or is nested too deeply.

    >>> loads_pairs('{"a": 1, "a": {"b": 2}}')
    [('a', 1), ('a', [('b', 2)])]
    """
    check_nesting(text)
    try:
        return json.loads(text, parse_constant=_reject_constant, parse_int=parse_int, object_pairs_hook=list)
    except json.JSONDecodeError as exc:
        raise DecodeError(exc.msg, exc.pos) from exc
    except ValueError as exc:
        raise DecodeError(str(exc), -1) from exc
    except RecursionError as exc:
        raise DecodeError("JSON nested too deeply", -1) from exc


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
    if text.count("[") + text.count("{") > MAX_NESTING:
        return loads_or_none(text)  # maybe too deep: the same answer as `loads_or_none`
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return loads_or_none(text)  # lone surrogates: the same answer as `loads_or_none`


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def dumps_spaced(obj: Any) -> str:
    """Python ``json.dumps`` defaults with ``ensure_ascii=False``: the transformers ``tojson`` output.

    >>> dumps_spaced({"city": "Zürich", "n": [1, 2]})
    '{"city": "Zürich", "n": [1, 2]}'
    """
    return _dump(obj, None)


def dumps_compact(obj: Any) -> str:
    """Compact ``,``/``:`` separators, raw non-ASCII, insertion order (omp's ``JSON.stringify``).

    >>> dumps_compact({"a": "ü", "b": [1, 2]})
    '{"a":"ü","b":[1,2]}'
    """
    return _dump(obj, (",", ":"))


def dumps_report(obj: Any, *, spaced: bool = False) -> str:
    """Valid JSON for a report whatever ``obj`` holds: exact integers, ``±inf`` as ``±1e999``, NaN as ``null``.

    Args:
        obj: JSON-ready data (dicts, lists, strings, numbers, booleans, None).
        spaced: ``", "``/``": "`` separators (``dumps_spaced``), else compact (orjson when it can).

    >>> dumps_report({"v": float("inf"), "w": [float("-inf")]})
    '{"v":1e999,"w":[-1e999]}'
    >>> dumps_report({"v": 1.5}, spaced=True)
    '{"v": 1.5}'
    """
    if spaced:
        return _dump(obj, None, finite=True)
    try:
        text = orjson.dumps(obj).decode("utf-8")
    except (TypeError, orjson.JSONEncodeError):
        return _dump(obj, (",", ":"), finite=True)
    if "null" in text and has_nonfinite(obj):  # orjson writes a non-finite float as null
        return _dump(obj, (",", ":"), finite=True)
    return text


def dumps_pretty(obj: Any) -> str:
    """JSON for a reader: two-space indents, raw non-ASCII, exact integers, ``±inf`` as ``±1e999``.

    A value nested too deeply for ``json`` comes back compact (``dumps_report``), or as a note saying so.

    >>> print(dumps_pretty({"city": "Zürich", "days": [1, 2]}))
    {
      "city": "Zürich",
      "days": [
        1,
        2
      ]
    }
    """
    try:
        return _dump(obj, None, finite=True, indent=2)
    except (RecursionError, ValueError, TypeError):
        try:
            return dumps_report(obj)
        except (RecursionError, ValueError, TypeError):
            return "(a value nested too deeply to show)"


#: orjson refuses these instead of writing them its own way (``dumps_native``)
_NATIVE_ONLY = orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_SUBCLASS


def dumps_native(obj: Any) -> str | None:
    """Compact JSON via orjson, or None where orjson refuses the value or would write it by its own reading of
    a type (dataclasses, dates, subclasses of str/int/dict/list; UUIDs and ``Enum`` members it still writes:
    the caller compares). Integers beyond 64 bits, lone surrogates, keys that are not strings: None.

    >>> dumps_native({"a": [1, "x"]}), dumps_native({1: 2})
    ('{"a":[1,"x"]}', None)
    """
    try:
        return orjson.dumps(obj, option=_NATIVE_ONLY).decode("utf-8")
    except (TypeError, orjson.JSONEncodeError):
        return None


def dumps_fast(obj: Any) -> str:
    """Compact JSON via orjson (falls back to ``dumps_compact`` for values orjson rejects)."""
    try:
        return orjson.dumps(obj).decode("utf-8")
    except (TypeError, orjson.JSONEncodeError):
        return dumps_compact(obj)
