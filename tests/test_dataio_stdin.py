"""Compressed standard input: ``zstd -c x.jsonl | hermes-toolcall validate -`` and the same for gzip, bzip2, xz.

Every test runs the installed command in a subprocess and feeds it through a real pipe (``input=``
is an OS pipe, never a file: nothing can seek it). The kind is told by the magic bytes of the
stream; a stream cut short or corrupt is an HT611 error with exit status 2 after the findings of
the records before the damage.
"""

from __future__ import annotations

import bz2
import gzip
import io
import json
import lzma
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import dataset_records
from hermes_toolcall.dataio._compressed import CorruptInputError, Damaged, decompress, kind_of

zstandard = pytest.importorskip("zstandard", reason="the [zstd] extra (zstandard) is not installed")
pytestmark = pytest.mark.ci_required("the [zstd] extra is installed by .ci/run")

BIN = Path(sys.executable).parent / "hermes-toolcall"
EXIT_FINDINGS, EXIT_INPUT = 1, 2


def _data(n: int = 1200) -> bytes:
    return "".join(json.dumps(r) + "\n" for r in dataset_records(n)).encode("utf-8")


def _pack(kind: str, data: bytes) -> bytes:
    if kind == "gzip":
        return gzip.compress(data)
    if kind == "zstd":
        packed: bytes = zstandard.ZstdCompressor().compress(data)
        return packed
    if kind == "bz2":
        return bz2.compress(data)
    return lzma.compress(data)


KINDS = ("gzip", "zstd", "bz2", "xz")
Plain = tuple[bytes, list[dict[str, Any]]]


def _validate(stdin: bytes, *extra: str) -> subprocess.CompletedProcess[bytes]:
    argv = [str(BIN), "validate", "-", "--format", "jsonl", *extra]
    return subprocess.run(argv, input=stdin, capture_output=True, check=False, timeout=300)


def _findings(out: bytes) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in out.decode().splitlines()]
    return [r for r in rows if r.get("type") == "finding"]


@pytest.fixture(scope="module")
def plain_findings() -> Plain:
    data = _data()
    proc = _validate(data)
    assert proc.returncode == EXIT_FINDINGS, proc.stderr
    found = _findings(proc.stdout)
    assert {f["code"] for f in found} >= {"HT302", "HT404"}
    return data, found


@pytest.mark.parametrize("kind", KINDS)
def test_compressed_stdin_gives_the_findings_of_the_plain_stream(
    kind: str, plain_findings: Plain
) -> None:
    data, expected = plain_findings
    proc = _validate(_pack(kind, data))
    assert proc.returncode == EXIT_FINDINGS, proc.stderr
    assert _findings(proc.stdout) == expected
    summary = json.loads(proc.stdout.decode().splitlines()[-1])
    assert summary["records"] == 1200


def test_zstd_cli_pipe_multi_frame_with_jobs(plain_findings: Plain, tmp_path: Path) -> None:
    """Two zstd frames back to back (``cat a.zst b.zst``), through a shell pipe, checked by two workers."""
    data, expected = plain_findings
    cut = data.index(b"\n", len(data) // 2) + 1
    c = zstandard.ZstdCompressor()
    (tmp_path / "a.zst").write_bytes(c.compress(data[:cut]))
    (tmp_path / "b.zst").write_bytes(c.compress(data[cut:]))
    shell = f"cat {tmp_path / 'a.zst'} {tmp_path / 'b.zst'} | {BIN} validate - --format jsonl --jobs 2"
    proc = subprocess.run(["bash", "-c", shell], capture_output=True, check=False, timeout=300)
    assert proc.returncode == EXIT_FINDINGS, proc.stderr
    assert _findings(proc.stdout) == expected


@pytest.mark.skipif(shutil.which("zstd") is None or shutil.which("gzip") is None, reason="no zstd/gzip command")
@pytest.mark.parametrize("tool", ["zstd", "gzip"])
def test_the_commands_of_the_issue(tool: str, plain_findings: Plain, tmp_path: Path) -> None:
    data, expected = plain_findings
    path = tmp_path / "x.jsonl"
    path.write_bytes(data)
    shell = f"{tool} -c {path} | {BIN} validate - --format jsonl"
    proc = subprocess.run(["bash", "-c", shell], capture_output=True, check=False, timeout=300)
    assert proc.returncode == EXIT_FINDINGS, proc.stderr
    assert _findings(proc.stdout) == expected


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_truncated_compressed_stdin_is_an_input_error_after_the_records_before_it(
    kind: str, jobs: str, plain_findings: Plain
) -> None:
    data, expected = plain_findings
    packed = _pack(kind, data)
    proc = _validate(packed[: len(packed) * 9 // 10], "--jobs", jobs)
    assert proc.returncode == EXIT_INPUT
    err = proc.stderr.decode()
    assert err.startswith("hermes-toolcall: error: HT611 <stdin>: ") and "truncated" in err, err
    assert "Traceback" not in err
    got = _findings(proc.stdout)
    # the findings before the cut are the plain stream's, in order, none of them lost
    assert 0 < len(got) < len(expected) and got == expected[: len(got)]
    last = int(err.split("after record ")[1].split(" ")[0])
    assert got[-1]["record"] <= last < 1200
    assert all(f["record"] <= last for f in got)
    assert [f for f in expected if f["record"] <= last] == got


def test_corrupt_zstd_on_stdin_before_any_record() -> None:
    proc = _validate(b"\x28\xb5\x2f\xfd" + b"not a zstd frame at all" * 3)
    assert proc.returncode == EXIT_INPUT
    assert b"HT611 <stdin>: zstd stream is corrupt or truncated before the first record" in proc.stderr


def test_parquet_on_stdin_says_to_pass_the_path() -> None:
    proc = _validate(b"PAR1" + b"\x00" * 64)
    assert proc.returncode == EXIT_INPUT
    assert b"Parquet cannot be read from a pipe" in proc.stderr


def test_convert_dataset_reads_compressed_stdin_and_writes_nothing_when_it_is_cut(tmp_path: Path) -> None:
    records = [r for r in dataset_records(60) if "messages" in r]
    data = "".join(json.dumps(r) + "\n" for r in records).encode()
    out = tmp_path / "out.jsonl"
    argv = [str(BIN), "convert-dataset", "-", str(out), "--from", "openai", "--to", "openai"]
    whole = subprocess.run(argv, input=gzip.compress(data), capture_output=True, check=False, timeout=300)
    plain = subprocess.run([*argv[:2], "-", str(tmp_path / "p.jsonl"), *argv[4:]], input=data, capture_output=True)
    assert whole.returncode == plain.returncode
    assert out.read_bytes() == (tmp_path / "p.jsonl").read_bytes() != b""
    out.unlink()
    packed = zstandard.ZstdCompressor().compress(data)
    cut = subprocess.run(argv, input=packed[: len(packed) // 2], capture_output=True, check=False, timeout=300)
    assert cut.returncode == EXIT_INPUT and b"HT611" in cut.stderr
    assert not out.exists()  # never half-written


def test_zstd_reader_notices_a_cut_frame_the_library_reader_does_not() -> None:
    """Regression: ``zstandard``'s ``stream_reader`` ends quietly at a cut; ours raises ``Damaged``."""
    data = _data(100)
    packed = zstandard.ZstdCompressor().compress(data)
    library = zstandard.ZstdDecompressor().stream_reader(io.BytesIO(packed[:-10]), read_across_frames=True)
    assert len(library.read()) < len(data)  # no error: that is the bug this reader avoids
    assert decompress(io.BytesIO(packed), "zstd").read() == data
    with pytest.raises(Damaged, match="cut short"):
        decompress(io.BytesIO(packed[:-10]), "zstd").read()


def test_zstd_reader_reads_frames_split_at_every_chunk_boundary() -> None:
    """Frames that end inside a read, and reads that end inside a frame, decode to the same bytes."""
    data = _data(50)
    c = zstandard.ZstdCompressor()
    packed = b"".join(c.compress(data[i : i + 997]) for i in range(0, len(data), 997))

    class Trickle(io.RawIOBase):
        def __init__(self, blob: bytes, step: int) -> None:
            self.blob, self.at, self.step = blob, 0, step

        def readable(self) -> bool:
            return True

        def readinto(self, buffer: Any) -> int:
            n = min(len(buffer), self.step, len(self.blob) - self.at)
            buffer[:n] = self.blob[self.at : self.at + n]
            self.at += n
            return n

    for step in (1, 7, 64, 4096):
        assert decompress(Trickle(packed, step), "zstd").read() == data, step  # type: ignore[arg-type]


def test_kind_of_and_the_error_code() -> None:
    assert [kind_of(_pack(k, b"x")) for k in KINDS] == list(KINDS)
    assert kind_of(b"PAR1") is None and kind_of(b"") is None
    assert str(CorruptInputError("x")).startswith("HT611 ")


def test_engine_ray_refuses_standard_input_before_starting_ray() -> None:
    """Ray's read tasks run in worker processes, whose standard input is not the command's: refused up front."""
    proc = _validate(gzip.compress(_data(5)), "--engine", "ray")
    assert proc.returncode == EXIT_INPUT
    assert b"--engine ray reads files, not standard input" in proc.stderr


_FULL = _data(40)
_PACKED = {k: _pack(k, _FULL) for k in KINDS}


@settings(max_examples=60, deadline=None)
@given(kind=st.sampled_from(KINDS), cut=st.floats(min_value=0.0, max_value=1.0))
def test_compressed_input_cut_anywhere_reads_a_prefix_then_ht611(kind: str, cut: float) -> None:
    """An archive cut at any byte: the records read are those of the whole archive (the last may be cut
    short), then HT611 (``CorruptInputError``), never another error and never a silent end."""
    from hermes_toolcall.dataio._sources import _decompressed_records

    packed = _PACKED[kind]
    n = int(len(packed) * cut)
    full = [r.text for r in _decompressed_records(decompress(io.BytesIO(packed), kind), None, "<stdin>", kind, "auto")]
    got: list[str] = []
    try:
        for record in _decompressed_records(decompress(io.BytesIO(packed[:n]), kind), None, "<stdin>", kind, "auto"):
            got.append(record.text)
    except CorruptInputError as exc:
        assert str(exc).startswith("HT611 <stdin>: ")
    else:  # ending cleanly means nothing was cut (an empty input has no records)
        assert n in (0, len(packed)), f"a {kind} archive cut at byte {n} of {len(packed)} read as complete"
        assert got == (full if n else [])
    assert got[:-1] == full[: max(0, len(got) - 1)]
    assert not got or full[len(got) - 1].startswith(got[-1])
