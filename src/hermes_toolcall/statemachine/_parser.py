"""``StreamParser``: the streaming engine (docs/parsing.md, fed chunk by chunk).

With ``retain=True`` (the default) the parser keeps everything ``result()`` needs: the whole input
(``Completion.source`` / ``Transcript.source``), every part, turn and diagnostic, and the line table
of the input, so its memory grows with the stream (about 3-15x the input's size, docs/performance.md).
With ``retain=False`` it keeps only what the next events need: the unread tail (a possible partial
marker), the text of the block currently open (at most ``max_block_chars``), the open reasoning
segment, gap or role header, and the line starts from the oldest open element on.

``StreamParser`` is a thin loop over composed parts (docs/statemachine.md): the input buffer
(``buffer.InputBuffer``: unread text, positions, lines), the cursor (``_machine.Cursor``: the
machine's state and what the table says about it), one reader per kind of state (``_readers``:
each with its per-chunk fast path next to its scanner) and the assembler (``_assembler``: parts,
turns, gaps, diagnostics, events). Every event is emitted at a position fixed by the input, so
merged events and ``result()`` do not depend on the chunking.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from .. import tags
from .._argcheck import check_bool, check_text, check_type
from .._ids import IdFactory
from .._model import Completion, Diagnostic, Transcript
from .._options import DEFAULT_MAX_BLOCK_CHARS, ParseOptions, Undeclared
from .._profiles import DialectProfile
from ..errors import HermesError, StreamError, StreamStateError, UsageError, internal_error
from ._assembler import SINK, Assembler
from ._buffer import InputBuffer
from ._events import Event
from ._machine import CheckedCursor, Cursor
from ._markers import text_scans
from ._readers import BlockReader, BodyReader, GapReader, HeaderReader, Reader, ReasoningReader, TailReader
from ._table import K_BLOCK, K_BODY, K_DONE, K_GAP, K_HEADER, K_REASONING, K_TAIL, State, checked_mode, moves

__all__ = ["StreamParser"]

_READERS: dict[int, type[Reader]] = {
    K_BODY: BodyReader,
    K_REASONING: ReasoningReader,
    K_GAP: GapReader,
    K_HEADER: HeaderReader,
    K_BLOCK: BlockReader,
    K_TAIL: TailReader,
    K_DONE: TailReader,
}


class StreamParser:
    """Parse a completion or a transcript fed in chunks; ``result()`` equals the whole-text parse.

    Args:
        level: ``completion`` (one assistant body) or ``transcript`` (ChatML).
        dialect: dialect name or profile.
        strict: no recoveries; ``close()`` raises ``StreamError`` when errors were found.
        calls_in_reasoning: a ``<tool_call>`` inside reasoning is a call.
        stream_arguments: emit ``ArgumentsDelta`` events with the raw text of ``arguments``.
        stop_at_fabricated_response: stop at a ``<tool_response>`` in an assistant body.
        max_block_chars: largest block body before ``HT114``.
        ids: call id factory (default: random OpenAI-like ids).
        starts_in_reasoning: completion level: the completion begins inside a reasoning block
            (None: as the dialect's generation prompt leaves it, true for ``qwq``; see
            ``generation_prompt_state``). Transcripts: only None.
        tools: the request's tools (OpenAI tool objects): calls to undeclared names get ``HT301``.
        undeclared: ``keep`` (default), ``text`` or ``drop``: what becomes of such calls. A call
            that will be dropped or become text is never announced (no ``ToolCallStart``).
        coerce_arguments: convert argument values to the schema's types when lossless
            (``HT210``–``HT214``; needs ``tools``).
        options: ready-made ``ParseOptions`` (then the option keywords above are ignored).
        retain: keep the input and the folded values for ``result()`` (the default). ``False``: events
            only, memory bounded by ``max_block_chars`` plus the held-back tail (and the longest open
            reasoning segment, gap or header) whatever the stream's length; ``result()`` then raises
            ``UsageError``, ``TurnEnd.turn`` has no parts (they went out as events), and in strict mode
            only the error diagnostics are kept (for ``close()``).


    Raises:
        UsageError: an unknown level or dialect, a bad option value, or ``starts_in_reasoning``
            given for a transcript.

    >>> p = StreamParser()
    >>> [type(e).__name__ for e in p.feed("Hi <tool")]
    ['TextDelta']
    >>> events = p.feed('_call>{"name": "f", "arguments": {}}</tool_call>') + p.close()
    >>> [type(e).__name__ for e in events]
    ['ToolCallStart', 'ToolCallEnd']
    >>> p.result().tool_calls[0].name
    'f'
    """

    _opening: list[Event]  # events of the start state, returned by the first feed() or close()
    _gate: bool  # closed, or opening events pending: the one check feed() makes before its fast paths
    _head: str  # the first characters, held while they may be the repeated opener of the block
    _opener: str  # that opener (starts_in_reasoning), else ""
    #: ``retain=False``: how many line starts may pile up before the old ones are forgotten
    forget_lines_at = 1024

    def __init__(
        self,
        *,
        level: Literal["completion", "transcript"] = "completion",
        dialect: str | DialectProfile = "hermes",
        strict: bool = False,
        calls_in_reasoning: bool = False,
        stream_arguments: bool = False,
        stop_at_fabricated_response: bool = False,
        max_block_chars: int = DEFAULT_MAX_BLOCK_CHARS,
        ids: IdFactory | None = None,
        starts_in_reasoning: bool | None = None,
        tools: Sequence[Any] | None = None,
        undeclared: Undeclared = "keep",
        coerce_arguments: bool = False,
        options: ParseOptions | None = None,
        retain: bool = True,
    ) -> None:
        if level not in ("completion", "transcript"):
            raise UsageError(f"unknown level {level!r} (completion or transcript)")
        if level == "transcript" and starts_in_reasoning is not None:
            raise UsageError("starts_in_reasoning is for completions (a transcript holds its own prompt)")
        _check_arguments(stream_arguments=stream_arguments, retain=retain, options=options)
        opts = options or ParseOptions.make(
            dialect=dialect,
            strict=strict,
            calls_in_reasoning=calls_in_reasoning,
            stop_at_fabricated_response=stop_at_fabricated_response,
            max_block_chars=max_block_chars,
            ids=ids,
            starts_in_reasoning=starts_in_reasoning,
            tools=tools,
            undeclared=undeclared,
            coerce_arguments=coerce_arguments,
        )
        policy = None
        if opts.tools is not None:
            from .._tools_policy import ToolPolicy

            policy = ToolPolicy.of(opts)
        self.options = opts
        self.level = level
        self.stream_arguments = stream_arguments
        transcript = level == "transcript"
        kinds = opts.profile.reasoning_kinds
        table = moves(level, kinds, calls_in_reasoning=opts.calls_in_reasoning, stop=opts.stop_at_fabricated_response)
        readers: dict[int, Reader] = {}
        self._buf = buf = InputBuffer()
        cursor_class = CheckedCursor if checked_mode() else Cursor
        self._cur = cur = cursor_class()
        self._asm = asm = Assembler(
            options=opts,
            transcript=transcript,
            stream_arguments=stream_arguments,
            cur=cur,
            span=buf.span,
            policy=policy,
        )
        for state_kind, reader_class in _READERS.items():
            readers[state_kind] = reader_class(buf, cur, asm)
        cur.bind(scans=text_scans(kinds), moves=table, readers=readers)
        self._retain = retain
        if not retain:
            buf.chunks = SINK  # for InputBuffer.take; feed itself skips the append (retain=False)
            asm.drop_folded()
        self._closed = False
        #: the events of ``close()`` (also when it raised ``StreamError`` in strict mode)
        self.closing_events: list[Event] = []
        start_kind = None if transcript else opts.reasoning_at_start
        self._head = ""
        if start_kind is None:
            cur.enter(State.GAP if transcript else State.ASSISTANT)
            self._opening = []
            self._opener = ""
        else:  # the prompt opened the block: start in it, with a segment that has no opener
            cur.reasoning_kind = start_kind
            cur.enter(State.REASONING)
            self._opening = asm.events = []
            asm.start_segment(start_kind, 0, opened=False)
            self._opener = tags.OPEN[start_kind]
        self._gate = bool(self._opening)  # feed() has more to do than usual: closed, or opening events

    @property
    def state(self) -> State:
        """The machine's current state (``table.State``)."""
        return self._cur.state

    # ------------------------------------------------------------------ public API

    def feed(self, chunk: str) -> list[Event]:
        """Feed the next piece of the input; returns the events it completes.

        Raises:
            UsageError: ``chunk`` is not a str.
            StreamStateError: the parser was already closed.
        """
        if type(chunk) is not str:
            check_text("chunk", chunk)
        if self._gate:
            if self._closed:
                raise StreamStateError("feed() after close()")
            head = self._head + chunk
            if len(head) < len(self._opener) and self._opener.startswith(head):
                self._head = head  # may still become the block's opener, repeated by the completion
                return []
            return self._start(head)
        if not chunk:
            return []
        buf = self._buf
        at = buf.total  # as buf.take(chunk), inlined (a call per chunk costs ~10% on small chunks)
        buf.total = end = at + len(chunk)
        if self._retain:  # else nothing keeps the input (a call to the sink's append costs more than the test)
            buf.chunks.append(chunk)
        if "\n" in chunk:
            buf.lines.extend(chunk, at)
            if not self._retain and len(buf.lines.starts) > self.forget_lines_at:
                buf.lines.forget(self._asm.oldest_open(at - len(buf.pending) - sum(map(len, buf.deferred))))
        if end <= buf.defer_to and "<" not in chunk:  # the open block looks for its end only: keep it for later
            buf.deferred.append(chunk)
            return []
        buf.defer_to = -1  # armed again by a block reader that defers (``InputBuffer.defer_to``)
        reader = self._cur.reader
        pending = buf.pending
        if pending:  # the held-back tail first
            fast = reader.resume(pending + chunk, end)
        else:
            fast = reader.fast(chunk, at, end)
        if fast is not None:
            return fast
        events: list[Event] = []
        self._asm.events = events
        try:
            self._run(buf.unread(chunk), final=False)
        except (HermesError, MemoryError):
            raise
        except Exception as exc:  # only HermesError escapes: anything else is a bug
            raise internal_error("StreamParser.feed", exc) from exc
        return events

    def _run(self, data: str, *, final: bool) -> None:
        """Read ``data`` (the unread text, from ``InputBuffer.pos``) state by state with the readers."""
        cur = self._cur
        n = len(data)
        i = 0
        while i < n:
            i, held = cur.reader.read(data, i, final)
            if held:
                break
        self._buf.hold(data[i:] if i else data)

    def close(self) -> list[Event]:
        """Signal the end of the input: flush the held tail, close open blocks and turns.

        Raises:
            StreamError: strict mode found error diagnostics (``result()`` and ``closing_events``
                are still available).
            StreamStateError: the parser was already closed.
        """
        if self._closed:
            raise StreamStateError("close() called twice")
        try:
            return self._close()
        except (HermesError, MemoryError):
            raise
        except Exception as exc:  # only HermesError escapes: anything else is a bug
            raise internal_error("StreamParser.close", exc) from exc

    def _close(self) -> list[Event]:
        """`close` after its checks."""
        events: list[Event] = self._start(self._head) if self._gate else []
        asm = self._asm
        asm.events = events
        buf = self._buf
        data = buf.unread("")
        if data:
            self._run(data, final=True)
        asm.finish(buf.total)
        self._closed = self._gate = True
        self.closing_events = events
        if self.options.strict:
            errors = [d for d in asm.diags if d.severity == "error"]
            if errors:
                raise StreamError("strict streaming found errors", sorted(errors, key=_start))
        return events

    def _start(self, head: str) -> list[Event]:
        """The first input of a completion that starts inside reasoning: the opening events, then ``head``.

        A completion that begins with the block's own opener (the model or the server repeated it)
        is read as written, from ``assistant`` (as the grammar engine does).
        """
        opening, self._opening, self._gate, self._head = self._opening, [], False, ""
        if head.startswith(self._opener):
            self._cur.enter(State.ASSISTANT)
            return self.feed(head)
        return opening + self.feed(head) if head else opening

    def result(self) -> Completion | Transcript:
        """The folded result: the same value ``parse_completion`` / ``parse_transcript`` give.

        Raises:
            StreamStateError: ``close()`` was not called yet.
            UsageError: the parser was made with ``retain=False``.
        """
        if not self._retain:
            raise UsageError("result() needs StreamParser(retain=True): retain=False keeps events only")
        if not self._closed:
            raise StreamStateError("result() before close()")
        return self._asm.folded("".join(self._buf.chunks), self._buf.total)


def _start(d: Diagnostic) -> int:
    return d.span.start


def _check_arguments(*, stream_arguments: object, retain: object, options: object) -> None:
    check_bool("stream_arguments", stream_arguments)
    check_bool("retain", retain)
    if options is not None:
        check_type("options", options, ParseOptions, "a ParseOptions")
