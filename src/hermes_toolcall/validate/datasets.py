"""Streaming dataset readers: JSONL (OpenAI or ShareGPT records, per line) and raw ChatML text files.

Files are read line by line in binary mode, so memory stays flat whatever the file size: a record is
one JSONL line, or one ChatML transcript (a new transcript starts at a line that begins with
``<|im_start|>system``, or after a blank line that follows an ``<|im_end|>``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Literal

from ..errors import UsageError

__all__ = ["FileFormat", "InputFormat", "RawRecord", "detect_format", "iter_records"]

InputFormat = Literal["auto", "openai", "sharegpt", "chatml"]
FileFormat = Literal["jsonl", "chatml"]

_PEEK = 1 << 16


@dataclass(frozen=True, slots=True, kw_only=True)
class RawRecord:
    """One record as read: its 1-based number, the 1-based file line it starts on, its text.

    ``kind`` is ``jsonl`` (``text`` is one JSON line) or ``chatml`` (``text`` is a transcript);
    ``end`` is the byte offset in the file after the record (for progress); ``error`` is set when the
    bytes are not UTF-8.
    """

    number: int
    line: int
    text: str
    kind: FileFormat
    end: int
    error: str | None = None


def detect_format(path: str | Path, input_format: InputFormat = "auto") -> FileFormat:
    """The file layout: ``jsonl`` when the first non-blank character is ``{``, else ``chatml``.

    Args:
        path: the dataset file.
        input_format: ``openai``/``sharegpt`` force JSONL, ``chatml`` forces ChatML, ``auto`` peeks.

    Returns:
        ``jsonl`` or ``chatml``.

    Raises:
        UsageError: the file cannot be read, or it is one JSON array (convert it to JSONL first).

    >>> detect_format("any.txt", "sharegpt")
    'jsonl'
    """
    if input_format in ("openai", "sharegpt"):
        return "jsonl"
    if input_format == "chatml":
        return "chatml"
    try:
        with open(path, "rb") as fh:
            head = fh.read(_PEEK)
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc}") from exc
    stripped = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if stripped.startswith(b"["):
        raise UsageError(
            f"{path} is one JSON array; write one record per line (JSONL), e.g. with `jq -c '.[]' FILE > FILE.jsonl`"
        )
    return "jsonl" if stripped.startswith(b"{") else "chatml"


def _decode(data: bytes) -> tuple[str, str | None]:
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        return data.decode("utf-8", errors="replace"), f"not UTF-8 at byte {exc.start}"


def iter_records(path: str | Path, input_format: InputFormat = "auto") -> Iterator[RawRecord]:
    """Yield the records of a dataset file one at a time.

    Args:
        path: a JSONL file (one OpenAI or ShareGPT record per line; blank lines skipped) or a ChatML text.
        input_format: ``auto`` (detect), ``openai``, ``sharegpt`` or ``chatml``.

    Raises:
        UsageError: the file cannot be read.

    >>> import tempfile, os
    >>> with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as f:
    ...     _ = f.write('{"messages": []}\\n\\n{"messages": []}\\n')
    >>> [(r.number, r.line) for r in iter_records(f.name)]
    [(1, 1), (2, 3)]
    >>> os.unlink(f.name)
    """
    layout = detect_format(path, input_format)
    try:
        fh = open(path, "rb")  # closed in the finally below
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc}") from exc
    try:
        if layout == "jsonl":
            yield from _jsonl(fh)
        else:
            yield from _chatml(fh)
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc}") from exc
    finally:
        fh.close()


def _jsonl(fh: BinaryIO) -> Iterator[RawRecord]:
    number = 0
    offset = 0
    for lineno, data in enumerate(fh, 1):
        offset += len(data)
        if not data.strip():
            continue
        number += 1
        text, error = _decode(data.rstrip(b"\r\n"))
        if number == 1 and text.startswith("\ufeff"):
            text = text[1:]
        yield RawRecord(number=number, line=lineno, text=text, kind="jsonl", end=offset, error=error)


def _chatml(fh: BinaryIO) -> Iterator[RawRecord]:
    number = 0
    offset = 0
    start_line = 1
    buf: list[bytes] = []
    previous_blank_after_end = False
    last_nonblank = b""
    for lineno, data in enumerate(fh, 1):
        boundary = data.startswith(b"<|im_start|>system") or (
            previous_blank_after_end and data.startswith(b"<|im_start|>")
        )
        if boundary and any(b.strip() for b in buf):
            number += 1
            text, error = _decode(b"".join(buf))
            yield RawRecord(number=number, line=start_line, text=text, kind="chatml", end=offset, error=error)
            buf = []
            start_line = lineno
        buf.append(data)
        offset += len(data)
        if data.strip():
            last_nonblank = data
            previous_blank_after_end = False
        else:
            previous_blank_after_end = last_nonblank.rstrip().endswith(b"<|im_end|>")
    if any(b.strip() for b in buf):
        number += 1
        text, error = _decode(b"".join(buf))
        yield RawRecord(number=number, line=start_line, text=text, kind="chatml", end=offset, error=error)
