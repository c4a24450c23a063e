"""Decompress a stream read once, front to back (files and pipes alike): gzip, zstd, bzip2, xz.

The kind comes from the first bytes (``kind_of``), never from a name, and nothing seeks: standard
input compressed with ``zstd -c`` or ``gzip -c`` is read exactly as the same bytes in a file are.
An input is checked to its last byte, whatever the codec: a stream that stops before its end marker
(a cut download, a full disk while writing), a corrupt stream (the second of a file that ``pbzip2``,
``pigz`` or ``cat`` wrote as several streams included), and bytes after the last stream that are not
a stream (bar the NUL padding gzip and xz allow) are damage, never a silent end of the dataset. Every
codec is run here, stream by stream, through its one-shot decoder (``zlib``, ``bz2``, ``lzma``,
``zstandard``), because the library readers end quietly at some of these (``BZ2File`` and ``LZMAFile``
stop at a damaged second stream or at trailing bytes; ``zstandard``'s ``stream_reader`` at a cut) and
lose what they decoded just before the damage. The damage is raised only once every byte decoded
before it was read, so each record that was whole before it is reported (issue 30).
"""

from __future__ import annotations

import bz2
import io
import lzma
import zlib
from typing import Any, BinaryIO, ClassVar, Literal, cast

from ..errors import InputError
from ._extras import require

__all__ = ["COMPRESSED", "CORRUPT", "Compression", "CorruptInputError", "Damaged", "decompress", "kind_of"]

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


class Damaged(ValueError):
    """The compressed input is cut short, corrupt, or followed by bytes of no stream (``decompress``)."""


# the start of every stream of each kind (a stream after the first must begin with it)
_MAGIC: dict[Compression, bytes] = {kind: magic for magic, kind in COMPRESSED}
# what may follow the last stream: gzip (as gzip and Python's gzip) and xz (its stream padding, in
# groups of four) allow NUL bytes; bzip2 and zstd nothing
_PADDING: dict[Compression, int] = {"gzip": 1, "xz": 4, "bz2": 0, "zstd": 0}
# compressed bytes handed to the decoder in one call: on damage, what that call decoded is lost with
# it (the codecs raise without their partial output), so a call covers little; the streams' ends are
# found exactly (the next stream, or the bytes after the last one, are another call)
_PIECE = 1 << 14


def _decoder(kind: Compression) -> tuple[Any, tuple[type[BaseException], ...]]:
    """A decoder of one stream of ``kind`` (``decompress``, ``eof``, ``unused_data``) and its errors."""
    if kind == "gzip":
        return zlib.decompressobj(wbits=31), (zlib.error,)
    if kind == "bz2":
        return bz2.BZ2Decompressor(), (OSError, ValueError)
    if kind == "xz":
        return lzma.LZMADecompressor(format=lzma.FORMAT_XZ), (lzma.LZMAError,)
    zstd = require("zstandard")
    return zstd.ZstdDecompressor().decompressobj(), (zstd.ZstdError,)


_ORDINAL = {1: "first", 2: "second", 3: "third"}
_ARTICLE = {"gzip": "a", "bz2": "a", "xz": "an", "zstd": "a"}


class _Streams(io.RawIOBase):
    """The decompressed bytes of the streams of one kind in a binary input, one after another, checked
    to its last byte: a stream cut short, a corrupt stream (the second of a ``pbzip2`` or ``cat``-ed
    file included) and bytes after the last stream that are not one (bar the padding the format allows)
    all raise ``Damaged``, but only once every byte decoded before the damage has been read: a record
    whole before the damage is always read first.
    """

    def __init__(self, raw: BinaryIO, kind: Compression) -> None:
        self._raw = raw
        self._read = getattr(raw, "read1", None) or raw.read
        self._kind = kind
        self._magic = _MAGIC[kind]
        self._decoder: Any = None  # None: between streams (before the first, or after one ended)
        self._errors: tuple[type[BaseException], ...] = ()
        self._streams = 0
        self._input = b""  # compressed bytes read and not decoded yet
        self._offset = 0  # compressed bytes decoded (or skipped as padding) so far
        self._padding = 0  # NUL bytes after the last stream so far
        self._out = b""
        self._at = 0  # bytes of ``_out`` already handed out
        self._damage: Damaged | None = None
        self._eof = False

    def readable(self) -> bool:
        return True

    def _stream(self) -> str:
        return f"{_ORDINAL.get(self._streams, f'#{self._streams}')} {self._kind} stream"

    def _more(self) -> bool:
        """Read more compressed bytes; False at the end of the input."""
        data = self._read(_CHUNK)
        if not data:
            return False
        self._input = self._input + data if self._input else data
        return True

    def _between(self) -> None:
        """Between streams: padding, the next stream's start, or the end; damage when it is none of them."""
        step = _PADDING[self._kind]
        while True:
            data = self._input
            if step:
                n = len(data) - len(data.lstrip(b"\0"))
                if n:
                    self._padding += n
                    self._offset += n
                    self._input = data = data[n:]
            if not data:
                if self._more():
                    continue
                self._eof = True
                if not self._streams:
                    self._damage = Damaged(f"no {self._kind} stream")
                elif step > 1 and self._padding % step:
                    self._damage = Damaged(f"{self._padding} NUL bytes after the last stream (a multiple of {step})")
                return
            if len(data) < len(self._magic) and self._magic.startswith(data) and self._more():
                continue
            if not data.startswith(self._magic):
                what = f"{len(data)}+ bytes" if len(data) >= _CHUNK else f"{len(data)} bytes"
                stream = f"{_ARTICLE[self._kind]} {self._kind} stream"
                self._damage = Damaged(f"{what} after the {self._stream()} are not {stream} (byte {self._offset})")
                return
            if step > 1 and self._padding % step:
                self._damage = Damaged(f"{self._padding} NUL bytes between streams (a multiple of {step})")
                return
            self._decoder, self._errors = _decoder(self._kind)
            self._streams += 1
            self._padding = 0
            return

    def _fill(self) -> None:
        if self._at == len(self._out):
            self._out, self._at = b"", 0
        while not self._out and self._damage is None and not self._eof:
            if self._decoder is None:
                self._between()
                continue
            if not self._input and not self._more():
                self._eof = True
                self._damage = Damaged(f"the {self._stream()} is cut short (it ends at byte {self._offset})")
                return
            piece, self._input = self._input[:_PIECE], self._input[_PIECE:]
            try:
                out = self._decoder.decompress(piece)
            except self._errors as exc:
                self._damage = Damaged(f"the {self._stream()} is corrupt near byte {self._offset}: {exc}")
                return
            if self._decoder.eof:
                unused = self._decoder.unused_data
                self._offset += len(piece) - len(unused)
                self._input = unused + self._input
                self._decoder = None
            else:
                self._offset += len(piece)
            self._out = out

    def readinto(self, buffer: Any) -> int:
        self._fill()
        n = min(len(buffer), len(self._out) - self._at)
        if not n and self._damage is not None:
            raise self._damage
        buffer[:n] = memoryview(self._out)[self._at : self._at + n]
        self._at += n
        return n


def decompress(raw: BinaryIO, kind: Compression) -> BinaryIO:
    """A buffered binary stream of the decompressed bytes of ``raw`` (read once, never sought).

    Reading it raises ``Damaged`` (a ``ValueError``) at the damage, once the bytes decoded before it were
    read (the callers turn it into ``CorruptInputError``).

    Raises:
        UsageError: zstd is needed and ``zstandard`` is not installed (names the extra).

    >>> import gzip
    >>> decompress(io.BytesIO(gzip.compress(b"hi")), "gzip").read()
    b'hi'
    """
    if kind == "zstd":
        require("zstandard")
    return cast(BinaryIO, io.BufferedReader(cast(Any, _Streams(raw, kind)), buffer_size=_CHUNK))
