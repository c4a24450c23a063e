"""OpenAI streaming adapter: ``StreamParser`` events (completion level) to ``chat.completion.chunk`` dicts.

The chunks follow the OpenAI delta contract: ``delta.role`` once in the first chunk, then
``delta.content`` / ``delta.reasoning_content`` text, ``delta.tool_calls`` entries whose ``id``,
``type`` and ``function.name`` appear once per call (in its first delta) and whose
``function.arguments`` pieces concatenate, and a last chunk with ``finish_reason``.

Accumulated the way openai-python does (``accumulate_delta``), the chunks give the message of
``Completion.to_openai()`` (docs/parsing.md §9), with these exact guarantees:

- ``eager=False``: always (each call is sent whole when its block ends).
- ``eager=True`` (default: a call is announced as soon as its name is complete): whenever every
  announced call ends valid with the announced name, and, with ``stream_arguments``, its body needs
  no JSON recovery. Otherwise the already-sent delta cannot be taken back: the call stays in the
  client's list (the ``ToolCallEnd`` event carries the truth).
- ``content``: whitespace is held back until non-whitespace follows (trailing whitespace is dropped
  when the message has calls); leading whitespace *before* text that is later followed by a call is
  the one thing a stream cannot know in time: it is sent, while ``to_openai()`` strips it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .events import (
    ArgumentsDelta,
    Event,
    ReasoningDelta,
    ReasoningEnd,
    ReasoningStart,
    TextDelta,
    ToolCallEnd,
    ToolCallStart,
)

__all__ = ["OpenAIChunker"]

_WS = " \t\n\r"


class OpenAIChunker:
    """Turns completion-level events into ``chat.completion.chunk`` dicts.

    Args:
        completion_id: the chunks' ``id``.
        model: the chunks' ``model``.
        created: the chunks' ``created`` timestamp.
        eager: announce calls at ``ToolCallStart`` (else send each call whole at its end).

    >>> from hermes_toolcall.statemachine import StreamParser
    >>> p, c = StreamParser(), OpenAIChunker()
    >>> chunks = c.feed(p.feed('Hi<tool_call>{"name": "f", "arguments": {}}</tool_call>') + p.close())
    >>> chunks += c.finish()
    >>> chunks[0]["choices"][0]["delta"]
    {'role': 'assistant', 'content': 'Hi'}
    >>> chunks[1]["choices"][0]["delta"]["tool_calls"][0]["function"]
    {'name': 'f', 'arguments': ''}
    >>> chunks[-1]["choices"][0]["finish_reason"]
    'tool_calls'
    """

    def __init__(
        self, *, completion_id: str = "chatcmpl-hermes", model: str = "hermes", created: int = 0, eager: bool = True
    ) -> None:
        self.completion_id = completion_id
        self.model = model
        self.created = created
        self.eager = eager
        self._role_sent = False
        self._finished = False
        # content
        self._content_sent = False
        self._content_hold = ""
        self._reasoning_first = False
        self._text_seen = False
        # reasoning
        self._blocks = 0
        self._block_started = False  # a delta of the current block was seen (leading \n handled)
        self._reasoning_hold = ""  # one held trailing newline
        # calls
        self._index: dict[str, int] = {}
        self._sent_args: dict[str, str] = {}
        self._valid = 0

    def _chunk(self, delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
        if not self._role_sent:
            delta = {"role": "assistant", **delta}
            self._role_sent = True
        return {
            "id": self.completion_id,
            "object": "chat.completion.chunk",
            "created": self.created,
            "model": self.model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
        }

    def start(self) -> list[dict[str, Any]]:
        """The opening chunk (``delta.role``); sent automatically with the first delta otherwise."""
        return [] if self._role_sent else [self._chunk({})]

    def feed(self, events: Iterable[Event]) -> list[dict[str, Any]]:
        """The chunks for ``events`` (turn and other transcript-level events are ignored)."""
        out: list[dict[str, Any]] = []
        for e in events:
            if isinstance(e, TextDelta):
                self._text(e.text, out)
            elif isinstance(e, ReasoningDelta):
                self._reasoning(e.text, out)
            elif isinstance(e, ReasoningStart):
                if e.opened or not self._blocks:  # not opened and first: the prompt opened the block
                    if self._blocks:
                        self._reasoning_hold = ""
                        out.append(self._chunk({"reasoning_content": "\n"}))
                    self._blocks += 1
                    self._block_started = False
            elif isinstance(e, ReasoningEnd):
                if e.part is not None and not self._text_seen:
                    self._reasoning_first = True
                if e.closed:
                    self._reasoning_hold = ""
            elif isinstance(e, ToolCallStart):
                if self.eager:
                    self._open_call(e.id, e.name, out)
            elif isinstance(e, ArgumentsDelta):
                if self.eager and e.id in self._index:
                    self._arguments(e.id, e.text, out)
            elif isinstance(e, ToolCallEnd):
                self._end_call(e, out)
        return out

    def finish(self, finish_reason: str | None = None) -> list[dict[str, Any]]:
        """The last chunks: held text, then ``finish_reason`` (``tool_calls`` when calls were sent, else ``stop``)."""
        out: list[dict[str, Any]] = []
        if self._finished:
            return out
        self._finished = True
        if not self._valid:
            if self._content_hold or not self._content_sent:
                out.append(self._chunk({"content": self._content_hold}))
        self._content_hold = ""
        reason = finish_reason or ("tool_calls" if self._valid else "stop")
        out.append(self._chunk({}, reason))
        return out

    # ------------------------------------------------------------------ content

    def _text(self, text: str, out: list[dict[str, Any]]) -> None:
        self._text_seen = True
        if self._reasoning_first and not self._content_sent and not self._content_hold:
            text = text.lstrip("\n")
        text = self._content_hold + text
        keep = len(text.rstrip(_WS))
        self._content_hold = text[keep:]
        if keep:
            self._content_sent = True
            out.append(self._chunk({"content": text[:keep]}))

    # ------------------------------------------------------------------ reasoning

    def _reasoning(self, text: str, out: list[dict[str, Any]]) -> None:
        if not self._block_started:
            self._block_started = True
            if text.startswith("\n"):
                text = text[1:]
        text = self._reasoning_hold + text
        self._reasoning_hold = ""
        if text.endswith("\n"):
            self._reasoning_hold = "\n"
            text = text[:-1]
        if text:
            out.append(self._chunk({"reasoning_content": text}))

    # ------------------------------------------------------------------ calls

    def _open_call(self, call_id: str, name: str, out: list[dict[str, Any]]) -> None:
        index = len(self._index)
        self._index[call_id] = index
        self._sent_args[call_id] = ""
        entry = {"index": index, "id": call_id, "type": "function", "function": {"name": name, "arguments": ""}}
        out.append(self._chunk({"tool_calls": [entry]}))

    def _arguments(self, call_id: str, text: str, out: list[dict[str, Any]]) -> None:
        self._sent_args[call_id] += text
        entry = {"index": self._index[call_id], "function": {"arguments": text}}
        out.append(self._chunk({"tool_calls": [entry]}))

    def _end_call(self, e: ToolCallEnd, out: list[dict[str, Any]]) -> None:
        call = e.call
        if call is None:
            return
        self._valid += 1
        if e.id not in self._index:
            self._open_call(e.id, call.name, out)
        sent = self._sent_args[e.id]
        if call.arguments_json.startswith(sent) and len(call.arguments_json) > len(sent):
            self._arguments(e.id, call.arguments_json[len(sent) :], out)
