"""Build the conversation view from a parsed text, OpenAI messages, or a ShareGPT conversation."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from .. import _jsonio as jsonio
from .._body import json_type_name, read_tools_block
from .._locate import JsonPath
from .._model import (
    Completion,
    Diagnostic,
    Part,
    Reasoning,
    Text,
    ToolCall,
    ToolResponse,
    ToolsBlock,
    Transcript,
)
from .._sharegpt import CALL, SENDERS, sent_calls
from ..tags import (
    ASSISTANT,
    CALL_OPEN,
    FUNCTION_OPEN,
    IM_END,
    IM_START,
    RESP_OPEN,
    SCRATCH_OPEN,
    SYSTEM,
    THINK_OPEN,
    TOOL,
    TOOLS_CLOSE,
    TOOLS_OPEN,
    USER,
)
from ._engines import parse_completion, parse_transcript, without_unknown_tool
from ._forged import forged_findings
from ._view import (
    Finding,
    Piece,
    Source,
    VCall,
    VMessage,
    VReasoning,
    VResult,
    Where,
    finding,
    new_call,
    new_message,
    new_piece,
    new_reasoning,
    new_result,
    value_where,
)

__all__ = ["Conversation", "Finding", "finding", "from_completion", "from_openai", "from_sharegpt", "from_transcript"]


_CALL_OPEN = len(CALL_OPEN)
_OPENERS = {"think": THINK_OPEN, "scratch_pad": SCRATCH_OPEN}
_ARGUMENTS: JsonPath = ("arguments",)


@dataclass(frozen=True, slots=True, kw_only=True)
class Conversation:
    """The view of one input: messages, the findings made while reading it, and the tools it declares.

    ``tools`` is None when the input declares none; ``completion`` is True for a single model output
    (no conversation checks then).
    """

    messages: tuple[VMessage, ...]
    findings: tuple[Finding, ...] = ()
    tools: tuple[Any, ...] | None = None
    tools_path: JsonPath | None = None
    completion: bool = False


def _message_from_parts(
    role: str,
    parts: Sequence[Part],
    diagnostics: Sequence[Diagnostic],
    source: Source,
    shift: int,
    where: Where,
    raw: tuple[Piece, ...] = (),
    out: list[Finding] | None = None,
) -> tuple[VMessage, list[Any]]:
    """A message from parsed parts (spans shifted by ``shift`` into ``source``); also the tools found
    (the findings of ``<tools>`` blocks that declare no usable tool go to ``out``: ``tools_block_findings``)."""

    def at(start: int, end: int) -> Where:
        return source.where(start - shift, end - shift)

    stringified = [d.span for d in diagnostics if d.code == "HT201"]
    calls: list[VCall] = []
    results: list[VResult] = []
    reasoning: list[VReasoning] = []
    pieces: list[Piece] = []
    order: list[Literal["call", "reasoning"]] = []
    tools: list[Any] = []
    for p in parts:
        s0, e0 = p._start, p._end  # the offsets, without building the line:column of a Span
        if isinstance(p, Text):
            pieces.append(new_piece("content", p.text, source, s0 - shift, True))
        elif isinstance(p, Reasoning):
            base = s0 - shift + (len(_OPENERS.get(p.kind, "")) if p.opened else 0)
            reasoning.append(new_reasoning(p.kind, p.text, at(s0, e0)))
            pieces.append(new_piece("reasoning", p.text, source, base, True))
            order.append("reasoning")
        elif isinstance(p, ToolCall):
            string_form = bool(stringified) and any(s0 <= s.start < e0 for s in stringified)
            encoding: Literal["object", "string"] = "string" if string_form else "object"
            json_base = s0 - shift + _CALL_OPEN
            calls.append(
                new_call(p.name, None, p.arguments, encoding, at(s0, e0), source, json_base, p.raw[_CALL_OPEN:],
                         _ARGUMENTS, None)
            )
            order.append("call")
        elif isinstance(p, ToolResponse):
            offset = p.raw.find(p.content) if p.content else -1
            base = s0 - shift + (offset if offset >= 0 else 0)
            results.append(new_result(p.content, p.name, None, at(s0, e0)))
            pieces.append(new_piece("result", p.content, source, base, True))
        elif isinstance(p, ToolsBlock):
            if out is None:
                tools.extend(p.tools)
            else:
                declared, problems = tools_block_findings(p, source, shift)
                tools.extend(declared)
                out.extend(problems)
    message = new_message(
        role, where, True, tuple(calls), tuple(results), tuple(reasoning), tuple(pieces), tuple(order), raw
    )
    return message, tools


_BLOCK_CODES = frozenset({"HT305", "HT307"})  # the codes of tools_block_findings


def _has_name(tool: Any) -> bool:
    fn = tool.get("function") if isinstance(tool, dict) else None
    name = (fn if isinstance(fn, dict) else tool).get("name") if isinstance(tool, dict) else None
    return isinstance(name, str) and bool(name)


def tools_block_findings(block: ToolsBlock, source: Source, shift: int = 0) -> tuple[list[Any], list[Finding]]:
    """The tools a ``<tools>`` block declares, and the findings of a content not wholly read as tools.

    The parser reads the block (``ToolsBlock.tools``: every shape the templates write); what it could not
    read is judged here, at the block's content span: ``HT307`` for a content that is not a list or a
    sequence of tool objects at all (not JSON, a number, a string, objects none of which names a tool, a
    mix of JSON and other text), and for a content of which only a part was read (the tools read are
    declared; ``_body.read_tools_block`` says what was not read); ``HT305`` for each element of a JSON
    array that is not a tool object (``[1]``; its objects are declared). An empty content, ``[]``, and a
    cut or unterminated block (``HT114``, ``HT113`` said it) give none.

    Args:
        block: the parsed block.
        source: the text the findings point into.
        shift: where ``source`` starts in the parsed text.

    Returns:
        The tools to declare, and the findings.

    >>> from hermes_toolcall import parse_transcript
    >>> t = parse_transcript("<|im_start|>system\\n<tools>5</tools><|im_end|>\\n")
    >>> block = t.turns[0].parts[0]
    >>> tools, found = tools_block_findings(block, Source(t.source))
    >>> tools, [(d.code, w.span.start, w.span.end) for d, w in found]
    ([], [('HT307', 26, 27)])
    """
    text = block.text
    stripped = text.strip()
    if not block.closed or not stripped:
        return list(block.tools), []
    named = any(_has_name(t) for t in block.tools)
    unread = read_tools_block(text)[1] if named else ()
    if named and not unread:
        return list(block.tools), []
    start = block._start - shift + len(TOOLS_OPEN)
    where = source.where(start, max(start, block._end - shift - len(TOOLS_CLOSE)))
    if named:
        pieces = "; ".join(_short_text(u) for u in unread[:3]) + ("; …" if len(unread) > 3 else "")
        count = "the tool read is" if len(block.tools) == 1 else f"the {len(block.tools)} tools read are"
        what = f"holds text no tool was read from ({pieces}); {count} declared"
        return list(block.tools), [finding("HT307", f"the <tools> block {what}", where)]
    value = jsonio.loads_or_none(stripped)
    if isinstance(value, list):
        if not value:
            return [], []
        bad = [
            finding("HT305", f"element #{i} of the <tools> block is not a tool object: {_short(v)}", where)
            for i, v in enumerate(value)
            if not isinstance(v, dict)
        ]
        return [v for v in value if isinstance(v, dict)], bad
    if block.tools:
        what = "holds no tool object (no object with a tool name)"
    elif value is not None or stripped == "null":
        what = f"is a JSON {json_type_name(value)}, not a list of tool objects"
    else:
        what = "cannot be read as tool declarations (not JSON, nor one JSON object per line)"
    return [], [finding("HT307", f"the <tools> block {what}; no tool is declared", where)]


def _short_text(text: str) -> str:
    line = " ".join(text.split())
    return repr(line if len(line) <= 64 else f"{line[:48]}…{line[-12:]}")


def _short(value: Any) -> str:
    text = jsonio.dumps_compact(value)
    return text if len(text) <= 60 else text[:59] + "…"


def _diag_findings(diagnostics: Sequence[Diagnostic], source: Source, shift: int) -> list[Finding]:
    if not diagnostics:  # most parsed strings
        return []
    # HT505-HT507: what an HT006 tail would forge (issue 12)
    forged = [f for d in diagnostics if d.code == "HT006" for f in forged_findings(d, source, shift)]
    return _shifted(diagnostics, source, shift) + forged


def _shifted(diagnostics: Sequence[Diagnostic], source: Source, shift: int) -> list[Finding]:
    if not shift:
        return [(d, source.where_span(d.span)) for d in diagnostics]
    out = []
    for d in diagnostics:
        w = source.where(d.span.start - shift, d.span.end - shift)
        out.append((Diagnostic(code=d.code, severity=d.severity, message=d.message, span=w.span, hint=d.hint), w))
    return out


def from_completion(completion: Completion, *, path: JsonPath | None = None) -> Conversation:
    """The view of a parsed completion: one assistant message."""
    source = Source(completion.source, path)
    message, _ = _message_from_parts(
        ASSISTANT, completion.parts, completion.diagnostics, source, 0, source.where(0, 0)
    )
    return Conversation(
        messages=(message,), findings=tuple(_diag_findings(completion.diagnostics, source, 0)), completion=True
    )


def from_transcript(transcript: Transcript, *, path: JsonPath | None = None) -> Conversation:
    """The view of a parsed transcript: one message per turn, tools from its ``<tools>`` blocks."""
    source = Source(transcript.source, path)
    messages = []
    tools: list[Any] = []
    blocks: list[Finding] = []  # a <tools> block that declares no usable tool still declares: names are checked
    for turn in transcript.turns:
        diags = [d for d in transcript.diagnostics if turn.span.start <= d.span.start < turn.span.end]
        message, found = _message_from_parts(
            turn.role, turn.parts, diags, source, 0, source.where(turn.header.start, turn.header.end), out=blocks
        )
        messages.append(message)
        tools.extend(found)
    return Conversation(
        messages=tuple(messages),
        findings=(*_diag_findings(transcript.diagnostics, source, 0), *blocks),
        tools=tuple(tools) if tools or blocks else None,
    )


def _text_of(content: Any, path: JsonPath, bad: Callable[[str, JsonPath], None]) -> list[tuple[str, JsonPath]]:
    """The strings of an OpenAI ``content`` (a string, None, or a list of text parts), with their paths."""
    if content is None:
        return []
    if isinstance(content, str):
        return [(content, path)]
    if isinstance(content, list):
        out = []
        for k, part in enumerate(content):
            if isinstance(part, dict) and isinstance(part.get("text"), str):
                out.append((part["text"], (*path, k, "text")))
            elif not (isinstance(part, dict) and part.get("type") not in (None, "text")):
                bad("a content part must be an object with a string `text`", (*path, k))
        return out
    bad(f"content must be a string, a list of parts or null, not {type(content).__name__}", path)
    return []


def hermes_result_name(content: str) -> str | None:
    """The ``name`` of a classic Hermes result ``{"name": …, "content": …}``, else None (as the parsers read it)."""
    from .._body import response_name

    return response_name(content)


def _openai_calls(
    tool_calls: Any, path: JsonPath, findings: list[Finding], bad: Callable[[str, JsonPath], None]
) -> tuple[list[VCall], list[Piece]]:
    calls: list[VCall] = []
    pieces: list[Piece] = []
    if tool_calls is None:
        return calls, pieces
    if not isinstance(tool_calls, list):
        bad("tool_calls must be a list", path)
        return calls, pieces
    for j, tc in enumerate(tool_calls):
        tpath = (*path, j)
        fn = tc.get("function") if isinstance(tc, dict) else None
        if not isinstance(fn, dict) or not isinstance(fn.get("name"), str):
            bad("a tool call must be {id, type, function: {name, arguments}}", tpath)
            continue
        call_id = tc.get("id") if isinstance(tc.get("id"), str) else None
        _one_call(fn, call_id, tpath, (*tpath, "function", "arguments"), calls, pieces, findings, bad)
    return calls, pieces


def _legacy_call(
    function_call: Any, path: JsonPath, findings: list[Finding], bad: Callable[[str, JsonPath], None]
) -> tuple[list[VCall], list[Piece]]:
    """The legacy OpenAI ``function_call: {name, arguments}`` of an assistant message: one call without an id
    (its result is the next ``function`` message), checked like a tool call."""
    calls: list[VCall] = []
    pieces: list[Piece] = []
    if function_call is None:
        return calls, pieces
    if not isinstance(function_call, dict) or not isinstance(function_call.get("name"), str):
        bad("a legacy function_call must be {name, arguments}", path)
        return calls, pieces
    _one_call(function_call, None, path, (*path, "arguments"), calls, pieces, findings, bad)
    return calls, pieces


def _one_call(
    fn: dict[str, Any],
    call_id: str | None,
    tpath: JsonPath,
    apath: JsonPath,
    calls: list[VCall],
    pieces: list[Piece],
    findings: list[Finding],
    bad: Callable[[str, JsonPath], None],
) -> None:
    """One call ``{name, arguments}`` at ``tpath`` (its arguments at ``apath``) added to ``calls``."""
    args = fn.get("arguments")
    if isinstance(args, str):
        src = Source(args, apath)
        decoded = jsonio.loads_or_none(args) if args.strip() else None
        pieces.append(new_piece("arguments", args, src, 0, False))
        if not isinstance(decoded, dict):
            what = "is not JSON" if decoded is None and args.strip() != "null" else "is not a JSON object"
            findings.append(finding("HT303", f"arguments of {fn['name']!r} {what}", src.where(0, len(args))))
        arguments = decoded if isinstance(decoded, dict) else None
        calls.append(new_call(fn["name"], call_id, arguments, "string", value_where(tpath), src, 0, args, (), None))
    elif isinstance(args, dict):
        calls.append(new_call(fn["name"], call_id, args, "object", value_where(tpath), None, 0, "", (), apath))
    else:
        bad("function.arguments must be a JSON string or an object", apath)


def from_openai(
    messages: Sequence[Any], *, dialect: str, path: JsonPath = (), typing: Sequence[Any] | None = None
) -> Conversation:
    """The view of OpenAI chat messages; wire text inside assistant or user content is parsed (XML bodies'
    values typed by the tools ``typing``)."""
    findings: list[Finding] = []
    out: list[VMessage] = []

    def bad(message: str, where_path: JsonPath) -> None:
        findings.append(finding("HT603", message, value_where(where_path)))

    for i, msg in enumerate(messages):
        mpath = (*path, i)
        if not isinstance(msg, dict) or not isinstance(msg.get("role"), str):
            bad("a message must be an object with a string `role`", mpath)
            continue
        role = msg["role"]
        mwhere = value_where(mpath)
        content, cpath = msg.get("content"), (*mpath, "content")
        texts = [(content, cpath)] if type(content) is str else _text_of(content, cpath, bad)
        if role == ASSISTANT:
            wire = any("<" in t for t, _ in texts)
        else:
            wire = role == USER and any(RESP_OPEN in t for t, _ in texts)
        # what the content gives: a parsed message (wire text), or its strings as written
        from_text = False
        own_calls: tuple[VCall, ...] = ()
        own_order: tuple[Literal["call", "reasoning"], ...] = ()
        raw: tuple[Piece, ...] = ()
        reasoning: list[VReasoning] = []
        results: list[VResult] = []
        if wire and len(texts) == 1:
            message, _ = _from_wire(role, texts[0][0], texts[0][1], dialect, findings, typing)
            from_text, own_calls, own_order, raw = message.from_text, message.calls, message.order, message.raw
            reasoning.extend(message.reasoning)
            results.extend(message.results)
            pieces = list(message.pieces)
        else:
            pieces = [new_piece("content", t, Source(t, p), 0, False) for t, p in texts]
        tool_calls = msg.get("tool_calls")
        calls: list[VCall] = []
        if tool_calls is not None:
            calls, arg_pieces = _openai_calls(tool_calls, (*mpath, "tool_calls"), findings, bad)
            pieces.extend(arg_pieces)
        if role == ASSISTANT and "function_call" in msg:  # the legacy single call, read like a tool call
            legacy, legacy_pieces = _legacy_call(msg["function_call"], (*mpath, "function_call"), findings, bad)
            calls.extend(legacy)
            pieces.extend(legacy_pieces)
        for key in ("reasoning_content", "reasoning"):
            text = msg.get(key)
            if isinstance(text, str) and text:
                src = Source(text, (*mpath, key))
                reasoning.append(new_reasoning(key, text, src.where(0, len(text))))
                pieces.append(new_piece("reasoning", text, src, 0, False))
        if role in (TOOL, "function"):  # "function": the legacy result of a function_call
            joined = "".join(t for t, _ in texts)
            src = Source(joined, texts[0][1] if len(texts) == 1 else cpath)
            tool_call_id = msg.get("tool_call_id") if isinstance(msg.get("tool_call_id"), str) else None
            name = hermes_result_name(joined) or (msg["name"] if isinstance(msg.get("name"), str) else None)
            rwhere = src.where(0, len(joined)) if len(texts) == 1 else mwhere
            results.append(new_result(joined, name, tool_call_id, rwhere))
            pieces = [
                new_piece("result", p.text, p.source, p.base, False) if p.kind == "content" else p for p in pieces
            ]
        out.append(
            new_message(
                role,
                mwhere,
                from_text,
                own_calls + tuple(calls) if calls else own_calls,
                tuple(results),
                tuple(reasoning),
                tuple(pieces),
                own_order + tuple("call" for _ in calls) if calls else own_order,
                raw,
            )
        )
    return Conversation(messages=tuple(out), findings=tuple(findings))


def _from_wire(
    role: str, text: str, path: JsonPath, dialect: str, findings: list[Finding], tools: Sequence[Any] | None = None
) -> tuple[VMessage, list[Any]]:
    """A message whose string at ``path`` is Hermes wire text: parsed at the role's body level (``tools``
    type the values of XML bodies)."""
    source = Source(text, path)
    raw = (new_piece("content", text, source, 0, False),)
    if role == ASSISTANT:
        completion = parse_completion(text, dialect=dialect, tools=tools)
        diags = without_unknown_tool(completion.diagnostics)
        findings.extend(_diag_findings(diags, source, 0))
        return _message_from_parts(role, completion.parts, diags, source, 0, value_where(path), raw)
    header = f"{IM_START}{role}\n"
    transcript = parse_transcript(header + text + IM_END, dialect=dialect, tools=tools)
    parts = transcript.turns[0].parts if transcript.turns else ()
    diags = list(transcript.diagnostics)
    findings.extend(_diag_findings(diags, source, len(header)))
    return _message_from_parts(role, parts, diags, source, len(header), value_where(path), raw, out=findings)


_SystemKey = tuple[str, JsonPath, str]
_SystemView = tuple[Sequence[Any] | None, VMessage, tuple[Finding, ...], tuple[Any, ...]]
_SYSTEM_VIEWS: dict[_SystemKey, _SystemView] = {}
_SYSTEM_VIEWS_MAX = 64


def _system_from_wire(
    text: str, path: JsonPath, dialect: str, findings: list[Finding], tools: Sequence[Any] | None
) -> tuple[VMessage, list[Any]]:
    """``_from_wire`` of a system turn, remembered for up to ``_SYSTEM_VIEWS_MAX`` distinct texts.

    A dataset's system prompt (its ``<tools>`` block: the longest text of a small record) repeats from
    record to record; its view (the message, its findings, the tools it declares) depends only on the
    text, where it is, the dialect and the tools that type XML values, so a repeat gets the values the
    parse gave the first time (all immutable; the declared tools are read, never written, by the
    checks). The tools type values only when the text may hold an XML body (``_engines._typing``):
    then the entry holds them and a hit needs the same list (``is``: the runner passes one list per
    tools text, ``_api._tools_text``); another list parses again.
    """
    key = (text, path, dialect)
    typing = tools if FUNCTION_OPEN in text and isinstance(tools, (list, tuple)) else None
    hit = _SYSTEM_VIEWS.get(key)
    if hit is not None and hit[0] is typing:
        findings.extend(hit[2])
        return hit[1], list(hit[3])
    mark = len(findings)
    message, found = _from_wire(SYSTEM, text, path, dialect, findings, tools)
    if len(_SYSTEM_VIEWS) >= _SYSTEM_VIEWS_MAX:
        _SYSTEM_VIEWS.clear()  # full: start again (one call, safe when threads share the table)
    _SYSTEM_VIEWS[key] = (typing, message, tuple(findings[mark:]), tuple(found))
    return message, found


def _sent_call_message(value: str, vpath: JsonPath, findings: list[Finding]) -> VMessage:
    """An assistant message of a ``function_call`` turn: the call(s) its value writes as JSON."""
    src = Source(value, vpath)
    whole = value_where(vpath)
    sent = sent_calls(value)
    if isinstance(sent, str):
        findings.append(finding("HT603", sent, src.where(0, len(value))))
        return VMessage(role=ASSISTANT, where=whole, from_text=False)
    calls: list[VCall] = []
    pieces: list[Piece] = [new_piece("arguments", value, src, 0, False)]
    for c in sent:
        arguments = c.arguments
        if isinstance(arguments, str):
            decoded = jsonio.loads_or_none(arguments) if arguments.strip() else None
            if not isinstance(decoded, dict):
                what = "is not JSON" if decoded is None and arguments.strip() != "null" else "is not a JSON object"
                findings.append(finding("HT303", f"arguments of {c.name!r} {what}", src.where(0, len(value))))
            arguments = decoded if isinstance(decoded, dict) else None
        calls.append(
            VCall(
                name=c.name,
                id=None,
                arguments=arguments,
                encoding="string" if isinstance(c.arguments, str) else "object",
                where=whole,
                json_source=src,
                json_text=value,
                json_prefix=c.path,
            )
        )
    return VMessage(
        role=ASSISTANT, where=whole, from_text=False, calls=tuple(calls), pieces=tuple(pieces),
        order=tuple("call" for _ in calls),
    )


def from_sharegpt(
    conversations: Sequence[Any],
    *,
    dialect: str,
    path: JsonPath = (),
    roles: Mapping[str, str] = SENDERS,
    typing: Sequence[Any] | None = None,
) -> Conversation:
    """The view of a ShareGPT conversation (wire text in the values, XML bodies' values typed by the tools
    ``typing``; the senders of ``roles``, by default ``_sharegpt.SENDERS``: system/human/gpt/tool, and
    LLaMA-Factory's function_call/observation)."""
    findings: list[Finding] = []
    out: list[VMessage] = []
    tools: list[Any] = []
    for i, turn in enumerate(conversations):
        tpath = (*path, i)
        if not isinstance(turn, dict) or not isinstance(turn.get("value"), str):
            findings.append(
                finding("HT603", "a turn must be an object with `from` and a string `value`", value_where(tpath))
            )
            continue
        sender = turn.get("from")
        role = roles.get(sender) if isinstance(sender, str) else None
        if role is None:
            findings.append(
                finding(
                    "HT603",
                    f"unknown ShareGPT sender {sender!r} (known: {', '.join(roles)}; map others with "
                    "--sharegpt-roles FROM=ROLE)",
                    value_where((*tpath, "from")),
                )
            )
            continue
        value = turn["value"]
        vpath = (*tpath, "value")
        if role == CALL:
            out.append(_sent_call_message(value, vpath, findings))
            continue
        wire = "<" in value and (role in (ASSISTANT, TOOL, SYSTEM) or RESP_OPEN in value)
        src = Source(value, vpath)
        if wire:
            if role == SYSTEM:  # the prompt with the tools: the same text in most records of a dataset
                message, found = _system_from_wire(value, vpath, dialect, findings, typing)
            else:
                message, found = _from_wire(role, value, vpath, dialect, findings, typing)
            tools.extend(found)
        else:
            piece = new_piece("content", value, src, 0, False)
            message = new_message(role, value_where(vpath), True, (), (), (), (piece,), (), ())
        if role == TOOL and not message.results:  # a bare result, as omp writes it
            result = VResult(
                content=value, name=hermes_result_name(value), tool_call_id=None, where=src.where(0, len(value))
            )
            piece = new_piece("result", value, src, 0, False)
            message = VMessage(
                role=role, where=message.where, from_text=True, results=(result,), pieces=(piece,), raw=message.raw
            )
        out.append(message)
    # a <tools> block that declares no usable tool (HT307, HT305 of its elements) still declares: names are checked
    declares = bool(tools) or any(f[0].code in _BLOCK_CODES for f in findings)
    return Conversation(messages=tuple(out), findings=tuple(findings), tools=tuple(tools) if declares else None)
