"""Reading XML call bodies (``<function=NAME>`` … ``</function>``), the one module both engines call.

Qwen3-Coder, Qwen3.5+, Nemotron 3 and Step 3.5 write a call as::

    <tool_call>
    <function=get_weather>
    <parameter=city>
    Paris
    </parameter>
    </function>
    </tool_call>

``decode_xml_body`` turns the text between the ``<tool_call>`` tags into calls or a failure code,
exactly as ``_body.decode_call_body`` does for JSON bodies and with the same value types
(``CallBody``, ``DecodedCall``, ``BodyIssue``; issue offsets relative to the text passed in).
``scan_xml_block`` reads the same body inside a whole text and says where the block ends (its
``</tool_call>``, a ``<tool_call>`` or control token where one may stand, or the end); the grammar
engine uses it for the extent of an XML block. Both are pure, linear in the body and never raise.
Values are typed by the tool's schema (``_xmltypes``). docs/parsing.md §8.2 is the contract.

**Where a tag counts.** A value is the text between ``<parameter=KEY>`` and its closer, less one
leading and one trailing newline (``value_text``). Inside a value:

- ``</parameter>`` (or a drifted ``</parameter1>``, ``</parameter_x>``, a bare ``</parameter``) ends it
  when no literal parameter is open in it and what follows, after whitespace, is a parameter that
  may start (below), another parameter closer, ``</function>``, ``<function=``, ``</tool_call>``,
  ``<tool_call>``, a control token, or the end (``AFTER_PARAMETER``);
- a ``<parameter=KEY`` that starts a line ends a value that was never closed (``HT230``) when KEY
  *may start* a parameter: it is not yet given in this function and, when the tool's schema lists
  ``properties``, it is one of them; any other line-initial ``<parameter=`` opens a **literal**
  parameter, closed by the next ``</parameter>``, and ``<function=`` at a line start a literal
  function closed by the next ``</function>`` (code that writes this format, a test fixture, a
  template, survives);
- a ``</function>`` with no literal function or parameter open ends a value never closed when
  ``<function=``, ``</tool_call>``, ``<tool_call>``, a control token or the end follows (``AFTER_FUNCTION``);
- anything else is value text; a closer kept as text with nothing open is reported (``HT243``, info).

``</tool_call>`` and ``<tool_call>`` end the block only between parameters or after the function:
inside a value they are text. A control token ends the block anywhere.

The recoveries (lenient: a warning and the reading below; strict: the block is not a call, with
the code) are ``HT230`` (``</parameter>`` missing), ``HT231`` (drifted closer), ``HT232``
(``<function=NAME`` or ``<parameter=KEY`` without ``>``: the name ends at the line end),
``HT233`` (``</function>`` missing before ``</tool_call>`` or the next ``<function=``), ``HT235``
(a closer with nothing open: dropped), ``HT236`` (text outside any parameter: ignored), ``HT237``
(several functions in one block: each a call) and ``HT240`` (an object or array value written as
a Python literal). ``HT239`` (a value no allowed type reads: kept as the string) is a warning in
both modes. A body that stops inside a function (no ``</function>`` and no ``</tool_call>``) was
cut off: ``HT102`` alone, never a call. A function with an empty name is ``HT104``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from json.encoder import encode_basestring  # what json.dumps(ensure_ascii=False) writes for a string
from typing import Any, Literal

from ._body import BodyIssue, CallBody, DecodedCall
from ._diagnostics import CATALOGUE
from ._xmltypes import typer
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
    "BlockEnd",
    "BodyKind",
    "XmlBlock",
    "bare_extent",
    "body_kind",
    "decode_xml_body",
    "scan_bare_function",
    "scan_xml_block",
    "value_text",
]

BodyKind = Literal["json", "xml", "plain"]
#: what ended an XML block: its ``</tool_call>`` (closed), a ``<tool_call>``, a control token, or the end
BlockEnd = Literal["closed", "opener", "control", "end"]

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
#: what may follow a parameter closer inside a value (after whitespace) for it to count; a
#: ``<parameter=`` counts only when its name may start a parameter (checked by the reader)
AFTER_PARAMETER = r"[ \t\n\r]*+(?:" + _alternation((FUNCTION_CLOSE, FUNCTION_OPEN)) + f"|{CLOSER_PATTERN}|{_ENDS})"
#: what may follow a ``</function>`` inside a value that was never closed, for it to end the value
AFTER_FUNCTION = r"[ \t\n\r]*+(?:" + re.escape(FUNCTION_OPEN) + "|" + _ENDS + ")"

_CLOSER = re.compile(CLOSER_PATTERN)
_AFTER_PARAMETER = re.compile(AFTER_PARAMETER)
_AFTER_FUNCTION = re.compile(AFTER_FUNCTION)
_CONTROL_RE = _alternation(CONTROL)
# inside a value: the places where something may happen
_VALUE_STOP = re.compile(
    re.escape(_STEM)
    + "|"
    + re.escape(FUNCTION_CLOSE)
    + "|[\r\n](?:"
    + _alternation((PARAMETER_OPEN, FUNCTION_OPEN))
    + ")|"
    + _CONTROL_RE
)
# a bare function gives up at any of these inside a value (so each attempt reads up to the next one)
_BARE_VALUE_STOP = re.compile(_VALUE_STOP.pattern + "|" + _alternation((FUNCTION_OPEN, CALL_OPEN)))
_BARE_TAIL = re.compile(r"[ \t\n\r]*+" + re.escape(CALL_CLOSE))
_NAME_END = re.compile(r"[>\r\n<]")
_NOT_WS = re.compile(r"[^ \t\n\r]")
# between parameters: what a `<` may start (anything else is stray text)
_FN_TOKENS = (PARAMETER_OPEN, FUNCTION_CLOSE, FUNCTION_OPEN, CALL_CLOSE, CALL_OPEN, *CONTROL)
_ENDERS: tuple[tuple[str, BlockEnd], ...] = (
    (CALL_CLOSE, "closed"),
    (CALL_OPEN, "opener"),
    *((c, "control") for c in CONTROL),
)


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


@dataclass(frozen=True, slots=True, kw_only=True)
class XmlBlock:
    """An XML block read inside a text: where its body ends, what ended it, and the decoded body.

    ``body``'s issue offsets are relative to where the reading started.
    """

    end: int
    how: BlockEnd
    body: CallBody


@dataclass(slots=True)
class _Function:
    name: str
    start: int
    keys: set[str] = field(default_factory=set)  # the parameters given so far (a key may start once)
    params: Any = None  # the tool's `parameters` schema
    arguments: dict[str, Any] = field(default_factory=dict)
    parts: list[str] = field(default_factory=list)


class _End(Exception):
    """The block ends here (an ender between parameters, a control token, the end of the text)."""

    def __init__(self, at: int, how: BlockEnd) -> None:
        super().__init__(how)
        self.at = at
        self.how = how


class _Reader:
    """One pass over an XML body inside ``s`` from ``start``: functions, parameters, values, issues.

    Issues are collected in position order; what strict mode and a cut-off make of them is decided
    at the end (``result``), so the reading, and the block's extent, do not depend on them.
    """

    def __init__(self, s: str, start: int, *, strict: bool, tools: Mapping[str, Any] | None, bare: bool) -> None:
        self.s = s
        self.n = len(s)
        self.base = start
        self.pos = start
        self.strict = strict
        self.tools = tools
        self.bare = bare
        self.issues: list[BodyIssue] = []
        self.functions: list[_Function] = []
        self.complete = False  # the last function was closed (or the body closed by its closer)

    # ------------------------------------------------------------------ issues
    def emit(self, code: str, message: str, start: int, end: int, *, action: str = "") -> None:
        if CATALOGUE[code].kind == "recoverable":
            message += "; not recovered in strict mode" if self.strict else f"; {action}"
        base = self.base
        issue = BodyIssue(code=code, message=message, start=start - base, end=end - base, hint=CATALOGUE[code].fix)
        self.issues.append(issue)

    # ------------------------------------------------------------------ reading
    def skip_ws(self) -> int:
        m = _NOT_WS.search(self.s, self.pos)
        self.pos = m.start() if m else self.n
        return self.pos

    def ender(self, at: int) -> None:
        """Raise ``_End`` when the block ends at ``at`` (between parameters or after the function)."""
        s = self.s
        if at >= self.n:
            raise _End(at, "end")
        if s[at] == "<":
            for tag, how in _ENDERS:
                if s.startswith(tag, at):
                    raise _End(at, how)

    def name_at(self, start: int, tag: str) -> tuple[str, int, bool]:
        """The name after ``<function=``/``<parameter=``: (name, where its content starts, ``>`` seen)."""
        s = self.s
        m = _NAME_END.search(s, start)
        end = m.start() if m else self.n
        if m is not None and s[end] == ">":
            return s[start:end], end + 1, True
        if self.bare:
            raise _End(end, "end")  # a bare function needs its tags whole
        what = "the function name" if tag == FUNCTION_OPEN else "the parameter name"
        self.emit("HT232", f"{tag}{s[start:end]} has no '>'", start - len(tag), end, action=f"{what} ends there")
        return s[start:end].rstrip(" \t"), end, False

    def may_start(self, fn: _Function, at: int) -> bool:
        """Whether the ``<parameter=`` at ``at`` may start a parameter of ``fn`` (see the module doc)."""
        m = _NAME_END.search(self.s, at + _P_OPEN)
        end = m.start() if m else self.n
        key = self.s[at + _P_OPEN : end]
        if m is None or self.s[end] != ">":
            key = key.rstrip(" \t")
        return key not in fn.keys

    def run(self) -> None:
        """Read functions until the block ends (``_End``)."""
        s = self.s
        self.skip_ws()
        while True:  # at "<function="
            fn_start = self.pos
            name, self.pos, _ = self.name_at(fn_start + _FN_OPEN, FUNCTION_OPEN)
            fn = _Function(name=name, start=fn_start)
            if self.tools is not None:
                fn.params = self.tools.get(name)
            self.functions.append(fn)
            self.complete = False
            if self.function_body(fn):  # the next <function= follows without </function>
                self.emit(
                    "HT233",
                    f"{FUNCTION_OPEN}{_short(name)}> has no {FUNCTION_CLOSE} before the next {FUNCTION_OPEN}",
                    fn_start,
                    self.pos,
                    action="the function ends there",
                )
                self.several(self.pos)
                continue
            self.complete = True
            if self.bare:
                raise _End(self.pos, "closed")
            while True:  # after </function>
                at = self.skip_ws()
                self.ender(at)
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
            message = "several <function=…> in one <tool_call> block"
            self.emit("HT237", message, at, at + _FN_OPEN, action="each is read as a call")

    def repeated(self, start: int, end: int) -> None:
        if self.bare:
            raise _End(start, "end")
        self.emit("HT235", f"{self.s[start:end]} closes nothing", start, end, action="dropped")
        self.pos = end

    def stray(self, at: int, where: str) -> None:
        """Text outside any parameter: skip it up to the next tag that can follow."""
        if self.bare:
            raise _End(at, "end")
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
        message = f"text {where} outside any parameter: {_short(text)!r}"
        self.emit("HT236", message, at, at + len(text), action="ignored")
        self.pos = end

    def function_body(self, fn: _Function) -> bool:
        """Parameters up to ``</function>`` (False) or the next ``<function=`` (True); ``_End`` otherwise."""
        s = self.s
        while True:
            at = self.skip_ws()
            self.ender(at)
            if s.startswith(PARAMETER_OPEN, at):
                self.parameter(fn, at)
                continue
            if s.startswith(FUNCTION_CLOSE, at):
                self.pos = at + _FN_CLOSE
                return False
            if s.startswith(FUNCTION_OPEN, at):
                if self.bare:
                    raise _End(at, "end")
                return True
            c = _CLOSER.match(s, at)
            if c is not None:
                self.repeated(at, c.end())
                continue
            self.stray(at, f"inside <function={_short(fn.name)}>")

    def parameter(self, fn: _Function, at: int) -> None:
        """One parameter at ``at`` (its value read and typed); ``_End`` when the block ends inside it."""
        s = self.s
        key, vs, _ = self.name_at(at + _P_OPEN, PARAMETER_OPEN)
        fn.keys.add(key)
        search = (_BARE_VALUE_STOP if self.bare else _VALUE_STOP).search
        nested_params = nested_functions = 0  # literal tags open inside the value
        find_at = vs
        closer_end = -1
        while True:
            m = search(s, find_at)
            if m is None:
                raise _End(self.n, "end")
            p = m.start()
            c0 = s[p]
            if c0 == "\r" or c0 == "\n":  # a line-initial <parameter= or <function=
                q = p + 1
                if s.startswith(FUNCTION_OPEN, q):
                    if self.bare:
                        raise _End(q, "end")
                    nested_functions += 1
                elif nested_params == 0 and nested_functions == 0 and self.may_start(fn, q):
                    ve = self.pos = q
                    self.unclosed(key, at, ve, "the next <parameter=")
                    break
                else:
                    nested_params += 1
                find_at = q + 1
                continue
            if c0 == "<" and s.startswith("<|", p):  # a control token ends the block everywhere
                raise _End(p, "control")
            if s.startswith(FUNCTION_CLOSE, p):
                if nested_functions:
                    nested_functions -= 1
                elif nested_params == 0:
                    if _AFTER_FUNCTION.match(s, p + _FN_CLOSE):
                        ve = self.pos = p
                        self.unclosed(key, at, ve, FUNCTION_CLOSE)
                        break
                    self.literal(FUNCTION_CLOSE, key, p, p + _FN_CLOSE)
                find_at = p + 1
                continue
            if s.startswith(_STEM, p):
                c = _CLOSER.match(s, p)
                if c is not None:
                    if nested_params:
                        nested_params -= 1
                    elif nested_functions:
                        pass  # inside a literal function: text
                    elif self.closes(fn, c.end()):
                        ve, closer_end = p, c.end()
                        break
                    else:
                        self.literal(s[p : c.end()], key, p, c.end())
                find_at = p + 1
                continue
            raise _End(p, "end")  # a bare function meets <function= or <tool_call> inside a value
        if closer_end >= 0:
            self.pos = closer_end
            if closer_end - ve != _P_CLOSE:
                message = f"{s[ve:closer_end]} closes <parameter={_short(key)}>"
                self.emit("HT231", message, ve, closer_end, action="read as </parameter>")
        self.value(fn, key, vs, ve)

    def closes(self, fn: _Function, after: int) -> bool:
        """Whether a parameter closer ending at ``after`` (nothing literal open) ends the value."""
        if _AFTER_PARAMETER.match(self.s, after):
            return True
        at = _NOT_WS.search(self.s, after)
        return at is not None and self.s.startswith(PARAMETER_OPEN, at.start()) and self.may_start(fn, at.start())

    def unclosed(self, key: str, start: int, end: int, where: str) -> None:
        message = f"{PARAMETER_OPEN}{_short(key)}> has no {PARAMETER_CLOSE}"
        self.emit("HT230", message, start, end, action=f"the value ends at {where}")

    def literal(self, closer: str, key: str, start: int, end: int) -> None:
        message = f"{closer} inside the value of {key!r} is text: no closer may stand there"
        self.emit("HT243", message, start, end)

    def value(self, fn: _Function, key: str, vs: int, ve: int) -> None:
        """Type the value of ``key`` (``s[vs:ve]`` less its newlines) and add it to the function."""
        text = value_text(self.s[vs:ve])
        typed = typer(fn.params)(key, text)
        where = f"{_short(fn.name)}: parameter {key!r}"
        if typed.problem == "untyped":
            message = f"{where}: {_short(text)!r} is not a valid {typed.detail}"
            self.emit("HT239", message + "; kept as a string", vs, ve)
        elif typed.problem == "repaired":
            self.emit("HT240", f"{where}: written with {typed.detail}", vs, ve, action="read safely as JSON")
        fn.arguments[key] = typed.value
        fn.parts.append(f"{encode_basestring(key)}: {typed.json}")

    # ------------------------------------------------------------------ the result
    def result(self, end: int, how: BlockEnd) -> CallBody:
        """The body's calls, or its failure: a cut-off is ``HT102`` alone; strict stops at a recovery."""
        functions = self.functions
        first = next((fn.name for fn in functions if fn.name), None)
        if how == "closed" and not self.complete:
            fn = functions[-1]
            message = f"{FUNCTION_OPEN}{_short(fn.name)}> has no {FUNCTION_CLOSE} before {CALL_CLOSE}"
            self.emit("HT233", message, fn.start, end, action="the function ends there")
        elif not self.complete:
            where = f"{FUNCTION_OPEN}{_short(functions[-1].name)}>"
            issue = _issue(
                "HT102", f"the call was cut off inside {where}", functions[-1].start - self.base, end - self.base
            )
            return CallBody(calls=(), issues=(issue,), failure="HT102", name=first)
        for fn in functions:
            if not fn.name:
                close = self.s.find(">", fn.start, end)
                self.emit("HT104", "the function has no name", fn.start, end if close < 0 else close + 1)
        issues = sorted(self.issues, key=lambda i: i.start)
        for k, issue in enumerate(issues):
            kind = CATALOGUE[issue.code].kind
            if kind == "error" or (kind == "recoverable" and self.strict):
                kept = issues[: k + 1] if self.strict else issues
                return CallBody(calls=(), issues=tuple(kept), failure=issue.code, name=first)
        calls = tuple(
            DecodedCall(name=fn.name, arguments=fn.arguments, arguments_json="{" + ", ".join(fn.parts) + "}")
            for fn in functions
        )
        return CallBody(calls=calls, issues=tuple(issues), failure=None, name=calls[0].name)


# the templates' exact bytes: one function, each value free of `<` (so nothing in it can be a tag)
_CANONICAL_HEAD = re.compile(r"[ \t\n\r]*+<function=([^>\r\n<]+)>\n")
# (a line starts after "\r" too: a "<parameter=" or "<function=" there is the reader's to decide)
_CANONICAL_PARAM = re.compile(
    r"<parameter=([^>\r\n<]*)>(\n(?!<(?:parameter|function)=)(?:[^<\r\n]++"
    r"|[\r\n](?!</parameter>|<(?:parameter|function)=)|<(?!/parameter|/function>|\|im_(?:start|end)\|>))*+\n)</parameter>\n"
)
_CANONICAL_TAIL = re.compile(r"</function>[ \t\n\r]*+")


def _canonical(text: str, start: int, tools: Mapping[str, Any] | None) -> tuple[CallBody, int] | None:
    """The body at ``start`` when it is exactly what the templates write and reads without an issue:
    (its body, where the function's trailing whitespace ends); else None (``_Reader`` reads it).

    A guard in front of the reader: it returns the reader's values (tests/test_xmlbody.py).
    """
    m = _CANONICAL_HEAD.match(text, start)
    if m is None:
        return None
    name = m.group(1)
    read = typer(tools.get(name) if tools is not None else None)
    strings = read.strings
    at = m.end()
    parts: list[str] = []
    arguments: dict[str, Any] = {}
    param = _CANONICAL_PARAM.match
    while (p := param(text, at)) is not None:
        key, raw = p.group(1, 2)
        if key in arguments:
            return None
        value = raw[1:-1]  # value_text of a value the templates wrote: one newline each side
        if key in strings:
            arguments[key] = value
            parts.append(f"{encode_basestring(key)}: {encode_basestring(value)}")
        else:
            typed = read(key, value)  # (value_text(raw): one newline each side)
            if typed.problem is not None:
                return None
            arguments[key] = typed.value
            parts.append(f"{encode_basestring(key)}: {typed.json}")
        at = p.end()
    tail = _CANONICAL_TAIL.match(text, at)
    if tail is None:
        return None
    call = DecodedCall(name=name, arguments=arguments, arguments_json="{" + ", ".join(parts) + "}")
    return CallBody(calls=(call,), issues=(), failure=None, name=name), tail.end()


def _issue(code: str, message: str, start: int, end: int) -> BodyIssue:
    return BodyIssue(code=code, message=message, start=start, end=end, hint=CATALOGUE[code].fix)


def _short(text: str) -> str:
    return text if len(text) <= 40 else text[:37] + "..."


def _read(
    text: str,
    start: int,
    *,
    strict: bool,
    tools: Mapping[str, Any] | None,
    bare: bool,
    at_end: BlockEnd = "end",
) -> XmlBlock | None:
    reader = _Reader(text, start, strict=strict, tools=tools, bare=bare)
    at = reader.skip_ws()
    if not text.startswith(FUNCTION_OPEN, at):
        return None
    try:
        reader.run()
    except _End as end:
        if bare:
            if end.how != "closed" or not reader.complete:
                return None
            return XmlBlock(end=end.at, how="closed", body=reader.result(end.at, "closed"))
        how = at_end if end.how == "end" and end.at == len(text) else end.how
        return XmlBlock(end=end.at, how=how, body=reader.result(end.at, how))
    raise AssertionError("the reader ends with _End")  # pragma: no cover


def scan_xml_block(text: str, start: int, *, strict: bool, tools: Mapping[str, Any] | None = None) -> XmlBlock:
    """Read the XML body of a ``<tool_call>`` block whose inner text starts at ``start`` in ``text``.

    The body ends at a ``</tool_call>`` (``closed``), a ``<tool_call>`` (``opener``) or a control
    token (``control``) where one may stand (between parameters, after the function; a control
    token anywhere), else at the end of ``text``; ``end`` is where (the inner text is
    ``text[start:end]``). ``body`` is what ``decode_xml_body`` gives for that inner text.

    >>> b = scan_xml_block('<tool_call>\\n<function=f>\\n<parameter=s>\\n</tool_call>\\n</parameter>\\n'
    ...     '</function>\\n</tool_call> ok', 11, strict=False)
    >>> b.how, b.body.calls[0].arguments
    ('closed', {'s': '</tool_call>'})
    """
    fast = _canonical(text, start, tools)
    if fast is not None:
        end = fast[1]
        for tag, how in _ENDERS:
            if text.startswith(tag, end):
                return XmlBlock(end=end, how=how, body=fast[0])
        if end == len(text):
            return XmlBlock(end=end, how="end", body=fast[0])
    block = _read(text, start, strict=strict, tools=tools, bare=False)
    if block is None:
        issue = _issue("HT103", f"not an XML body: expected {FUNCTION_OPEN}", 0, len(text) - start)
        return XmlBlock(end=len(text), how="end", body=CallBody(calls=(), issues=(issue,), failure="HT103", name=None))
    return block


def scan_bare_function(
    text: str, start: int, *, strict: bool, tools: Mapping[str, Any] | None = None
) -> XmlBlock | None:
    """A complete ``<function=NAME>…</function>`` at ``start``, outside any ``<tool_call>``, else None.

    Complete means: its tags whole (``>`` after the name and each key), nothing but parameters
    inside, ``</function>`` reached before any ``<function=``, ``<tool_call>`` or control token.
    ``end`` is the end of ``</function>``, or of a ``</tool_call>`` that follows it after
    whitespace (a block whose ``<tool_call>`` was left out).

    >>> scan_bare_function("<function=f>\\n</function> ok", 0, strict=False).end
    24
    >>> scan_bare_function("call <function=f> with x", 5, strict=False) is None
    True
    """
    block = _read(text, start, strict=strict, tools=tools, bare=True)
    if block is None:
        return None
    tail = _BARE_TAIL.match(text, block.end)  # the `</tool_call>` of a block whose opener was left out
    return block if tail is None else XmlBlock(end=tail.end(), how="closed", body=block.body)


def bare_extent(text: str, start: int, block: XmlBlock, limit: int) -> XmlBlock | None:
    """The bare function ``block`` (``scan_bare_function`` at ``start``) within the size bound ``limit``
    (``max_block_chars``): whole when it ends within ``limit`` characters of ``start``; its function
    alone when only the ``</tool_call>`` it absorbed ends past the bound; else None (it stays text).

    >>> text = "<function=f>\\n</function>\\n</tool_call>"
    >>> [None if b is None else b.end for b in (bare_extent(text, 0, scan_bare_function(text, 0, strict=False), n)
    ...     for n in (40, 30, 20))]
    [37, 24, None]
    """
    if block.end - start <= limit:
        return block
    fn_end = text.rfind(FUNCTION_CLOSE, start, block.end) + _FN_CLOSE
    return XmlBlock(end=fn_end, how="closed", body=block.body) if fn_end - start <= limit else None


def decode_xml_body(
    inner: str, *, strict: bool, closed: bool = True, tools: Mapping[str, Any] | None = None
) -> CallBody:
    """Decode an XML call body into calls, or a failure code (never raises).

    Args:
        inner: the text between ``<tool_call>`` and ``</tool_call>`` (or the end of an unterminated
            block), which starts, after whitespace, with ``<function=``.
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
    fast = _canonical(inner, 0, tools)
    if fast is not None and fast[1] == len(inner):
        return fast[0]
    block = _read(inner, 0, strict=strict, tools=tools, bare=False, at_end="closed" if closed else "end")
    if block is None:
        issue = _issue("HT103", f"not an XML body: expected {FUNCTION_OPEN}", 0, len(inner))
        return CallBody(calls=(), issues=(issue,), failure="HT103", name=None)
    body = block.body
    if block.end < len(inner):  # a block end where one may stand: the caller found another extent
        rest = _issue("HT236", "text after the end of the XML body; ignored", block.end, len(inner))
        return CallBody(calls=body.calls, issues=(*body.issues, rest), failure=body.failure, name=body.name)
    return body
