"""Decoding block bodies (rule R5): the one JSON-body module both parsing engines call.

``decode_call_body`` turns the inner text of a ``<tool_call>`` block into calls or a failure code;
``response_name`` reads the classic ``{"name", "content"}`` result wrapper; ``decode_tools_block``
reads a ``<tools>`` catalogue in any of the shapes found in the wild (``read_tools_block`` also says what it
could not read). All are pure and never raise. See ``docs/parsing.md`` §8 for the contract.

Decisions beyond the brief:

- When one element of a call array (``HT206``) or of concatenated objects (``HT208``) is not a valid
  call, the whole block fails with that first failing element's code (no partial blocks).
- In lenient mode a failure keeps the recovery warnings that were applied before it; the failure
  issue is always last. In strict mode the failure is the first issue that is an error in strict
  mode (a recoverable code, or ``HT104``/``HT105``/``HT107``); only ``HT108``/``HT109`` are warnings.
- An empty or ws-only body is ``HT106`` even when the block is unterminated.
- Tolerant decoding (and apostrophes in Python literals) is described in `hermes_toolcall._lenient_json`.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NoReturn, cast

from . import _jsonio as jsonio
from ._construct import positional
from ._diagnostics import CATALOGUE
from ._lenient_json import LenientResult, Member, TopValue, scan
from ._xml_catalogue import decode_xml_catalogue
from .errors import DecodeError

__all__ = [
    "BodyIssue",
    "CallBody",
    "DecodedCall",
    "decode_call_body",
    "decode_tools_block",
    "read_tools_block",
    "response_content",
    "response_name",
]

_WS = " \t\n\r"
_LINE_ENDS = re.compile(r"\r\n?|\n")  # a line end: CRLF, LF or a lone CR
_ARG_KEYS = ("arguments", "parameters", "args")
_S = r"[ \t\n\r]*"
_FAST_HEAD = re.compile(
    r'\{[ \t\n\r]*"name"[ \t\n\r]*:[ \t\n\r]*"([^"\\\x00-\x1f]*(?:\\.[^"\\\x00-\x1f]*)*)"'
    r'[ \t\n\r]*,[ \t\n\r]*"arguments"[ \t\n\r]*:[ \t\n\r]*'
)

# tool names repeat from call to call: one str object per name, not one per call (interned strings
# are freed with their last reference, so a name the input invents is not kept)
_intern = sys.intern
_PYTHON_OPENERS = ("{'", "[{'", "{ '", "[{ '")  # cannot start JSON: skip the strict attempt
_CANONICAL_HEADS = (('{"name": "', '", "arguments": '), ('{"name":"', '","arguments":'))


@dataclass(frozen=True, slots=True, kw_only=True)
class DecodedCall:
    """One decoded call: its name, arguments object, and the OpenAI ``function.arguments`` string."""

    name: str
    arguments: dict[str, Any]
    arguments_json: str


@dataclass(frozen=True, slots=True, kw_only=True)
class BodyIssue:
    """A diagnostic found in a body; offsets are relative to the inner body passed in."""

    code: str
    message: str
    start: int
    end: int
    hint: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class CallBody:
    """The decoded body of one ``<tool_call>`` block.

    Attributes:
        calls: the decoded calls; empty when decoding failed.
        issues: recovery warnings and ``HT108``/``HT109`` warnings, then the failure issue last when failed.
        failure: the failure code when no call could be decoded, else None.
        name: best-effort tool name (the first readable one, also on failure), else None.
    """

    calls: tuple[DecodedCall, ...]
    issues: tuple[BodyIssue, ...]
    failure: str | None
    name: str | None


# the canonical call's values are built on the hot path of both engines (see _construct.py)
_new_decoded_call = cast(Callable[[str, dict[str, Any], str], DecodedCall], positional(DecodedCall))
_new_call_body = cast(
    Callable[[tuple[DecodedCall, ...], tuple[BodyIssue, ...], str | None, str | None], CallBody], positional(CallBody)
)


_STRINGIFIED = "`arguments` is a JSON string holding an object"
_RECOVERY_MESSAGES = {
    "HT202": ("Python literal syntax (single quotes, True/False/None or a Python escape)", "read safely as JSON"),
    "HT203": ("trailing comma before a closing bracket", "dropped"),
    "HT204": ("raw control character inside a string", "kept as itself"),
    "HT208": ("several JSON values follow each other in one block", "each is read as a call"),
}


class _Stop(Exception):
    """Raised inside `_Interpreter` when the block fails."""


def _hint(code: str) -> str:
    return CATALOGUE[code].fix


def _line_col(text: str, pos: int) -> str:
    line = text.count("\n", 0, pos) + 1
    return f"{line}:{pos - (text.rfind(chr(10), 0, pos) + 1) + 1}"


def json_type_name(value: Any) -> str:
    """The JSON type of a decoded value as diagnostics name it: null, boolean, number, string, array, object."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


class _Interpreter:
    """Turns decoded top-level values into calls, collecting issues in emission order."""

    def __init__(self, *, strict: bool, raw_json: bool, inner: str) -> None:
        self.strict = strict
        self.raw_json = raw_json
        self.inner = inner
        self.issues: list[BodyIssue] = []
        self.codes: set[str] = set()
        self.failure: str | None = None

    def emit(self, code: str, message: str, start: int, end: int, *, action: str = "") -> None:
        """Record an issue (first per code); stop on a failure.

        A recoverable code says what lenient mode did (``action``), or that strict mode did not.
        """
        kind = CATALOGUE[code].kind
        fatal = kind == "error" or (self.strict and kind == "recoverable")
        if kind == "recoverable":
            message += "; not recovered in strict mode" if self.strict else f"; {action}"
        if fatal:
            self.issues.append(BodyIssue(code=code, message=message, start=start, end=end, hint=_hint(code)))
            self.failure = code
            raise _Stop
        if code in self.codes:
            return
        self.codes.add(code)
        self.issues.append(BodyIssue(code=code, message=message, start=start, end=end, hint=_hint(code)))

    def fail(self, code: str, message: str, start: int, end: int) -> NoReturn:
        """Record the failure issue and stop."""
        self.emit(code, message, start, end)
        raise AssertionError(f"{code} is not a failure code")  # pragma: no cover

    def recoveries(self, result: LenientResult) -> None:
        for rec in result.recoveries:
            if rec.code not in self.codes:
                message, action = _RECOVERY_MESSAGES[rec.code]
                self.emit(rec.code, message, rec.start, rec.end, action=action)

    def candidates(self, tops: tuple[TopValue, ...]) -> tuple[TopValue, ...]:
        if len(tops) == 1:
            top = tops[0]
            if isinstance(top.value, dict):
                return tops
            value = top.value
            if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
                message = f"a JSON array of {len(value)} calls in one block"
                self.emit("HT206", message, top.start, top.end, action="each element is read as a call")
                return top.elements
            what = "an empty array" if value == [] else f"a JSON {json_type_name(value)}"
            if isinstance(value, list) and value:
                what = "an array that holds non-objects"
            self.fail("HT107", f"the body is {what}, not a call object", top.start, top.end)
        for top in tops:
            if not isinstance(top.value, dict):
                what = json_type_name(top.value)
                self.fail("HT107", f"a concatenated value is a JSON {what}, not a call object", top.start, top.end)
        return tops

    def call(self, top: TopValue, *, recovered: bool) -> DecodedCall:
        obj: dict[str, Any] = top.value
        last: dict[str, Member] = {m.key: m for m in top.members}

        def key_span(key: str) -> tuple[int, int]:
            m = last.get(key)
            return (m.key_start, m.key_end) if m else (top.start, top.end)

        def value_span(key: str) -> tuple[int, int]:
            m = last.get(key)
            return (m.value_start, m.value_end) if m else (top.start, top.end)

        self.duplicates(top)
        name = obj.get("name")
        if "name" not in obj:
            self.fail("HT104", "the call object has no `name`", top.start, top.end)
        if not isinstance(name, str) or not name:
            what = f"the JSON {json_type_name(name)} {name!r}"
            self.fail("HT104", f"`name` is {what}, not a non-empty string", *value_span("name"))
        keys = list(obj)
        arg_key = next((k for k in _ARG_KEYS if k in obj), None)
        arguments: dict[str, Any]
        arguments_json: str | None = None
        if arg_key is None:
            self.emit("HT207", "the call has no `arguments`", top.start, top.end, action="read as {}")
            arguments = {}
            recovered = True
        else:
            if arg_key != "arguments":
                message = f"`{arg_key}` is used instead of `arguments`"
                self.emit("HT205", message, *key_span(arg_key), action="read as `arguments`")
                recovered = True
            raw = obj[arg_key]
            if isinstance(raw, dict):
                arguments = raw
                m = last.get(arg_key)
                if self.raw_json and not recovered and m is not None:
                    arguments_json = self.inner[m.value_start : m.value_end]
            elif isinstance(raw, str):
                arguments, arguments_json = self.stringified(raw, value_span(arg_key))
            else:
                what = json_type_name(raw)
                self.fail("HT105", f"`{arg_key}` is a JSON {what}, not an object", *value_span(arg_key))
        extras = [k for k in keys if k != "name" and k != arg_key]
        if extras:
            listed = ", ".join(repr(k) for k in extras)
            self.emit("HT108", f"extra keys in the call object are ignored: {listed}", *key_span(extras[0]))
        if arg_key is not None and keys.index(arg_key) < keys.index("name"):
            self.emit("HT109", f"`{arg_key}` comes before `name`", *key_span(arg_key))
        if arguments_json is None:
            arguments_json = self.encode(arguments, value_span(arg_key) if arg_key else (top.start, top.end))
        return DecodedCall(name=name, arguments=arguments, arguments_json=arguments_json)

    def duplicates(self, top: TopValue) -> None:
        """Fail with HT115 when ``name`` or an arguments key occurs more than once in the call object."""
        seen: dict[str, list[Member]] = {}
        for m in top.members:
            if m.key == "name" or m.key in _ARG_KEYS:
                seen.setdefault(m.key, []).append(m)
        for key, members in seen.items():
            if len(members) > 1:
                second = members[1]
                message = f"`{key}` occurs {len(members)} times in the call object"
                if key == "name" and members[0].value_start != members[1].value_start:  # positions known
                    names = ", then ".join(_short(self.inner[m.value_start : m.value_end]) for m in members)
                    message += f" ({names}): a stream that announced the first name was wrong"
                self.fail("HT115", message, second.key_start, second.key_end)

    def encode(self, arguments: dict[str, Any], span: tuple[int, int]) -> str:
        """``jsonio.dumps_spaced(arguments)``; a value JSON cannot carry (too deep, infinite) fails with HT103."""
        try:
            text = jsonio.dumps_spaced(arguments)
        except (RecursionError, ValueError):
            self.fail("HT103", "the arguments are nested too deeply to be encoded as JSON", *span)
        if ("Infinity" in text or "NaN" in text) and jsonio.loads_or_none(text) is None:
            self.fail("HT103", "the arguments hold a number JSON cannot represent", *span)
        return text

    def stringified(self, raw: str, span: tuple[int, int]) -> tuple[dict[str, Any], str | None]:
        """Decode a string ``arguments`` once (strict JSON, then tolerant)."""
        try:
            value = jsonio.loads(raw)
        except DecodeError:
            result = scan(raw, multiple=False)
            if result.error is None and isinstance(result.values[0].value, dict):
                self.emit("HT201", _STRINGIFIED, *span, action="decoded once")
                for rec in result.recoveries:
                    message, action = _RECOVERY_MESSAGES[rec.code]
                    self.emit(rec.code, f"inside the stringified arguments: {message}", *span, action=action)
                obj: dict[str, Any] = result.values[0].value
                return obj, None
            self.fail("HT105", "`arguments` is a string that does not hold a JSON object", *span)
        if isinstance(value, dict):
            self.emit("HT201", _STRINGIFIED, *span, action="decoded once")
            return value, raw
        what = json_type_name(value)
        self.fail("HT105", f"`arguments` is a string holding a JSON {what}, not an object", *span)


def _short(source: str) -> str:
    return source if len(source) <= 40 else source[:37] + "..."


def _pair_members(pairs: Any, start: int, end: int) -> tuple[Member, ...]:
    """Members of a top-level object decoded as pairs (positions unknown: each spans the whole body)."""
    if not isinstance(pairs, list) or not all(isinstance(p, tuple) for p in pairs):
        return ()
    return tuple(Member(key=k, key_start=start, key_end=end, value_start=start, value_end=end) for k, _ in pairs)


def _first_name(tops: tuple[TopValue, ...]) -> str | None:
    for top in tops:
        for cand in top.elements or (top,):
            if isinstance(cand.value, dict):
                name = cand.value.get("name")
                if isinstance(name, str) and name:
                    return name
    return None


def _interpret(
    inner: str, tops: tuple[TopValue, ...], parsed: LenientResult | None, *, strict: bool, raw_json: bool
) -> CallBody:
    it = _Interpreter(strict=strict, raw_json=raw_json, inner=inner)
    calls: list[DecodedCall] = []
    try:
        if parsed is not None:
            it.recoveries(parsed)
        cands = it.candidates(tops)
        recovered = len(cands) > 1 or cands is not tops
        for cand in cands:
            calls.append(it.call(cand, recovered=recovered))
    except _Stop:
        return CallBody(calls=(), issues=tuple(it.issues), failure=it.failure, name=_first_name(tops))
    return CallBody(calls=tuple(calls), issues=tuple(it.issues), failure=None, name=calls[0].name)


def _head(text: str) -> tuple[str, int] | None:
    """The name and the start of the arguments value of a ``{"name": "…", "arguments": …`` head, else None."""
    for opener, separator in _CANONICAL_HEADS:  # the two spellings the templates write, without a regex
        if text.startswith(opener):
            start = len(opener)
            quote = text.find('"', start)
            name = text[start:quote]
            if quote > start and text.startswith(separator, quote) and "\\" not in name and name.isprintable():
                return _intern(name), quote + len(separator)
            break
    m = _FAST_HEAD.match(text)
    if m is None:
        return None
    raw_name = m.group(1)
    try:
        name = jsonio.loads(f'"{raw_name}"') if "\\" in raw_name else raw_name
    except DecodeError:
        return None
    return _intern(name), m.end()


def _fast_path(text: str) -> DecodedCall | None:
    """The call of a canonical ``{"name": "…", "arguments": {…}}`` body with its raw arguments slice, else None.

    The head and one decode of the arguments slice prove the whole text is exactly that JSON object.
    """
    head = _head(text)
    if head is None or text[-1] != "}":
        return None
    name, start = head
    candidate = text[start : len(text) - 1].strip(_WS)
    try:
        arguments = jsonio.loads(candidate, 1)  # inside the call object
    except DecodeError:
        return None
    if type(arguments) is not dict or not name:
        return None
    return _new_decoded_call(name, arguments, candidate)


def canonical_call(inner: str) -> DecodedCall | None:
    """The call of a body that is one ``{"name": "…", "arguments": {…}}`` object with its raw arguments
    (what ``decode_call_body`` reads without an issue by its fast path), else None.

    >>> canonical_call(' {"name": "f", "arguments": {"a": 1}}\\n').arguments_json
    '{"a": 1}'
    """
    text = inner.strip(_WS)
    return _fast_path(text) if text else None


def decode_call_body(inner: str, *, strict: bool, closed: bool = True) -> CallBody:
    """Decode the inner text of a ``<tool_call>`` block into calls, or a failure code (never raises).

    Args:
        inner: the text between ``<tool_call>`` and ``</tool_call>`` (or the end of an unterminated block).
        strict: no recoveries; a recoverable deviation is the failure, with its code.
        closed: False when the block is unterminated (a JSON cut short then gives ``HT102``).

    Returns:
        A `CallBody`; issue offsets are relative to ``inner``.

    >>> body = decode_call_body('{"name": "f", "arguments": {"a": 1}}', strict=True)
    >>> body.calls[0].name, body.calls[0].arguments_json
    ('f', '{"a": 1}')
    >>> decode_call_body("{'name': 'f', 'arguments': {}}", strict=True).failure
    'HT202'
    """
    text = inner.strip(_WS)
    if not text:
        issue = BodyIssue(code="HT106", message="empty call body", start=0, end=len(inner), hint=_hint("HT106"))
        return CallBody(calls=(), issues=(issue,), failure="HT106", name=None)
    call = _fast_path(text)
    if call is not None:
        return _new_call_body((call,), (), None, call.name)
    lead = len(inner) - len(inner.lstrip(_WS))
    end = lead + len(text)
    value: Any = None
    strict_json = False
    if not text.startswith(_PYTHON_OPENERS):
        try:
            value = jsonio.loads(text)
            strict_json = True
        except DecodeError:
            pass
    if strict_json:
        spans = scan(inner, lead, end)
        if spans.error is None and not spans.recoveries:
            return _interpret(inner, spans.values, None, strict=strict, raw_json=True)
        # positions unavailable (e.g. very deep nesting): the keys of the call objects still count (HT115)
        try:
            pairs = jsonio.loads_pairs(text)
        except DecodeError:
            pairs = None
        top = TopValue(value=value, start=lead, end=end, members=_pair_members(pairs, lead, end))
        if isinstance(value, list):
            elements = tuple(
                TopValue(value=v, start=lead, end=end, members=_pair_members(p, lead, end))
                for v, p in zip(value, pairs if isinstance(pairs, list) else [None] * len(value), strict=True)
            )
            top = TopValue(value=value, start=lead, end=end, elements=elements)
        return _interpret(inner, (top,), None, strict=strict, raw_json=False)
    result = scan(inner, lead, end)
    if result.error is None:
        return _interpret(inner, result.values, result, strict=strict, raw_json=False)
    err = result.error
    if err.truncated and not closed:
        code, message = "HT102", f"the call was cut off: {err.message}"
    else:
        code, message = "HT103", f"not JSON: {err.message} at {_line_col(inner, err.position)}"
    issue = BodyIssue(code=code, message=message, start=err.position, end=len(inner), hint=_hint(code))
    return CallBody(calls=(), issues=(issue,), failure=code, name=result.first_name)


def response_content(inner: str) -> str:
    """The content of a ``<tool_response>`` body: less one leading line end, then one trailing line end of its kind.

    A line end is ``\\r\\n``, ``\\n`` or a lone ``\\r`` (a ChatML file edited on Windows reads as the LF one). The
    trailing line end taken is of the leading one's kind, so a result ending in ``\\r`` written by an LF template
    (``\\n…\\r\\n``) keeps its ``\\r``; without a leading line end any one trailing line end is taken.

    >>> response_content("\\n42\\n"), response_content("\\n\\n"), response_content("\\r\\n42\\r\\n")
    ('42', '', '42')
    >>> response_content("\\n\\r\\n"), response_content("\\r\\n\\r\\r\\n"), response_content("42\\r\\n")
    ('\\r', '\\r', '42')
    """
    if inner.startswith("\r\n"):
        lead = "\r\n"
    elif inner.startswith(("\n", "\r")):
        lead = inner[0]
    else:
        lead = ""
    inner = inner[len(lead):]
    if lead:
        return inner[: -len(lead)] if inner.endswith(lead) else inner
    if inner.endswith("\r\n"):
        return inner[:-2]
    if inner.endswith(("\n", "\r")):
        return inner[:-1]
    return inner


def response_name(content: str) -> str | None:
    """The tool name of a classic Hermes result wrapper ``{"name": …, "content": …}``, else None.

    >>> response_name('{"name": "get_time", "content": "21:04"}')
    'get_time'
    >>> response_name('{"time": "21:04"}') is None
    True
    """
    text = content.strip(_WS)
    if not text.startswith("{") or not text.endswith("}"):
        return None
    if '"name"' not in text and "\\u" not in text:
        return None
    value = jsonio.loads_shape_or_none(text)  # only the keys and the name string are read
    if type(value) is dict and len(value) == 2 and "content" in value and isinstance(value.get("name"), str):
        name: str = value["name"]
        return name
    return None


_HERMES_TOOL = '{"type": "function", "function": {"name": "'
_HERMES_DESC = '", "description": "'
_HERMES_PARAMS = '", "parameters": '


def _objects(value: Any) -> tuple[dict[str, Any], ...] | None:
    if isinstance(value, dict):
        return (value,)
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        return tuple(value)
    return None


def _hermes_tool(chunk: str) -> dict[str, Any] | None:
    """Rebuild one tool of the Hermes template's pseudo-JSON line (``chunk`` starts after the name quote)."""
    name_end = chunk.find(_HERMES_DESC)
    if name_end < 0:
        return None
    name = chunk[:name_end]
    desc_start = name_end + len(_HERMES_DESC)
    at = len(chunk)
    while True:  # the last `", "parameters": ` followed by one JSON object and only closing braces
        at = chunk.rfind(_HERMES_PARAMS, desc_start, at)
        if at < 0:
            return None
        start = at + len(_HERMES_PARAMS)
        result = scan(chunk, start, prefix=True)
        if result.error is None and isinstance(result.values[0].value, dict):
            rest = chunk[result.values[0].end :].strip(_WS)
            if rest in ("}", "}}"):
                function = {"name": name, "description": chunk[desc_start:at], "parameters": result.values[0].value}
                return {"type": "function", "function": function}


def decode_tools_block(inner: str) -> tuple[dict[str, Any], ...]:
    """Tool objects found in a ``<tools>`` catalogue, in any shape seen in the wild (never raises).

    Tried in order: the XML-like list of Qwen3-Coder and Nemotron (``_xml_catalogue``); a JSON array (or
    object); one JSON object per line (Qwen, Qwen3.5, Step, omp); the Hermes
    template's pseudo-JSON (raw descriptions, missing final brace), rebuilt as
    ``{"type": "function", "function": {"name", "description", "parameters"}}`` with the description as
    written; a Python-literal list (NousResearch ``sys_prompt``). Nothing readable gives ``()``.
    This is ``read_tools_block(inner)[0]``.

    >>> decode_tools_block('{"type": "function", "function": {"name": "ls"}}')[0]["function"]["name"]
    'ls'
    >>> decode_tools_block("[{'type': 'function', 'function': {'name': 'ls'}}]")[0]["type"]
    'function'
    """
    return read_tools_block(inner)[0]


def read_tools_block(inner: str) -> tuple[tuple[dict[str, Any], ...], tuple[str, ...]]:
    """The tools of a ``<tools>`` catalogue (``decode_tools_block``) and the pieces of its content no tool was
    read from (never raises).

    A piece is the stripped text of a part the shape read skipped: in the Hermes template's pseudo-JSON, the
    text before the first tool and each tool chunk that cannot be rebuilt (from its ``{"type": "function"``
    head to the next one); otherwise the whole content when no tool was read. Whitespace is never a piece.

    >>> read_tools_block('{"type": "function", "function": {"name": "ls"}}')
    (({'type': 'function', 'function': {'name': 'ls'}},), ())
    >>> read_tools_block("abc")
    ((), ('abc',))
    """
    text = inner.strip(_WS)
    if not text:
        return (), ()
    if text.startswith("<function>"):
        listed = decode_xml_catalogue("\n" + text)
        if listed is not None:
            return listed, ()
    found = _objects(jsonio.loads_or_none(text))
    if found is not None:
        return found, ()
    lines = [line.strip(_WS) for line in _LINE_ENDS.split(text) if line.strip(_WS)]
    per_line = [jsonio.loads_or_none(line) if line.startswith("{") else None for line in lines]
    dicts = [v for v in per_line if isinstance(v, dict)]
    if len(dicts) == len(per_line):
        return tuple(dicts), ()
    if _HERMES_TOOL in text:
        head, *chunks = text.split(_HERMES_TOOL)
        kept: list[dict[str, Any]] = []
        unread = [head.strip(_WS)] if head.strip(_WS) else []
        for chunk in chunks:
            tool = _hermes_tool(chunk)
            if tool is None:
                unread.append((_HERMES_TOOL + chunk).strip(_WS))
            else:
                kept.append(tool)
        if kept:
            return tuple(kept), tuple(unread)
    result = scan(text, multiple=False)
    if result.error is None:
        found = _objects(result.values[0].value)
        if found is not None:
            return found, ()
    return (), (text,)
