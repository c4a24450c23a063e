"""The round-trip guard: a rendered prompt must parse back to the structure the renderer wrote.

``render`` records, while it writes, what each turn must hold (the calls with their arguments as JSON
values, the results, the tool names); ``verify`` parses the prompt with the dialect's rules
(``parse_transcript``) and compares: the same turn headers at the same offsets with the same roles, the
same calls, results and tools in each turn and no others, and no text outside the turns but the
``bos_token``. Reasoning and prose are not structure. On a difference the first divergent offset is
mapped back to the message, the field and the offset inside it (``RenderError``).

The check runs only when the cheap pre-scan of ``_chat.render_chat`` finds something that could change
the parse (a ``<`` the renderer did not write that could start a tag: ``text_lt``, a name or arguments string
outside the plain shape, an unusual role); ``tests/test_render_roundtrip.py`` proves that prompts passing the
pre-scan round-trip.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from itertools import pairwise
from typing import Any

from .._ids import sequential_ids
from .._jsonio import dumps_compact, dumps_spaced, loads
from .._model import InvalidToolCall, Reasoning, Text, ToolCall, ToolResponse, ToolsBlock, Transcript
from .._profiles import DialectProfile
from .._template_values import MISSING, call_function, get, jinja_str, reasoning_of, tool_name, xml_value
from ..errors import DecodeError, RenderError
from ..tags import (
    CALL_CLOSE,
    CALL_OPEN,
    FUNCTION_CLOSE,
    FUNCTION_OPEN,
    IM_END,
    IM_START,
    PARAMETER_CLOSE,
    PARAMETER_OPEN,
    RESP_CLOSE,
    RESP_OPEN,
    SCRATCH_CLOSE,
    SCRATCH_OPEN,
    SYSTEM,
    THINK_CLOSE,
    THINK_OPEN,
    TOOLS_CLOSE,
    TOOLS_OPEN,
)
from ._results import content_text

__all__ = [
    "NEVER",
    "Recorder",
    "Written",
    "changed",
    "expected_arguments",
    "reasoning_is_structure",
    "text_lt",
    "verify",
    "verify_call_block",
    "verify_prompt",
    "verify_xml_call_block",
]

NEVER = "\x00never"  # an expected value no parse gives: the arguments cannot round-trip
_WS = " \t\n\r"
_TAG = re.compile(r"<[^<>\n]{0,40}>|<")
_CONTROL = re.compile(r"<\|im_(?:start|end)\|>")

Item = tuple[Any, ...]

#: Every tag a reading of a prompt acts on, in any context of any dialect: the grammar's markers (its text
#: terminals stop at exactly these, ``tags.py``) and the XML body's tags. A ``<`` that starts none of them is text
#: wherever it stands.
_MARKERS = (IM_START, IM_END, CALL_OPEN, CALL_CLOSE, RESP_OPEN, RESP_CLOSE, TOOLS_OPEN, TOOLS_CLOSE, THINK_OPEN,
            THINK_CLOSE, SCRATCH_OPEN, SCRATCH_CLOSE, FUNCTION_OPEN, FUNCTION_CLOSE, PARAMETER_OPEN, PARAMETER_CLOSE)
_MARKER = re.compile("|".join(re.escape(m) for m in _MARKERS))


def text_lt(text: str, *, open_end: bool = True) -> int:
    """The ``<`` of a conversation text (content, reasoning, a result) the pre-scan may count as harmless: all of
    them when none starts a tag (``_MARKERS``), else -1. With ``open_end`` (what follows the text may be more
    text, as content parts are joined) the text must also not end in the start of a tag, trailing whitespace aside
    (a template may strip it); without it the caller writes a ``<`` or a line end right after the text, which
    completes no tag (a tag holds one ``<``, at its start, and no whitespace).

    Such a ``<`` is read as text in every context (the text terminals stop only at a whole tag), so the prompt
    parses as it would with another character there: the round trip is needed only for a text with a tag.

    >>> text_lt("if a < b then x<y"), text_lt("a <think> b"), text_lt("ends with <tool_cal "), text_lt("<<")
    (2, -1, -1, -1)
    >>> text_lt("ends with <tool_cal ", open_end=False), text_lt("<<", open_end=False)
    (1, 2)
    """
    at = text.rfind("<")
    if at < 0:
        return 0
    if _MARKER.search(text) is not None:
        return -1
    if not open_end:
        return text.count("<")
    tail = text[at:].rstrip()
    for marker in _MARKERS:
        if marker.startswith(tail):
            return -1
    return text.count("<")


class Recorder:
    """What the renderer wrote, by piece index of its output list: items (call/result/tools) with the
    message they come from, and where each message's text starts."""

    __slots__ = ("items", "reasoning", "starts", "written")

    def __init__(self, reasoning: bool = False) -> None:
        self.items: list[tuple[int, Item, tuple[int | None, str]]] = []
        self.starts: list[tuple[int, int | None]] = []
        #: checkpoints (piece index, ``<`` the renderer wrote before that piece), one per message loop step:
        #: the pieces between two of them hold exactly the difference unless a field added one (``changed``)
        self.written: list[tuple[int, int]] = []
        #: reasoning blocks are structure (``reasoning_is_structure``): the renderer records each it writes
        self.reasoning = reasoning


class Written:
    """A call's arguments as the message gives them: the checking render records this, and ``verify`` turns
    it into ``expected_arguments`` only for the turns it compares (most calls of a long chat are in none)."""

    __slots__ = ("arguments",)

    def __init__(self, arguments: Any) -> None:
        self.arguments = arguments


def _resolved(item: Item) -> Item:
    return ("call", item[1], expected_arguments(item[2].arguments)) if item[0] == "call" and isinstance(
        item[2], Written) else item


def expected_arguments(args: Any) -> str:
    """The arguments a parse must give back, as ``json.dumps`` text (``NEVER`` when nothing can match).

    A string is the JSON text of the object (any dialect: written verbatim, double-encoded and decoded by
    the parser's HT201 rule, or decoded by omp); a missing value is ``{}``; any other value is what its
    JSON text decodes to (tuples are arrays, non-string keys strings; NaN never round-trips).

    >>> expected_arguments('{"a": 1}'), expected_arguments({"a": (1, 2)}), expected_arguments("[1]") == NEVER
    ('{"a": 1}', '{"a": [1, 2]}', True)
    """
    try:
        if args is MISSING:
            return "{}"
        value = loads(args) if isinstance(args, str) else loads(dumps_spaced(args))
    except (DecodeError, TypeError, ValueError, RecursionError):
        return NEVER
    return _canon(value) if isinstance(value, dict) else NEVER


def _canon(value: Any) -> str:
    """A JSON value as comparable text (``json.dumps``: lone surrogates too, which orjson refuses)."""
    try:
        return dumps_spaced(value)
    except (TypeError, ValueError, RecursionError):
        return NEVER
def reasoning_is_structure(profile: DialectProfile) -> bool:
    """Whether the dialect renders ``reasoning_content`` in blocks of its own (qwen3, omp, qwen3.5, step-3.5):
    there, a reasoning block the renderer did not write (markup in ``content``) would move text between the
    two fields, so the guard compares reasoning blocks too. The templates that write ``content`` verbatim
    and never render ``reasoning_content`` (hermes, hermes-vllm, qwen2.5, qwq, qwen3-coder), and Nemotron,
    which renders ``reasoning_content`` as the very markup it leaves in content, keep such markup as written,
    and ``Transcript.to_request`` gives it back as content (docs/dialects.md)."""
    return profile.reasoning in ("qwen3", "every-turn", "after-last-query")


def changed(pieces: Sequence[str], rec: Recorder, written: int) -> list[tuple[int, int]] | None:
    """The piece ranges ``[a, b)`` between two checkpoints of ``rec.written`` holding a ``<`` the renderer did
    not write (``written``: its count for the whole prompt), or None when no checkpoint was recorded."""
    marks = rec.written
    if not marks:
        return None
    bounds = [(0, 0), *marks, (len(pieces), written)]
    out = []
    for (a, n_a), (b, n_b) in pairwise(bounds):
        if a < b and "".join(pieces[a:b]).count("<") != n_b - n_a:
            out.append((a, b))
    return out


def _parsed(transcript: Transcript, reasoning: bool = False,
            shift: int = 0) -> list[tuple[int, str, list[tuple[int, Item]]]]:
    # a call read only by keeping a raw control character (HT204) is not the call written: in the
    # dialects that write names raw, a name with a control character is not JSON (docs/dialects.md)
    raw_controls = [d.span.start for d in transcript.diagnostics if d.code == "HT204"]
    turns = []
    for turn in transcript.turns:
        items: list[tuple[int, Item]] = []
        names: list[Any] | None = None
        for p in turn.parts:
            if isinstance(p, ToolCall):
                span = p.span
                if raw_controls and any(span.start <= at < span.end for at in raw_controls):
                    items.append((span.start, ("invalid call", "HT204")))
                    continue
                items.append((p.span.start, ("call", p.name, _canon(p.arguments))))
            elif isinstance(p, Reasoning):
                if reasoning:
                    items.append((p.span.start, ("reasoning",)))
            elif isinstance(p, InvalidToolCall):
                items.append((p.span.start, ("invalid call", p.code)))
            elif isinstance(p, ToolResponse):
                items.append((p.span.start, ("result", p.content)))
            elif isinstance(p, ToolsBlock):
                if names is None:
                    names = []
                    items.append((p.span.start, ("tools",)))
                names.extend(tool_name(t) for t in p.tools)
        if names is not None:
            k = next(k for k, (_, it) in enumerate(items) if it[0] == "tools")
            items[k] = (items[k][0], ("tools", tuple(names)))
        if shift:
            items = [(at + shift, item) for at, item in items]
        turns.append((turn.header.start + shift, turn.role, items))
    return turns


Expected = list[tuple[int, str, list[tuple[Item, tuple[int | None, str]]]]]


def _expected(pieces: Sequence[str], rec: Recorder) -> tuple[list[int], list[int], Expected]:
    """The pieces' offsets, the indices of the pieces that open a turn, and per turn what it must hold:
    (offset, role, [(item, origin)])."""
    offsets = [0]
    for piece in pieces:
        offsets.append(offsets[-1] + len(piece))
    headers = [k for k, piece in enumerate(pieces) if piece.startswith(IM_START)]
    expected: Expected = []
    turn_of = [-1] * len(pieces)  # the turn each piece is in (-1: before the first)
    for j, k in enumerate(headers):
        stop = headers[j + 1] if j + 1 < len(headers) else len(pieces)
        turn_of[k:stop] = [j] * (stop - k)
        header = pieces[k]
        newline = header.find("\n")
        role = header[12:newline] if newline >= 0 else header[12:]
        expected.append((offsets[k], role, []))
    for p, item, origin in rec.items:  # in piece order: each turn's items in the order written
        j = turn_of[p] if 0 <= p < len(pieces) else -1
        if j >= 0:
            expected[j][2].append((item, origin))
    return offsets, headers, expected


def _divergence(text: str, pieces: Sequence[str], rec: Recorder, bos: str,
                transcript: Transcript) -> tuple[int, tuple[int | None, str] | None, Item | None] | None:
    """The first offset where the parse of the whole prompt differs from what was written, the origin of the
    expected item there (if any) and the item the parse found there, or None when they agree."""
    expected = _expected(pieces, rec)[2]
    return _turns_divergence(rec, bos, transcript, _resolve(expected))


def _resolve(expected: Expected) -> Expected:
    """``expected`` with each call's written arguments as ``expected_arguments`` (``Written``)."""
    return [(at, role, [(_resolved(item), origin) for item, origin in items]) for at, role, items in expected]


def _turns_divergence(rec: Recorder, bos: str, transcript: Transcript, expected: Expected,
                      shift: int = 0) -> tuple[int, tuple[int | None, str] | None, Item | None] | None:
    """The first offset where the parse differs from what was written, the origin of the expected item
    there (if any) and the item the parse found there, or None when they agree.

    ``transcript`` is the parse of the prompt from offset ``shift`` on, and ``expected`` the turns it must
    hold (all of the prompt's, or a run of them: ``verify``); offsets are the prompt's."""
    candidates: list[tuple[int, tuple[int | None, str] | None, Item | None]] = []
    for gap in transcript.gaps:
        start = gap.span.start + shift
        if gap.text.strip(_WS) and not (bos and start == 0 and gap.text == bos):
            candidates.append((start, None, None))
            break
    if transcript.stopped_at is not None:
        candidates.append((transcript.stopped_at + shift, None, None))
    got = _parsed(transcript, rec.reasoning, shift)
    for j in range(max(len(got), len(expected))):
        if j >= len(got):
            candidates.append((expected[j][0], None, None))
            break
        g_start, g_role, g_items = got[j]
        if j >= len(expected):
            candidates.append((g_start, None, None))
            break
        e_start, e_role, e_items = expected[j]
        if g_start != e_start or g_role != e_role:
            candidates.append((min(g_start, e_start), None, None))
            break
        if [it for _, it in g_items] != [it for it, _ in e_items]:
            k = next(k for k in range(max(len(g_items), len(e_items)))
                     if k >= len(g_items) or k >= len(e_items) or g_items[k][1] != e_items[k][0])
            origin = e_items[k][1] if k < len(e_items) else None
            found = g_items[k][1] if k < len(g_items) else None
            turn = transcript.turns[j]
            pos = g_items[k][0] if k < len(g_items) else (turn.end.start if turn.end else turn.span.end) + shift
            candidates.append((pos, origin, found))
            break
    return min(candidates, key=lambda c: c[0]) if candidates else None


def _runs(headers: list[int], changed: list[tuple[int, int]], pieces: int) -> list[tuple[int, int]] | None:
    """The runs ``[j0, j1)`` of consecutive turns whose pieces overlap a changed range, or None when a changed
    range starts before the first turn (text outside the turns: the whole prompt is checked)."""
    if not headers or any(a < headers[0] for a, _ in changed):
        return None
    ends = [*headers[1:], pieces]
    picked = [j for j, (k, end) in enumerate(zip(headers, ends, strict=True))
              if any(a < end and k < b for a, b in changed)]
    runs: list[tuple[int, int]] = []
    for j in picked:
        if runs and runs[-1][1] == j:
            runs[-1] = (runs[-1][0], j + 1)
        else:
            runs.append((j, j + 1))
    return runs


def verify(text: str, pieces: Sequence[str], rec: Recorder, *, profile: DialectProfile, bos: str,
           messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]] | None,
           changed: list[tuple[int, int]] | None = None, types: Sequence[Mapping[str, Any]] | None = None) -> None:
    """Parse ``text`` (the joined ``pieces``) and compare it with what ``rec`` says was written.

    With ``changed`` (piece ranges holding a ``<`` the renderer did not write: ``changed()``) only the turns
    over those pieces are parsed, each run of consecutive ones on its own: a turn parses the same wherever
    it stands (it ends at its own ``<|im_end|>``), and the other turns hold only the renderer's own tags,
    which the pre-scan vouches for as it does for a whole prompt. ``tests/test_render_roundtrip.py`` checks
    that this refuses exactly what the whole check refuses, at the same place.

    An XML body is parsed with ``types`` (the tools typing its values: default none) as ``tools=``, so that
    the values read back typed as the guard checked them.

    Raises:
        RenderError: the prompt would parse into another structure; names the message (None for the
            tools), the field and the offset inside it.
    """
    from .._parse import parse_transcript  # local import: parse imports the grammar engine

    offsets, headers, expected = _expected(pieces, rec)
    runs = _runs(headers, changed, len(pieces)) if changed is not None else None
    spans = [(0, len(expected), 0, len(text))] if runs is None else [
        (j0, j1, 0 if j0 == 0 else offsets[headers[j0]], offsets[headers[j1]] if j1 < len(headers) else len(text))
        for j0, j1 in runs]
    typed = list(types) if profile.body_kind == "xml" and types else None
    found = None
    for j0, j1, start, end in spans:
        part = text[start:end]
        transcript = parse_transcript(part, dialect=profile, max_block_chars=len(part) + 1, ids=sequential_ids(),
                                      tools=typed)
        found = _turns_divergence(rec, bos, transcript, _resolve(expected[j0:j1]), start)
        if found is not None:
            break
    if found is None:
        return
    pos, origin, item = found
    index: int | None
    field: str | None
    if origin is not None and origin[0] is not None and item is None:  # an item the parse lost: its message
        index = origin[0]
        own = dict(_fields(messages[index], profile))
        if profile.body_kind == "xml" and origin[1].endswith("."):
            field, offset = _xml_culprit(origin[1], own)
        else:
            field = _call_field(origin[1], own)
            offset = _bad_offset(field, own.get(field, ""))
    else:
        index, field, offset = _locate(text, pieces, rec, pos, origin, messages, tools, profile)
        if origin == (None, "tools") and item is not None and item[0] == "tools" and tools and (
                index is None or field is None):  # not in a system message's text: in a tool
            index, field, offset = _locate_tool(text, pos, tools, item[1])
    what = _describe(text, pos, item, origin)
    if item is None and index is not None and field is not None:  # name the markup at the offset given
        value = dict(_fields(messages[index], profile)).get(field)
        at = _TAG.match(value, offset) if isinstance(value, str) else None
        if at is not None and at.group() != "<":
            what = repr(at.group())
    place = f"message {index}" if index is not None else (field or "the prompt")
    detail = f" ({field})" if index is not None and field else ""
    raise RenderError(
        f"{place}{detail}: {what} at offset {offset}: the rendered prompt would not parse back to this "
        "conversation (pass allow_injection=True to render it anyway)",
        message_index=index, offset=offset, field=field)


def _locate_tool(text: str, pos: int, tools: Sequence[Mapping[str, Any]],
                 parsed: tuple[Any, ...]) -> tuple[None, str, int]:
    """The tool a differing tools block comes from: the first whose name is not read back, and in it the
    markup at the divergence, or the first quote of its name or description (the Hermes pseudo-JSON)."""
    names = [tool_name(t) for t in tools]
    k = next((k for k, name in enumerate(names) if k >= len(parsed) or parsed[k] != name), len(names) - 1)
    tool = tools[k]
    fn = get(tool, "function")
    prefix = f"tools[{k}].function." if isinstance(fn, Mapping) else f"tools[{k}]."
    fn = fn if isinstance(fn, Mapping) else tool
    match = _TAG.match(text, pos)
    tag = match.group() if match and match.group() != "<" else None
    for key in ("name", "description"):
        value = get(fn, key)
        if isinstance(value, str):
            at = value.find(tag) if tag else -1
            if at < 0:
                bad = re.search(r'["\\]', value)
                at = bad.start() if bad else -1
            if at >= 0:
                return None, prefix + key, at
    return None, f"tools[{k}]", 0


def _describe(text: str, pos: int, item: Item | None, origin: tuple[int | None, str] | None) -> str:
    if item is not None and item[0] == "call" and origin is not None:
        return f"the text would read as a call to {item[1]!r}"
    if item is not None:
        what = {"call": "a call", "result": "a tool result", "tools": "a tools block", "invalid call": "a broken call",
                "reasoning": "reasoning"}
        return f"the text would read as {what.get(str(item[0]), str(item[0]))}"
    match = _TAG.match(text, pos)
    if match is not None and match.group() != "<":
        return f"{match.group()!r}"
    return "text that would change the structure"


def _fields(message: Mapping[str, Any], profile: DialectProfile) -> list[tuple[str, str]]:
    """The strings of a message the renderer writes, with their field names."""
    out: list[tuple[str, str]] = []
    role = message.get("role")
    if isinstance(role, str):
        out.append(("role", role))
    content = message.get("content", MISSING)
    if content is not MISSING:
        out.append(("content", content if isinstance(content, str) else
                    content_text(content) if profile.tools_block == "omp" else jinja_str(content)))
    reasoning = reasoning_of(message)
    if isinstance(reasoning, str):
        key = next(k for k in ("reasoning_content", "thinking", "reasoning") if message.get(k) is not None)
        out.append((key, reasoning))
    calls = message.get("tool_calls")
    if isinstance(calls, (list, tuple)):
        for k, call in enumerate(calls):
            fn = call_function(call)
            prefix = f"tool_calls[{k}].function." if isinstance(get(call, "function"), Mapping) else f"tool_calls[{k}]."
            out.append((prefix + "name", jinja_str(get(fn, "name"))))
            args = get(fn, "arguments")
            if profile.body_kind == "xml":
                out.extend(_xml_fields(prefix, args))
            elif isinstance(args, str):
                out.append((prefix + "arguments", args))
            elif args is not MISSING:
                try:
                    out.append((prefix + "arguments", dumps_compact(args) if profile.json_style == "compact"
                                else dumps_spaced(args)))
                except (TypeError, ValueError, RecursionError):
                    pass
    return out


def _xml_fields(prefix: str, args: Any) -> list[tuple[str, str]]:
    """An XML call's argument values as written, one field per key (``…arguments.KEY``)."""
    if isinstance(args, str):
        try:
            args = loads(args)
        except DecodeError:
            return [(prefix + "arguments", args)]
    if not isinstance(args, Mapping):
        return []
    out = []
    for key, value in args.items():
        try:
            out.append((f"{prefix}arguments.{jinja_str(key)}", xml_value(value)))
        except (TypeError, ValueError, RecursionError):
            continue
    return out


_XML_MARKER = re.compile(r"</?(?:parameter|function)\b|</?tool_call>|<\|im_(?:start|end)\|>|<")


def _xml_culprit(prefix: str, own: Mapping[str, str]) -> tuple[str, int]:
    """The field of an XML call the parse lost that broke it: the first argument value holding a tag (at the tag),
    else the name when it is not plain, else the first argument key's value."""
    name = own.get(prefix + "name", "")
    if not re.fullmatch(r"[^\s<>\x00-\x1f\x7f](?:[^<>\x00-\x1f\x7f]*[^\s<>\x00-\x1f\x7f])?", name):
        bad = re.search(r"[<>\x00-\x1f\x7f]", name)
        return prefix + "name", bad.start() if bad else 0
    values = [(f, v) for f, v in own.items() if f.startswith(prefix + "arguments")]
    for field, value in values:
        match = _XML_MARKER.search(value)
        if match is not None and match.group() != "<":
            return field, match.start()
    for field, value in values:
        at = value.find("<")
        if at >= 0:
            return field, at
    return (values[0][0], 0) if values else (prefix + "arguments", 0)


def _call_field(field: str, own: Mapping[str, str]) -> str:
    """A call's origin (``tool_calls[k].function.``) as its name when that breaks the JSON, else its arguments."""
    if not field.endswith("."):
        return field
    name = own.get(field + "name", "")
    return field + ("name" if not re.fullmatch(r"[A-Za-z0-9_.:-]{1,256}", name) else "arguments")


def _bad_offset(field: str, value: str) -> int:
    """Where a field that breaks its call starts to break it: a quote, backslash or control character
    in a name; the JSON error in an arguments string."""
    if field.endswith("name"):
        match = re.search(r'["\\\x00-\x1f]', value)
        return match.start() if match else 0
    if field.endswith("arguments"):
        try:
            loads(value)
        except DecodeError as exc:
            return max(0, exc.position)
    return 0


def _locate(text: str, pieces: Sequence[str], rec: Recorder, pos: int, origin: tuple[int | None, str] | None,
            messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]] | None,
            profile: DialectProfile) -> tuple[int | None, str | None, int]:
    offsets = [0]
    for piece in pieces:
        offsets.append(offsets[-1] + len(piece))
    starts = sorted((offsets[p], index) for p, index in rec.starts)
    chunk_start, chunk_end = 0, len(text)
    indices: list[int | None] = []
    for k, (start, i) in enumerate(starts):
        if start <= pos:
            if start != chunk_start or not indices:
                indices = []
            chunk_start = start
            indices.append(i)
            later = [o for o, _ in starts[k + 1:] if o > start]
            chunk_end = later[0] if later else len(text)
    chunk = text[chunk_start:chunk_end]
    rel = pos - chunk_start
    fields = [(i, f, v) for i in indices if i is not None for f, v in _fields(messages[i], profile)]
    for i, field, value in fields:  # a control token in a field that is written as it is always ends the turn
        control = _CONTROL.search(value)
        if control is not None and value in chunk:
            return i, field, control.start()
    for i, field, value in fields:  # the field whose text covers the divergent offset
        at = chunk.find(value) if value else -1
        while at >= 0:
            if at <= rel < at + len(value):
                return i, field, rel - at
            at = chunk.find(value, at + 1)
    if origin is not None and origin[0] is not None and origin[0] in indices:
        i = origin[0]
        own = {f: v for j, f, v in fields if j == i}
        if profile.body_kind == "xml" and origin[1].endswith("."):
            return (i, *_xml_culprit(origin[1], own))
        field = _call_field(origin[1], own)
        return i, field, _bad_offset(field, own.get(field, ""))
    match = _TAG.match(text, pos)
    tag = match.group() if match else text[pos:pos + 1]
    for i, field, value in fields:  # the markup at the divergent offset, found inside a field
        at = value.find(tag) if tag else -1
        if at >= 0:
            return i, field, at
    for k, tool in enumerate(tools or ()):
        try:
            dumped = dumps_compact(tool)
        except (TypeError, ValueError, RecursionError):
            continue
        at = dumped.find(tag) if tag else -1
        if at >= 0:
            return None, f"tools[{k}]", at
    first = next((i for i in indices if i is not None), None)
    return first, None if first is not None else "tools", rel


_PLAIN_NAME = re.compile(r"[A-Za-z0-9_.:-]{1,256}").fullmatch


def verify_call_block(block: str, name: Any, args: Any, profile: DialectProfile) -> None:
    """A ``<tool_call>`` block from ``render_tool_call`` must parse (as a completion) to exactly one call with
    this name and these arguments; a plain name and arguments with no ``<`` pass without a parse.

    Raises:
        RenderError: with ``field`` ``name`` or ``arguments`` and the offset inside it.
    """
    expected = expected_arguments(args)
    if (isinstance(name, str) and _PLAIN_NAME(name) and "<" not in block and expected != NEVER
            and "NaN" not in block and "Infinity" not in block):
        return
    from .._parse import parse_completion  # local import: parse imports the grammar engine

    # a lone block is read from outside any reasoning block, whatever the dialect's generation prompt opens (QwQ)
    completion = parse_completion(block, dialect=profile, max_block_chars=len(block) + 1, ids=sequential_ids(),
                                  starts_in_reasoning=False)
    structure = [p for p in completion.parts if not (isinstance(p, Text) and not p.text.strip(_WS))]
    calls = [p for p in structure if isinstance(p, ToolCall)]
    if (len(structure) == 1 and len(calls) == 1 and completion.end is None and calls[0].name == jinja_str(name)
            and _canon(calls[0].arguments) == expected and not any(d.code == "HT204" for d in completion.diagnostics)):
        return
    field = "name" if not (isinstance(name, str) and _PLAIN_NAME(name)) else "arguments"
    value = jinja_str(name) if field == "name" else args if isinstance(args, str) else ""
    offset = _bad_offset(field, value) if isinstance(value, str) else 0
    control = _CONTROL.search(value) if isinstance(value, str) else None
    if control is not None:
        offset = control.start()
    raise RenderError(f"the call's {field} at offset {offset} would not parse back to this call (pass "
                      "allow_injection=True to render it anyway)", offset=offset, field=field)


def verify_xml_call_block(block: str, name: Any, args: Any, profile: DialectProfile,
                          tools: Sequence[Mapping[str, Any]] | None) -> None:
    """An XML ``<tool_call>`` block from ``render_tool_call`` must parse (as a completion) to exactly one call with
    this name and these arguments; every value must read back as itself under ``tools`` (``_xml.value_reads_back``);
    a plain name and key and values without ``<`` pass without a parse.

    Raises:
        RenderError: with ``field`` ``name`` or ``arguments.KEY`` and the offset inside it.
    """
    from ._xml import argument_schemas, plain_name, value_reads_back, xml_arguments

    mapping = xml_arguments(args, profile, None) or {}
    parameters = argument_schemas(tools).get(name) if isinstance(name, str) else None
    suspect = not plain_name(name)
    for key, value in mapping.items():
        text = xml_value(value)
        if not value_reads_back(value, text, parameters, jinja_str(key)):
            raise RenderError(f"the value of argument {jinja_str(key)!r} at offset 0 would not read back as this "
                              f"{type(value).__name__} (pass allow_injection=True to render it anyway)",
                              offset=0, field=f"arguments.{jinja_str(key)}")
        suspect = suspect or not plain_name(key) or "<" in text
    if not suspect:
        return
    from .._parse import parse_completion  # local import: parse imports the grammar engine

    # read from outside any reasoning block (Qwen3.5's generation prompt opens one), typed by the same tools
    completion = parse_completion(block, dialect=profile, max_block_chars=len(block) + 1, ids=sequential_ids(),
                                  starts_in_reasoning=False, tools=tools)
    structure = [p for p in completion.parts if not (isinstance(p, Text) and not p.text.strip(_WS))]
    calls = [p for p in structure if isinstance(p, ToolCall)]
    if (len(structure) == 1 and len(calls) == 1 and completion.end is None and calls[0].name == jinja_str(name)
            and _canon(calls[0].arguments) == expected_arguments(args)):
        return
    own = dict([("name", jinja_str(name)), *_xml_fields("", args)])
    field, offset = _xml_culprit("", own)
    raise RenderError(f"the call's {field} at offset {offset} would not parse back to this call (pass "
                      "allow_injection=True to render it anyway)", offset=offset, field=field)


def verify_prompt(text: str, tools: Sequence[Mapping[str, Any]] | None, profile: DialectProfile) -> None:
    """A system prompt from ``render_system_prompt`` must parse to one system turn whose ``<tools>`` blocks
    hold exactly ``tools`` (by name, in order) and nothing else.

    Raises:
        RenderError: with the offset in the prompt where the parse differs.
    """
    if not text:
        return
    from .._parse import parse_transcript  # local import: parse imports the grammar engine

    transcript = parse_transcript(text, dialect=profile, max_block_chars=len(text) + 1, ids=sequential_ids())
    got = _parsed(transcript)
    want = [("tools", tuple(tool_name(t) for t in tools or ()))]
    gaps = [g for g in transcript.gaps if g.text.strip(_WS)]
    if len(got) == 1 and got[0][1] == SYSTEM and [it for _, it in got[0][2]] == want and not gaps:
        return
    pos = gaps[0].span.start if gaps else got[1][0] if len(got) > 1 else got[0][2][0][0] if got and got[0][2] else 0
    raise RenderError(f"the system prompt would not parse back to its tools (the difference starts at offset {pos}; "
                      "pass allow_injection=True to render it anyway)", offset=pos, field="system")
