"""OpenAI streaming adapter: ``StreamParser`` events (completion level) to ``chat.completion.chunk`` dicts.

The chunks follow the OpenAI delta contract: ``delta.role`` once in the first chunk, then
``delta.content`` / ``delta.reasoning_content`` text, ``delta.tool_calls`` entries whose ``id``,
``type`` and ``function.name`` appear once per call (in its first delta) and whose
``function.arguments`` pieces concatenate, and a last chunk with ``finish_reason``.

Accumulated the way openai-python does (``ChatCompletionStreamState``, ``accumulate_delta``) or by
``hermes_toolcall.testing.accumulate_chunks``, the chunks give the message of
``Completion.to_openai()`` (docs/parsing.md §9):

- ``eager=False`` (the default): exactly, on every input and every chunking. Each call is sent whole
  (``id``, ``name`` and the complete ``arguments``) when its block ends valid; a block that ends
  invalid sends no call (its text is content, or nothing: ``invalid_calls`` below). Content whitespace
  is held back until non-whitespace follows (and dropped at the end when the message has calls), which
  is all §9's whitespace rule needs.
- ``eager=True`` (opt-in): a call is announced at ``ToolCallStart``, as soon as its name is complete
  (and, with ``stream_arguments``, its raw arguments follow as they arrive). An announced call can still
  be **rejected** (the block ends invalid: cut off, bad arguments, a duplicate key) or **corrected**
  (its body needed a JSON recovery, so the streamed arguments are not the final ones). A sent delta
  cannot be taken back, so the last chunk (the one with ``finish_reason``) lists them at its top level:
  ``rejected_tool_calls`` (``index``, ``id``, ``name``, ``code``, ``message``: drop that entry) and
  ``corrected_tool_calls`` (``index``, ``id``, ``function``: replace that entry). Without either key,
  the accumulated message equals ``to_openai()``.

``invalid_calls`` is ``to_openai``'s option, streamed: with ``content`` (the default, as vLLM and SGLang
do) the raw text of a block that ends invalid is sent as content when the block ends, so the chunks
still accumulate to ``to_openai()``; with ``drop`` it is not sent (``to_openai(invalid_calls="drop")``).

Memory: the chunker keeps only what a client still needs, whatever the stream's length: the calls
announced and not ended yet (eager mode), the whitespace held back, and the rejected and corrected
calls its last chunk lists; a call sent whole leaves nothing behind (``bench/stream.py``: ``stream
--format openai`` holds the same peak memory from 30,000 to 240,000 calls).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ._argcheck import check_bool, check_int, check_type
from ._events import (
    ArgumentsDelta,
    DiagnosticEvent,
    Event,
    GapText,
    ReasoningDelta,
    ReasoningEnd,
    ReasoningStart,
    TextDelta,
    ToolCallEnd,
    ToolCallStart,
    ToolResponseEvent,
    ToolsEvent,
    TurnEnd,
    TurnStart,
)
from ._openai import InvalidCalls, check_invalid_calls
from .errors import HermesError, UsageError, internal_error
from .tags import ASSISTANT

__all__ = ["OpenAIChunker"]

_WS = " \t\n\r"


class OpenAIChunker:
    """Turns completion-level events into ``chat.completion.chunk`` dicts.

    Args:
        completion_id: the chunks' ``id``.
        model: the chunks' ``model``.
        created: the chunks' ``created`` timestamp.
        eager: announce calls at ``ToolCallStart`` (opt-in: an announced call may be rejected later,
            see the module docstring); by default each call is sent whole at its end.
        invalid_calls: ``content`` (default): the raw text of a block that gave no call is sent as
            content, as ``to_openai()`` has it; ``drop``: it is not sent.

    Raises:
        UsageError: an argument of the wrong type.

    >>> from hermes_toolcall.statemachine import StreamParser
    >>> p, c = StreamParser(), OpenAIChunker()
    >>> chunks = c.feed(p.feed('Hi<tool_call>{"name": "f", "arguments": {}}</tool_call>') + p.close())
    >>> chunks += c.finish()
    >>> chunks[0]["choices"][0]["delta"]
    {'role': 'assistant', 'content': 'Hi'}
    >>> chunks[1]["choices"][0]["delta"]["tool_calls"][0]["function"]
    {'name': 'f', 'arguments': '{}'}
    >>> chunks[-1]["choices"][0]["finish_reason"]
    'tool_calls'
    """

    def __init__(
        self,
        *,
        completion_id: str = "chatcmpl-hermes",
        model: str = "hermes",
        created: int = 0,
        eager: bool = False,
        invalid_calls: InvalidCalls = "content",
    ) -> None:
        check_type("completion_id", completion_id, str, "a str")
        check_type("model", model, str, "a str")
        check_int("created", created)
        check_bool("eager", eager)
        self.completion_id = completion_id
        self.model = model
        self.created = created
        self.eager = eager
        self.invalid_calls = check_invalid_calls(invalid_calls)
        self._role_sent = False
        self._finished = False
        # content
        self._content_sent = False
        self._content_hold: list[str] = []  # trailing whitespace not sent yet, as pieces (no O(n²) +=)
        self._reasoning_first = False
        self._text_seen = False
        # reasoning
        self._blocks = 0
        self._block_started = False  # a delta of the current block was seen (leading \n handled)
        self._reasoning_hold = ""  # one held trailing newline
        # calls: only the announced ones not ended yet are kept (a call sent whole leaves nothing)
        self._open: dict[str, _Announced] = {}
        self._count = 0  # calls given an index (announced, or sent whole)
        self._valid = 0
        self._rejected: list[dict[str, Any]] = []
        self._corrected: list[dict[str, Any]] = []

    def _chunk(self, delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
        if not self._role_sent:
            delta = {"role": ASSISTANT, **delta}
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
        """The chunks for ``events`` (turn and other transcript-level events are ignored).

        Raises:
            UsageError: ``events`` is not an iterable of events.
        """
        try:
            if type(events) is list and len(events) == 1 and type(events[0]) is ArgumentsDelta:
                # what nearly every feed gives with stream_arguments: straight to its chunk (as ``_feed``)
                e = events[0]
                index = self.sent_arguments(e)
                if index is None:
                    return []
                # _arguments_chunk(index, e.text), inlined: one call less per delta (bench/chunker.py: 7-10 %)
                return [self._chunk({"tool_calls": [{"index": index, "function": {"arguments": e.text}}]})]
            if type(events) is not list and (isinstance(events, (str, bytes)) or not isinstance(events, Iterable)):
                raise UsageError(f"events must be an iterable of StreamParser events, got {type(events).__name__}")
            return self._feed(events)
        except (HermesError, MemoryError):
            raise
        except Exception as exc:  # only HermesError escapes: anything else is a bug
            raise internal_error("OpenAIChunker.feed", exc) from exc

    def _feed(self, events: Iterable[Event]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for e in events:  # the kinds by how often they come
            if isinstance(e, TextDelta):
                self._text(e.text, out)
            elif isinstance(e, ArgumentsDelta):
                index = self.sent_arguments(e)
                if index is not None:
                    out.append(self._arguments_chunk(index, e.text))
            elif isinstance(e, ToolCallEnd):
                self._end_call(e, out)
            elif isinstance(e, ToolCallStart):
                if self.eager:
                    self._open_call(e.id, e.name, out, announce=True)
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
            elif not isinstance(e, _OTHER_EVENTS):
                raise UsageError(f"events must hold StreamParser events, got {type(e).__name__}")
        return out

    def finish(self, finish_reason: str | None = None) -> list[dict[str, Any]]:
        """The last chunks: held text, then ``finish_reason`` (``tool_calls`` when calls were sent, else ``stop``).

        In eager mode the last chunk also lists the announced calls that were rejected or corrected.

        Raises:
            UsageError: ``finish_reason`` is not a str or None.
        """
        if finish_reason is not None:
            check_type("finish_reason", finish_reason, str, "a str or None")
        out: list[dict[str, Any]] = []
        if self._finished:
            return out
        self._finished = True
        if not self._valid:
            if self._content_hold or not self._content_sent:
                out.append(self._chunk({"content": "".join(self._content_hold)}))
        self._content_hold = []
        reason = finish_reason or ("tool_calls" if self._valid else "stop")
        last = self._chunk({}, reason)
        for call_id, call in self._open.items():  # announced, never ended (the events stopped early)
            entry = {"index": call.index, "id": call_id, "name": call.name, "code": None}
            self._rejected.append({**entry, "message": "the call never ended"})
        self._open = {}
        if self._rejected:
            last["rejected_tool_calls"] = self._rejected
        if self._corrected:
            last["corrected_tool_calls"] = self._corrected
        out.append(last)
        return out

    # ------------------------------------------------------------------ content

    def _text(self, text: str, out: list[dict[str, Any]]) -> None:
        content = self._content(text)
        if content:
            out.append(self._chunk({"content": content}))

    def sent_text(self, e: TextDelta) -> str:
        """Record a ``TextDelta`` as ``feed([e])`` does, without building its chunk (for adapters that
        build their servers' own values): the chunk's ``content``, or "" when ``feed([e])`` sends
        nothing (whitespace that may be the end of the content is held back).

        >>> c = OpenAIChunker()
        >>> c.sent_text(TextDelta(text="Hello ")), c.sent_text(TextDelta(text="world\\n")), c.finish()[0]["choices"][0]
        ('Hello', ' world', {'index': 0, 'delta': {'content': '\\n'}, 'finish_reason': None})
        """
        content = self._content(e.text)
        if content:
            self._role_sent = True  # as the chunk would have carried it
        return content

    def _content(self, text: str) -> str:
        """The content the chunk of ``text`` carries now ("": none; trailing whitespace is held back)."""
        self._text_seen = True
        hold = self._content_hold
        if self._reasoning_first and not self._content_sent and not hold:
            text = text.lstrip("\n")
        head = text.rstrip(_WS)  # the held pieces are whitespace only: only the new text is scanned
        if not head:
            if text:
                hold.append(text)
            return ""
        if len(head) < len(text):
            tail = text[len(head) :]
        else:
            tail = ""
        if hold:
            head = "".join(hold) + head
            hold.clear()
        if tail:
            hold.append(tail)
        if not self._content_sent and self._valid:  # a call came before the first text: no leading ws
            head = head.lstrip(_WS)
        self._content_sent = True
        return head

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

    def _open_call(
        self, call_id: str, name: str, out: list[dict[str, Any]], arguments: str = "", *, announce: bool = False
    ) -> None:
        """A call's first chunk: announced (kept until it ends), or sent whole with ``arguments`` (not kept)."""
        index = self._count
        self._count += 1
        if announce:
            self._open[call_id] = _Announced(index=index, name=name, sent=[])
        entry = {"index": index, "id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}
        out.append(self._chunk({"tool_calls": [entry]}))

    def sent_call(self, e: ToolCallEnd) -> int | None:
        """Record the end of a valid call that was not announced as ``feed([e])`` does, without building
        its chunk (for adapters that build their servers' own values): the call's index, the chunk's
        ``index``; its id, name and arguments are ``e``'s. None, with nothing recorded, for any other
        ``ToolCallEnd`` (invalid, or announced: ``feed`` handles those).

        >>> from hermes_toolcall.statemachine import StreamParser
        >>> p, c = StreamParser(), OpenAIChunker()
        >>> c.sent_call(p.feed('<tool_call>{"name": "f", "arguments": {}}</tool_call>')[-1])
        0
        """
        call = e.call
        if call is None or e.id in self._open:
            return None
        self._role_sent = True  # as the chunk would have carried it
        self._valid += 1
        index = self._count
        self._count += 1
        return index

    def sent_arguments(self, e: ArgumentsDelta) -> int | None:
        """Record an ``ArgumentsDelta`` as ``feed([e])`` does, without building its chunk (for adapters
        that build their servers' own values): the index of the call whose arguments it extends, or
        None when ``feed([e])`` sends nothing (not eager, or the call was not announced).

        >>> from hermes_toolcall.statemachine import StreamParser
        >>> p, c = StreamParser(stream_arguments=True), OpenAIChunker(eager=True)
        >>> chunks = c.feed(p.feed('<tool_call>{"name": "f", "arguments": {"a": '))
        >>> [chunk["choices"][0]["delta"]["tool_calls"][0]["function"] for chunk in chunks]
        [{'name': 'f', 'arguments': ''}, {'arguments': '{"a": '}]
        >>> c.sent_arguments(p.feed("12")[0])
        0
        """
        if not self.eager:
            return None
        call = self._open.get(e.id)
        if call is None:
            return None
        call.sent.append(e.text)
        return call.index

    def _arguments_chunk(self, index: int, text: str) -> dict[str, Any]:
        """The chunk of one more piece of call ``index``'s arguments."""
        return self._chunk({"tool_calls": [{"index": index, "function": {"arguments": text}}]})

    def _end_call(self, e: ToolCallEnd, out: list[dict[str, Any]]) -> None:
        call = e.call
        announced = self._open.pop(e.id, None)
        if call is None:
            inv = e.invalid
            if announced is not None:  # announced (eager), then rejected
                self._rejected.append(
                    {
                        "index": announced.index,
                        "id": e.id,
                        "name": announced.name,
                        "code": inv.code if inv is not None else None,
                        "message": inv.message if inv is not None else "the call is not valid",
                    }
                )
            if inv is not None and self.invalid_calls == "content":  # the block's text, in its place
                self._text(inv.raw, out)
            return
        self._valid += 1
        if announced is None:
            self._open_call(e.id, call.name, out, call.arguments_json)
            return
        sent = "".join(announced.sent)
        if announced.name != call.name or not call.arguments_json.startswith(sent):
            function = {"name": call.name, "arguments": call.arguments_json}
            self._corrected.append({"index": announced.index, "id": e.id, "function": function})
        elif len(call.arguments_json) > len(sent):
            out.append(self._arguments_chunk(announced.index, call.arguments_json[len(sent) :]))


class _Announced:
    """A call announced early (eager mode) and not ended yet: its index, name, and the argument pieces sent."""

    __slots__ = ("index", "name", "sent")

    def __init__(self, *, index: int, name: str, sent: list[str]) -> None:
        self.index = index
        self.name = name
        self.sent = sent


_OTHER_EVENTS = (TurnStart, TurnEnd, GapText, ToolResponseEvent, ToolsEvent, DiagnosticEvent)
