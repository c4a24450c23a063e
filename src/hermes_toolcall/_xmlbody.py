"""Decoding XML call bodies (``<function=NAME>`` … ``</function>``), the one module both engines call.

Qwen3-Coder, Qwen3.5+, Nemotron 3 and Step 3.5 write a call as::

    <tool_call>
    <function=get_weather>
    <parameter=city>
    Paris
    </parameter>
    </function>
    </tool_call>

``decode_xml_body`` turns the text between the ``<tool_call>`` tags (or a bare function, without
them) into calls or a failure code, exactly as ``_body.decode_call_body`` does for JSON bodies and
with the same value types (``CallBody``, ``DecodedCall``, ``BodyIssue``; issue offsets relative to
the text passed in). It is pure and never raises. Values are typed by the tool's schema
(``_xmltypes``). docs/parsing.md §8.2 is the contract; in short:

- The value of a parameter is the text between ``<parameter=KEY>`` and its closer, less one
  leading and one trailing newline (the templates write ``>\\n`` and ``\\n</``; ``\\r\\n`` and ``\\r``
  count as a newline, the trailing one of the same kind as the leading one); everything else,
  whitespace, ``&``, ``<``, ``>`` included, is kept exactly.
- **A closer counts only where the grammar allows one.** Inside a value, ``</parameter>`` (or a
  drifted ``</parameter1>``, ``</parameter_x>``, a bare ``</parameter``) ends it only when what
  follows, after whitespace, is ``<parameter=``, ``</parameter``, ``</function>``, ``<function=``,
  ``</tool_call>``, ``<tool_call>``, a control token or the end (``AFTER_PARAMETER``); a ``</function>``
  ends a value that was never closed only when ``<function=``, ``</tool_call>``, ``<tool_call>``, a
  control token or the end follows (``AFTER_FUNCTION``); a ``<parameter=`` that starts a line ends
  a value that was never closed. Any other closer-like text is value text (``HT243``, info), so
  code that contains these strings survives.
- Between parameters only whitespace is expected; ``</tool_call>`` may follow ``</function>``.

The recoveries (lenient: a warning, and the reading below; strict: the block is not a call, with
the code) are ``HT230`` (``</parameter>`` missing), ``HT231`` (drifted closer), ``HT232``
(``<function=NAME`` or ``<parameter=KEY`` without ``>``: the name ends at the line end),
``HT233`` (``</function>`` missing before ``</tool_call>`` or the next ``<function=``), ``HT235``
(a closer with nothing open: dropped), ``HT236`` (text outside any parameter: ignored), ``HT237``
(several functions in one block: each a call) and ``HT240`` (an object or array value written as a
Python literal). ``HT239`` (a value no allowed type reads: kept as the string) and ``HT241`` (a
parameter given twice: ``arguments`` holds the last value, ``arguments_json`` both) are warnings in
both modes. A body that stops inside a function (no ``</function>`` and no ``</tool_call>``) was
cut off: ``HT102``, never a call. A function with an empty name is ``HT104``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from . import _jsonio as jsonio
from ._body import BodyIssue, CallBody, DecodedCall
from ._diagnostics import CATALOGUE
from ._xmltypes import parameter_schema, type_value
from .tags import (
    CALL_CLOSE,
    CALL_OPEN,
    CONTROL,
    FUNCTION_CLOSE,
    FUNCTION_OPEN,
    PARAMETER_CLOSE,
    PARAMETER_OPEN,
)

__all__ = [
    "AFTER_FUNCTION",
    "AFTER_PARAMETER",
    "CLOSER_PATTERN",
    "BodyKind",
    "body_kind",
    "decode_xml_body",
    "value_text",
]

BodyKind = Literal["json", "xml", "plain"]

_WS = " \t\n\r"
_FN_OPEN, _FN_CLOSE = len(FUNCTION_OPEN), len(FUNCTION_CLOSE)
_P_OPEN, _P_CLOSE = len(PARAMETER_OPEN), len(PARAMETER_CLOSE)
_STEM = PARAMETER_CLOSE[:-1]  # "</parameter"


def _alternation(literals: tuple[str, ...]) -> str:
    return "|".join(re.escape(t) for t in literals)


#: a parameter closer: ``</parameter>``, a drifted ``</parameter1>`` / ``</parameter_x>``, or a bare
#: ``</parameter`` (not followed by ``>`` or a name character: ``</parameters>`` is not a closer)
CLOSER_PATTERN = re.escape(_STEM) + r"(?:>|[0-9_-][A-Za-z0-9_-]*>|(?![A-Za-z0-9_>-]))"
_ENDS = _alternation((CALL_CLOSE, CALL_OPEN, *CONTROL)) + r"|\Z"
#: what may follow a parameter closer inside a value (after whitespace) for it to count
AFTER_PARAMETER = (
    r"[ \t\n\r]*+(?:"
    + _alternation((PARAMETER_OPEN, FUNCTION_CLOSE, FUNCTION_OPEN))
    + "|"
    + CLOSER_PATTERN
    + "|"
    + _ENDS
    + ")"
)
#: what may follow a ``</function>`` inside a value that was never closed, for it to end the value
AFTER_FUNCTION = r"[ \t\n\r]*+(?:" + re.escape(FUNCTION_OPEN) + "|" + _ENDS + ")"

_CLOSER = re.compile(CLOSER_PATTERN)
_AFTER_PARAMETER = re.compile(AFTER_PARAMETER)
_AFTER_FUNCTION = re.compile(AFTER_FUNCTION)
# inside a value: the places where it may end
_VALUE_STOP = re.compile(re.escape(_STEM) + "|" + re.escape(FUNCTION_CLOSE) + "|[\r\n]" + re.escape(PARAMETER_OPEN))
_NAME_END = re.compile(r"[>\r\n<]")
_NOT_WS = re.compile(r"[^ \t\n\r]")
# the tokens read between parameters (anything else is stray text)
_FN_TOKENS = (PARAMETER_OPEN, FUNCTION_CLOSE, FUNCTION_OPEN)


def body_kind(inner: str) -> BodyKind:
    """What a ``<tool_call>`` body is, by what it starts with: ``{``/``[`` JSON, ``<function=`` XML, else plain.

    >>> body_kind(' {"name": "f"}'), body_kind("\\n<function=f>\\n</function>\\n"), body_kind("f(1)")
    ('json', 'xml', 'plain')
    """
    m = _NOT_WS.search(inner)
    if m is None:
        return "plain"
    c = inner[m.start()]
    if c == "{" or c == "[":
        return "json"
    return "xml" if inner.startswith(FUNCTION_OPEN, m.start()) else "plain"


def value_text(raw: str) -> str:
    """A parameter's value: ``raw`` less one leading newline and one trailing newline of the same kind.

    A newline is ``\\r\\n``, ``\\n`` or ``\\r``; without a leading one, a trailing ``\\n`` is removed.

    >>> value_text("\\nParis\\n"), value_text("\\n\\n"), value_text("\\n  x \\n\\n"), value_text("5")
    ('Paris', '', '  x \\n', '5')
    """
    nl = "\r\n" if raw.startswith("\r\n") else raw[:1] if raw[:1] in ("\n", "\r") else ""
    text = raw[len(nl) :]
    tail = nl or "\n"
    return text[: -len(tail)] if text.endswith(tail) else text


@dataclass(slots=True)
class _Function:
    name: str
    start: int
    arguments: dict[str, Any] = field(default_factory=dict)
    parts: list[str] = field(default_factory=list)


class _Stop(Exception):
    """The body fails (strict mode met a recovery, or a failure code)."""


class _Decoder:
    """One pass over an XML body: functions, parameters, values, and the issues in position order."""

    def __init__(self, inner: str, *, strict: bool, tools: Mapping[str, Any] | None) -> None:
        self.s = inner
        self.n = len(inner)
        self.strict = strict
        self.tools = tools
        self.pos = 0
        self.issues: list[BodyIssue] = []
        self.failure: str | None = None
        self.functions: list[_Function] = []
        self.last_key = ""
        self.closed = True

    # ------------------------------------------------------------------ issues
    def emit(self, code: str, message: str, start: int, end: int, *, action: str = "") -> None:
        """Record an issue; a recoverable code fails the body in strict mode, an error code always."""
        kind = CATALOGUE[code].kind
        if kind == "recoverable":
            message += "; not recovered in strict mode" if self.strict else f"; {action}"
        self.issues.append(BodyIssue(code=code, message=message, start=start, end=end, hint=CATALOGUE[code].fix))
        if kind == "error" or (kind == "recoverable" and self.strict):
            self.failure = code
            raise _Stop

    # ------------------------------------------------------------------ reading
    def skip_ws(self) -> None:
        m = _NOT_WS.search(self.s, self.pos)
        self.pos = m.start() if m else self.n

    def name_at(self, start: int, tag: str) -> tuple[str, int]:
        """The name after ``<function=`` / ``<parameter=`` at ``start``: (name, where its content starts)."""
        s = self.s
        m = _NAME_END.search(s, start)
        end = m.start() if m else self.n
        if m is not None and s[end] == ">":
            return s[start:end], end + 1
        if m is None and not self.closed:
            return s[start:end], end  # the body was cut off here (HT102 follows)
        what = "the function name" if tag == FUNCTION_OPEN else "the parameter name"
        self.emit(
            "HT232",
            f"{tag}{s[start:end]} has no '>'",
            start - len(tag),
            end,
            action=f"{what} ends at the end of the line",
        )
        return s[start:end].rstrip(" \t"), end

    def run(self, closed: bool) -> None:
        s = self.s
        self.closed = closed
        self.skip_ws()
        while True:  # at "<function="
            fn_start = self.pos
            name, self.pos = self.name_at(fn_start + _FN_OPEN, FUNCTION_OPEN)
            fn = _Function(name=name, start=fn_start)
            self.functions.append(fn)
            ended = self.function_body(fn)
            if ended == "next":
                self.emit(
                    "HT233",
                    f"<function={_short(name)}> has no </function> before the next <function=",
                    fn_start,
                    self.pos,
                    action="the function ends there",
                )
                self.several(self.pos)
                continue
            if ended != "closed":  # the body ended inside the function (or inside a value)
                if not closed:
                    message = f"the call was cut off inside <function={_short(name)}>"
                    self.emit("HT102", message, fn_start, self.n)
                if ended != "end":
                    self.unclosed(*ended, self.n, "the end of the body")
                self.emit(
                    "HT233",
                    f"<function={_short(name)}> has no </function> before </tool_call>",
                    fn_start,
                    self.n,
                    action="the function ends there",
                )
                return
            while True:  # after </function>
                self.skip_ws()
                if self.pos >= self.n:
                    return
                at = self.pos
                if s.startswith(FUNCTION_OPEN, at):
                    self.several(at)
                    break
                if s.startswith(FUNCTION_CLOSE, at):
                    self.repeated(at, at + _FN_CLOSE)
                    continue
                c = _CLOSER.match(s, at)
                if c is not None:
                    self.repeated(at, c.end())
                    continue
                self.stray(at, "after </function>")

    def several(self, at: int) -> None:
        if len(self.functions) == 1:
            self.emit(
                "HT237",
                "several <function=…> in one <tool_call> block",
                at,
                at + _FN_OPEN,
                action="each is read as a call",
            )

    def repeated(self, start: int, end: int) -> None:
        tag = self.s[start:end]
        self.emit("HT235", f"{tag} closes nothing", start, end, action="dropped")
        self.pos = end

    def stray(self, at: int, where: str) -> None:
        """Text outside any parameter: skip it up to the next tag that can follow."""
        s = self.s
        end = at
        while True:
            end = s.find("<", end + 1)
            if end < 0:
                end = self.n
                break
            if s.startswith(_FN_TOKENS, end) or _CLOSER.match(s, end):
                break
        text = s[at:end].rstrip(_WS)
        if end == self.n and not self.closed:
            self.pos = end  # a tag cut off by the end of an unterminated body (HT102 follows)
            return
        self.emit(
            "HT236", f"text {where} outside any parameter: {_short(text)!r}", at, at + len(text), action="ignored"
        )
        self.pos = end

    def function_body(self, fn: _Function) -> Literal["closed", "next", "end"] | tuple[str, int]:
        """Parameters up to ``</function>`` (closed), the next ``<function=`` (next) or the end.

        A value that ran to the end of the body gives its parameter's key and offset instead.
        """
        s = self.s
        while True:
            self.skip_ws()
            at = self.pos
            if at >= self.n:
                return "end"
            if s.startswith(PARAMETER_OPEN, at):
                if self.parameter(fn, at):
                    return self.last_key, at
                continue
            if s.startswith(FUNCTION_CLOSE, at):
                self.pos = at + _FN_CLOSE
                return "closed"
            if s.startswith(FUNCTION_OPEN, at):
                return "next"
            c = _CLOSER.match(s, at)
            if c is not None:
                self.repeated(at, c.end())
                continue
            self.stray(at, f"inside <function={_short(fn.name)}>")

    def parameter(self, fn: _Function, at: int) -> bool:
        """One parameter at ``at``; True when its value ran to the end of the body."""
        s = self.s
        key_start = at + _P_OPEN
        key, vs = self.name_at(key_start, PARAMETER_OPEN)
        stop = at_end = False
        search = _VALUE_STOP.search
        find_at = vs
        while True:
            m = search(s, find_at)
            if m is None:
                ve = self.pos = self.n
                at_end = True
                break
            p = m.start()
            c0 = s[p]
            if c0 == "\r" or c0 == "\n":  # a <parameter= that starts a line
                ve = self.pos = p + 1
                self.unclosed(key, at, ve, "the next <parameter=")
                break
            if s.startswith(_STEM, p):
                c = _CLOSER.match(s, p)
                if c is not None:
                    if _AFTER_PARAMETER.match(s, c.end()):
                        ve, self.pos = p, c.end()
                        stop = True
                        break
                    self.literal(s[p : c.end()], key, p, c.end())
                find_at = p + 1
                continue
            # </function>
            if _AFTER_FUNCTION.match(s, p + _FN_CLOSE):
                ve = self.pos = p
                self.unclosed(key, at, ve, FUNCTION_CLOSE)
                break
            self.literal(FUNCTION_CLOSE, key, p, p + _FN_CLOSE)
            find_at = p + 1
        if stop and self.pos - ve != _P_CLOSE and (self.closed or self.pos < self.n):  # (else: a cut-off closer)
            closer = s[ve : self.pos]
            self.emit(
                "HT231", f"{closer} closes <parameter={_short(key)}>", ve, self.pos, action="read as </parameter>"
            )
        self.last_key = key
        if at_end and not self.closed:
            return True  # cut off: the value is not read
        self.value(fn, key, at, vs, ve)
        return at_end

    def unclosed(self, key: str, start: int, end: int, where: str) -> None:
        message = f"<parameter={_short(key)}> has no </parameter>"
        self.emit("HT230", message, start, end, action=f"the value ends at {where}")

    def literal(self, closer: str, key: str, start: int, end: int) -> None:
        message = f"{closer} inside the value of {key!r} is text: no closer may stand there"
        self.emit("HT243", message, start, end)

    def value(self, fn: _Function, key: str, at: int, vs: int, ve: int) -> None:
        """Type the value of ``key`` (``s[vs:ve]`` less its newlines) and add it to the function."""
        text = value_text(self.s[vs:ve])
        params = None if self.tools is None else self.tools.get(fn.name)
        found, schema = parameter_schema(params, key) if params is not None else (False, None)
        typed = type_value(text, schema, found=found)
        where = f"{_short(fn.name)}: parameter {key!r}"
        if typed.problem == "untyped":
            message = f"{where}: {_short(text)!r} is not a valid {typed.detail}"
            self.emit("HT239", message + "; kept as a string", vs, ve)
        elif typed.problem == "repaired":
            self.emit("HT240", f"{where}: written with {typed.detail}", vs, ve, action="read safely as JSON")
        if key in fn.arguments:
            end = self.s.find(">", at, vs)
            self.emit(
                "HT241",
                f"{where} is given more than once; `arguments` holds the last value",
                at,
                vs if end < 0 else end + 1,
            )
        fn.arguments[key] = typed.value
        fn.parts.append(f"{jsonio.dumps_spaced(key)}: {typed.json}")

    def result(self) -> CallBody:
        calls: list[DecodedCall] = []
        for fn in self.functions:
            if not fn.name:
                end = self.s.find(">", fn.start)
                self.emit("HT104", "the function has no name", fn.start, self.n if end < 0 else end + 1)
            calls.append(
                DecodedCall(name=fn.name, arguments=fn.arguments, arguments_json="{" + ", ".join(fn.parts) + "}")
            )
        return CallBody(calls=tuple(calls), issues=tuple(self.issues), failure=None, name=calls[0].name)


def _short(text: str) -> str:
    return text if len(text) <= 40 else text[:37] + "..."


def decode_xml_body(
    inner: str, *, strict: bool, closed: bool = True, tools: Mapping[str, Any] | None = None
) -> CallBody:
    """Decode an XML call body into calls, or a failure code (never raises).

    Args:
        inner: the text between ``<tool_call>`` and ``</tool_call>`` (or the end of an unterminated
            block), which starts, after whitespace, with ``<function=``; or a bare function.
        strict: no recoveries; a recoverable deviation is the failure, with its code.
        closed: False when the block is unterminated: a body that stops inside a function was
            cut off (``HT102``).
        tools: the declared tools, name to ``parameters`` schema (None: values are read without a
            schema; a name that is not a key, or a None schema, too).

    Returns:
        A ``CallBody``; issue offsets are relative to ``inner``.

    >>> body = decode_xml_body("\\n<function=f>\\n<parameter=n>\\n3\\n</parameter>\\n</function>\\n",
    ...     strict=True, tools={"f": {"properties": {"n": {"type": "string"}}}})
    >>> body.calls[0].name, body.calls[0].arguments_json
    ('f', '{"n": "3"}')
    >>> decode_xml_body("<function=f>\\n<parameter=n>\\n3\\n", strict=False, closed=False).failure
    'HT102'
    """
    d = _Decoder(inner, strict=strict, tools=tools)
    d.skip_ws()
    if not inner.startswith(FUNCTION_OPEN, d.pos):
        issue = BodyIssue(
            code="HT103",
            message=f"not an XML body: expected {FUNCTION_OPEN}",
            start=d.pos,
            end=d.n,
            hint=CATALOGUE["HT103"].fix,
        )
        return CallBody(calls=(), issues=(issue,), failure="HT103", name=None)
    try:
        d.run(closed)
        return d.result()
    except _Stop:
        first = next((fn.name for fn in d.functions if fn.name), None)
        return CallBody(calls=(), issues=tuple(d.issues), failure=d.failure, name=first)
