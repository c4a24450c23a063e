"""``hermes-toolcall stream``: parse input as it arrives, one JSON line per event or OpenAI chunk.

Standard input is read with ``os.read`` (whatever the pipe has, no waiting for EOF) through an
incremental UTF-8 decoder, and every line is flushed at once, so the command works in a pipe
behind a model server.
"""

from __future__ import annotations

import argparse
import codecs
import os
import sys
from collections.abc import Iterator
from typing import Any, BinaryIO

from .. import _jsonio as jsonio
from .._events import Event
from .._ids import sequential_ids
from .._model import as_dict
from .._openai_chunks import OpenAIChunker
from ..errors import StreamError, UsageError
from ..statemachine import StreamParser
from ._common import add_parse_options, display_name, print_diagnostics
from ._parse_flags import add_start_flags, add_tools_flags, start_kwargs, tools_kwargs

__all__ = ["event_json", "read_chunks", "register"]

_BLOCK = 65536


def register(subparsers: Any) -> None:
    """Add the ``stream`` subcommand."""
    p: argparse.ArgumentParser = subparsers.add_parser(
        "stream",
        help="parse a stream as it arrives (JSON lines of events or OpenAI chunks)",
        description="Parse FILE or standard input (-) incrementally with the streaming engine and print one "
        "JSON line per event (--format events) or per chat.completion.chunk (--format openai), or the chunks as "
        "server-sent events (--format sse: a `data: …` frame each, then `data: [DONE]`, as the OpenAI API streams "
        "them). Exit status 1 when --strict found errors.",
    )
    p.add_argument("file", metavar="FILE", help="input file, or - for standard input")
    p.add_argument("--level", choices=("completion", "transcript"), default="completion")
    p.add_argument("--format", choices=("events", "openai", "sse"), default="events", dest="output")
    p.add_argument("--id", default="chatcmpl-hermes", metavar="ID", help="openai, sse: the chunks' id")
    p.add_argument("--model", default="hermes", metavar="NAME", help="openai, sse: the chunks' model")
    p.add_argument("--created", type=int, default=0, metavar="SECONDS", help="openai, sse: the chunks' created time")
    add_parse_options(p, auto=False)
    add_start_flags(p)
    add_tools_flags(p)
    p.add_argument("--stream-arguments", action="store_true", help="emit argument deltas as they arrive")
    calls = p.add_mutually_exclusive_group()
    calls.add_argument(
        "--eager-calls",
        action="store_true",
        help="openai: announce each call as soon as its name is complete (an announced call can be rejected "
        "later: the last chunk lists it under rejected_tool_calls)",
    )
    calls.add_argument(
        "--deferred-calls", action="store_true", help="openai: send each call whole at its end (the default)"
    )
    p.set_defaults(func=_run)


def read_chunks(stream: BinaryIO, *, block: int = _BLOCK, name: str = "input") -> Iterator[str]:
    """Decoded text pieces of ``stream`` as they arrive (``os.read``: returns what the pipe has).

    Args:
        stream: the binary input.
        block: the most bytes read at once.
        name: how an error names the input (``<stdin>``, a path).

    Raises:
        UsageError: the input is not UTF-8 (the message gives the offending byte's offset in the whole
            input, as ``parse`` does), or cannot be read.

    >>> import io
    >>> list(read_chunks(io.BytesIO("h\\u00e9".encode()), block=2))
    ['h', 'é']
    >>> list(read_chunks(io.BytesIO(b"ok\\xff"), block=2, name="<stdin>"))
    Traceback (most recent call last):
    ...
    hermes_toolcall.errors.UsageError: <stdin> is not UTF-8 (byte 2)
    """
    decoder = codecs.getincrementaldecoder("utf-8")()
    try:
        fd = stream.fileno()
    except (OSError, ValueError, AttributeError):
        fd = -1
    consumed = pending = 0  # bytes handed to the decoder before this read; bytes it still holds
    try:
        while True:
            data = os.read(fd, block) if fd >= 0 else stream.read(block)
            if not data:
                break
            pending = len(decoder.getstate()[0])
            text = decoder.decode(data)
            consumed += len(data)
            if text:
                yield text
        pending = len(decoder.getstate()[0])
        tail = decoder.decode(b"", final=True)  # raises on a sequence cut by the end of input
        if tail:
            yield tail
    except UnicodeDecodeError as exc:  # exc.start counts from the bytes the decoder still held
        raise UsageError(f"{name} is not UTF-8 (byte {consumed - pending + exc.start})") from exc
    except OSError as exc:
        raise UsageError(f"cannot read {name}: {exc.strerror or exc}") from exc


def event_json(event: Event) -> dict[str, Any]:
    """One event as a JSON-ready dict: ``{"event": snake_case_name, **fields}``.

    >>> from hermes_toolcall.statemachine import TextDelta
    >>> event_json(TextDelta(text="hi"))
    {'event': 'text_delta', 'text': 'hi'}
    """
    name = type(event).__name__
    snake = "".join("_" + c.lower() if c.isupper() else c for c in name).lstrip("_")
    out: dict[str, Any] = {"event": snake.removesuffix("_event")}
    out.update(as_dict(event))  # public fields: parts' spans are properties (_model)
    return out


def _emit(obj: dict[str, Any], *, numbers: bool = False, sse: bool = False) -> None:
    """One JSON line, or one server-sent event (``sse``: ``data: …`` and a blank line). ``numbers``: ``obj`` may
    hold decoded JSON numbers (an event's call or tools), so a value beyond the float range is written as
    ``±1e999`` (an OpenAI chunk holds only strings and ints)."""
    text = jsonio.dumps_report(obj) if numbers else jsonio.dumps_fast(obj)
    sys.stdout.write(f"data: {text}\n\n" if sse else text + "\n")
    sys.stdout.flush()


def _run(args: argparse.Namespace) -> int:
    parser = StreamParser(
        level=args.level,
        dialect=args.dialect,
        strict=args.strict,
        calls_in_reasoning=args.calls_in_reasoning,
        stream_arguments=args.stream_arguments,
        stop_at_fabricated_response=args.stop_at_fabricated_response,
        max_block_chars=args.max_block_chars,
        ids=sequential_ids() if args.sequential_ids else None,
        **start_kwargs(args, completion=args.level == "completion"),
        **tools_kwargs(args),
        retain=False,  # events only: memory bounded whatever the stream's length
    )
    sse = args.output == "sse"
    openai = args.output in ("openai", "sse")
    if openai and args.level != "completion":
        raise UsageError(f"--format {args.output} needs --level completion")
    chunker = OpenAIChunker(eager=args.eager_calls, completion_id=args.id, model=args.model, created=args.created)
    if args.file == "-":
        source: BinaryIO = sys.stdin.buffer
        close_source = False
    else:
        try:
            source = open(args.file, "rb")
        except OSError as exc:
            raise UsageError(f"cannot read {args.file}: {exc}") from exc
        close_source = True

    def out(events: list[Event]) -> None:
        if openai:
            for chunk in chunker.feed(events):
                _emit(chunk, sse=sse)
        else:
            for e in events:
                _emit(event_json(e), numbers=True)

    status = 0
    try:
        if openai:
            for chunk in chunker.start():
                _emit(chunk, sse=sse)
        for piece in read_chunks(source, name=display_name(args.file)):
            out(parser.feed(piece))
        try:
            out(parser.close())
        except StreamError as exc:
            out(parser.closing_events)
            status = 1
            print_diagnostics(exc.diagnostics, filename=args.file, text="")  # the stream kept no source
        if openai:
            for chunk in chunker.finish():
                _emit(chunk, sse=sse)
        if sse:
            sys.stdout.write("data: [DONE]\n\n")
            sys.stdout.flush()
    finally:
        if close_source:
            source.close()
    return status
