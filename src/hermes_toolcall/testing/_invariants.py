"""The guarantees clients consume, as checks: stream events agree with the result, OpenAI chunks with the message.

``check_events`` holds the event invariants (docs/statemachine.md): every ``ToolCallStart`` has
exactly one ``ToolCallEnd`` with the same id, after it; a valid end carries the announced name; every
valid call of the result has a start and a valid end; ended calls and invalid blocks are the result's.
``check_openai_chunks`` streams a completion through ``OpenAIChunker`` and accumulates the chunks with
this kit's ``accumulate_chunks`` and, when the ``openai`` package is installed, with openai-python's
own ``ChatCompletionStreamState``: in the default mode both equal ``Completion.to_openai()`` exactly;
in the eager mode they do once the last chunk's ``rejected_tool_calls`` / ``corrected_tool_calls``
are applied.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

from .._model import Completion, InvalidToolCall, ToolCall, Transcript
from .._openai_chunks import OpenAIChunker
from ..errors import StreamError
from ..statemachine import StreamParser, ToolCallEnd, ToolCallStart
from ._openai_stream import accumulate_chunks

__all__ = ["apply_corrections", "check_events", "check_openai_chunks", "openai_accumulate"]

Result = Completion | Transcript


def _parts(result: Result) -> list[Any]:
    if isinstance(result, Completion):
        return list(result.parts)
    return [p for turn in result.turns for p in turn.parts]


def check_events(events: Iterable[Any], result: Result) -> None:
    """Assert the event invariants of one stream against its result.

    Raises:
        AssertionError: naming the broken invariant.

    >>> p = StreamParser()
    >>> events = p.feed('<tool_call>{"name": "f", "arguments": {}}</tool_call>') + p.close()
    >>> check_events(events, p.result())
    """
    announced: dict[str, str] = {}
    ended: set[str] = set()
    calls: list[ToolCall] = []
    invalid: list[InvalidToolCall] = []
    for e in events:
        if isinstance(e, ToolCallStart):
            assert e.id not in announced, f"ToolCallStart {e.id!r} announced twice"
            announced[e.id] = e.name
        elif isinstance(e, ToolCallEnd):
            assert e.id not in ended, f"ToolCallEnd {e.id!r} twice"
            ended.add(e.id)
            assert (e.call is None) != (e.invalid is None), f"ToolCallEnd {e.id!r}: exactly one of call, invalid"
            if e.call is not None:
                assert e.id in announced, f"valid call {e.id!r} ended without a ToolCallStart"
                assert e.call.name == announced[e.id], (
                    f"call {e.id!r} announced as {announced[e.id]!r} ended as {e.call.name!r}"
                )
                assert e.call.id == e.id, f"ToolCallEnd {e.id!r} carries call {e.call.id!r}"
                calls.append(e.call)
            else:
                assert e.invalid is not None
                invalid.append(e.invalid)
    missing = set(announced) - ended
    assert not missing, f"announced calls without a ToolCallEnd: {sorted(missing)}"
    parts = _parts(result)
    assert calls == [p for p in parts if isinstance(p, ToolCall)], "the valid ToolCallEnd calls are not the result's"
    assert invalid == [p for p in parts if isinstance(p, InvalidToolCall)], "invalid blocks differ from the result's"


def openai_accumulate(chunks: Sequence[Mapping[str, Any]]) -> tuple[dict[str, Any], str | None] | None:
    """The message and finish reason openai-python's ``ChatCompletionStreamState`` builds, or None without openai."""
    try:
        from openai.lib.streaming.chat import ChatCompletionStreamState
        from openai.types.chat import ChatCompletionChunk
    except ImportError:
        return None
    state: Any = ChatCompletionStreamState()
    for chunk in chunks:
        state.handle_chunk(ChatCompletionChunk.model_validate(chunk))
    choice = state.get_final_completion().choices[0]
    m = choice.message
    extra = m.model_extra or {}
    reasoning = extra.get("reasoning_content")
    message: dict[str, Any] = {"role": m.role, "content": m.content, "reasoning_content": reasoning}
    message["tool_calls"] = [
        {"id": c.id, "type": c.type, "function": {"name": c.function.name, "arguments": c.function.arguments}}
        for c in m.tool_calls or ()
    ]
    return message, choice.finish_reason


def apply_corrections(message: dict[str, Any], last_chunk: Mapping[str, Any]) -> dict[str, Any]:
    """An eager stream's accumulated message with the last chunk's rejected / corrected calls applied."""
    out = copy.deepcopy(message)
    calls = list(out.get("tool_calls") or ())
    for fix in last_chunk.get("corrected_tool_calls", ()):
        calls[fix["index"]]["function"] = dict(fix["function"])
    dropped = {r["index"] for r in last_chunk.get("rejected_tool_calls", ())}
    out["tool_calls"] = [c for i, c in enumerate(calls) if i not in dropped]
    return out


def _normal(message: Mapping[str, Any]) -> dict[str, Any]:
    calls = [
        {"id": c.get("id"), "type": c.get("type"), "function": dict(c.get("function") or {})}
        for c in message.get("tool_calls") or ()
    ]
    return {
        "role": message.get("role"),
        "content": message.get("content"),
        "reasoning_content": message.get("reasoning_content"),
        "tool_calls": calls,
    }


def check_openai_chunks(
    chunks: Sequence[str],
    *,
    eager: bool,
    options: Mapping[str, Any],
    result: Completion | None = None,
    oracle: bool = True,
    invalid_calls: Literal["content", "drop"] = "content",
) -> list[dict[str, Any]]:
    """Stream ``chunks`` (completion level) through ``OpenAIChunker``; assert the accumulated message.

    Args:
        chunks: the input pieces.
        eager: the chunker's mode.
        options: ``StreamParser`` keyword options (``level`` is completion).
        result: the expected result (default: the stream's own).
        oracle: also accumulate with openai-python (when installed).
        invalid_calls: the chunker's and ``to_openai``'s option for blocks that gave no call.

    Returns:
        The chunks sent.

    Raises:
        AssertionError: an accumulated message differs from ``to_openai()`` (eager: after corrections).
    """
    parser = StreamParser(**{**options, "level": "completion"})
    chunker = OpenAIChunker(eager=eager, invalid_calls=invalid_calls)
    out = chunker.start()
    for piece in chunks:
        out += chunker.feed(parser.feed(piece))
    try:
        out += chunker.feed(parser.close())
    except StreamError:
        out += chunker.feed(parser.closing_events)
    out += chunker.finish()
    got = result if result is not None else parser.result()
    assert isinstance(got, Completion)
    want = _normal(got.to_openai(invalid_calls=invalid_calls))
    last = out[-1]
    if not eager:
        assert "rejected_tool_calls" not in last and "corrected_tool_calls" not in last, "default mode corrected"
    ours = accumulate_chunks(out)
    theirs = openai_accumulate(out) if oracle else None
    for label, accumulated in (("accumulate_chunks", ours), ("openai", theirs)):
        if accumulated is None:
            continue
        message, finish = accumulated
        if eager:
            message = apply_corrections(message, last)
        assert _normal(message) == want, f"{label}: {_normal(message)!r} != to_openai() {want!r}"
        assert finish == got.finish_reason, f"{label}: finish_reason {finish!r} != {got.finish_reason!r}"
    return out
