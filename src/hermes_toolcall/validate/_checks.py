"""The checks: calls against the tools, conversation structure, security markers, reasoning blocks.

Each check reads the conversation view (``_build.Conversation``) and returns findings; ``_api.validate``
runs them and applies select/ignore.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator

from .._diagnostics import message
from .._locate import JsonPath
from .._model import FunctionCall, Message, ToolResponse
from .._profiles import DialectProfile
from .._schema import ToolSet
from ..errors import HermesError
from ..tags import ASSISTANT, CLOSE, CONTROL, DEVELOPER, OPEN, RESP_CLOSE, RESP_OPEN, SYSTEM, TOOL, USER
from ._build import Conversation, Finding, finding
from ._engines import parse_transcript, render
from ._view import Piece, VCall, VMessage, VResult, value_where

__all__ = ["check_calls", "check_conversation", "check_reasoning", "check_round_trip", "check_security"]

_KNOWN_ROLES = frozenset({SYSTEM, USER, ASSISTANT, TOOL, DEVELOPER, "function"})  # function: legacy
_CONTROL = re.compile("|".join(map(re.escape, CONTROL)))
_CONTROL_PREFIX = os.path.commonprefix(list(CONTROL))  # noqa: RUF071 (strings, on purpose) every token starts so
_REASONING_OPENER = re.compile("|".join(map(re.escape, OPEN.values())))
_REASONING_CLOSER = re.compile("|".join(map(re.escape, CLOSE.values())))
_REASONING_TAG = re.compile("|".join(map(re.escape, (*OPEN.values(), *CLOSE.values()))))
_RESULT_CLOSER = re.compile(re.escape(RESP_CLOSE))
_RESULT_OPENER = re.compile(re.escape(RESP_OPEN))


def check_calls(conv: Conversation, tools: ToolSet, *, check_names: bool, formats: bool) -> list[Finding]:
    """HT301 unknown tool, HT302 schema violations, HT304 mixed argument encodings."""
    out: list[Finding] = []
    encodings: dict[str, VCall] = {}
    specs = tools.tools
    for msg in conv.messages:
        if not msg.calls:
            continue
        for call in msg.calls:
            if call.encoding not in encodings:
                encodings[call.encoding] = call
            spec = specs.get(call.name)
            if spec is None:
                if check_names:
                    known = ", ".join(sorted(tools.names)) or "none"
                    out.append(finding("HT301", message("HT301", name=call.name, known=known), call.where))
                continue
            arguments = call.arguments
            if arguments is None:
                continue  # HT303 already said why
            for err in spec.check(arguments, formats=formats):
                out.append(
                    finding(
                        "HT302",
                        f"{call.name}: arguments{err.json_path[1:]}: {err.message}",
                        call.argument_where(err.path),
                    )
                )
    if len(encodings) > 1:
        later = max(encodings.values(), key=lambda c: (c.where.path or (), c.where.span.start))
        out.append(finding("HT304", "this record mixes arguments written as objects and as JSON strings", later.where))
    return out


def _pending_key(call: VCall, position: int) -> str:
    return call.id if call.id is not None else f"#{position}"


def check_conversation(conv: Conversation, profile: DialectProfile) -> list[Finding]:
    """HT401–HT408: results pair with calls one to one, in order, by id; roles in order."""
    out: list[Finding] = []
    pending: list[VCall] = []
    answered: list[bool] = []
    seen_user = False
    seen_other = False
    result_role = profile.result_role
    for msg in conv.messages:
        role, results = msg.role, msg.results
        # the role's order (HT407); the common roles first, each test as before
        if role == USER:
            if not results:
                seen_user = True
            seen_other = True
        elif role == ASSISTANT:
            if not seen_user and not results:
                out.append(finding("HT407", "an assistant message before any user message", msg.where))
            seen_other = True
        elif role in (SYSTEM, DEVELOPER):
            if seen_other:
                out.append(finding("HT407", f"a {role} message after the start of the conversation", msg.where))
        else:
            if role not in _KNOWN_ROLES and not msg.from_text:  # the parser already reported HT004 for text
                out.append(finding("HT407", f"unknown role {role!r}", msg.where))
            seen_other = True
        if results:
            if msg.from_text and role != result_role:
                what = f"results in a {role} turn; dialect {profile.name} puts them in {result_role} turns"
                out.append(finding("HT408", what, msg.where))
            out.extend(_bind_results(msg, pending, answered))
        if role == ASSISTANT or (not results and role in (USER, SYSTEM, DEVELOPER)):
            if pending:
                if False in answered:
                    out.extend(_unanswered(pending, answered))
                pending, answered = [], []
            if role == ASSISTANT and msg.calls:
                pending, answered = list(msg.calls), [False] * len(msg.calls)
    if any(answered):
        out.extend(_unanswered(pending, answered))
    return out


def _unanswered(pending: list[VCall], answered: list[bool]) -> list[Finding]:
    return [
        finding("HT401", f"call {call.name!r}{_id_text(call)} has no result", call.where)
        for call, done in zip(pending, answered, strict=True)
        if not done
    ]


def _id_text(call: VCall) -> str:
    return f" ({call.id})" if call.id else ""


def _bind_results(msg: VMessage, pending: list[VCall], answered: list[bool]) -> list[Finding]:
    out: list[Finding] = []
    ids = {c.id: k for k, c in enumerate(pending) if c.id is not None}
    for result in msg.results:
        if result.tool_call_id is not None and ids:
            k = ids.get(result.tool_call_id)
            if k is None:
                out.append(finding(
                    "HT404",
                    f"tool_call_id {result.tool_call_id!r} names no call of the preceding assistant message",
                    result.where,
                ))
                continue
            if answered[k]:
                out.append(finding(
                    "HT405", f"call {pending[k].name!r} ({result.tool_call_id}) is answered twice", result.where
                ))
                continue
            first_open = answered.index(False)
            if k != first_open:
                out.append(finding(
                    "HT403",
                    f"result for {result.tool_call_id!r} comes before the result for "
                    f"{pending[first_open].id or pending[first_open].name!r}",
                    result.where,
                ))
        else:
            if False not in answered:
                what = "no call is pending" if not pending else f"all {len(pending)} call(s) are already answered"
                out.append(finding("HT402", f"a result without a call: {what}", result.where))
                continue
            k = answered.index(False)
        answered[k] = True
        call = pending[k]
        if result.name is not None and result.name != call.name:
            out.append(finding(
                "HT406", f"the result names {result.name!r} but answers a call of {call.name!r}", result.where
            ))
    return out


def check_security(conv: Conversation) -> list[Finding]:
    """HT501 control tokens, HT502 frame closers in results and reasoning, HT503 fabricated results.

    Each marker is looked for with ``in`` first (the control tokens' common prefix, the result tags):
    most pieces hold none, and a substring test costs a fraction of a regular-expression scan. One walk
    over a message's pieces looks for all three (no two of the markers can start at the same character,
    so the findings sort as if each was looked for in its own walk).
    """
    out: list[Finding] = []
    for msg in conv.messages:
        assistant = msg.role == ASSISTANT
        for piece in msg.pieces:
            text = piece.text
            if _CONTROL_PREFIX in text:
                for m in _CONTROL.finditer(text):
                    where = piece.where(m.start(), m.end())
                    out.append(finding("HT501", f"control token {m.group()} inside {piece.kind}", where))
            if piece.kind == "result":
                if RESP_CLOSE in text:
                    for m in _RESULT_CLOSER.finditer(text):
                        where = piece.where(m.start(), m.end())
                        out.append(finding("HT502", "</tool_response> inside a result closes its frame early", where))
            elif assistant and piece.kind == "content" and RESP_OPEN in text:
                for m in _RESULT_OPENER.finditer(text):
                    where = piece.where(m.start(), m.end())
                    out.append(finding("HT503", "<tool_response> written inside an assistant message", where))
        for piece in msg.raw:
            if _CONTROL_PREFIX in piece.text:
                for m in _CONTROL.finditer(piece.text):
                    where = piece.where(m.start(), m.end())
                    out.append(finding("HT501", f"control token {m.group()} inside {piece.kind}", where))
    return out


def check_reasoning(conv: Conversation, *, own_empty_think: bool = False) -> list[Finding]:
    """HT502 closers inside reasoning, HT511 nested openers, HT512 tags in reasoning_content, HT513, HT514.

    ``own_empty_think``: the dialect's template writes ``<think>\n\n</think>`` at the start of an assistant
    turn without reasoning (Qwen3); that block, in a transcript, is the template's and not reported.
    """
    out: list[Finding] = []
    for msg in conv.messages:
        for piece in msg.pieces:
            if piece.kind == "reasoning" and "<" in piece.text:  # every tag holds a "<"
                out.extend(_reasoning_tags(piece))
        if msg.reasoning:
            for k, r in enumerate(msg.reasoning):
                if not r.text.strip():
                    if own_empty_think and k == 0 and _templates_think(conv, msg, r.text):
                        continue
                    out.append(finding("HT514", "empty reasoning block", r.where))
            order = msg.order
            if "call" in order and "reasoning" in order[order.index("call") + 1 :]:
                out.extend(_late_reasoning(msg))
    return out


def _templates_think(conv: Conversation, msg: VMessage, text: str) -> bool:
    """Whether an empty reasoning block is the one a Qwen3-style template writes: ``<think>\n\n</think>``
    first in an assistant turn of a transcript (not a completion: there the model wrote it)."""
    return (
        not conv.completion
        and msg.role == ASSISTANT
        and msg.from_text
        and text == "\n\n"
        and bool(msg.pieces)
        and msg.pieces[0].kind == "reasoning"
    )


def _reasoning_tags(piece: Piece) -> Iterator[Finding]:
    """HT512 (tags in ``reasoning_content``), or HT511/HT502 (tags inside a parsed reasoning block)."""
    if not piece.parsed:
        for m in _REASONING_TAG.finditer(piece.text):
            yield finding(
                "HT512",
                f"{m.group()} inside reasoning_content (the renderer writes the tags)",
                piece.where(m.start(), m.end()),
            )
        return
    for m in _REASONING_OPENER.finditer(piece.text):
        yield finding("HT511", f"{m.group()} inside a reasoning block", piece.where(m.start(), m.end()))
    for m in _REASONING_CLOSER.finditer(piece.text):
        yield finding("HT502", f"{m.group()} inside a reasoning block", piece.where(m.start(), m.end()))


def _late_reasoning(msg: VMessage) -> Iterator[Finding]:
    """HT513: reasoning after a tool call in the same turn."""
    first_call = msg.order.index("call")
    late = [k for k, kind in enumerate(msg.order) if kind == "reasoning" and k > first_call]
    reasons = [r for r in msg.reasoning if r.kind in ("think", "scratch_pad")]
    for k in late:
        index = msg.order[:k].count("reasoning")
        if index < len(reasons):
            yield finding("HT513", "reasoning after a tool call in the same turn", reasons[index].where)


def check_round_trip(conv: Conversation, profile: DialectProfile) -> list[Finding]:
    """HT504: each result that holds a ``<`` is rendered in the dialect and parsed back; it must come back equal."""
    out: list[Finding] = []
    for msg in conv.messages:
        for result in msg.results:
            if "<" in result.content:  # no marker can appear without one: the text comes back as is
                out.extend(_round_trip(result, profile))
    return out


def _round_trip(result: VResult, profile: DialectProfile) -> Iterator[Finding]:
    """HT504 for one result holding a ``<``."""
    messages = (
        Message(role=USER, content="call the tool"),
        Message(role=ASSISTANT, content="", tool_calls=(FunctionCall(name=TOOL, arguments={}, id="call_0"),)),
        Message(role=TOOL, content=result.content, tool_call_id="call_0"),
    )
    try:
        text = render(messages, dialect=profile.name)
    except HermesError as exc:
        yield finding("HT504", f"the result cannot be rendered in {profile.name}: {exc}", result.where)
        return
    parsed = parse_transcript(text, dialect=profile.name)
    back = [p.content for t in parsed.turns for p in t.parts if isinstance(p, ToolResponse)]
    if back != [result.content]:
        what = f"{len(back)} results" if len(back) != 1 else "another content"
        yield finding("HT504", f"rendered in {profile.name} and parsed back, the result gives {what}", result.where)


def check_tool_problems(tools_path: JsonPath | None, tools: ToolSet) -> list[Finding]:
    """HT305/HT306 for the declarations, located at the tools of the record (``tools_path``) when known."""
    out: list[Finding] = []
    for problem in tools.problems:
        path = (*tools_path, problem.index) if tools_path is not None else ()
        out.append(finding(problem.code, problem.message, value_where(path)))
    return out
