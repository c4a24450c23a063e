"""``convert_records``: datasets between OpenAI records, ShareGPT records and rendered ChatML text.

Every record goes through one canonical form, an OpenAI record ``{"messages": [...], "tools": [...]}``:

* **openai** in: the messages as given (read with ``messages_from_openai``; the legacy ``functions``,
  ``function_call`` and ``function`` messages are read as tools, a call and its result). Results are bound
  to their calls by ``tool_call_id`` (by position only where the source has no ids) and written in the
  order of the calls, which is the only order ChatML can say (it has no ids: a result answers the call
  at its position). Out: ``messages_to_openai``.
* **chatml[:D]** in: ``parse_transcript(text, dialect=D)`` (an XML body's values typed by the transcript's own
  ``<tools>`` blocks: ``_parse.parse_transcript_typed``); the system turn that carries the tool
  catalogue is the template's, not the conversation's: when it is exactly what ``render_system_prompt``
  writes for these tools, the system text merged into it (Qwen, omp) is recovered, otherwise it is
  dropped (as ``convert`` does). Out: ``render(messages, tools=tools, dialect=D)``.
* **sharegpt** in: the turns (``from``: system/human/gpt/tool) are ChatML turns of the Hermes format,
  parsed as one transcript, tools from the record's ``tools`` (a list or its JSON text) or from a
  ``<tools>`` block; LLaMA-Factory / glaive records (``function_call`` turns holding the call as JSON,
  ``observation`` results) are read turn by turn; ``sharegpt_roles`` maps other senders. Out: the Hermes
  rendering cut into turns, ``tools`` as JSON text (as the public Hermes function-calling datasets write
  them).

A record's other fields (``id``, ``category``, …) are kept, in their order and before the shape's own
keys, unless ``drop_columns``; a ChatML output keeps them beside its text (``Converted.columns``, written by
the JSONL and Parquet writers as ``{…columns, "text": …}``). A dict record is read under the Arrow-None
rule (a ``None``-valued key is absent), so the rows of a ``datasets.Dataset`` can be passed as they come.
A record that cannot be converted faithfully (not a record of the source shape, a parse error, a
result that names no call or answers one twice, a gap that ChatML's positions would shift, a field the
target cannot hold, a conversation the target template refuses) is a ``Converted`` with ``error`` set and
no output: never half-written, never rebound.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from .. import _jsonio as jsonio
from .._ids import sequential_ids
from .._model import Message, ToolsBlock, Transcript
from .._openai import messages_from_openai, messages_to_openai
from .._profiles import DIALECTS, get_profile
from .._sharegpt import CALL, senders, sent_calls
from ..errors import HermesError, UsageError
from ..tags import ASSISTANT, DEVELOPER, IM_END, IM_START, RESP_CLOSE, RESP_OPEN, SYSTEM, TOOL, USER
from ._rows import drop_nulls

__all__ = ["Converted", "Shape", "convert_record", "convert_records", "parse_shape"]

Shape = Literal["openai", "sharegpt", "chatml"]
_MARK = "\x00hermes-toolcall-system\x00"
_TO = {SYSTEM: SYSTEM, USER: "human", ASSISTANT: "gpt", TOOL: TOOL}
# message keys the canonical form holds (the rest would be lost: reported when they carry a value)
_MESSAGE_KEYS = frozenset({"role", "content", "tool_calls", "tool_call_id", "name", "reasoning_content",
                           "reasoning", "thinking", "function_call"})


@dataclass(frozen=True, slots=True, kw_only=True)
class Converted:
    """One record's conversion: ``record`` (a dict, or a str for ChatML) or ``error`` (why it was skipped).

    ``columns`` are the record's other fields kept beside a ChatML text (a dict ``record`` holds them
    already); ``record_id`` is the record's own ``id`` when it has one (for reports).
    """

    number: int
    record: dict[str, Any] | str | None = None
    error: str | None = None
    columns: tuple[tuple[str, Any], ...] = ()
    record_id: str | int | None = None

    @property
    def ok(self) -> bool:
        """True when the record was converted."""
        return self.error is None

    def row(self, text_key: str = "text") -> dict[str, Any]:
        """The record as one row of a JSONL or Parquet output: a ChatML text goes under ``text_key``, after
        the kept columns.

        >>> Converted(number=1, record="<|im_start|>…", columns=(("id", 7),)).row()
        {'id': 7, 'text': '<|im_start|>…'}
        """
        if isinstance(self.record, str):
            return {**dict(self.columns), text_key: self.record}
        return dict(self.record or {})


def parse_shape(spec: str) -> tuple[Shape, str]:
    """``openai``, ``sharegpt`` or ``chatml[:DIALECT]`` as (shape, dialect).

    Raises:
        UsageError: an unknown shape or dialect.

    >>> parse_shape("chatml:qwen3"), parse_shape("openai")
    (('chatml', 'qwen3'), ('openai', 'hermes'))
    """
    shape, _, dialect = spec.partition(":")
    if shape not in ("openai", "sharegpt", "chatml"):
        raise UsageError(f"unknown record shape {shape!r} (openai, sharegpt, chatml[:DIALECT])")
    if dialect and shape != "chatml":
        raise UsageError(f"{spec}: only chatml takes a dialect")
    dialect = dialect or "hermes"
    if dialect not in DIALECTS:
        raise UsageError(f"unknown dialect {dialect!r} (one of {', '.join(sorted(DIALECTS))})")
    return shape, dialect  # type: ignore[return-value]


class _Skip(Exception):
    """A record that cannot be converted (carries the reason)."""


def _tools_of(value: Any) -> list[Any] | None:
    if value is None:
        return None
    if isinstance(value, str):
        if not value.strip():
            return None
        value = jsonio.loads_or_none(value)
        if value is None:
            raise _Skip("`tools` is not JSON")
    if not isinstance(value, list):
        raise _Skip("`tools` is not a list")
    return value or None


def _as_tool(item: Any) -> Any:
    """A declaration as an OpenAI tool object (a bare function object, as legacy ``functions`` and
    LLaMA-Factory write them, is wrapped)."""
    if isinstance(item, Mapping) and "function" not in item and isinstance(item.get("name"), str):
        return {"type": "function", "function": dict(item)}
    return item


def _catalogue_system(turn_text: str, tools: Sequence[Any], dialect: str) -> str | None:
    """The conversation's own system text inside the catalogue turn (None: the template's alone)."""
    from ..render import render_system_prompt

    try:
        bare = render_system_prompt(list(tools), dialect=dialect).rstrip("\n")
        marked = render_system_prompt(list(tools), dialect=dialect, system=_MARK).rstrip("\n")
    except HermesError:
        return None
    text = turn_text.rstrip("\n")
    if text == bare or _MARK not in marked:
        return None
    pre, _, post = marked.partition(_MARK)
    if text.startswith(pre) and text.endswith(post) and len(text) >= len(pre) + len(post):
        return text[len(pre) : len(text) - len(post)]
    return None


def _hermes_tools(found: list[Any], turn_text: str, dialect: str) -> list[Any]:
    """The tools as declared, from the Hermes catalogue (whose descriptions the template rewrites as
    ``name(signature) - description`` plus an Args section): each description is recovered when
    rendering the recovered tools gives back the catalogue turn exactly; otherwise as parsed."""
    from ..render import hermes_tool_line, render_system_prompt

    out = []
    for tool in found:
        fn = tool.get("function", tool) if isinstance(tool, Mapping) else None
        if not isinstance(fn, Mapping) or not isinstance(fn.get("description"), str):
            return found
        try:
            line = hermes_tool_line({**fn, "description": _MARK})
        except HermesError:
            return found
        written = line.split('"description": "', 1)[-1].rsplit('", "parameters": ', 1)[0]
        pre, _, post = written.partition(_MARK)
        desc = fn["description"]
        if not (desc.startswith(pre) and desc.endswith(post) and len(desc) >= len(pre) + len(post)):
            return found
        recovered = {**fn, "description": desc[len(pre) : len(desc) - len(post)]}
        out.append({**tool, "function": recovered} if "function" in tool else recovered)
    try:
        same = render_system_prompt(out, dialect=dialect).rstrip("\n") == turn_text.rstrip("\n")
    except HermesError:
        return found
    return out if same else found


def _canonical_arguments(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Call arguments as ``json.dumps`` writes them (the canonical text: parsers re-space them)."""
    for m in messages:
        for call in m.get("tool_calls") or ():
            fn = call.get("function")
            if isinstance(fn, dict) and isinstance(fn.get("arguments"), str):
                value = jsonio.loads_or_none(fn["arguments"])
                if isinstance(value, dict):
                    fn["arguments"] = jsonio.dumps_spaced(value)
    return messages


def _from_transcript(t: Transcript, dialect: str, tools: list[Any] | None) -> dict[str, Any]:
    errors = [d for d in t.diagnostics if d.severity == "error"]
    if errors:
        d = errors[0]
        raise _Skip(f"{d.code} at {d.line}:{d.column}: {d.message}")
    messages = _canonical_arguments(t.to_openai_messages())
    found = list(t.tools)
    system_turns = [turn for turn in t.turns if turn.role in (SYSTEM, DEVELOPER)]
    system_index = [i for i, m in enumerate(messages) if m.get("role") in (SYSTEM, DEVELOPER)]
    drop: list[int] = []
    for turn, index in zip(system_turns, system_index, strict=False):
        if any(isinstance(p, ToolsBlock) for p in turn.parts):
            turn_text = t.source[turn.span.start : turn.span.end]
            if get_profile(dialect).tools_block == "hermes":
                found = _hermes_tools(found, turn_text, dialect)
            own = _catalogue_system(turn_text, found, dialect)
            if own is None:
                drop.append(index)
            else:
                messages[index] = {**messages[index], "content": own}
    if system_turns and system_index and not drop and _default_system(t, system_turns[0], dialect):
        drop.append(system_index[0])
    messages = [m for i, m in enumerate(messages) if i not in drop]
    tools = tools if tools is not None else (found or None)
    out: dict[str, Any] = {"messages": messages}
    if tools:
        out["tools"] = tools
    return out


def _default_system(t: Transcript, turn: Any, dialect: str) -> bool:
    """Whether ``turn`` (the first system turn) is the default system text the template writes when a
    conversation has none (Qwen 2.5: "You are Qwen, created by Alibaba Cloud. …")."""
    from ..render import render

    if t.turns[0] is not turn:
        return False
    try:
        text = render([{"role": USER, "content": _MARK}], tools=[], dialect=dialect)
        prefix = text.partition(f"{IM_START}{USER}")[0]
    except HermesError:
        return False
    return bool(prefix) and t.source[turn.span.start : turn.span.end].rstrip("\n") == prefix.rstrip("\n")


def _parse(text: str, dialect: str) -> Transcript:
    from .._parse import parse_transcript_typed

    return parse_transcript_typed(text, dialect=dialect, ids=sequential_ids())  # XML values typed by its tools


# ---- OpenAI records -----------------------------------------------------------------------------------------


def _has_value(value: Any) -> bool:
    return value not in (None, "", [], {})


def _modern(msgs: list[Any]) -> list[Any]:
    """The legacy function-calling messages as tool messages: ``function_call`` → one call of ``tool_calls``,
    a ``function`` message → a ``tool`` result (bound to the call before it by position); every key the
    canonical form cannot hold that carries a value is reported (it would be lost)."""
    out: list[Any] = []
    for i, m in enumerate(msgs):
        if not isinstance(m, Mapping):
            out.append(m)
            continue
        lost = [k for k in m if k not in _MESSAGE_KEYS and _has_value(m[k])]
        if lost:
            raise _Skip(f"message {i}: {', '.join(map(repr, lost))} cannot be written in the target shape")
        content = m.get("content")
        if isinstance(content, list):
            other = [p.get("type") for p in content if isinstance(p, Mapping) and p.get("type") not in (None, "text")]
            if other:
                raise _Skip(f"message {i}: a content part of type {other[0]!r} cannot be written as text")
        m = dict(m)
        legacy = m.pop("function_call", None)
        if legacy is not None:
            if m.get("role") != ASSISTANT or not isinstance(legacy, Mapping):
                raise _Skip(f"message {i}: a legacy function_call is {{name, arguments}} on an assistant message")
            m["tool_calls"] = [*(m.get("tool_calls") or ()), {"type": "function", "function": dict(legacy)}]
        if m.get("role") == "function":
            m["role"] = TOOL
        out.append(m)
    return out


def _bound(messages: Sequence[Message]) -> list[Message]:
    """The messages with every run of results after an assistant's calls bound to those calls (by
    ``tool_call_id``; by position where the calls or the result have no id) and put in the calls' order.

    Raises:
        _Skip: a result names no call, answers a call twice, has no call before it, or the answered calls
            are not the first ones (ChatML binds results by position, so a gap would rebind the ones after it).
    """
    out: list[Message] = []
    k = 0
    while k < len(messages):
        m = messages[k]
        k += 1
        if m.role == TOOL:
            raise _Skip(f"message {k - 1}: a tool result with no call before it")
        out.append(m)
        if m.role != ASSISTANT or not m.tool_calls:
            continue
        calls = m.tool_calls
        slots: list[Message | None] = [None] * len(calls)
        ids = {c.id: j for j, c in enumerate(calls) if c.id is not None}
        while k < len(messages) and messages[k].role == TOOL:
            result = messages[k]
            if result.tool_call_id is not None and ids:
                j = ids.get(result.tool_call_id)
                if j is None:
                    raise _Skip(f"message {k}: tool_call_id {result.tool_call_id!r} names no call of the assistant "
                                "message before it")
                if slots[j] is not None:
                    raise _Skip(f"message {k}: call {calls[j].name!r} ({result.tool_call_id}) is answered twice")
            else:
                j = next((n for n, s in enumerate(slots) if s is None), -1)
                if j < 0:
                    raise _Skip(f"message {k}: a result beyond the {len(calls)} call(s) of the message before it")
            slots[j] = replace(result, tool_call_id=calls[j].id)
            k += 1
        answered = [s for s in slots if s is not None]
        if answered and slots[len(answered) - 1] is None:
            gap = slots.index(None)
            raise _Skip(f"call {gap} ({calls[gap].name!r}) has no result but a later call of its message has one: "
                        "ChatML binds results by position, so the later results would answer the wrong calls")
        out.extend(answered)
    return out


def _read_openai(record: Mapping[str, Any], messages_key: str, tools: list[Any] | None) -> dict[str, Any]:
    msgs = record.get(messages_key)
    if not isinstance(msgs, list):
        raise _Skip(f"an OpenAI record has a `{messages_key}` list")
    try:
        values = messages_from_openai(_modern(msgs))
    except HermesError as exc:
        raise _Skip(str(exc)) from exc
    messages = _canonical_arguments(messages_to_openai(_bound(values)))
    out: dict[str, Any] = {"messages": messages}
    if tools:
        out["tools"] = tools
    return out


# ---- ShareGPT records ---------------------------------------------------------------------------------------


def _read_sharegpt(turns: list[Any], tools: list[Any] | None, roles: Mapping[str, str]) -> dict[str, Any]:
    mapped = []
    for i, turn in enumerate(turns):
        sender = turn.get("from") if isinstance(turn, Mapping) else None
        role = roles.get(sender) if isinstance(sender, str) else None
        if role is None or not isinstance(turn.get("value"), str):
            raise _Skip(f"turn {i}: a turn is {{from: {'|'.join(roles)}, value: string}} (--sharegpt-roles maps "
                        "other senders)")
        mapped.append((role, turn["value"]))
    if any(role == CALL for role, _ in mapped):
        return _read_call_turns(mapped, tools)
    parts = []
    for role, value in mapped:
        if role == TOOL and RESP_OPEN not in value:  # a bare result (observation): the Hermes frame around it
            value = f"{RESP_OPEN}\n{value}\n{RESP_CLOSE}"
        parts.append(f"{IM_START}{role}\n{value}{IM_END}\n")
    return _from_transcript(_parse("".join(parts), "hermes"), "hermes", tools)


def _read_call_turns(mapped: list[tuple[str, str]], tools: list[Any] | None) -> dict[str, Any]:
    """A LLaMA-Factory / glaive conversation: text turns, ``function_call`` turns holding the calls as JSON,
    results as plain text: read as OpenAI messages (results bound to the calls before them by position)."""
    msgs: list[dict[str, Any]] = []
    for i, (role, value) in enumerate(mapped):
        if role == CALL:
            sent = sent_calls(value)
            if isinstance(sent, str):
                raise _Skip(f"turn {i}: {sent}")
            calls = [{"type": "function", "function": {"name": c.name, "arguments": c.arguments}} for c in sent]
            msgs.append({"role": ASSISTANT, "content": None, "tool_calls": calls})
        else:
            msgs.append({"role": role, "content": value})
    return _read_openai({"messages": msgs}, "messages", tools)


# ---- records ------------------------------------------------------------------------------------------------


def _read(
    record: Any, shape: Shape, dialect: str, keys: _Keys, roles: Mapping[str, str]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """A source record as the canonical OpenAI record, and its other fields (the columns to keep)."""
    if shape == "chatml":
        columns: dict[str, Any] = {}
        if isinstance(record, Mapping):
            record = drop_nulls(dict(record))
            columns = {k: v for k, v in record.items() if k != keys.text}
            record = record.get(keys.text)
            if not isinstance(record, str):
                raise _Skip(f"a ChatML record is a transcript text (or an object with a `{keys.text}` string)")
        if not isinstance(record, str):
            raise _Skip("a ChatML record is a transcript text (or an object with a `text` string)")
        return _from_transcript(_parse(record, dialect), dialect, None), columns
    if not isinstance(record, Mapping):
        raise _Skip(f"a record is a JSON object, not {type(record).__name__}")
    record = drop_nulls(dict(record))  # rows of a datasets.Dataset carry None for absent keys (Arrow)
    tools_key = keys.tools or "tools"
    tools = _tools_of(record.get(tools_key))
    legacy = None if keys.tools else record.get("functions")
    if legacy is not None:  # the legacy declarations (bare function objects) declare too
        if not isinstance(legacy, list):
            raise _Skip("`functions` is not a list")
        tools = [*(tools or ()), *legacy] or None
    if tools:
        tools = [_as_tool(t) for t in tools]
    own = {tools_key, "functions"} if not keys.tools else {tools_key}
    if shape == "openai":
        key = keys.messages or "messages"
        own.add(key)
        out = _read_openai(record, key, tools)
    else:
        key = keys.messages or "conversations"
        own.add(key)
        turns = record.get(key)
        if not isinstance(turns, list):
            raise _Skip(f"a ShareGPT record has a `{key}` list")
        out = _read_sharegpt(turns, tools, roles)
    return out, {k: v for k, v in record.items() if k not in own}


def _render(record: Mapping[str, Any], dialect: str) -> str:
    from ..render import render

    messages = [{**m, "content": m.get("content") or ""} for m in record["messages"]]
    text: str = render(messages, tools=record.get("tools") or [], dialect=dialect)  # hermes needs a list
    return text


def _write(record: dict[str, Any], shape: Shape, dialect: str) -> dict[str, Any] | str:
    """The canonical record in the target shape."""
    try:
        if shape == "openai":
            return record
        if shape == "chatml":
            return _render(record, dialect)
        text = _render(record, "hermes")
    except HermesError as exc:
        raise _Skip(f"cannot render: {exc}") from exc
    t = _parse(text, "hermes")
    turns = []
    for turn in t.turns:
        end = turn.end.start if turn.end is not None else turn.span.end
        turns.append({"from": _TO.get(turn.role, turn.role), "value": t.source[turn.header.end : end]})
    out: dict[str, Any] = {"conversations": turns}
    if record.get("tools"):
        out["tools"] = jsonio.dumps_spaced(record["tools"])
    return out


def _view(record: Mapping[str, Any]) -> list[tuple[Any, ...]]:
    """What a canonical record means, message by message: the role, the text and reasoning (whitespace around
    them aside: the OpenAI view trims it beside a call), each call's name and decoded arguments, and for a
    result the position of the call it answers."""
    out: list[tuple[Any, ...]] = []
    ids: dict[str, int] = {}
    for m in record.get("messages") or ():
        calls = []
        for k, c in enumerate(m.get("tool_calls") or ()):
            fn = c.get("function") or {}
            args = fn.get("arguments")
            calls.append((fn.get("name"), jsonio.loads_or_none(args) if isinstance(args, str) else args))
            ids[c.get("id")] = k
        answers = ids.get(m.get("tool_call_id"), -1) if m.get("role") == TOOL else None
        reasoning = m.get("reasoning_content") or ""
        out.append((m.get("role"), (m.get("content") or "").strip(), reasoning.strip(), tuple(calls), answers))
    return out


def _difference(before: Mapping[str, Any], after: Mapping[str, Any], target: str) -> str | None:
    """Why ``after`` (the record read back from the target) does not mean ``before``, or None."""
    a, b = _view(before), _view(after)
    what = ("role", "text", "reasoning", "calls", "result binding")
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            field = next(name for name, p, q in zip(what, x, y, strict=True) if p != q)
            lost = x[what.index(field)]
            return f"{target} cannot hold message {i} as it is: its {field} does not come back ({lost!r})"
    if len(a) != len(b):
        return f"{target} gives back {len(b)} message(s) for {len(a)}"
    names = sorted(_tool_name(t) for t in before.get("tools") or ())
    if names != sorted(_tool_name(t) for t in after.get("tools") or ()):
        return f"{target} does not give back the tools {names}"
    return None


def _tool_name(tool: Any) -> str:
    fn = tool.get("function", tool) if isinstance(tool, Mapping) else {}
    name = fn.get("name") if isinstance(fn, Mapping) else None
    return name if isinstance(name, str) else ""


@dataclass(frozen=True, slots=True, kw_only=True)
class _Keys:
    """Where a record keeps its parts: the messages, the tools, the ChatML text (column mapping)."""

    messages: str | None = None
    tools: str | None = None
    text: str = "text"


def _record_id(record: Any) -> str | int | None:
    value = record.get("id") if isinstance(record, Mapping) else None
    if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    return None


def convert_record(
    record: Any,
    *,
    source: str,
    target: str,
    number: int = 1,
    drop_columns: bool = False,
    messages_column: str | None = None,
    tools_column: str | None = None,
    text_column: str = "text",
    sharegpt_roles: Iterable[tuple[str, str]] = (),
) -> Converted:
    """Convert one record; see ``convert_records``.

    >>> convert_record({"messages": [{"role": "user", "content": "Hi"}]}, source="openai",
    ...                target="chatml:qwen3").record
    '<|im_start|>user\\nHi<|im_end|>\\n'
    >>> convert_record({"messages": [{"role": "user", "content": "Hi"}], "id": 7}, source="openai",
    ...                target="openai").record
    {'id': 7, 'messages': [{'role': 'user', 'content': 'Hi'}]}
    """
    src, src_dialect = parse_shape(source)
    dst, dst_dialect = parse_shape(target)
    keys = _Keys(messages=messages_column, tools=tools_column, text=text_column)
    rid = _record_id(record)
    try:
        roles = senders(tuple(sharegpt_roles))
        canonical, columns = _read(record, src, src_dialect, keys, roles)
        written = _write(canonical, dst, dst_dialect)
        if dst != "openai":  # read the output back: a template that drops something is no faithful target
            again, _ = _read(written, dst, dst_dialect, _Keys(), roles)
            differs = _difference(canonical, again, target)
            if differs is not None:
                raise _Skip(differs)
    except _Skip as exc:
        return Converted(number=number, error=str(exc), record_id=rid)
    kept = () if drop_columns else tuple(columns.items())
    if isinstance(written, dict) and kept:
        clash = [k for k, _ in kept if k in written]
        if clash:
            what = ", ".join(map(repr, clash))
            return Converted(number=number, error=f"the column(s) {what} would be overwritten by the {dst} record's "
                             "own (rename them, or --drop-columns)", record_id=rid)
        written = {**dict(kept), **written}
    elif isinstance(written, str) and text_column in dict(kept):
        return Converted(number=number, error=f"the column {text_column!r} would be overwritten by the ChatML text "
                         "(rename it, or --drop-columns)", record_id=rid)
    return Converted(number=number, record=written, columns=kept, record_id=rid)


def convert_records(
    records: Iterable[Any],
    *,
    source: str,
    target: str,
    drop_columns: bool = False,
    messages_column: str | None = None,
    tools_column: str | None = None,
    text_column: str = "text",
    sharegpt_roles: Iterable[tuple[str, str]] = (),
) -> Iterator[Converted]:
    """Convert records between shapes, one at a time (streaming), numbered from 1.

    Args:
        records: dicts (OpenAI or ShareGPT records) or ChatML texts (str, or ``{"text": …}``).
        source: ``openai``, ``sharegpt`` or ``chatml[:DIALECT]`` (default dialect hermes).
        target: the same set.
        drop_columns: leave out the records' other fields (kept by default).
        messages_column: the field holding the messages (default ``messages``, ShareGPT ``conversations``).
        tools_column: the field holding the tools (default ``tools``; legacy ``functions`` are read too).
        text_column: the field holding a ChatML text (``--from chatml`` records that are objects).
        sharegpt_roles: more ShareGPT senders, ``(from, role)`` pairs (``_sharegpt.parse_roles``).

    Returns:
        One ``Converted`` per record, in order: ``record`` set, or ``error`` (the record is skipped).

    Raises:
        UsageError: an unknown shape or dialect.

    >>> out = list(convert_records([{"conversations": [{"from": "human", "value": "Hi"}]}, {"x": 1}],
    ...                            source="sharegpt", target="openai"))
    >>> out[0].record, out[1].error
    ({'messages': [{'role': 'user', 'content': 'Hi'}]}, 'a ShareGPT record has a `conversations` list')
    """
    parse_shape(source)
    parse_shape(target)
    roles = tuple(sharegpt_roles)
    for number, record in enumerate(records, 1):
        yield convert_record(
            record, source=source, target=target, number=number, drop_columns=drop_columns,
            messages_column=messages_column, tools_column=tools_column, text_column=text_column, sharegpt_roles=roles,
        )
