"""``StreamParser``: the streaming engine (docs/parsing.md, fed chunk by chunk).

With ``retain=True`` (the default) the parser keeps everything ``result()`` needs: the whole input
(``Completion.source`` / ``Transcript.source``), every part, turn and diagnostic, and the line table
of the input, so its memory grows with the stream (about 3-15x the input's size, docs/performance.md).
With ``retain=False`` it keeps only what the next events need: the unread tail (a possible partial
marker), the text of the block currently open (at most ``max_block_chars``), the open reasoning
segment, gap or role header, and the line starts from the oldest open element on.

The parser fires the machine's triggers (``table``) at tag boundaries and scans the text between
them with the compiled scanners of ``markers``. Every event is emitted at a position fixed
by the input, so merged events and ``result()`` do not depend on the chunking.

This module is the public API and the per-chunk fast paths: a chunk that cannot hold or complete a
marker (no ``<``, nothing held back) is taken in a few steps according to the kind of the current
state; every other chunk goes to the scanners (``textscan``, ``blockscan``), which fold what they
read (``fold``). The parts are described in ``core``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from ..argcheck import check_bool, check_text, check_type
from ..errors import HermesError, StreamError, StreamStateError, UsageError, internal_error
from ..ids import IdFactory
from ..model import Completion, Diagnostic, Transcript
from ..options import DEFAULT_MAX_BLOCK_CHARS, ParseOptions, Undeclared
from ..profiles import DialectProfile
from .core import K_BLOCK, K_BODY, K_GAP, K_HEADER, K_REASONING, K_TAIL
from .events import Event, TextDelta, new_reasoning_delta, new_text_delta
from .jsontrack import PHASE_MIN
from .table import State
from .textscan import TextScan

__all__ = ["StreamParser"]

_WS = " \t\n\r"
_new = object.__new__
_set_text = TextDelta.__dict__["text"].__set__  # the slot's member descriptor (see construct.positional)


class StreamParser(TextScan):
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
        if opts.tools is None:
            self._policy = None
        else:
            from ..tools_policy import ToolPolicy

            self._policy = ToolPolicy.of(opts)
        self._init_core(opts, level, stream_arguments)
        self._init_fold()
        if not retain:
            self._drop_folded()
        self._init_block()
        #: the events of ``close()`` (also when it raised ``StreamError`` in strict mode)
        self.closing_events: list[Event] = []
        kind = None if self._transcript else opts.reasoning_at_start
        self._head = ""
        if kind is None:
            self._set_state(State.GAP if self._transcript else State.ASSISTANT)
            self._opening = []
            self._opener = ""
        else:  # the prompt opened the block: start in it, with a segment that has no opener
            self._r_kind = kind
            self._set_state(State.REASONING)
            self._opening = self._events = []
            self._start_segment(kind, 0, opened=False)
            self._opener = f"<{kind}>"
        self._gate = bool(self._opening)  # feed() has more to do than usual: closed, or opening events

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
        total = self._total
        end = total + len(chunk)
        self._total = end
        self._chunks.append(chunk)
        if "\n" in chunk:
            self._lines.extend(chunk, total)
            if not self._retain and len(self._lines.starts) > self.forget_lines_at:
                self._forget_lines(total)
        events: list[Event]
        pending = self._pending
        if pending:
            data = pending + chunk
            if data in self._held and (self._kind != K_BLOCK or end <= self._b_limit):
                # still a proper prefix of a marker the scanner looks for: the scanner would hold it too
                self._pending = data
                return []
            if pending == "\\" and self._kind == K_BLOCK and end <= self._b_limit and "<" not in chunk:
                # the escape held back inside a JSON string: the string goes on with this chunk
                events = []
                self._events = events
                self._pending = ""
                if self._fast_block(data):
                    return events
                self._pending = pending
        else:
            data = chunk
            kind = self._kind
            if "<" not in chunk:  # fast paths: the chunk cannot hold a marker
                if kind == K_BODY:
                    if self._text_start < 0:
                        self._text_start = total
                    self._text.append(chunk)
                    delta = _new(TextDelta)  # as new_text_delta(chunk), without a Python call
                    _set_text(delta, chunk)
                    return [delta]
                if kind == K_BLOCK:
                    if end <= self._b_limit:
                        mode = self._b_mode
                        if mode == "plain" or (mode == "json" and self._track.phase == PHASE_MIN):  # type: ignore[union-attr]
                            self._defer.append(chunk)  # only the block's end is looked for: read it later
                            return []
                        events = []
                        self._events = events
                        if not self._defer and self._fast_block(chunk):
                            return events
                elif kind == K_REASONING:
                    self._r_text.append(chunk)
                    return [new_reasoning_delta(self._r_kind, chunk)]
                elif kind == K_GAP or (kind == K_HEADER and "\n" not in chunk):
                    self._text.append(chunk)
                    return []
                elif kind == K_TAIL:
                    if not self._tail_text and chunk.strip(_WS):
                        self._tail_text = True
                    return []
            elif kind == K_BLOCK:
                if end <= self._b_limit and (
                    self._b_mode == "plain" or (self._b_mode == "json" and self._track.phase == PHASE_MIN)  # type: ignore[union-attr]
                ):
                    p = chunk.find("<")
                    held = self._blocks[self.state].plain.held.prefixes  # the block's end markers
                    if chunk[p:] in held:
                        # only the block's end is looked for: read the text later, hold the possible marker
                        if p:
                            self._defer.append(chunk[:p])
                        self._pending = chunk[p:]
                        self._held = held
                        return []
            elif kind <= K_GAP and chunk[(p := chunk.find("<")) :] in self._held:
                # text, then the start of a marker that the next chunks may complete: hold it back
                self._pending = chunk[p:]
                if not p:
                    return []
                head = chunk[:p]
                if kind == K_BODY:
                    if self._text_start < 0:
                        self._text_start = total
                    self._text.append(head)
                    return [new_text_delta(head)]
                if kind == K_REASONING:
                    self._r_text.append(head)
                    return [new_reasoning_delta(self._r_kind, head)]
                self._text.append(head)
                return []
        if self._defer:
            data = "".join(self._defer) + data
            self._defer = []
        events = []
        self._events = events
        self._pos = end - len(data)  # the unread data ends with this chunk
        try:
            self._run(data, final=False)
        except (HermesError, MemoryError):
            raise
        except Exception as exc:  # only HermesError escapes: anything else is a bug
            raise internal_error("StreamParser.feed", exc) from exc
        return events

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
        self._events = events
        data = "".join(self._defer) + self._pending
        self._defer = []
        if data:
            self._pos = self._total - len(data)
            self._run(data, final=True)
        self._finish()
        self._closed = self._gate = True
        self.closing_events = events
        if self._strict:
            errors = [d for d in self._diags if d.severity == "error"]
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
            self._set_state(State.ASSISTANT)
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
        return self._folded()


def _start(d: Diagnostic) -> int:
    return d.span.start


def _check_arguments(*, stream_arguments: object, retain: object, options: object) -> None:
    check_bool("stream_arguments", stream_arguments)
    check_bool("retain", retain)
    if options is not None:
        check_type("options", options, ParseOptions, "a ParseOptions")
