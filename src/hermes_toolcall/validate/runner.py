"""Validate dataset records, one by one or in a process pool, with file positions for every finding."""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

from .. import jsonio
from ..diagnostics import make
from ..errors import DecodeError
from ..model import Span
from .api import Selector, ValidationReport, validate_conversation, validate_record
from .build import from_transcript
from .datasets import InputFormat, RawRecord
from .engines import parse_transcript
from .locate import locate, string_offset
from .view import Where

__all__ = ["Located", "Options", "RecordResult", "check_record", "run"]

_WINDOW = 100


@dataclass(frozen=True, slots=True, kw_only=True)
class Options:
    """What to check (picklable: it travels to the worker processes)."""

    tools: tuple[Any, ...] | None = None
    dialect: str = "hermes"
    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] = ()
    check_formats: bool = False
    input_format: InputFormat = "auto"
    round_trip: bool = True


@dataclass(frozen=True, slots=True, kw_only=True)
class Located:
    """A finding placed in the file: 1-based line and column, the source line around it, a caret."""

    code: str
    severity: str
    message: str
    hint: str | None
    record: int
    line: int
    column: int
    width: int
    snippet: str
    caret: int


@dataclass(frozen=True, slots=True, kw_only=True)
class RecordResult:
    """The findings of one record (``end``: byte offset after it, for progress)."""

    number: int
    end: int
    findings: tuple[Located, ...]


def _window(text: str, column: int, width: int) -> tuple[str, int, int]:
    """A window of ``text`` around 1-based ``column``: (snippet, caret column in it, caret width)."""
    text = text.replace("\t", " ")
    if len(text) <= _WINDOW:
        return text, column, max(1, min(width, len(text) - column + 1))
    lo = max(0, column - 1 - _WINDOW // 3)
    snippet = text[lo : lo + _WINDOW]
    caret = column - lo
    if lo:
        snippet, caret = "…" + snippet, caret + 1
    if lo + _WINDOW < len(text):
        snippet += "…"
    return snippet, caret, max(1, min(width, _WINDOW - (column - 1 - lo)))


def _json_position(text: str, where: Where) -> tuple[int, int]:
    """Raw ``[start, end)`` in a JSON line of what ``where`` points at (the whole line when unknown)."""
    found = locate(text, where.path or ())
    if found is None:
        return 0, 0
    start, end = found
    if where.in_value and text[start : start + 1] == '"':
        return string_offset(text, start, where.span.start), string_offset(text, start, where.span.end)
    return start, end


def _place(raw: RawRecord, report: ValidationReport) -> tuple[Located, ...]:
    out = []
    lines: list[str] | None = None
    for d, where in zip(report.diagnostics, report.locations, strict=True):
        if raw.kind == "jsonl":
            start, end = _json_position(raw.text, where)
            line, column, width, source_line = raw.line, start + 1, max(1, end - start), raw.text
        else:
            if lines is None:
                lines = raw.text.split("\n")
            line = raw.line + d.span.line - 1
            column = d.span.column
            source_line = lines[d.span.line - 1].rstrip("\r") if d.span.line <= len(lines) else ""
            width = max(1, d.span.end - d.span.start)
        snippet, caret, width = _window(source_line, column, width)
        out.append(
            Located(
                code=d.code,
                severity=d.severity,
                message=d.message,
                hint=d.hint,
                record=raw.number,
                line=line,
                column=column,
                width=width,
                snippet=snippet,
                caret=caret,
            )
        )
    return tuple(out)


def _record_error(raw: RawRecord, code: str, message: str, position: int) -> RecordResult:
    column = max(position, 0) + 1
    d = make(code, message, Span(start=0, end=0, line=1, column=column), strict=False)
    snippet, caret, width = _window(raw.text, column, 1)
    located = Located(
        code=d.code,
        severity=d.severity,
        message=d.message,
        hint=None,
        record=raw.number,
        line=raw.line,
        column=column,
        width=width,
        snippet=snippet,
        caret=caret,
    )
    return RecordResult(number=raw.number, end=raw.end, findings=(located,))


def check_record(raw: RawRecord, options: Options) -> RecordResult:
    """Validate one record read from a file; every finding gets its file line:column and snippet.

    >>> from hermes_toolcall.validate.datasets import RawRecord
    >>> rec = RawRecord(number=1, line=1, kind="jsonl", end=0, text='{"text": 1}')
    >>> [f.code for f in check_record(rec, Options()).findings]
    ['HT602']
    """
    selector = Selector(options.select, options.ignore)
    if raw.error is not None:
        if not selector.allows("HT601"):
            return RecordResult(number=raw.number, end=raw.end, findings=())
        return _record_error(raw, "HT601", raw.error, 0)
    if raw.kind == "jsonl":
        try:
            data = jsonio.loads(raw.text)
        except DecodeError as exc:
            if not selector.allows("HT601"):
                return RecordResult(number=raw.number, end=raw.end, findings=())
            return _record_error(raw, "HT601", f"invalid JSON: {exc.message}", exc.position)
        report = validate_record(
            data,
            tools=options.tools,
            dialect=options.dialect,
            selector=selector,
            check_formats=options.check_formats,
            round_trip=options.round_trip,
        )
    else:
        conv = from_transcript(parse_transcript(raw.text, dialect=options.dialect))
        report = validate_conversation(
            conv,
            tools=options.tools,
            dialect=options.dialect,
            selector=selector,
            check_formats=options.check_formats,
            round_trip=options.round_trip,
        )
    return RecordResult(number=raw.number, end=raw.end, findings=_place(raw, report))


def _batch(records: Sequence[RawRecord], options: Options) -> list[RecordResult]:
    return [check_record(r, options) for r in records]


def _batches(records: Iterable[RawRecord], size: int) -> Iterator[list[RawRecord]]:
    batch: list[RawRecord] = []
    for r in records:
        batch.append(r)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


def run(
    records: Iterable[RawRecord], options: Options, *, jobs: int = 1, batch_size: int = 256
) -> Iterator[RecordResult]:
    """Validate records in order; ``jobs`` > 1 uses a process pool over batches (0 = all cores).

    At most ``2 × jobs`` batches are in flight, so memory stays flat on any file size.

    Args:
        records: raw records, e.g. ``datasets.iter_records(path)``.
        options: what to check.
        jobs: worker processes (1: in this process; 0: one per core).
        batch_size: records per batch sent to a worker.

    Returns:
        One ``RecordResult`` per record, in input order.

    >>> rec = RawRecord(number=1, line=1, kind="jsonl", end=0, text="{")
    >>> [f.code for r in run([rec], Options()) for f in r.findings]
    ['HT601']
    """
    workers = (os.cpu_count() or 1) if jobs == 0 else max(1, jobs)
    if workers == 1:
        for r in records:
            yield check_record(r, options)
        return
    with ProcessPoolExecutor(max_workers=workers) as pool:
        pending: deque[Future[list[RecordResult]]] = deque()
        for batch in _batches(records, batch_size):
            pending.append(pool.submit(_batch, batch, options))
            while len(pending) >= 2 * workers:
                yield from pending.popleft().result()
        while pending:
            yield from pending.popleft().result()
