"""A tolerant, position-aware reader for the near-JSON that models write (never ``eval``).

It accepts strict JSON plus exactly these named deviations, each recorded as a `Recovery` with the
catalogue code and the span where it applied:

- ``HT202`` Python literals: single-quoted strings (with Python escape semantics: ``\\'``, ``\\xNN``,
  ``\\uNNNN``, ``\\UNNNNNNNN``, octal, line continuation; an unknown escape keeps its backslash),
  ``True``/``False``/``None``, and Python-only escapes (``\\'``, ``\\x``, ``\\U``, ``\\a``, ``\\v``, octal)
  inside double-quoted strings.
- ``HT203`` one trailing comma before ``}`` or ``]``.
- ``HT204`` raw control characters (U+0000-U+001F) inside strings, kept as themselves.
- ``HT208`` several top-level objects/arrays one after another, separated by nothing, ws, ``,`` or ``;``.

Apostrophes follow Python ``repr`` exactly: inside a single-quoted string an apostrophe must be escaped
(``'it\\'s'``) and an unescaped ``'`` always ends the string; ``repr`` writes ``"it's"`` (double quotes)
when it can, and that form is read as-is. A double-quoted string always ends at the first unescaped
``"``. Everything else (unquoted keys, comments, NaN, bare words) is an error with its position; an
error at the end of the input is marked ``truncated`` (the text could still become valid).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ._jsonio import MAX_NESTING, parse_int
from .errors import DecodeError

__all__ = [
    "CONCATENATED",
    "CONTROL_CHARACTERS",
    "PYTHON_LITERAL",
    "TRAILING_COMMA",
    "LenientError",
    "LenientResult",
    "Member",
    "Recovery",
    "TopValue",
    "loads_lenient",
    "scan",
]

PYTHON_LITERAL = "HT202"
TRAILING_COMMA = "HT203"
CONTROL_CHARACTERS = "HT204"
CONCATENATED = "HT208"

#: The tolerant reader's depth (it recurses); strict JSON is read up to ``jsonio.MAX_NESTING`` levels.
MAX_DEPTH = 200
_TOO_DEEP = f"nesting deeper than {MAX_DEPTH} levels (only strict JSON is read deeper, up to {MAX_NESTING})"
_INF = float("inf")
_WS = " \t\n\r"

_WS_RE = re.compile(r"[ \t\n\r]*")
_DQ_CHUNK = re.compile(r'[^"\\\x00-\x1f]*')
_SQ_CHUNK = re.compile(r"[^'\\\x00-\x1f]*")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_NUMBER_PREFIX = re.compile(r"-?(?:(?:0|[1-9][0-9]*)(?:\.[0-9]*)?(?:[eE][+-]?[0-9]*)?)?")
_SIMPLE_DQ = re.compile(r'"([^"\\\x00-\x1f]*)"')
_SIMPLE_SQ = re.compile(r"'([^'\\\x00-\x1f]*)'")
_SIMPLE_KEY = re.compile(r"""(?:"([^"\\\x00-\x1f]*)"|'([^'\\\x00-\x1f]*)')[ \t\n\r]*:[ \t\n\r]*""")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_HEX4 = re.compile(r"[0-9a-fA-F]{4}")
_JSON_WORDS: dict[str, Any] = {"true": True, "false": False, "null": None}
_PY_WORDS: dict[str, Any] = {"True": True, "False": False, "None": None}
_ALL_WORDS = (*_JSON_WORDS, *_PY_WORDS)
_SIMPLE_ESCAPES = {'"': '"', "\\": "\\", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_PY_ONLY_ESCAPES = {"'": "'", "a": "\x07", "v": "\x0b", "\n": ""}
_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")
_OCTAL = frozenset("01234567")


@dataclass(frozen=True, slots=True, kw_only=True)
class Recovery:
    """One tolerated deviation from JSON: its catalogue code and where it applied."""

    code: str
    start: int
    end: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Member:
    """One member of a call-level object, with the spans of its key and value."""

    key: str
    key_start: int
    key_end: int
    value_start: int
    value_end: int


@dataclass(frozen=True, slots=True, kw_only=True)
class TopValue:
    """A top-level value with its span; objects carry their members, arrays their elements."""

    value: Any
    start: int
    end: int
    members: tuple[Member, ...] = ()
    elements: tuple[TopValue, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class LenientError:
    """Why the text could not be read: message, offset, and whether the input merely ended too soon."""

    message: str
    position: int
    truncated: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class LenientResult:
    """The outcome of `scan`: values and recoveries on success, else ``error``.

    ``first_name`` is the first string ``name`` member completed in a call-level object (a top-level
    object or an object element of a top-level array), also when the scan failed later.
    """

    values: tuple[TopValue, ...]
    recoveries: tuple[Recovery, ...]
    error: LenientError | None
    first_name: str | None


class _Fail(Exception):
    def __init__(self, message: str, position: int, truncated: bool) -> None:
        super().__init__(message)
        self.message = message
        self.position = position
        self.truncated = truncated


class _Reader:
    """Recursive-descent reader over ``text[pos:end]``."""

    __slots__ = ("end", "first_name", "pos", "recoveries", "text")

    def __init__(self, text: str, start: int, end: int) -> None:
        self.text = text
        self.pos = start
        self.end = end
        self.recoveries: list[tuple[str, int, int]] = []
        self.first_name: str | None = None

    # -- helpers ---------------------------------------------------------------------------
    def _ws(self) -> None:
        pos = self.pos
        if pos < self.end and self.text[pos] in _WS:
            self.pos = _WS_RE.match(self.text, pos, self.end).end()  # type: ignore[union-attr]

    def _peek(self) -> str:
        return self.text[self.pos] if self.pos < self.end else ""

    def _fail(self, message: str, position: int | None = None, *, truncated: bool = False) -> _Fail:
        return _Fail(message, self.pos if position is None else position, truncated)

    def _eof(self, what: str) -> _Fail:
        return _Fail(f"unexpected end of input: {what}", self.end, True)

    def _recover(self, code: str, start: int, end: int) -> None:
        self.recoveries.append((code, start, end))

    # -- top level -------------------------------------------------------------------------
    def run(self, multiple: bool, prefix: bool) -> tuple[TopValue, ...]:
        self._ws()
        if self.pos >= self.end:
            raise self._eof("expected a JSON value")
        values = [self._top()]
        while not prefix:
            self._ws()
            if self.pos >= self.end:
                return tuple(values)
            after = self.pos
            if not multiple:
                raise self._fail("unexpected text after the JSON value")
            while self.pos < self.end and self.text[self.pos] in ",;" + _WS:
                self.pos += 1
            if self.pos >= self.end:
                raise self._eof("expected another value after the separator")
            if self.text[self.pos] not in "{[":
                raise self._fail("unexpected text after the JSON value", after)
            top = self._top()
            self._recover(CONCATENATED, top.start, top.end)
            values.append(top)
        return tuple(values)

    def _top(self) -> TopValue:
        start = self.pos
        c = self._peek()
        if c == "{":
            value, members = self._object(1, record=True)
            return TopValue(value=value, start=start, end=self.pos, members=tuple(members))
        if c == "[":
            return self._top_array(start)
        value = self._value(1)
        return TopValue(value=value, start=start, end=self.pos)

    def _top_array(self, start: int) -> TopValue:
        self.pos += 1
        elements: list[TopValue] = []
        self._ws()
        if self._peek() == "]":
            self.pos += 1
            return TopValue(value=[], start=start, end=self.pos)
        while True:
            self._ws()
            el_start = self.pos
            if self._peek() == "{":
                value, members = self._object(2, record=True)
                elements.append(TopValue(value=value, start=el_start, end=self.pos, members=tuple(members)))
            else:
                value = self._value(2)
                elements.append(TopValue(value=value, start=el_start, end=self.pos))
            if self._after_element("]"):
                break
        return TopValue(value=[e.value for e in elements], start=start, end=self.pos, elements=tuple(elements))

    # -- containers ------------------------------------------------------------------------
    def _after_element(self, closer: str) -> bool:
        """After a member/element: consume ``,`` (True if the container then closes) or the closer."""
        self._ws()
        c = self._peek()
        what = "object member" if closer == "}" else "array element"
        if not c:
            raise self._eof(f"expected ',' or '{closer}' after {what}")
        if c == closer:
            self.pos += 1
            return True
        if c != ",":
            raise self._fail(f"expected ',' or '{closer}' after {what}")
        comma = self.pos
        self.pos += 1
        self._ws()
        if self._peek() == closer:
            self._recover(TRAILING_COMMA, comma, comma + 1)
            self.pos += 1
            return True
        return False

    def _object(self, depth: int, *, record: bool = False) -> tuple[dict[str, Any], list[Member]]:
        if depth > MAX_DEPTH:
            raise self._fail(_TOO_DEEP)
        self.pos += 1
        obj: dict[str, Any] = {}
        members: list[Member] = []
        self._ws()
        if self._peek() == "}":
            self.pos += 1
            return obj, members
        text = self.text
        while True:
            self._ws()
            key_start = self.pos
            m = _SIMPLE_KEY.match(text, key_start, self.end)
            if m is not None:  # a key without escapes, its colon and the ws around it, in one match
                if m.group(1) is not None:
                    key, key_end = m.group(1), m.end(1) + 1
                else:
                    key, key_end = m.group(2), m.end(2) + 1
                    self._recover(PYTHON_LITERAL, key_start, key_end)
                self.pos = value_start = m.end()
            else:
                key, key_end, value_start = self._slow_key(key_start)
            value = self._value(depth + 1)
            obj[key] = value
            if record:
                members.append(
                    Member(key=key, key_start=key_start, key_end=key_end, value_start=value_start, value_end=self.pos)
                )
                if key == "name" and isinstance(value, str) and value and self.first_name is None:
                    self.first_name = value
            if self._after_element("}"):
                return obj, members

    def _slow_key(self, key_start: int) -> tuple[str, int, int]:
        """Read a key with escapes (or report what is wrong), then its colon; return key, key end, value start."""
        c = self._peek()
        if c == '"':
            key = self._dq_string()
        elif c == "'":
            key = self._sq_string()
        elif not c:
            raise self._eof("expected a string key")
        else:
            raise self._fail("expected a string key in double quotes")
        key_end = self.pos
        self._ws()
        c = self._peek()
        if c != ":":
            if not c:
                raise self._eof("expected ':' after object key")
            raise self._fail("expected ':' after object key")
        self.pos += 1
        self._ws()
        return key, key_end, self.pos

    def _array(self, depth: int) -> list[Any]:
        if depth > MAX_DEPTH:
            raise self._fail(_TOO_DEEP)
        self.pos += 1
        out: list[Any] = []
        self._ws()
        if self._peek() == "]":
            self.pos += 1
            return out
        while True:
            self._ws()
            out.append(self._value(depth + 1))
            if self._after_element("]"):
                return out

    # -- scalars ---------------------------------------------------------------------------
    def _value(self, depth: int) -> Any:
        c = self._peek()
        if c == "{":
            return self._object(depth)[0]
        if c == "[":
            return self._array(depth)
        if c == '"':
            return self._dq_string()
        if c == "'":
            return self._sq_string()
        if c == "-" or c.isdigit():
            return self._number()
        if not c:
            raise self._eof("expected a value")
        m = _WORD.match(self.text, self.pos, self.end)
        if m is None:
            raise self._fail(f"unexpected character {c!r}")
        word = m.group()
        if word in _JSON_WORDS:
            self.pos = m.end()
            return _JSON_WORDS[word]
        if word in _PY_WORDS:
            self._recover(PYTHON_LITERAL, m.start(), m.end())
            self.pos = m.end()
            return _PY_WORDS[word]
        if m.end() == self.end and any(w.startswith(word) for w in _ALL_WORDS):
            raise self._eof(f"incomplete literal {word!r}")
        raise self._fail(f"unexpected word {word!r} (not a JSON value)")

    def _number(self) -> Any:
        start = self.pos
        m = _NUMBER.match(self.text, start, self.end)
        partial = _NUMBER_PREFIX.fullmatch(self.text, start, self.end)
        if m is None:
            if partial is not None:
                raise self._eof("incomplete number")
            raise self._fail("invalid number")
        if m.end() < self.end and partial is not None:
            raise self._eof("incomplete number")
        self.pos = m.end()
        s = m.group()
        if "." in s or "e" in s or "E" in s:
            value = float(s)
            if value in (_INF, -_INF):
                raise self._fail("number out of range", start)
            return value
        return parse_int(s)

    def _dq_string(self) -> str:
        text, end = self.text, self.end
        m = _SIMPLE_DQ.match(text, self.pos, end)
        if m is not None:
            self.pos = m.end()
            return m.group(1)
        pos = self.pos + 1
        parts: list[str] = []
        while True:
            m = _DQ_CHUNK.match(text, pos, end)
            assert m is not None  # the pattern matches the empty string
            parts.append(m.group())
            pos = m.end()
            if pos >= end:
                raise self._eof("unterminated string")
            c = text[pos]
            if c == '"':
                self.pos = pos + 1
                return "".join(parts)
            if c == "\\":
                pos = self._escape(pos, parts, python=False)
            else:
                pos = self._control(pos, parts)

    def _sq_string(self) -> str:
        text, end = self.text, self.end
        start = self.pos
        m = _SIMPLE_SQ.match(text, start, end)
        if m is not None:
            self.pos = m.end()
            self._recover(PYTHON_LITERAL, start, self.pos)
            return m.group(1)
        pos = start + 1
        parts: list[str] = []
        while True:
            m = _SQ_CHUNK.match(text, pos, end)
            assert m is not None
            parts.append(m.group())
            pos = m.end()
            if pos >= end:
                raise self._eof("unterminated string")
            c = text[pos]
            if c == "'":
                self.pos = pos + 1
                self._recover(PYTHON_LITERAL, start, self.pos)
                return "".join(parts)
            if c == "\\":
                pos = self._escape(pos, parts, python=True)
            else:
                pos = self._control(pos, parts)

    def _control(self, pos: int, parts: list[str]) -> int:
        """A raw control character at ``pos``, kept (``HT204``); a CRLF line end is one, spanning both."""
        text = self.text
        n = 2 if text[pos] == "\r" and text.startswith("\n", pos + 1) and pos + 1 < self.end else 1
        self._recover(CONTROL_CHARACTERS, pos, pos + n)
        parts.append(text[pos : pos + n])
        return pos + n

    def _escape(self, pos: int, parts: list[str], *, python: bool) -> int:
        """Decode the escape whose backslash is at ``pos``; return the position after it."""
        text, end = self.text, self.end
        if pos + 1 >= end:
            raise self._eof("unterminated escape")
        e = text[pos + 1]
        if e in _SIMPLE_ESCAPES:
            parts.append(_SIMPLE_ESCAPES[e])
            return pos + 2
        if e == "/":
            parts.append("\\/" if python else "/")
            return pos + 2
        if e == "u":
            code = self._hex_digits(pos, 4)
            nxt = pos + 6
            if not python and 0xD800 <= code < 0xDC00 and text.startswith("\\u", nxt) and nxt + 6 <= end:
                low_digits = text[nxt + 2 : nxt + 6]
                if _HEX4.fullmatch(low_digits) and 0xDC00 <= int(low_digits, 16) < 0xE000:
                    low = int(low_digits, 16)
                    parts.append(chr(0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)))
                    return nxt + 6
            parts.append(chr(code))
            return nxt
        # Python-only escapes from here on
        if e in _PY_ONLY_ESCAPES:
            value, after = _PY_ONLY_ESCAPES[e], pos + 2
        elif e == "x":
            value, after = chr(self._hex_digits(pos, 2)), pos + 4
        elif e == "U":
            code = self._hex_digits(pos, 8)
            if code > 0x10FFFF:
                raise self._fail("invalid escape: code point above U+10FFFF", pos)
            value, after = chr(code), pos + 10
        elif e in _OCTAL:
            stop = pos + 1
            while stop < min(pos + 4, end) and text[stop] in _OCTAL:
                stop += 1
            value, after = chr(int(text[pos + 1 : stop], 8)), stop
        elif python:
            value, after = "\\" + e, pos + 2  # Python keeps unknown escapes as written
        else:
            raise self._fail(f"invalid escape '\\{e}' in string", pos)
        if not python:
            self._recover(PYTHON_LITERAL, pos, after)
        parts.append(value)
        return after

    def _hex_digits(self, pos: int, count: int) -> int:
        """The value of the ``count`` hex digits after the escape letter (backslash at ``pos``)."""
        first = pos + 2
        digits = self.text[first : min(first + count, self.end)]
        for i, ch in enumerate(digits):
            if ch not in _HEX_DIGITS:
                raise self._fail("invalid escape: expected hex digits", first + i)
        if len(digits) < count:
            raise self._eof("unterminated escape")
        return int(digits, 16)


def scan(
    text: str, start: int = 0, end: int | None = None, *, multiple: bool = True, prefix: bool = False
) -> LenientResult:
    """Read ``text[start:end]`` tolerantly; never raises.

    Args:
        text: the whole text (offsets in the result refer to it).
        start: where to begin reading.
        end: where to stop (default: the end of ``text``).
        multiple: accept several top-level objects/arrays (``HT208``); otherwise trailing text is an error.
        prefix: read one value and stop there (``raw_decode`` semantics: the value's ``end`` tells where).

    Returns:
        A `LenientResult`: top-level values with spans, recoveries in position order (all occurrences),
        or an error with its position.

    >>> r = scan("{'name': 'f', 'arguments': {'ok': True,}}")
    >>> r.values[0].value, sorted({x.code for x in r.recoveries})
    ({'name': 'f', 'arguments': {'ok': True}}, ['HT202', 'HT203'])
    """
    stop = len(text) if end is None else end
    reader = _Reader(text, start, stop)
    try:
        values = reader.run(multiple, prefix)
    except _Fail as exc:
        err = LenientError(message=exc.message, position=exc.position, truncated=exc.truncated)
        return LenientResult(values=(), recoveries=(), error=err, first_name=reader.first_name)
    except RecursionError:
        err = LenientError(message="nesting too deep", position=reader.pos, truncated=False)
        return LenientResult(values=(), recoveries=(), error=err, first_name=reader.first_name)
    recoveries = tuple(Recovery(code=c, start=s, end=e) for c, s, e in sorted(reader.recoveries, key=lambda r: r[1]))
    return LenientResult(values=values, recoveries=recoveries, error=None, first_name=reader.first_name)


def loads_lenient(text: str) -> Any:
    """Decode one value tolerantly (strict JSON plus the recoveries of this module).

    Raises:
        DecodeError: the text is not readable, with the offset of the problem.

    >>> loads_lenient("{'city': 'Zürich', 'metric': True, 'tags': ['a', 'b',],}")
    {'city': 'Zürich', 'metric': True, 'tags': ['a', 'b']}
    """
    result = scan(text, multiple=False)
    if result.error is not None:
        raise DecodeError(result.error.message, result.error.position)
    return result.values[0].value
