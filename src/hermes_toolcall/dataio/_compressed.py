"""Decompress a stream read once, front to back (files and pipes alike): gzip, zstd, bzip2, xz.

The kind comes from the first bytes (``kind_of``), never from a name, and nothing seeks: standard
input compressed with ``zstd -c`` or ``gzip -c`` is read exactly as the same bytes in a file are.
A stream that stops before its end-of-stream marker (a cut download, a full disk while writing) or
holds bytes that are not of its format is an error, never a silent end of the dataset: gzip, bzip2
and xz say so themselves; zstd frames are decoded here with ``decompressobj`` so that a frame cut
short is noticed (``zstandard``'s ``stream_reader`` ends quietly at the cut).
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
from typing import Any, BinaryIO, ClassVar, Literal, cast

from ..errors import InputError
from ._extras import require

__all__ = ["COMPRESSED", "CORRUPT", "Compression", "CorruptInputError", "decompress", "kind_of"]

Compression = Literal["gzip", "zstd", "bz2", "xz"]
COMPRESSED: tuple[tuple[bytes, Compression], ...] = (
    (b"\x1f\x8b", "gzip"),
    (b"\x28\xb5\x2f\xfd", "zstd"),
    (b"BZh", "bz2"),
    (b"\xfd7zXZ\x00", "xz"),
)
CORRUPT = "HT611"
_CHUNK = 1 << 16


class CorruptInputError(InputError):
    """A compressed input is truncated or corrupt (diagnostic code HT611; exit status 2 on the CLI).

    The records before the damage were read (and reported); nothing after it can be.

    >>> str(CorruptInputError("<stdin>: gzip stream is truncated"))
    'HT611 <stdin>: gzip stream is truncated'
    """

    code: ClassVar[str] = CORRUPT

    def __init__(self, message: str) -> None:
        super().__init__(f"{CORRUPT} {message}")
        self.message = message


# what follows ``BZh`` and the block size digit: a block header (pi) or the end-of-stream marker (sqrt pi)
_BZ2_NEXT = (b"\x31\x41\x59\x26\x53\x59", b"\x17\x72\x45\x38\x50\x90")


def kind_of(head: bytes) -> Compression | None:
    """The compression of a stream from its first bytes (at least 6 for xz, 8 for bzip2), or None.

    ``BZh`` alone is ASCII text a file may start with, so bzip2 also needs its block-size digit and
    the first bytes of a block header or of the end-of-stream marker.

    >>> kind_of(b"\\x28\\xb5\\x2f\\xfd\\x00"), kind_of(b'{"messages": []}')
    ('zstd', None)
    >>> kind_of(b"BZh91AY&SY"), kind_of(b"BZh is a word")
    ('bz2', None)
    """
    for magic, kind in COMPRESSED:
        if head.startswith(magic):
            if kind == "bz2" and not _bzip2_header(head):
                continue
            return kind
    return None


def _bzip2_header(head: bytes) -> bool:
    rest = head[4:10]
    return head[3:4] in (b"1", b"2", b"3", b"4", b"5", b"6", b"7", b"8", b"9") and any(
        marker.startswith(rest) for marker in _BZ2_NEXT
    ) and len(rest) >= 4


class _Zstd(io.RawIOBase):
    """zstd frames, one after the other, from a binary stream; a frame cut short raises ``EOFError``."""

    def __init__(self, raw: BinaryIO) -> None:
        self._raw = raw
        self._zstd = require("zstandard")
        self._obj: Any = self._zstd.ZstdDecompressor().decompressobj()
        self._out = b""
        self._at = 0  # bytes of ``_out`` already handed out
        self._pending = False  # bytes of a frame were fed and its end not seen yet
        self._done = False

    def readable(self) -> bool:
        return True

    def _fill(self) -> None:
        read1 = getattr(self._raw, "read1", None)
        if self._at == len(self._out):
            self._out, self._at = b"", 0
        while not self._out and not self._done:
            data = read1(_CHUNK) if read1 is not None else self._raw.read(_CHUNK)
            if not data:
                self._done = True
                if self._pending:
                    raise EOFError("the last zstd frame ends before its end marker")
                return
            while data:
                self._pending = True
                try:
                    self._out += self._obj.decompress(data)
                except self._zstd.ZstdError as exc:
                    raise ValueError(f"not a valid zstd stream ({exc})") from exc
                if not self._obj.eof:
                    break
                data = self._obj.unused_data  # the next frame starts in this chunk
                self._obj = self._zstd.ZstdDecompressor().decompressobj()
                self._pending = False

    def readinto(self, buffer: Any) -> int:
        self._fill()
        n = min(len(buffer), len(self._out) - self._at)
        buffer[:n] = memoryview(self._out)[self._at : self._at + n]
        self._at += n
        return n


def decompress(raw: BinaryIO, kind: Compression) -> BinaryIO:
    """A buffered binary stream of the decompressed bytes of ``raw`` (read once, never sought).

    Reading it raises ``EOFError`` when the stream is cut short, ``OSError`` or ``ValueError`` when it
    is corrupt (the callers turn these into ``CorruptInputError``).

    Raises:
        UsageError: zstd is needed and ``zstandard`` is not installed (names the extra).

    >>> decompress(io.BytesIO(gzip.compress(b"hi")), "gzip").read()
    b'hi'
    """
    stream: Any
    if kind == "gzip":
        stream = gzip.GzipFile(fileobj=raw, mode="rb")
    elif kind == "bz2":
        stream = bz2.BZ2File(raw, mode="rb")
    elif kind == "xz":
        stream = lzma.LZMAFile(raw, mode="rb")
    else:
        stream = _Zstd(raw)
    return cast(BinaryIO, io.BufferedReader(cast(Any, stream), buffer_size=_CHUNK))
