"""One request's engine for a serving stack: ``StreamParser`` + ``OpenAIChunker``, as merged deltas.

The vLLM and SGLang adapters (``integrations.vllm``, ``integrations.sglang``) map these deltas to
their own protocol classes; everything they share lives here, with no import of either server:

- ``Policy``: what the request asks for (dialect, declared tools, ``tool_choice``, whether the
  prompt opened reasoning, whether reasoning is the server's business or plain content).
- ``stream_parser``: the one place the policy becomes ``StreamParser`` keywords.
- ``Session``: feed text deltas, get ``Delta`` values (content, reasoning, call pieces); ``close()``
  flushes what the engine held back. Calls are sent whole when their block ends (``eager=False``,
  the default: a truncated call is never sent), or announced at their name with argument deltas
  (``eager=True``).
- ``complete``: the non-streaming result, computed by the same code fed in one piece.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .._events import (
    ArgumentsDelta,
    Event,
    ReasoningDelta,
    ReasoningEnd,
    ReasoningStart,
    TextDelta,
    ToolCallEnd,
    ToolCallStart,
    new_text_delta,
)
from .._ids import IdFactory, openai_ids
from .._model import ReasoningKind
from .._openai_chunks import OpenAIChunker
from .._options import OPTION_NAMES, Undeclared
from ..statemachine import StreamParser

__all__ = [
    "NO_STEP",
    "POLICY_OPTIONS",
    "Bookkeeping",
    "CallDelta",
    "CallRecord",
    "Delta",
    "Piece",
    "Policy",
    "Result",
    "Session",
    "Step",
    "as_delta",
    "complete",
    "stream_parser",
    "tool_objects",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class Policy:
    """What one request asks of the parser.

    Attributes:
        dialect: the dialect name (``hermes``, ``qwen3``, ``qwq``, …).
        tools: the declared tools as OpenAI tool objects (None: the request declared none, and no
            name is checked).
        undeclared: what becomes of a call to an undeclared name (``StreamParser``'s policy:
            ``keep``, ``text`` or ``drop``).
        tool_choice: ``none`` (no calls: the output is content, verbatim), ``auto``, ``required``,
            or the name of the one tool the request forces.
        starts_in_reasoning: the prompt left a reasoning block open (read from the prompt).
        reasoning_as_content: reasoning blocks are written back verbatim into the content (the
            server has no reasoning parser, or another parser already took the leading reasoning).
        eager: announce calls at their name and stream their arguments (else send each call whole
            when its block ends).
        ids: the call id factory.
    """

    dialect: str = "hermes"
    tools: tuple[dict[str, Any], ...] | None = None
    undeclared: Undeclared = "keep"
    tool_choice: str = "auto"
    starts_in_reasoning: bool = False
    reasoning_as_content: bool = False
    eager: bool = False
    ids: IdFactory = openai_ids


def tool_objects(tools: Iterable[Any] | None, choice: str = "auto") -> tuple[dict[str, Any], ...] | None:
    """OpenAI tool objects (dicts or pydantic models) as dicts; a named ``choice`` keeps only that tool.

    >>> tool_objects([{"type": "function", "function": {"name": "w"}}])
    ({'type': 'function', 'function': {'name': 'w'}},)
    >>> tool_objects([{"type": "function", "function": {"name": "w"}}], "v")
    ({'type': 'function', 'function': {'name': 'v'}},)
    """
    out = []
    for tool in tools or ():
        data = tool if isinstance(tool, Mapping) else tool.model_dump(exclude_none=True)
        out.append(dict(data))
    if choice not in ("none", "auto", "required"):
        named = [t for t in out if (t.get("function") or {}).get("name") == choice]
        return tuple(named) or ({"type": "function", "function": {"name": choice}},)
    return tuple(out) or None


#: The fields of ``Policy`` that are parse options (``_options.OPTION_NAMES``), passed to the engine as they are.
POLICY_OPTIONS: tuple[str, ...] = tuple(name for name in OPTION_NAMES if name in Policy.__dataclass_fields__)


def stream_parser(policy: Policy) -> StreamParser:
    """The engine for ``policy``: the one place the request's policy becomes parser keywords (its option
    fields, ``POLICY_OPTIONS``, as they are; ``eager`` as ``stream_arguments``).

    >>> stream_parser(Policy(dialect="qwen3")).options.profile.name
    'qwen3'
    """
    keywords: dict[str, Any] = {name: getattr(policy, name) for name in POLICY_OPTIONS}
    if policy.tools is None:
        keywords["undeclared"] = "keep"  # no tools: no name is checked
    return StreamParser(
        stream_arguments=policy.eager,
        retain=False,  # the adapters read events only: nothing folded is kept (no parts, no old line starts)
        **keywords,
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class CallDelta:
    """A piece of one call: ``id`` and ``name`` in its first piece only, ``arguments`` appended."""

    index: int
    id: str | None = None
    name: str | None = None
    arguments: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class Delta:
    """What one fed delta produced: content, reasoning, call pieces (empty strings: nothing)."""

    content: str = ""
    reasoning: str = ""
    calls: tuple[CallDelta, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.content or self.reasoning or self.calls)


@dataclass(slots=True, kw_only=True)
class CallRecord:
    """Bookkeeping of one sent call: what the client has (``arguments`` joins every piece sent)."""

    index: int
    id: str
    name: str
    pieces: list[str] = field(default_factory=list)
    valid: bool | None = None  # None while the block is open

    @property
    def arguments(self) -> str:
        """Every argument piece sent, joined (kept as pieces: appending to one string is quadratic)."""
        if len(self.pieces) > 1:
            self.pieces[:] = ["".join(self.pieces)]
        return self.pieces[0] if self.pieces else ""


#: One call's piece on the hot path: (index, id, name, arguments); id and name in its first piece only.
Piece = tuple[int, "str | None", "str | None", str]
#: What one fed delta produced on the hot path: (content, reasoning, call pieces); ``Delta`` as a tuple
#: (a frozen dataclass costs about 1 µs to build, and a long call's arguments come a few characters at a time).
Step = tuple[str, str, tuple[Piece, ...]]
#: The step of a delta that produced nothing (most deltas): always this one object, so that an adapter
#: can return at once (``step is NO_STEP``); a step that holds nothing but ends a call is another tuple.
NO_STEP: Step = ("", "", ())


def as_delta(step: Step) -> Delta:
    """A hot-path ``Step`` as a ``Delta`` value.

    >>> as_delta(("Hi", "", ((0, "c", "f", "{}"),)))
    Delta(content='Hi', reasoning='', calls=(CallDelta(index=0, id='c', name='f', arguments='{}'),))
    """
    content, reasoning, pieces = step
    calls = tuple(CallDelta(index=i, id=c, name=n, arguments=a) for i, c, n, a in pieces)
    return Delta(content=content, reasoning=reasoning, calls=calls)


def _merge(chunks: Sequence[Mapping[str, Any]]) -> Step:
    if len(chunks) == 1:  # the usual case (one argument piece, one text piece): no accumulation
        delta = chunks[0]["choices"][0]["delta"]
        entries = delta.get("tool_calls")
        if not entries:
            return (delta.get("content") or "", delta.get("reasoning_content") or "", ())
        if len(entries) == 1:
            entry = entries[0]
            function = entry.get("function") or {}
            piece = (entry["index"], entry.get("id"), function.get("name"), function.get("arguments") or "")
            return (delta.get("content") or "", delta.get("reasoning_content") or "", (piece,))
    content: list[str] = []
    reasoning: list[str] = []
    calls: dict[int, Piece] = {}
    for chunk in chunks:
        delta = chunk["choices"][0]["delta"]
        if delta.get("content"):
            content.append(delta["content"])
        if delta.get("reasoning_content"):
            reasoning.append(delta["reasoning_content"])
        for entry in delta.get("tool_calls") or ():
            index = entry["index"]
            function = entry.get("function") or {}
            arguments = function.get("arguments") or ""
            have = calls.get(index)
            if have is None:
                calls[index] = (index, entry.get("id"), function.get("name"), arguments)
            else:
                calls[index] = (index, have[1], have[2], have[3] + arguments)
    return ("".join(content), "".join(reasoning), tuple(calls.values()))


def _tag(kind: ReasoningKind, closing: bool) -> str:
    return f"</{kind}>" if closing else f"<{kind}>"


@dataclass(slots=True)
class Session:
    """One request's stream: feed deltas, get ``Delta`` values; ``close()`` at the end.

    Args:
        policy: the request's policy.

    >>> s = Session(Policy(ids=lambda n: f"call_{n}"))
    >>> s.feed('Hi <tool_call>{"name": "f", "arguments": {"a": 1}}</tool')
    Delta(content='Hi', reasoning='', calls=())
    >>> s.feed("_call>").calls
    (CallDelta(index=0, id='call_0', name='f', arguments='{"a": 1}'),)
    >>> s.close()
    Delta(content='', reasoning='', calls=())
    """

    policy: Policy
    _parser: StreamParser = field(init=False)
    _chunker: OpenAIChunker = field(init=False)
    calls: list[CallRecord] = field(init=False, default_factory=list)
    closed: bool = field(init=False, default=False)
    _by_id: dict[str, CallRecord] = field(init=False, default_factory=dict)
    _verbatim: bool = field(init=False, default=False)  # tool_choice none: the output is content
    _feed: Callable[[str], list[Event]] = field(init=False)  # the parser's feed, bound once

    def __post_init__(self) -> None:
        self._parser = stream_parser(self.policy)
        self._feed = self._parser.feed
        self._verbatim = self.policy.tool_choice == "none"
        # a block that gave no call sends nothing (the servers' own oracle, tests/integrations/inside/common.py)
        self._chunker = OpenAIChunker(eager=self.policy.eager, invalid_calls="drop")
        self._chunker.start()  # the role chunk: servers send the role themselves

    @property
    def verbatim(self) -> bool:
        """``tool_choice`` is ``none``: every step is its text, verbatim, as content."""
        return self._verbatim

    def feed(self, text: str) -> Delta:
        """Feed the next delta of the model's output.

        Raises:
            StreamError: the session was already closed.
        """
        return as_delta(self.step(text))

    def close(self) -> Delta:
        """End of the output: flush what the engine held back; a truncated call is reported invalid.

        Raises:
            StreamError: the session was already closed.
        """
        return as_delta(self.finish())

    def step(self, text: str) -> Step:
        """``feed`` for the servers' per-delta loops: the same result as a plain tuple. The one route of a
        delta: the usual cases (nothing to send, a call's name while calls go whole, one more argument
        piece, text and whole calls) are taken inside it, without building the chunker's chunks.

        Raises:
            StreamError: the session was already closed.
        """
        events = self._feed(text)  # with tool_choice none too: the engine checks the use (feed after close)
        if not events:
            if not self._verbatim:  # most deltas while a call's body is read whole
                return NO_STEP
        elif len(events) == 1 and type(events[0]) is ArgumentsDelta and not self._verbatim:
            piece = events[0]  # most deltas with argument deltas: one more piece of an announced call
            index = self._chunker.sent_arguments(piece)  # as chunker.feed([piece]), without its chunk
            if index is None:
                return NO_STEP
            self.calls[index].pieces.append(piece.text)
            return ("", "", ((index, None, None, piece.text),))
        return self._after(events, text)

    def _after(self, events: list[Event], text: str) -> Step:
        """``step(text)`` given the events the engine's ``feed(text)`` returned (not empty, or verbatim; not
        a lone ``ArgumentsDelta``, which ``step`` takes itself)."""
        if self._verbatim:
            return (text, "", ())
        if len(events) == 1 and type(events[0]) is ToolCallStart and not self._chunker.eager:
            return NO_STEP  # a call's name while calls are sent whole: the chunker sends nothing for it
        got = self._piecewise(events)
        if got is not None:
            return got
        chunks, ended = self._chunks(events)
        if not chunks and not ended:  # e.g. a call's name read while its body is sent whole
            return NO_STEP
        return _merge(chunks)

    def _piecewise(self, events: list[Event]) -> Step | None:
        """``step``'s result for the usual events (text, calls sent whole, a name while calls go whole)
        straight from the chunker's records, as ``_merge(self._chunks(events))`` gives it without
        building the chunks; None for any other list (``_chunks`` reads it)."""
        by_id = self._by_id
        eager = self._chunker.eager
        for e in events:
            if type(e) is TextDelta:
                continue
            if type(e) is ToolCallEnd:
                if e.call is None or e.id in by_id:  # invalid, or announced: the chunker's general path
                    return None
            elif type(e) is not ToolCallStart or eager:
                return None
        chunker = self._chunker
        content: list[str] = []
        pieces: list[Piece] = []
        for e in events:
            if type(e) is TextDelta:
                text = chunker.sent_text(e)
                if text:
                    content.append(text)
            elif type(e) is ToolCallEnd:
                index = chunker.sent_call(e)  # as chunker.feed([e]): the call's one chunk, not built
                call = e.call
                assert index is not None and call is not None
                record = CallRecord(index=index, id=e.id, name=call.name, pieces=[call.arguments_json], valid=True)
                self.calls.append(record)
                by_id[e.id] = record
                pieces.append((index, e.id, call.name, call.arguments_json))
        if not content and not pieces:
            return NO_STEP
        return ("".join(content), "", tuple(pieces))

    def finish(self) -> Step:
        """``close`` for the servers' loops: the same result as a plain tuple.

        Raises:
            StreamError: the session was already closed.
        """
        self.closed = True
        events = self._parser.close()
        if self.policy.tool_choice == "none":
            return NO_STEP
        chunks, _ = self._chunks(events)
        chunks += [c for c in self._chunker.finish() if c["choices"][0]["finish_reason"] is None]
        return _merge(chunks)

    def _chunks(self, events: list[Event]) -> tuple[list[dict[str, Any]], bool]:
        """The chunker's chunks for ``events``, the calls' records kept; and whether a call the client has ended."""
        if self.policy.reasoning_as_content and any(type(e) in _REASONING_EVENTS for e in events):
            events = _reasoning_as_text(events)
        chunks = self._chunker.feed(events)
        for chunk in chunks:
            for entry in chunk["choices"][0]["delta"].get("tool_calls") or ():
                function = entry.get("function") or {}
                if "id" in entry:
                    record = CallRecord(index=entry["index"], id=entry["id"], name=function.get("name", ""))
                    self.calls.append(record)
                    self._by_id[record.id] = record
                if function.get("arguments"):
                    self.calls[entry["index"]].pieces.append(function["arguments"])
        ended = False
        for e in events:
            if isinstance(e, ToolCallEnd) and e.id in self._by_id:
                self._by_id[e.id].valid = e.call is not None
                ended = True
        return chunks, ended


class Bookkeeping:
    """A server parser's call bookkeeping (``prev_tool_call_arr``, ``streamed_args_for_tool``) kept exact.

    Both servers compare, at the end of a stream, the last call's ``arguments`` with what was
    streamed and send the difference; both lists hold exactly what the client got, so the difference
    is empty. A call's entry is written when its block ends and at the end of the stream (writing
    every argument piece into one growing string would make a long call quadratic).
    """

    prev_tool_call_arr: list[dict[str, Any]]
    streamed_args_for_tool: list[str]
    current_tool_id: int
    current_tool_name_sent: bool
    _booked: int = 0  # calls whose entries are final

    def _book(self, session: Session, pieces: tuple[Piece, ...], *, final: bool) -> None:
        if len(pieces) == 1 and pieces[0][1] is None and not final and self._current(session):
            return  # one more argument piece, no call ended since the last booking: nothing to write (most deltas)
        calls = session.calls
        done = self._booked
        for index, call_id, name, _ in pieces:
            if call_id is not None:
                self.prev_tool_call_arr.append({"name": name, "arguments": ""})
                self.streamed_args_for_tool.append("")
                self.current_tool_id = index
                self.current_tool_name_sent = True
        while done < len(calls) and calls[done].valid is not None:  # blocks end in order
            self._write(done, calls[done].arguments)
            done += 1
        self._booked = done
        if final:  # calls still open at the end of the stream (announced early, never closed)
            for i in range(done, len(calls)):
                self._write(i, calls[i].arguments)

    def _current(self, session: Session) -> bool:
        """No call ended since the last booking (so one more argument piece writes nothing)."""
        done = self._booked
        calls = session.calls
        return done >= len(calls) or calls[done].valid is None

    def _write(self, index: int, arguments: str) -> None:
        self.streamed_args_for_tool[index] = arguments
        self.prev_tool_call_arr[index]["arguments"] = arguments


_REASONING_EVENTS = frozenset({ReasoningStart, ReasoningDelta, ReasoningEnd})


def _reasoning_as_text(events: Iterable[Event]) -> list[Event]:
    """Reasoning events as the verbatim text they were read from (tags included)."""
    out: list[Event] = []
    for e in events:
        if isinstance(e, ReasoningStart):
            if e.opened:
                out.append(new_text_delta(_tag(e.kind, False)))
        elif isinstance(e, ReasoningDelta):
            out.append(new_text_delta(e.text))
        elif isinstance(e, ReasoningEnd):
            if e.closed:
                out.append(new_text_delta(_tag(e.kind, True)))
        else:
            out.append(e)
    return out


@dataclass(frozen=True, slots=True, kw_only=True)
class Result:
    """A whole output's parse for a server: content, reasoning and the valid calls (id, name, arguments)."""

    content: str | None
    reasoning: str | None
    calls: tuple[CallRecord, ...]


def complete(text: str, policy: Policy) -> Result:
    """The non-streaming result: ``text`` through a ``Session`` in one piece, calls sent whole.

    >>> r = complete('<tool_call>{"name": "f", "arguments": {}}</tool_call>', Policy())
    >>> r.content, [(c.name, c.arguments) for c in r.calls]
    (None, [('f', '{}')])
    """
    session = Session(Policy(**{**_fields(policy), "eager": False}))
    first, last = session.feed(text), session.close()
    content = first.content + last.content
    reasoning = first.reasoning + last.reasoning
    calls = tuple(c for c in session.calls if c.valid)
    if policy.tool_choice == "none":
        return Result(content=text, reasoning=None, calls=())
    return Result(content=content if content or not calls else None, reasoning=reasoning or None, calls=calls)


def _fields(policy: Policy) -> dict[str, Any]:
    return {name: getattr(policy, name) for name in Policy.__dataclass_fields__}
