"""Validate dataset records, one by one or in a process pool, with file positions for every finding."""

from __future__ import annotations

import bisect
import dataclasses
import functools
import hashlib
import os
import signal
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any, cast

from .. import _jsonio as jsonio
from .._construct import positional
from .._diagnostics import make
from .._excerpt import window
from .._gcpause import collector_paused
from .._locate import locate, string_offset
from .._model import Diagnostic, Span, ToolsBlock, Transcript
from ..errors import DecodeError, InputError
from ..tags import DEVELOPER, SYSTEM
from ._api import Selector, ValidationReport, detected_dialect, record_report, validate_conversation
from ._build import from_transcript
from ._datasets import MAX_RECORD_BYTES, InputFormat, RawRecord
from ._engines import parse_transcript
from ._view import Where

__all__ = ["INTERNAL_ERROR", "Located", "Options", "RecordResult", "TextPosition", "check_record", "record_id", "run"]

INTERNAL_ERROR = "HT604"

@dataclass(frozen=True, slots=True, kw_only=True)
class Options:
    """What to check (picklable: it travels to the worker processes)."""

    tools: tuple[Any, ...] | None = None
    dialect: str = "hermes"
    """A dialect name, or ``auto``: each record's own, detected from its text (``detect_dialect``)."""
    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] = ()
    check_formats: bool = False
    input_format: InputFormat = "auto"
    round_trip: bool = True
    text_column: str | None = None
    """Records (JSONL lines, Parquet or ``datasets`` rows) hold a whole ChatML transcript as text in this
    field: the text is checked as a transcript (a ChatML file's checks), findings say where in it."""
    keep_records: bool = False
    """A result with findings carries its record (``RecordResult.raw``), for a report that shows it (HTML)."""
    max_record_bytes: int = MAX_RECORD_BYTES
    """A longer record (a JSONL line, a ChatML record) is not read: HT612 (``--max-record-bytes``)."""
    sharegpt_roles: tuple[tuple[str, str], ...] = ()
    """More ShareGPT senders, ``(from, role)`` pairs (``_sharegpt.parse_roles``)."""
    id_field: str = "id"
    """The field of a record that holds its own id (a string or an integer): every finding carries it
    (``Located.record_id``), so a report joins back to the source."""


@dataclass(frozen=True, slots=True, kw_only=True)
class TextPosition:
    """Where in a record's ChatML text (``Options.text_column``) a finding is: 1-based line and column, offset."""

    field: str
    line: int
    column: int
    offset: int

    def label(self) -> str:
        """``text 3:14, offset 57`` (the field, then line:column and character offset in the text).

        >>> TextPosition(field="text", line=3, column=14, offset=57).label()
        'text 3:14, offset 57'
        """
        return f"{self.field} {self.line}:{self.column}, offset {self.offset}"


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
    text: TextPosition | None = None  # set for a record checked through Options.text_column
    where: Where | None = None  # where the check pointed in the record (None: at the record's raw text)
    record_id: str | int | None = None  # the record's own id (Options.id_field), when it has one


@dataclass(frozen=True, slots=True, kw_only=True)
class RecordResult:
    """The findings of one record (``end``: byte offset after it, for progress).

    ``digest`` identifies the record's content (a short hash of its text), so that a finding keeps its
    fingerprint when the record moves in the file (SARIF ``partialFingerprints``); it is ``""`` for a
    record without findings (nothing needs it there).
    """

    number: int
    end: int
    findings: tuple[Located, ...]
    digest: str = ""
    raw: RawRecord | None = None  # the record itself, when it has findings and ``Options.keep_records`` is set


def _json_position(text: str, where: Where) -> tuple[int, int]:
    """Raw ``[start, end)`` in a JSON line of what ``where`` points at (the whole line when unknown)."""
    found = locate(text, where.path or (), valid=True)  # the line was decoded: a valid document
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
        if raw.kind == "object":  # a decoded row: no text to point into
            line, column, width, source_line = raw.line, 1, 1, ""
        elif raw.kind == "jsonl":
            start, end = _json_position(raw.text, where)
            line, column, width, source_line = raw.line, start + 1, max(1, end - start), raw.text
        else:
            if lines is None:
                lines = raw.text.split("\n")
            line = raw.line + d.span.line - 1
            column = d.span.column
            source_line = lines[d.span.line - 1].rstrip("\r") if d.span.line <= len(lines) else ""
            width = max(1, d.span.end - d.span.start)
        out.append(_located(d, raw.number, line, column, width, source_line, where=where))
    return tuple(out)


def _dropped_cr(text: str) -> list[int]:
    """Where ``text.replace("\r\n", "\n")`` dropped a ``\r``: the offsets, in the result, of the ``\n`` after each."""
    out: list[int] = []
    i = text.find("\r\n")
    while i >= 0:
        out.append(i - len(out))
        i = text.find("\r\n", i + 2)
    return out


def _place_text(
    raw: RawRecord, field: str, report: ValidationReport, dropped: Sequence[int] = ()
) -> tuple[Located, ...]:
    """Findings of the transcript in ``field`` of a JSON record: the file position, and the position in the text.

    The column points into the record's JSON line, at the character of the string where the finding
    is (escapes counted as written); ``text`` says line:column and offset inside the transcript. The
    transcript was checked with CRLF read as LF (as in a ChatML file): ``dropped`` (``_dropped_cr``)
    maps its offsets back to the row's text.
    """
    found = locate(raw.text, (field,))
    start = found[0] if found is not None and raw.text[found[0] : found[0] + 1] == '"' else -1
    out = []
    for d, where in zip(report.diagnostics, report.locations, strict=True):
        first, last = d.span.start, d.span.end
        if dropped:  # a start after a dropped \r counts it; an end at its \n stays before it
            first += bisect.bisect_right(dropped, first)
            last = max(first, last + bisect.bisect_left(dropped, last))
        if start >= 0:
            a, b = string_offset(raw.text, start, first), string_offset(raw.text, start, last)
        else:
            a = b = 0
        position = TextPosition(field=field, line=d.span.line, column=d.span.column, offset=first)
        out.append(_located(d, raw.number, raw.line, a + 1, max(1, b - a), raw.text, text=position, where=where))
    return tuple(out)


def _located(
    d: Diagnostic,
    record: int,
    line: int,
    column: int,
    width: int,
    source_line: str,
    *,
    text: TextPosition | None = None,
    where: Where | None = None,
) -> Located:
    """A finding of record ``record`` at ``line:column``, with the excerpt of ``source_line`` around it."""
    snippet, caret, width = window(source_line, column, width)
    return Located(
        code=d.code,
        severity=d.severity,
        message=d.message,
        hint=d.hint,
        record=record,
        line=line,
        column=column,
        width=width,
        snippet=snippet,
        caret=caret,
        text=text,
        where=where,
    )


_new_result = cast(
    Callable[[int, int, tuple[Located, ...], str, "RawRecord | None"], RecordResult], positional(RecordResult)
)


def _result(raw: RawRecord, findings: tuple[Located, ...]) -> RecordResult:
    """The result of ``raw``; its digest is computed only when there are findings (nothing else reads it)."""
    return RecordResult(number=raw.number, end=raw.end, findings=findings, digest=_digest(raw) if findings else "")


@functools.lru_cache(maxsize=64)
def _selector(select: tuple[str, ...] | None, ignore: tuple[str, ...]) -> Selector:
    """The ``Selector`` of the options (built once per run, not per record: it validates every code)."""
    return Selector(select, ignore)


def _digest(raw: RawRecord) -> str:
    text = raw.text if raw.kind != "object" else repr(raw.data)
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()


def _record_error(raw: RawRecord, code: str, message: str, position: int, *, hint: str | None = None) -> RecordResult:
    column = max(position, 0) + 1
    d = make(code, message, Span(start=0, end=0, line=1, column=column), strict=False, hint=hint)
    located = _located(d, raw.number, raw.line, column, 1, raw.text.split("\n", 1)[0])
    return _result(raw, (located,))


def internal_error(raw: RawRecord, exc: BaseException, *, what: str = "") -> RecordResult:
    """The finding for a record the checker failed on (HT604): what failed, and a request to report it.

    A ``RecursionError``'s text says where the limit was hit (``in comparison``, ``while calling a Python
    object``), which depends on the worker's own stack (a process pool's, a Ray worker's): it is not
    quoted, so every engine reports the same finding.
    """
    if isinstance(exc, RecursionError) and not what:
        what = "RecursionError: maximum recursion depth exceeded"
    what = what or (f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__)
    if len(what) > 200:
        what = what[:200] + "…"
    return _record_error(
        raw,
        INTERNAL_ERROR,
        f"the validator failed on this record ({what}); it was not fully checked",
        0,
        hint="please report this record to the hermes-toolcall issue tracker",
    )


def _joined(transcript: Transcript) -> list[Any]:
    """HT605: a system turn with a ``<tools>`` block after other turns (two transcripts without a separator)."""
    from ._build import finding
    from ._view import Source

    seen_other = False
    for turn in transcript.turns:
        if turn.role not in (SYSTEM, DEVELOPER):
            seen_other = True
        elif seen_other and any(isinstance(p, ToolsBlock) for p in turn.parts):
            where = Source(transcript.source).where(turn.header.start, turn.header.end)
            message = "a system turn with a <tools> block after other turns: two transcripts without a blank line?"
            return [finding("HT605", message, where)]
    return []


def record_id(data: Any, field: str) -> str | int | None:
    """The record's own id: ``data[field]`` when ``data`` is an object and that is a string or an integer.

    >>> record_id({"id": "gen-7", "messages": []}, "id"), record_id({"id": True}, "id"), record_id([], "id")
    ('gen-7', None, None)
    """
    if not isinstance(data, dict):
        return None
    value = data.get(field)
    if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    return None


def _with_id(result: RecordResult, rid: str | int | None) -> RecordResult:
    """``result`` with every finding carrying the record's id (unchanged without one or without findings)."""
    if rid is None or not result.findings:
        return result
    found = tuple(dataclasses.replace(f, record_id=rid) for f in result.findings)
    return dataclasses.replace(result, findings=found)


def _check(raw: RawRecord, options: Options, selector: Selector) -> RecordResult:
    """The findings of one record, each with the record's id; a failure of the checker is an HT604 finding."""
    data: Any = _UNSET
    rid = None
    try:
        if raw.kind == "object":
            data = raw.data
        elif raw.kind == "jsonl" and raw.error is None and not raw.oversize:
            try:
                data = jsonio.loads(raw.text)
            except DecodeError:
                pass  # HT601, from _check_record
        if data is not _UNSET:
            rid = record_id(data, options.id_field)
        if options.dialect == "auto":  # each record's own: what its text says (detect_dialect)
            options = dataclasses.replace(options, dialect=_detected(raw, data, options.text_column))
        result = _check_record(raw, options, selector, data)
    except Exception as exc:  # any failure of the checker (RecursionError, ValueError, …) is a finding
        result = internal_error(raw, exc)
    return _with_id(result, rid)


_UNSET: Any = object()


def _detected(raw: RawRecord, data: Any, text_column: str | None) -> str:
    """The dialect of a record under ``--dialect auto`` (``_api.detected_dialect``: its text says)."""
    if raw.kind == "chatml":
        return detected_dialect(raw.text)
    if text_column is not None and isinstance(data, dict) and isinstance(data.get(text_column), str):
        return detected_dialect(data[text_column])
    return detected_dialect(data)


def _check_record(raw: RawRecord, options: Options, selector: Selector, data: Any) -> RecordResult:
    """The findings of one record (``data``: its decoded JSON or row, ``_UNSET`` when it has none)."""
    if raw.oversize:
        if not selector.allows("HT612"):
            return _result(raw, ())
        return _record_error(
            raw, "HT612", f"the record is {raw.oversize:,} bytes, over the limit of {options.max_record_bytes:,} "
            "(--max-record-bytes): not read, not checked", 0)
    if raw.error is not None:
        if not selector.allows("HT601"):
            return _result(raw, ())
        return _record_error(raw, "HT601", raw.error, 0)
    if raw.kind == "jsonl":
        try:
            data = jsonio.loads(raw.text) if data is _UNSET else data
        except DecodeError as exc:
            if not selector.allows("HT601"):
                return _result(raw, ())
            return _record_error(raw, "HT601", f"invalid JSON: {exc.message}", exc.position)
        if options.text_column is not None:
            return _check_text(raw, data, options.text_column, options, selector, _kw(options, selector))
        report = record_report(  # decoded JSON: plain dicts and lists already
            data, options.tools, options.dialect, selector, options.check_formats, options.round_trip, decoded=True,
            sharegpt_roles=options.sharegpt_roles,
        )
    elif raw.kind == "object":
        if options.text_column is not None:
            return _check_text(raw, raw.data, options.text_column, options, selector, _kw(options, selector))
        report = record_report(
            raw.data, options.tools, options.dialect, selector, options.check_formats, options.round_trip,
            decoded=False, sharegpt_roles=options.sharegpt_roles,
        )
    else:
        report = _transcript_report(raw.text, options, selector, _kw(options, selector))
    if not report.diagnostics:  # most records: the result built positionally (a third of the keyword cost)
        return _new_result(raw.number, raw.end, (), "", None)
    return _result(raw, _place(raw, report))


def _kw(options: Options, selector: Selector) -> dict[str, Any]:
    """The keyword arguments of ``validate_conversation`` for ``options``."""
    return {
        "tools": options.tools,
        "dialect": options.dialect,
        "selector": selector,
        "check_formats": options.check_formats,
        "round_trip": options.round_trip,
    }


def _transcript_report(text: str, options: Options, selector: Selector, kw: dict[str, Any]) -> ValidationReport:
    """The checks of one ChatML transcript (a ChatML file's record, or a record's text column)."""
    transcript = parse_transcript(text, dialect=options.dialect, tools=options.tools)
    conv = from_transcript(transcript)
    joined = _joined(transcript) if selector.allows("HT605") else []
    if joined:
        conv = dataclasses.replace(conv, findings=conv.findings + tuple(joined))
    return validate_conversation(conv, **kw)


def _check_text(
    raw: RawRecord, data: Any, field: str, options: Options, selector: Selector, kw: dict[str, Any]
) -> RecordResult:
    """A JSON record whose ``field`` holds a ChatML transcript: the text checked as a transcript."""
    value = data.get(field) if isinstance(data, dict) else None
    if not isinstance(value, str):
        if not selector.allows("HT603"):
            return _result(raw, ())
        what = "not an object" if not isinstance(data, dict) else (
            f"no field {field!r}" if value is None else f"{field!r} is {type(value).__name__}, not a string"
        )
        return _record_error(raw, "HT603", f"--text-column {field}: the record has no ChatML text ({what})", 0)
    if "\r\n" in value:  # read as a ChatML file reads it: CRLF line ends as LF (positions mapped back)
        report = _transcript_report(value.replace("\r\n", "\n"), options, selector, kw)
        return _result(raw, _place_text(raw, field, report, _dropped_cr(value)))
    report = _transcript_report(value, options, selector, kw)
    return _result(raw, _place_text(raw, field, report))


def check_record(raw: RawRecord, options: Options) -> RecordResult:
    """Validate one record read from a file; every finding gets its file line:column and snippet.

    A failure inside the checker is not raised: it becomes an HT604 finding of that record.

    >>> from hermes_toolcall.validate._datasets import RawRecord
    >>> rec = RawRecord(number=1, line=1, kind="jsonl", end=0, text='{"text": 1}')
    >>> [f.code for f in check_record(rec, Options()).findings]
    ['HT602']
    """
    try:
        selector = _selector(options.select, options.ignore)
    except Exception as exc:  # the options were checked by the caller; a finding all the same
        result = internal_error(raw, exc)
    else:
        result = _check(raw, options, selector)
    if options.keep_records and result.findings:
        return dataclasses.replace(result, raw=raw)
    return result


def _batch(records: Sequence[RawRecord], options: Options) -> list[RecordResult]:
    with collector_paused():  # a batch of small records: the collector runs after it (_gcpause.py)
        return [check_record(r, options) for r in records]


def _isolate(batch: Sequence[RawRecord], options: Options) -> Iterator[RecordResult]:
    """The results of a batch whose worker died, each record checked alone in a fresh worker process.

    A record that kills its worker again gets HT604 (``internal_error``); the batch's other records get
    their real findings, as with ``--jobs 1``, whichever worker's death broke the pool.
    """
    pool = ProcessPoolExecutor(max_workers=1, initializer=_worker_init)
    try:
        for r in batch:
            try:
                yield pool.submit(_batch, [r], options).result()[0]
            except BrokenProcessPool as exc:
                yield internal_error(r, exc, what="the worker process checking it died: killed, or out of memory")
                pool.shutdown(wait=False, cancel_futures=True)
                pool = ProcessPoolExecutor(max_workers=1, initializer=_worker_init)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _worker_init() -> None:
    """Workers leave Ctrl-C to the main process (which stops the pool and prints the summary so far)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _batches(records: Iterable[RawRecord], size: int) -> Iterator[list[RawRecord]]:
    """Records in lists of ``size``; when the input breaks off (``InputError``), the records read before go first."""
    batch: list[RawRecord] = []
    try:
        for r in records:
            batch.append(r)
            if len(batch) >= size:
                yield batch
                batch = []
    except InputError:
        if batch:
            yield batch
        raise
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
        batch_size: records per batch sent to a worker (checked there with the cyclic collector paused).

    Returns:
        One ``RecordResult`` per record, in input order.

    >>> rec = RawRecord(number=1, line=1, kind="jsonl", end=0, text="{")
    >>> [f.code for r in run([rec], Options()) for f in r.findings]
    ['HT601']
    """
    workers = (os.cpu_count() or 1) if jobs == 0 else max(1, jobs)
    if workers == 1:  # one by one: a result is out before the next record is read (a pipe streams)
        for r in records:
            yield check_record(r, options)
        return
    pool = ProcessPoolExecutor(max_workers=workers, initializer=_worker_init)
    pending: deque[tuple[list[RawRecord], Future[list[RecordResult]]]] = deque()

    def collect() -> Iterator[RecordResult]:
        nonlocal pool
        batch, future = pending.popleft()
        try:
            yield from future.result()
        except BrokenProcessPool:  # a worker died (killed, out of memory): which record did it?
            pool.shutdown(wait=False, cancel_futures=True)
            yield from _isolate(batch, options)  # the batch's records one by one; only a killer gets HT604
            pool = ProcessPoolExecutor(max_workers=workers, initializer=_worker_init)
            retry = [b for b, _ in pending]  # their futures broke with the pool: submitted again
            pending.clear()
            pending.extend((b, submit(b)) for b in retry)

    def submit(batch: list[RawRecord]) -> Future[list[RecordResult]]:
        try:
            return pool.submit(_batch, batch, options)
        except BrokenProcessPool as exc:  # a worker died since the last collect: collect() sorts it out in order
            failed: Future[list[RecordResult]] = Future()
            failed.set_exception(exc)
            return failed

    broken: InputError | None = None
    try:
        try:
            for batch in _batches(records, batch_size):
                pending.append((batch, submit(batch)))
                while len(pending) >= 2 * workers:
                    yield from collect()
        except InputError as exc:  # the input broke off (a truncated archive): what was read is still checked
            broken = exc
        while pending:
            yield from collect()
    except BaseException:  # Ctrl-C, or the consumer stopped: drop the queued batches, let the running ones end
        # (at most one per worker; not waiting leaves the pool's threads to fail at interpreter exit)
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown(wait=True)
    if broken is not None:
        raise broken
