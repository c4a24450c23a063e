"""The OpenAI view, both ways (docs/parsing.md §9): parsed values to OpenAI chat messages, and OpenAI
request messages to ``_parts.Message`` values (re-exported by ``_model``).

Both parsing engines use this module; nothing here scans text.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal, Protocol

from ._jsonio import dumps_spaced
from ._parts import (
    FunctionCall,
    InvalidToolCall,
    Message,
    Part,
    Reasoning,
    Text,
    ToolCall,
    ToolResponse,
    Turn,
)
from ._profiles import DIALECTS
from .errors import UsageError
from .tags import ASSISTANT, TOOL, USER

__all__ = [
    "INVALID_CALLS",
    "InvalidCalls",
    "body_text",
    "check_invalid_calls",
    "completion_to_openai",
    "message_to_openai",
    "messages_from_openai",
    "messages_to_openai",
    "transcript_to_messages",
    "transcript_to_openai",
]


class CompletionView(Protocol):
    """What the OpenAI view reads of a ``Completion`` (it sits below ``_model``, which uses it)."""

    @property
    def parts(self) -> tuple[Part, ...]: ...


class TranscriptView(Protocol):
    """What the OpenAI view reads of a ``Transcript``."""

    @property
    def turns(self) -> tuple[Turn, ...]: ...
    @property
    def source(self) -> str: ...


_WS = " \t\n\r"
# roles of turns that hold results only (``tool``; Step's ``tool_response``): every profile's result role but
# ``user`` (a user turn holds results only when it has nothing else)
_RESULT_TURNS = frozenset(p.result_role for p in DIALECTS.values()) - {USER}
_REASONING_KEYS = ("reasoning_content", "thinking", "reasoning")


#: What the OpenAI view does with the text of a call block that gave no call (``InvalidToolCall``):
#: ``content`` (the default, as vLLM and SGLang pass a call they cannot parse through as text): its raw
#: text is content, in its place (also for a block inside reasoning, ``calls_in_reasoning=True``: the
#: stream cannot know a block is inside reasoning when the prompt opened it and nothing preceded the
#: block); ``drop``: it is left out.
InvalidCalls = Literal["content", "drop"]
INVALID_CALLS: tuple[str, ...] = ("content", "drop")


def check_invalid_calls(value: object) -> InvalidCalls:
    """``value`` as an ``invalid_calls`` option.

    Raises:
        UsageError: anything but ``"content"`` or ``"drop"``.

    >>> check_invalid_calls("drop")
    'drop'
    """
    if value == "content" or value == "drop":
        return value
    raise UsageError(f"invalid_calls must be 'content' or 'drop', got {value!r}")


def _with_invalid_text(parts: Sequence[Part]) -> Sequence[Part]:
    """The parts with each ``InvalidToolCall`` read as the text it was written as (a ``Text`` part)."""
    if not any(isinstance(p, InvalidToolCall) for p in parts):
        return parts
    return [Text(text=p.raw, span=p.span) if isinstance(p, InvalidToolCall) else p for p in parts]


def _reasoning_text(parts: Sequence[Part]) -> str | None:
    """The reasoning blocks' texts: a block's segments concatenated, one leading and one trailing
    newline removed per block, blocks joined by newlines; None when empty."""
    blocks: list[list[str]] = []
    for part in parts:
        if isinstance(part, Reasoning):
            if part.opened or not blocks:
                blocks.append([])
            blocks[-1].append(part.text)
    cleaned = []
    for segments in blocks:
        block = "".join(segments)
        block = block[1:] if block.startswith("\n") else block
        block = block[:-1] if block.endswith("\n") else block
        cleaned.append(block)
    return "\n".join(cleaned) or None


def _assistant_fields(
    parts: Sequence[Part], invalid_calls: InvalidCalls = "content"
) -> tuple[str | None, str | None, tuple[ToolCall, ...]]:
    """(content, reasoning_content, valid calls) of an assistant body, per docs/parsing.md §9."""
    if invalid_calls == "content":
        parts = _with_invalid_text(parts)
    texts: list[str] = []
    reasoning_first = False
    seen_text = False
    call_seen = False  # a valid call came before the first non-ws text
    lead_strip: bool | None = None  # decided at the first non-ws text
    for part in parts:
        if isinstance(part, Text):
            texts.append(part.text)
            seen_text = True
            if lead_strip is None and part.text.strip(_WS):
                lead_strip = call_seen
        elif isinstance(part, ToolCall):
            call_seen = True
        elif isinstance(part, Reasoning) and not seen_text:
            reasoning_first = True
    text = "".join(texts)
    if reasoning_first:
        text = text.lstrip("\n")
    calls = tuple(p for p in parts if isinstance(p, ToolCall))
    content: str | None = text
    if calls:
        text = text.rstrip(_WS)
        content = (text.lstrip(_WS) if lead_strip else text) or None
    return content, _reasoning_text(parts), calls


def completion_to_openai(c: CompletionView, *, invalid_calls: InvalidCalls = "content") -> dict[str, Any]:
    """The OpenAI assistant message of a completion: always ``role``, ``content``, ``reasoning_content``,
    ``tool_calls`` (a list, possibly empty). ``invalid_calls``: see ``InvalidCalls``.

    >>> from hermes_toolcall import Completion, Span
    >>> s = Span(start=0, end=2, line=1, column=1)
    >>> completion_to_openai(Completion(parts=(Text(text="Hi", span=s),), diagnostics=(), source="Hi"))
    {'role': 'assistant', 'content': 'Hi', 'reasoning_content': None, 'tool_calls': []}
    """
    content, reasoning, calls = _assistant_fields(c.parts, check_invalid_calls(invalid_calls))
    return {
        "role": ASSISTANT,
        "content": content,
        "reasoning_content": reasoning,
        "tool_calls": [call.to_openai() for call in calls],
    }


def body_text(turn: Turn, source: str) -> str:
    """The text of a turn between its header and its ``<|im_end|>`` (or its end): a non-assistant turn's content."""
    end = turn.end.start if turn.end is not None else turn.span.end
    return source[turn.header.end : end] if turn.header.end <= end else ""


def _only_results(turn: Turn) -> bool:
    results = False
    for part in turn.parts:
        if isinstance(part, ToolResponse):
            results = True
        elif not (isinstance(part, Text) and not part.text.strip(_WS)):
            return False
    return results


def transcript_to_messages(t: TranscriptView, *, invalid_calls: InvalidCalls = "content") -> tuple[Message, ...]:
    """The conversation of a parsed transcript as span-free messages (docs/parsing.md §9).

    Tool messages bind to calls by position: each assistant turn with calls resets the queue of
    pending call ids, and each tool message takes the next one.

    >>> from hermes_toolcall import Span, Transcript
    >>> s = Span(start=0, end=0, line=1, column=1)
    >>> src = "<|im_start|>user\\nHi<|im_end|>"
    >>> turn = Turn(role="user", parts=(), span=Span(start=0, end=29, line=1, column=1),
    ...             header=Span(start=0, end=17, line=1, column=1), end=Span(start=19, end=29, line=2, column=3))
    >>> transcript_to_messages(Transcript(turns=(turn,), gaps=(), diagnostics=(), source=src))
    (Message(role='user', content='Hi', reasoning=None, tool_calls=(), tool_call_id=None, name=None),)
    """
    check_invalid_calls(invalid_calls)
    out: list[Message] = []
    pending: list[str] = []
    last = len(t.turns) - 1
    for n, turn in enumerate(t.turns):
        role = turn.role
        if role == ASSISTANT:
            content, reasoning, calls = _assistant_fields(turn.parts, invalid_calls)
            if (n == last and turn.end is None and not content and not calls and reasoning is None
                    and not any(isinstance(p, InvalidToolCall) for p in turn.parts)):
                continue  # a generation prompt
            if calls:
                pending = [c.id for c in calls]
            out.append(Message(
                role=ASSISTANT,
                content=content,
                reasoning=reasoning,
                tool_calls=tuple(FunctionCall(name=c.name, arguments=c.arguments_json, id=c.id) for c in calls),
            ))
        elif role in _RESULT_TURNS or (role == USER and _only_results(turn)):
            results = [p for p in turn.parts if isinstance(p, ToolResponse)]
            results_content: list[tuple[str, str | None]]
            if not results:  # a tool turn without <tool_response> blocks: its body is the result
                results_content = [(body_text(turn, t.source), None)]
            else:
                results_content = [(r.content, r.name) for r in results]
            for content_text, name in results_content:
                call_id = pending.pop(0) if pending else None
                out.append(Message(role=TOOL, content=content_text, tool_call_id=call_id, name=name))
        else:
            out.append(Message(role=role, content=body_text(turn, t.source)))
    return tuple(out)


def _arguments_json(arguments: Mapping[str, Any] | str) -> str:
    return arguments if isinstance(arguments, str) else dumps_spaced(arguments)


def message_to_openai(message: Message, *, call_ids: Iterable[str] = ()) -> dict[str, Any]:
    """One message as an OpenAI chat message dict (``call_ids`` supplies ids for calls that have none).

    >>> out = message_to_openai(Message(role="assistant", tool_calls=(FunctionCall(name="f", arguments={}),)))
    >>> out["content"], out["tool_calls"][0]["function"]
    (None, {'name': 'f', 'arguments': '{}'})
    """
    out: dict[str, Any] = {"role": message.role, "content": message.content}
    if message.reasoning is not None:
        out["reasoning_content"] = message.reasoning
    if message.tool_calls:
        ids = iter(call_ids)
        out["tool_calls"] = [
            {
                "id": call.id if call.id is not None else next(ids, f"call_{k}"),
                "type": "function",
                "function": {"name": call.name, "arguments": _arguments_json(call.arguments)},
            }
            for k, call in enumerate(message.tool_calls)
        ]
    if message.tool_call_id is not None:
        out["tool_call_id"] = message.tool_call_id
    if message.name is not None:
        out["name"] = message.name
    return out


def messages_to_openai(messages: Iterable[Message]) -> list[dict[str, Any]]:
    """Messages as OpenAI chat message dicts.

    ``content`` is null for a pure-call assistant turn; ``function.arguments`` is a JSON string;
    calls without an id get ``call_{n}`` (n counting calls over the conversation); a tool message
    without ``tool_call_id`` takes the next pending call id of the latest assistant turn with calls.

    >>> msgs = (Message(role="assistant", tool_calls=(FunctionCall(name="f", arguments={"a": 1}),)),
    ...         Message(role="tool", content="ok"))
    >>> [m.get("tool_call_id") for m in messages_to_openai(msgs)]
    [None, 'call_0']
    """
    out: list[dict[str, Any]] = []
    pending: list[str] = []
    counter = 0
    for message in messages:
        if message.role == ASSISTANT and message.tool_calls:
            fresh = [f"call_{counter + k}" for k in range(len(message.tool_calls))]
            counter += len(message.tool_calls)
            entry = message_to_openai(message, call_ids=fresh)
            pending = [c["id"] for c in entry["tool_calls"]]
        else:
            entry = message_to_openai(message)
            if message.role == TOOL:
                bound = pending.pop(0) if pending else None
                if message.tool_call_id is None and bound is not None:
                    entry["tool_call_id"] = bound
        out.append(entry)
    return out


def transcript_to_openai(t: TranscriptView, *, invalid_calls: InvalidCalls = "content") -> list[dict[str, Any]]:
    """The conversation of a parsed transcript as OpenAI chat messages.

    >>> from hermes_toolcall import Transcript
    >>> transcript_to_openai(Transcript(turns=(), gaps=(), diagnostics=(), source=""))
    []
    """
    return messages_to_openai(transcript_to_messages(t, invalid_calls=invalid_calls))


def _content(value: Any, index: int) -> str | None:
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, list):
        texts = []
        for part in value:
            if isinstance(part, str):
                texts.append(part)
            elif isinstance(part, Mapping) and part.get("type", "text") == "text":
                text = part.get("text")
                if not isinstance(text, str):
                    raise UsageError(f"message {index}: a text part has no string 'text'")
                texts.append(text)
            elif not isinstance(part, Mapping):
                raise UsageError(f"message {index}: content parts must be objects")
        return "".join(texts)
    raise UsageError(f"message {index}: content must be a string, a list of parts or null")


def _function_call(call: Any, index: int) -> FunctionCall:
    if not isinstance(call, Mapping):
        raise UsageError(f"message {index}: a tool call must be an object")
    fn = call.get("function")
    fn = fn if isinstance(fn, Mapping) else call
    name = fn.get("name")
    if not isinstance(name, str):
        raise UsageError(f"message {index}: a tool call needs a string function.name")
    arguments = fn.get("arguments", {})
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, (str, Mapping)):
        raise UsageError(f"message {index}: function.arguments must be a JSON string or an object")
    call_id = call.get("id")
    return FunctionCall(name=name, arguments=arguments if isinstance(arguments, str) else dict(arguments),
                        id=call_id if isinstance(call_id, str) else None)


def messages_from_openai(messages: Iterable[Mapping[str, Any]]) -> tuple[Message, ...]:
    """OpenAI chat messages (request shape) as ``Message`` values.

    ``content`` may be a string, null or a list of text parts (concatenated; other parts are
    skipped); reasoning is read from ``reasoning_content``, ``thinking`` or ``reasoning`` (the first
    that is set); ``function.arguments`` is kept as given (a JSON string or an object).

    Raises:
        UsageError: a message is not an object, has no role, or has malformed fields.

    >>> messages_from_openai([{"role": "user", "content": [{"type": "text", "text": "Hi"}]}])
    (Message(role='user', content='Hi', reasoning=None, tool_calls=(), tool_call_id=None, name=None),)
    """
    out: list[Message] = []
    for index, m in enumerate(messages):
        if not isinstance(m, Mapping):
            raise UsageError(f"message {index}: expected an object, got {type(m).__name__}")
        role = m.get("role")
        if not isinstance(role, str):
            raise UsageError(f"message {index}: missing or non-string 'role'")
        reasoning = next((m[k] for k in _REASONING_KEYS if m.get(k) is not None), None)
        if reasoning is not None and not isinstance(reasoning, str):
            raise UsageError(f"message {index}: reasoning must be a string")
        calls = m.get("tool_calls") or ()
        if not isinstance(calls, (list, tuple)):
            raise UsageError(f"message {index}: tool_calls must be a list")
        call_id = m.get("tool_call_id")
        name = m.get("name")
        out.append(Message(
            role=role,
            content=_content(m.get("content"), index),
            reasoning=reasoning,
            tool_calls=tuple(_function_call(c, index) for c in calls),
            tool_call_id=call_id if isinstance(call_id, str) else None,
            name=name if isinstance(name, str) else None,
        ))
    return tuple(out)
