"""The checks: calls against the tools, conversation structure, security markers, reasoning blocks.

Each check reads the conversation view (``build.Conversation``) and returns findings; ``api.validate``
runs them and applies select/ignore.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..diagnostics import message
from ..model import FunctionCall, Message, ToolResponse
from ..profiles import DialectProfile
from ..tags import CLOSE, CONTROL, OPEN, RESP_CLOSE, RESP_OPEN
from .build import Conversation, Finding, finding
from .engines import parse_transcript, render
from .schema import ToolSet
from .view import VCall, VMessage, value_where

__all__ = ["check_calls", "check_conversation", "check_reasoning", "check_round_trip", "check_security"]

_KNOWN_ROLES = frozenset({"system", "user", "assistant", "tool", "developer"})
_CONTROL = re.compile("|".join(map(re.escape, CONTROL)))
_REASONING_OPENER = re.compile("|".join(map(re.escape, OPEN.values())))
_REASONING_CLOSER = re.compile("|".join(map(re.escape, CLOSE.values())))
_REASONING_TAG = re.compile("|".join(map(re.escape, (*OPEN.values(), *CLOSE.values()))))


def check_calls(conv: Conversation, tools: ToolSet, *, check_names: bool, formats: bool) -> Iterator[Finding]:
    """HT301 unknown tool, HT302 schema violations, HT304 mixed argument encodings."""
    encodings: dict[str, VCall] = {}
    for msg in conv.messages:
        for call in msg.calls:
            encodings.setdefault(call.encoding, call)
            spec = tools.tools.get(call.name)
            if spec is None:
                if check_names:
                    known = ", ".join(sorted(tools.names)) or "none"
                    yield finding("HT301", message("HT301", name=call.name, known=known), call.where)
                continue
            if call.arguments is None:
                continue  # HT303 already said why
            for err in spec.check(call.arguments, formats=formats):
                yield finding(
                    "HT302", f"{call.name}: arguments{err.json_path[1:]}: {err.message}", call.argument_where(err.path)
                )
    if len(encodings) > 1:
        later = max(encodings.values(), key=lambda c: (c.where.path or (), c.where.span.start))
        yield finding("HT304", "this record mixes arguments written as objects and as JSON strings", later.where)


def _pending_key(call: VCall, position: int) -> str:
    return call.id if call.id is not None else f"#{position}"


def check_conversation(conv: Conversation, profile: DialectProfile) -> Iterator[Finding]:
    """HT401–HT408: results pair with calls one to one, in order, by id; roles in order."""
    pending: list[VCall] = []
    answered: list[bool] = []
    seen_user = False
    seen_other = False
    for msg in conv.messages:
        if msg.role not in _KNOWN_ROLES:
            if not msg.from_text:  # the parser already reported HT004 for text
                yield finding("HT407", f"unknown role {msg.role!r}", msg.where)
        elif msg.role in ("system", "developer"):
            if seen_other:
                yield finding("HT407", f"a {msg.role} message after the start of the conversation", msg.where)
        elif msg.role == "assistant" and not seen_user and not msg.results:
            yield finding("HT407", "an assistant message before any user message", msg.where)
        if msg.role == "user" and not msg.results:
            seen_user = True
        if msg.role not in ("system", "developer"):
            seen_other = True
        if msg.results:
            if msg.from_text and msg.role != profile.result_role:
                yield finding(
                    "HT408",
                    f"results in a {msg.role} turn; dialect {profile.name} puts them in {profile.result_role} turns",
                    msg.where,
                )
            yield from _bind_results(msg, pending, answered)
        if msg.role == "assistant" or (msg.role in ("user", "system", "developer") and not msg.results):
            yield from _unanswered(pending, answered)
            pending, answered = (list(msg.calls), [False] * len(msg.calls)) if msg.role == "assistant" else ([], [])
    if any(answered):
        yield from _unanswered(pending, answered)


def _unanswered(pending: list[VCall], answered: list[bool]) -> Iterator[Finding]:
    for call, done in zip(pending, answered, strict=True):
        if not done:
            yield finding("HT401", f"call {call.name!r}{_id_text(call)} has no result", call.where)


def _id_text(call: VCall) -> str:
    return f" ({call.id})" if call.id else ""


def _bind_results(msg: VMessage, pending: list[VCall], answered: list[bool]) -> Iterator[Finding]:
    ids = {c.id: k for k, c in enumerate(pending) if c.id is not None}
    for result in msg.results:
        if result.tool_call_id is not None and ids:
            k = ids.get(result.tool_call_id)
            if k is None:
                yield finding(
                    "HT404",
                    f"tool_call_id {result.tool_call_id!r} names no call of the preceding assistant message",
                    result.where,
                )
                continue
            if answered[k]:
                yield finding(
                    "HT405", f"call {pending[k].name!r} ({result.tool_call_id}) is answered twice", result.where
                )
                continue
            first_open = answered.index(False)
            if k != first_open:
                yield finding(
                    "HT403",
                    f"result for {result.tool_call_id!r} comes before the result for "
                    f"{pending[first_open].id or pending[first_open].name!r}",
                    result.where,
                )
        else:
            if False not in answered:
                what = "no call is pending" if not pending else f"all {len(pending)} call(s) are already answered"
                yield finding("HT402", f"a result without a call: {what}", result.where)
                continue
            k = answered.index(False)
        answered[k] = True
        call = pending[k]
        if result.name is not None and result.name != call.name:
            yield finding(
                "HT406", f"the result names {result.name!r} but answers a call of {call.name!r}", result.where
            )


def check_security(conv: Conversation) -> Iterator[Finding]:
    """HT501 control tokens, HT502 frame closers in results and reasoning, HT503 fabricated results."""
    for msg in conv.messages:
        for piece in (*msg.pieces, *msg.raw):
            for m in _CONTROL.finditer(piece.text):
                where = piece.where(m.start(), m.end())
                yield finding("HT501", f"control token {m.group()} inside {piece.kind}", where)
        for piece in msg.pieces:
            if piece.kind == "result":
                for m in re.finditer(RESP_CLOSE, piece.text):
                    where = piece.where(m.start(), m.end())
                    yield finding("HT502", "</tool_response> inside a result closes its frame early", where)
            elif msg.role == "assistant" and piece.kind == "content":
                for m in re.finditer(RESP_OPEN, piece.text):
                    where = piece.where(m.start(), m.end())
                    yield finding("HT503", "<tool_response> written inside an assistant message", where)


def check_reasoning(conv: Conversation) -> Iterator[Finding]:
    """HT502 closers inside reasoning, HT511 nested openers, HT512 tags in reasoning_content, HT513, HT514."""
    for msg in conv.messages:
        for piece in msg.pieces:
            if piece.kind != "reasoning":
                continue
            if not piece.parsed:
                for m in _REASONING_TAG.finditer(piece.text):
                    yield finding(
                        "HT512",
                        f"{m.group()} inside reasoning_content (the renderer writes the tags)",
                        piece.where(m.start(), m.end()),
                    )
                continue
            for m in _REASONING_OPENER.finditer(piece.text):
                yield finding("HT511", f"{m.group()} inside a reasoning block", piece.where(m.start(), m.end()))
            for m in _REASONING_CLOSER.finditer(piece.text):
                yield finding("HT502", f"{m.group()} inside a reasoning block", piece.where(m.start(), m.end()))
        for r in msg.reasoning:
            if not r.text.strip():
                yield finding("HT514", "empty reasoning block", r.where)
        if "call" in msg.order:
            first_call = msg.order.index("call")
            late = [k for k, kind in enumerate(msg.order) if kind == "reasoning" and k > first_call]
            reasons = [r for r in msg.reasoning if r.kind in ("think", "scratch_pad")]
            for k in late:
                index = msg.order[:k].count("reasoning")
                if index < len(reasons):
                    yield finding("HT513", "reasoning after a tool call in the same turn", reasons[index].where)


def check_round_trip(conv: Conversation, profile: DialectProfile) -> Iterator[Finding]:
    """HT504: each result that holds a ``<`` is rendered in the dialect and parsed back; it must come back equal."""
    from ..errors import HermesError

    for msg in conv.messages:
        for result in msg.results:
            if "<" not in result.content:
                continue  # no marker can appear without one: the text comes back as is
            messages = (
                Message(role="user", content="call the tool"),
                Message(
                    role="assistant", content="", tool_calls=(FunctionCall(name="tool", arguments={}, id="call_0"),)
                ),
                Message(role="tool", content=result.content, tool_call_id="call_0"),
            )
            try:
                text = render(messages, dialect=profile.name)
            except HermesError as exc:
                yield finding("HT504", f"the result cannot be rendered in {profile.name}: {exc}", result.where)
                continue
            parsed = parse_transcript(text, dialect=profile.name)
            back = [p.content for t in parsed.turns for p in t.parts if isinstance(p, ToolResponse)]
            if back != [result.content]:
                what = f"{len(back)} results" if len(back) != 1 else "another content"
                yield finding(
                    "HT504", f"rendered in {profile.name} and parsed back, the result gives {what}", result.where
                )


def check_tool_problems(conv: Conversation, tools: ToolSet) -> Iterator[Finding]:
    """HT305/HT306 for the declarations, located at the tools of the record when known."""
    for problem in tools.problems:
        path = (*conv.tools_path, problem.index) if conv.tools_path is not None else ()
        yield finding(problem.code, problem.message, value_where(path))
