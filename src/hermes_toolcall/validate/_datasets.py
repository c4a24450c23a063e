"""Streaming dataset readers: JSONL (OpenAI or ShareGPT records, per line) and raw ChatML text files.

Every input is opened once (a path, ``-`` for standard input, ``/dev/stdin``, a pipe or a process
substitution) and read once: format detection peeks at the first bytes of that same handle, which are
then read again from memory. Files are read line by line in binary mode, so memory stays flat
whatever the file size.

A ChatML record ends at a blank line that follows a line ending in ``<|im_end|>``: the next record
starts at the next line beginning with ``<|im_start|>``. No dialect's template writes a blank line
there (they write ``<|im_end|>`` and one newline, or none), so one rendered conversation is always one
record. ``\\r\\n`` line endings are read as ``\\n`` (lines and columns still point at the original
bytes: only the ``\\r`` before each newline is dropped).

A record is read only up to ``max_record_bytes`` (``MAX_RECORD_BYTES``, 64 MiB, by default): a longer one
(a JSONL line, a ChatML record) is passed over without being held, as a record whose ``oversize`` says
how many bytes it had (HT612), so one line of a small archive that expands without bound cannot take
the memory (issue 30).

Other readers (compressed files, Parquet, …) plug in with ``register_reader``: a ``Reader`` says from
the first bytes whether it reads the input, and turns the handle into records.
"""

from __future__ import annotations

import io
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, Literal

from ..errors import UsageError

__all__ = [
    "MAX_RECORD_BYTES",
    "READERS",
    "FileFormat",
    "InputFormat",
    "RawRecord",
    "Reader",
    "detect_format",
    "display_name",
    "iter_records",
    "open_input",
    "peek",
    "records_from_handle",
    "register_reader",
]

InputFormat = Literal["auto", "openai", "sharegpt", "chatml"]
FileFormat = Literal["jsonl", "chatml", "object"]

_PEEK = 1 << 16
#: The largest record read by default (``validate --max-record-bytes``): a longer one is HT612, not read.
MAX_RECORD_BYTES = 64 << 20
_BLANK = b"\xef\xbb\xbf \t\r\n"


@dataclass(frozen=True, slots=True, kw_only=True)
class RawRecord:
    """One record as read: its 1-based number, the 1-based file line it starts on, its text.

    ``kind`` is ``jsonl`` (``text`` is one JSON line), ``chatml`` (``text`` is a transcript) or
    ``object`` (``data`` is the record, already decoded, e.g. a Parquet row; ``line`` is its row
    number); ``end`` is the byte offset in the input after the record (for progress); ``error`` is
    set when the bytes are not UTF-8; ``oversize`` is the size in bytes of a record longer than the
    limit, which was not read (``text`` is then empty).
    """

    number: int
    line: int
    text: str
    kind: FileFormat
    end: int
    error: str | None = None
    data: Any = None
    oversize: int = 0


@dataclass(frozen=True, slots=True, kw_only=True)
class Reader:
    """A pluggable input reader (tried before the plain JSONL/ChatML reader).

    ``sniff(head, name)`` gets the first bytes of the input (up to 64 KiB, fewer at the end of the input)
    and its display name, and says whether this reader reads it; ``read(stream, name, input_format)``
    gets a binary handle positioned at the start of the input (``head`` included) and yields the
    records. A reader that decompresses can hand the decompressed stream back to
    ``records_from_handle``.
    """

    name: str
    sniff: Callable[[bytes, str], bool]
    read: Callable[[BinaryIO, str, InputFormat], Iterator[RawRecord]]


READERS: list[Reader] = []


def register_reader(reader: Reader) -> None:
    """Add a reader (tried in registration order, before the plain JSONL/ChatML reader).

    >>> r = Reader(name="never", sniff=lambda head, name: False, read=lambda s, n, f: iter(()))
    >>> register_reader(r); READERS.remove(r)
    """
    if all(r.name != reader.name for r in READERS):
        READERS.append(reader)


def display_name(path: str | Path) -> str:
    """The name findings use for an input: ``<stdin>`` for ``-``, else the path as given.

    >>> display_name("-"), display_name("d.jsonl")
    ('<stdin>', 'd.jsonl')
    """
    return "<stdin>" if str(path) == "-" else str(path)


@contextmanager
def open_input(path: str | Path) -> Iterator[BinaryIO]:
    """Open an input once, in binary mode: ``-`` is standard input (left open afterwards).

    Raises:
        UsageError: the input cannot be opened.
    """
    if str(path) == "-":
        yield sys.stdin.buffer
        return
    try:
        fh = open(path, "rb")  # closed below
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from exc
    try:
        yield fh
    finally:
        fh.close()


class _Replay(io.RawIOBase):
    """The bytes already peeked, then the rest of the handle: a pipe is read once."""

    def __init__(self, head: bytes, rest: BinaryIO) -> None:
        self._head = memoryview(head)
        self._rest = rest

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if self._head:
            n = min(len(buffer), len(self._head))
            buffer[:n] = self._head[:n]
            self._head = self._head[n:]
            return n
        read1 = getattr(self._rest, "read1", None)
        data = read1(len(buffer)) if read1 is not None else self._rest.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)


def peek(fh: BinaryIO, *, until_content: bool = True, limit: int = _PEEK) -> tuple[bytes, BinaryIO]:
    """The first bytes of ``fh`` and a handle that reads the input from its start again.

    Reads only what the detection needs: up to the first byte that is not blank (a BOM, spaces,
    newlines) and at least 8 bytes, at most ``limit``; a regular file is rewound, a pipe is replayed
    from memory.

    Raises:
        OSError: the handle cannot be read.

    >>> head, again = peek(io.BytesIO(b"  {}\\n"))
    >>> head, again.read()
    (b'  {}\\n', b'  {}\\n')
    """
    chunks: list[bytes] = []
    size = 0
    read1 = getattr(fh, "read1", None)
    while size < limit:
        data = read1(limit - size) if read1 is not None else fh.read(limit - size)
        if not data:
            break
        chunks.append(data)
        size += len(data)
        if size >= 8 and (not until_content or bytes(b"".join(chunks)).lstrip(_BLANK)):
            break
    head = b"".join(chunks)
    return head, io.BufferedReader(_Replay(head, fh), buffer_size=_PEEK)


def _layout(head: bytes, name: str, input_format: InputFormat) -> Literal["jsonl", "chatml"]:
    if input_format in ("openai", "sharegpt"):
        return "jsonl"
    if input_format == "chatml":
        return "chatml"
    stripped = head.lstrip(_BLANK)
    if stripped.startswith(b"[") and stripped[1:].lstrip(_BLANK)[:1] in (b"", b"{", b"]"):  # not "[INST]" text
        raise UsageError(
            f"{name} is one JSON array; write one record per line (JSONL), e.g. with `jq -c '.[]' FILE > FILE.jsonl`"
        )
    return "jsonl" if stripped.startswith(b"{") else "chatml"


def detect_format(path: str | Path, input_format: InputFormat = "auto") -> Literal["jsonl", "chatml"]:
    """The file layout: ``jsonl`` when the first non-blank character is ``{``, else ``chatml``.

    Args:
        path: the dataset file (not ``-``: reading standard input to detect would consume it).
        input_format: ``openai``/``sharegpt`` force JSONL, ``chatml`` forces ChatML, ``auto`` peeks.

    Returns:
        ``jsonl`` or ``chatml``.

    Raises:
        UsageError: the file cannot be read, or it is one JSON array (convert it to JSONL first).

    >>> detect_format("any.txt", "sharegpt")
    'jsonl'
    """
    if input_format != "auto":
        return _layout(b"", str(path), input_format)
    with open_input(path) as fh:
        try:
            head, _ = peek(fh)
        except OSError as exc:
            raise UsageError(f"cannot read {path}: {exc}") from exc
    return _layout(head, display_name(path), input_format)


def records_from_handle(
    fh: BinaryIO, name: str, input_format: InputFormat = "auto", max_record_bytes: int = MAX_RECORD_BYTES
) -> Iterator[RawRecord]:
    """The records of an open binary handle: a registered reader when one claims it, else JSONL/ChatML.

    Args:
        fh: the input, at its start (read once, from here to its end).
        name: how findings name the input.
        input_format: ``auto`` (detect), ``openai``, ``sharegpt`` or ``chatml``.
        max_record_bytes: a longer JSONL line or ChatML record is not read (``RawRecord.oversize``).

    Raises:
        UsageError: the input is one JSON array.
        OSError: the input cannot be read.

    >>> [r.text for r in records_from_handle(io.BytesIO(b'{"a": 1}\\r\\n'), "x")]
    ['{"a": 1}']
    """
    head, stream = peek(fh)
    for reader in READERS:
        if reader.sniff(head, name):
            yield from reader.read(stream, name, input_format)
            return
    if _layout(head, name, input_format) == "jsonl":
        yield from _jsonl(stream, max_record_bytes)
    else:
        yield from _chatml(stream, max_record_bytes)


def iter_records(
    path: str | Path, input_format: InputFormat = "auto", max_record_bytes: int = MAX_RECORD_BYTES
) -> Iterator[RawRecord]:
    """Yield the records of a dataset file (or ``-``, standard input) one at a time.

    Args:
        path: a JSONL file (one OpenAI or ShareGPT record per line; blank lines skipped) or a ChatML text.
        input_format: ``auto`` (detect), ``openai``, ``sharegpt`` or ``chatml``.
        max_record_bytes: a longer record is not read (``RawRecord.oversize``, HT612).

    Raises:
        UsageError: the file cannot be read.

    >>> import tempfile, os
    >>> with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as f:
    ...     _ = f.write('{"messages": []}\\n\\n{"messages": []}\\n')
    >>> [(r.number, r.line) for r in iter_records(f.name)]
    [(1, 1), (2, 3)]
    >>> os.unlink(f.name)
    """
    with open_input(path) as fh:
        try:
            yield from records_from_handle(fh, display_name(path), input_format, max_record_bytes)
        except OSError as exc:
            raise UsageError(f"cannot read {display_name(path)}: {exc.strerror or exc}") from exc


def _decode(data: bytes) -> tuple[str, str | None]:
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        return data.decode("utf-8", errors="replace"), f"not UTF-8 at byte {exc.start}"


_EDGE = 64  # the bytes of each end of a line too long to hold that are kept (its start and its end)


def _lines(fh: BinaryIO, limit: int) -> Iterator[tuple[bytes, int, bool]]:
    """(line, its size in bytes, whether it was held whole) for each line of ``fh``.

    A line longer than ``limit`` is read in pieces and not held: in its place come its first and last
    bytes (what a ChatML record's boundaries are read from), and False. No more than ``limit`` bytes of
    one line are ever held.
    """
    readline = fh.readline
    while True:
        data = readline(limit + 1)
        if not data:
            return
        if len(data) <= limit:
            yield data, len(data), True
            continue
        size = len(data)
        head, tail = data[:_EDGE], data[-_EDGE:]
        while not data.endswith(b"\n"):
            data = readline(_PEEK)
            if not data:
                break
            size += len(data)
            if len(head) < _EDGE:
                head = (head + data)[:_EDGE]
            tail = (tail + data)[-_EDGE:]
        yield head + tail, size, False  # (the two overlap in a line under 2 * _EDGE: no matter)


def _too_large(number: int, line: int, end: int, kind: FileFormat, size: int) -> RawRecord:
    return RawRecord(number=number, line=line, text="", kind=kind, end=end, oversize=size)


def _jsonl(fh: BinaryIO, limit: int = MAX_RECORD_BYTES) -> Iterator[RawRecord]:
    number = 0
    offset = 0
    for lineno, (data, size, whole) in enumerate(_lines(fh, limit), 1):
        offset += size
        if not whole:
            number += 1
            yield _too_large(number, lineno, offset, "jsonl", size)
            continue
        if not data.strip():
            continue
        number += 1
        text, error = _decode(data.rstrip(b"\r\n"))
        if number == 1 and text.startswith("\ufeff"):
            text = text[1:]
        yield RawRecord(number=number, line=lineno, text=text, kind="jsonl", end=offset, error=error)


def _chatml_record(number: int, line: int, buf: list[bytes], end: int) -> RawRecord:
    text, error = _decode(b"".join(buf))
    if number == 1 and text.startswith("\ufeff"):
        text = text[1:]
    return RawRecord(number=number, line=line, text=text.replace("\r\n", "\n"), kind="chatml", end=end, error=error)


def _chatml(fh: BinaryIO, limit: int = MAX_RECORD_BYTES) -> Iterator[RawRecord]:
    number = 0
    offset = 0
    start_line = 1
    buf: list[bytes] = []
    size = 0  # bytes of the record so far
    over = False  # the record is longer than the limit: its lines are counted, not kept
    content = False  # the record so far holds a non-blank line
    separated = False  # a blank line followed a line ending in <|im_end|>
    last_nonblank = b""
    for lineno, (data, length, whole) in enumerate(_lines(fh, limit), 1):
        if separated and content and data.startswith(b"<|im_start|>"):
            number += 1
            yield (_too_large(number, start_line, offset, "chatml", size) if over
                   else _chatml_record(number, start_line, buf, offset))
            buf, content, size, over = [], False, 0, False
            start_line = lineno
        size += length
        offset += length
        if (size > limit or not whole) and not over:  # too long: the rest of the record is counted, not kept
            over, buf = True, []
        if not over:
            buf.append(data)
        if data.strip():
            last_nonblank, content, separated = data, True, False
        elif last_nonblank.rstrip().endswith(b"<|im_end|>"):
            separated = True
    if content:
        number += 1
        yield (_too_large(number, start_line, offset, "chatml", size) if over
               else _chatml_record(number, start_line, buf, offset))
