"""Find where a JSON value lies in its source text, so dataset diagnostics point at a line:column.

Only used for the few records that have findings; the scans jump between structural characters with
regular expressions, so a long line costs its strings and brackets, not its characters.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["JsonPath", "locate", "string_offset"]

JsonPath = tuple[str | int, ...]

_WS = re.compile(r"[ \t\r\n]*")
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)  # a JSON string token (escapes as written)
_SCALAR = re.compile(r"[^\s,\]\}:]+")
_STRUCTURE = re.compile(r'["{}\[\]]')  # what a container's scan stops at: a string, an opener, a closer
_PLAIN = re.compile(r'[^"\\]*')  # a run of string characters that are one character each when decoded


def _skip_ws(text: str, i: int) -> int:
    m = _WS.match(text, i)
    return m.end() if m else i


def _value_end(text: str, i: int) -> int:
    """End offset of the JSON value starting at ``i`` (which is not whitespace); -1 when malformed."""
    if i >= len(text):
        return -1
    c = text[i]
    if c == '"':
        m = _STRING.match(text, i)
        return m.end() if m else -1
    if c in "{[":
        depth = 0
        j = i
        search, string = _STRUCTURE.search, _STRING.match
        while (m := search(text, j)) is not None:  # jump from one structural character to the next
            j = m.start()
            ch = text[j]
            if ch == '"':
                m = string(text, j)
                if not m:
                    return -1
                j = m.end()
                continue
            if ch in "{[":
                depth += 1
            else:
                depth -= 1
                if depth == 0:
                    return j + 1
            j += 1
        return -1
    m = _SCALAR.match(text, i)
    return m.end() if m else -1


def _child(text: str, start: int, key: str | int, single: bool = False) -> int:
    """Start offset of the member ``key`` of the container at ``start``; -1 when absent.

    A key that occurs more than once is found at its last occurrence: the one a JSON decoder keeps
    (last wins, in ``json`` and orjson as in the tolerant reader), so a position points at the value
    that was read, never at one the parse discarded. ``single``: ``key`` is written once in the whole
    text of a valid document (``_single``), so its first occurrence is its last: found, the scan stops.
    """
    opener = text[start]
    i = _skip_ws(text, start + 1)
    index = 0
    found = -1
    while i < len(text) and text[i] not in "}]":
        if opener == "{":
            m = _STRING.match(text, i)
            if not m:
                return -1
            name = _decode_key(m.group())
            i = _skip_ws(text, m.end())
            if i >= len(text) or text[i] != ":":
                return -1
            i = _skip_ws(text, i + 1)
            if name == key:
                if single:
                    return i
                found = i
        elif index == key:
            return i
        end = _value_end(text, i)
        if end < 0:
            return found
        i = _skip_ws(text, end)
        if i < len(text) and text[i] == ",":
            i = _skip_ws(text, i + 1)
        index += 1
    return found


def _single(text: str, key: str) -> bool:
    """Whether the object key ``key`` occurs at most once in the JSON ``text``: it can be written only as
    ``"key"`` there (no ``\\u`` escape in the text, no ``\\/`` when the key holds a ``/``, and no
    character in the key that would need an escape), and that is written once (in any place: a string
    value holding it only makes the count larger, never smaller).

    >>> _single('{"a": 1, "b": "x"}', "a"), _single('{"a": 1, "b": "a"}', "a"), _single('{"a": 1, "a": 2}', "a")
    (True, False, False)
    """
    if "\\u" in text or ('"' in key or "\\" in key) or ("/" in key and "\\/" in text):
        return False
    if not key.isprintable() and any(ord(c) < 0x20 for c in key):
        return False
    return text.count(f'"{key}"') == 1


def _decode_key(token: str) -> str:
    if "\\" not in token:
        return token[1:-1]
    from ._jsonio import loads_or_none

    value = loads_or_none(token)
    return value if isinstance(value, str) else token[1:-1]


def locate(text: str, path: Sequence[str | int], *, valid: bool = False) -> tuple[int, int] | None:
    """The ``[start, end)`` offsets of the value at ``path`` in the JSON ``text``, or None.

    Args:
        text: a JSON document (one JSONL line).
        path: object keys and array indices from the root.
        valid: ``text`` is known to be a valid JSON document (it was decoded): a key written once in
            it is not looked for past its member (``_single``), the same offsets in a fraction of the
            scan (a record's ``messages`` found without walking the messages and the tools after them).

    Returns:
        The raw offsets of the value (quotes included for a string), or None when not found.

    >>> locate('{"a": [1, {"b": "x"}]}', ("a", 1, "b"))
    (16, 19)
    >>> locate('{"s": 1, "s": 2}', ("s",))  # a repeated key: the value a decoder keeps (the last)
    (14, 15)
    """
    i = _skip_ws(text, 0)
    for key in path:
        if i >= len(text) or text[i] not in "{[":
            return None
        if (text[i] == "{") != isinstance(key, str):
            return None
        single = valid and isinstance(key, str) and _single(text, key)
        i = _child(text, i, key, single)
        if i < 0:
            return None
    end = _value_end(text, i)
    return None if end < 0 else (i, end)


def string_offset(text: str, start: int, decoded: int) -> int:
    """Raw offset in ``text`` of character ``decoded`` of the JSON string token at ``start``.

    Escapes (``\\n``, ``\\"``, ``\\u00e9``, surrogate pairs) count as one decoded character each.

    >>> string_offset('"a\\\\nb"', 0, 2)
    4
    """
    i = start + 1
    n = len(text)
    count = 0
    plain = _PLAIN.match
    while i < n and count < decoded:
        run = m.end() - i if (m := plain(text, i)) else 0  # characters without a quote or backslash: one each
        if run:
            step = min(run, decoded - count)
            i += step
            count += step
            continue
        ch = text[i]
        if ch == '"':
            break
        if ch == "\\" and i + 1 < n:
            if text[i + 1] == "u":
                code = text[i + 2 : i + 6]
                i += 6
                if code.lower().startswith("d8") or code.lower()[:2] in ("d9", "da", "db"):
                    if text[i : i + 2] == "\\u":
                        i += 6  # the low surrogate: one decoded character with its high half
            else:
                i += 2
        else:
            i += 1
        count += 1
    return i
