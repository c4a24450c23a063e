"""``convert_records``: datasets between OpenAI records, ShareGPT records and rendered ChatML text.

Every record goes through one canonical form, an OpenAI record ``{"messages": [...], "tools": [...]}``:

* **openai** in: the messages as given (read with ``messages_from_openai``); out: ``messages_to_openai``.
* **chatml[:D]** in: ``parse_transcript(text, dialect=D)``; the system turn that carries the tool
  catalogue is the template's, not the conversation's: when it is exactly what ``render_system_prompt``
  writes for these tools, the system text merged into it (Qwen, omp) is recovered, otherwise it is
  dropped (as ``convert`` does). Out: ``render(messages, tools=tools, dialect=D)``.
* **sharegpt** in: the turns (``from``: system/human/gpt/tool) are ChatML turns of the Hermes format,
  parsed as one transcript, tools from the record's ``tools`` (a list or its JSON text) or from a
  ``<tools>`` block; out: the Hermes rendering cut into turns, ``tools`` as JSON text (as the public
  Hermes function-calling datasets write them).

A dict record is read under the Arrow-None rule (a ``None``-valued key is absent), so the rows of a
``datasets.Dataset`` can be passed as they come. A record that cannot be converted (not a record of
the source shape, a parse error, a conversation the target template refuses) is a ``Converted`` with
``error`` set and no output: never half-written.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from .. import _jsonio as jsonio
from .._ids import sequential_ids
from .._model import ToolsBlock, Transcript
from .._openai import messages_from_openai, messages_to_openai
from .._profiles import DIALECTS, get_profile
from ..errors import HermesError, UsageError
from ..tags import IM_END, IM_START
from ._rows import drop_nulls

__all__ = ["Converted", "Shape", "convert_record", "convert_records", "parse_shape"]

Shape = Literal["openai", "sharegpt", "chatml"]
_MARK = "\x00hermes-toolcall-system\x00"
_FROM = {"system": "system", "human": "user", "user": "user", "gpt": "assistant", "assistant": "assistant",
         "tool": "tool", "function_response": "tool", "observation": "tool"}
_TO = {"system": "system", "user": "human", "assistant": "gpt", "tool": "tool"}


@dataclass(frozen=True, slots=True, kw_only=True)
class Converted:
    """One record's conversion: ``record`` (a dict, or a str for ChatML) or ``error`` (why it was skipped)."""

    number: int
    record: dict[str, Any] | str | None = None
    error: str | None = None

    @property
    def ok(self) -> bool:
        """True when the record was converted."""
        return self.error is None


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
    system_turns = [turn for turn in t.turns if turn.role in ("system", "developer")]
    system_index = [i for i, m in enumerate(messages) if m.get("role") in ("system", "developer")]
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
        text = render([{"role": "user", "content": _MARK}], tools=[], dialect=dialect)
        prefix = text.partition(f"{IM_START}user")[0]
    except HermesError:
        return False
    return bool(prefix) and t.source[turn.span.start : turn.span.end].rstrip("\n") == prefix.rstrip("\n")


def _parse(text: str, dialect: str) -> Transcript:
    from .._parse import parse_transcript

    return parse_transcript(text, dialect=dialect, ids=sequential_ids())


def _read(record: Any, shape: Shape, dialect: str) -> dict[str, Any]:
    """A source record as the canonical OpenAI record."""
    if shape == "chatml":
        if isinstance(record, Mapping) and isinstance(record.get("text"), str):
            record = record["text"]
        if not isinstance(record, str):
            raise _Skip("a ChatML record is a transcript text (or an object with a `text` string)")
        return _from_transcript(_parse(record, dialect), dialect, None)
    if not isinstance(record, Mapping):
        raise _Skip(f"a record is a JSON object, not {type(record).__name__}")
    record = drop_nulls(dict(record))  # rows of a datasets.Dataset carry None for absent keys (Arrow)
    tools = _tools_of(record.get("tools"))
    if shape == "openai":
        msgs = record.get("messages")
        if not isinstance(msgs, list):
            raise _Skip("an OpenAI record has a `messages` list")
        try:
            messages = _canonical_arguments(messages_to_openai(messages_from_openai(msgs)))
        except HermesError as exc:
            raise _Skip(str(exc)) from exc
        out: dict[str, Any] = {"messages": messages}
        if tools:
            out["tools"] = tools
        return out
    turns = record.get("conversations")
    if not isinstance(turns, list):
        raise _Skip("a ShareGPT record has a `conversations` list")
    parts = []
    for i, turn in enumerate(turns):
        sender = turn.get("from") if isinstance(turn, Mapping) else None
        role = _FROM.get(sender) if isinstance(sender, str) else None
        if role is None or not isinstance(turn.get("value"), str):
            raise _Skip(f"turn {i}: a turn is {{from: system|human|gpt|tool, value: string}}")
        parts.append(f"{IM_START}{role}\n{turn['value']}{IM_END}\n")
    return _from_transcript(_parse("".join(parts), "hermes"), "hermes", tools)


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


def convert_record(record: Any, *, source: str, target: str, number: int = 1) -> Converted:
    """Convert one record; see ``convert_records``.

    >>> convert_record({"messages": [{"role": "user", "content": "Hi"}]}, source="openai",
    ...                target="chatml:qwen3").record
    '<|im_start|>user\\nHi<|im_end|>\\n'
    """
    src, src_dialect = parse_shape(source)
    dst, dst_dialect = parse_shape(target)
    try:
        return Converted(number=number, record=_write(_read(record, src, src_dialect), dst, dst_dialect))
    except _Skip as exc:
        return Converted(number=number, error=str(exc))


def convert_records(records: Iterable[Any], *, source: str, target: str) -> Iterator[Converted]:
    """Convert records between shapes, one at a time (streaming), numbered from 1.

    Args:
        records: dicts (OpenAI or ShareGPT records) or ChatML texts (str, or ``{"text": …}``).
        source: ``openai``, ``sharegpt`` or ``chatml[:DIALECT]`` (default dialect hermes).
        target: the same set.

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
    for number, record in enumerate(records, 1):
        yield convert_record(record, source=source, target=target, number=number)
