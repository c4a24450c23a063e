"""Damaged archives (issue 30, item 4): every compressed input is checked to its last byte, every record
decoded before the damage is reported before HT611, and the run ends with exit status 2, under ``--jobs 1``,
``--jobs 2`` and ``--engine ray`` alike.

Before: bz2 and xz stopped silently at a damaged second stream or at trailing bytes (``complete: true``);
corrupt xz data was an internal error (exit 3); the records decoded just before the damage were lost (zstd:
0 of 200 findings; gzip and bz2: the read-ahead); under Ray a truncated archive gave no finding, Ray's
tracebacks and no HT611. The archives are built here: several streams in one file (as ``pbzip2``, ``pigz``
and ``cat`` write them) and a damaged second stream for each codec.
"""

from __future__ import annotations

import bz2
import gzip
import io
import json
import lzma
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hermes_toolcall.dataio._compressed import Damaged, decompress

zstandard = pytest.importorskip("zstandard")

BIN = Path(sys.executable).parent / "hermes-toolcall"
N = 200


def _record(i: int) -> bytes:
    call = {"id": "c", "type": "function", "function": {"name": f"rm_rf_{i}", "arguments": "{}"}}
    messages = [{"role": "user", "content": f"record {i}"}, {"role": "assistant", "content": "", "tool_calls": [call]}]
    return json.dumps({"messages": messages, "tools": []}).encode() + b"\n"


RECORDS = [_record(i) for i in range(1, N + 1)]
FIRST = N // 2  # records in the first stream

COMPRESS: dict[str, Callable[[bytes], bytes]] = {
    "gzip": gzip.compress,
    "bz2": bz2.compress,
    "xz": lzma.compress,
    "zstd": lambda data: zstandard.ZstdCompressor(write_checksum=True).compress(data),  # as the zstd CLI writes
}


def _streams(kind: str, pieces: int = 2) -> list[bytes]:
    """The records compressed as ``pieces`` streams (``pbzip2``: one stream per block of input)."""
    size = -(-N // pieces)
    return [COMPRESS[kind](b"".join(RECORDS[k : k + size])) for k in range(0, N, size)]


def _damaged(stream: bytes) -> bytes:
    """A stream with bytes in its middle overwritten (its header and its end intact)."""
    middle = len(stream) // 2
    return stream[:middle] + bytes(b ^ 0xA5 for b in stream[middle : middle + 8]) + stream[middle + 8 :]


def _validate(path: Path, *extra: str) -> tuple[int, list[dict[str, object]], str]:
    run = subprocess.run(
        [BIN, "validate", str(path), "--format", "jsonl", *extra], capture_output=True, check=False, timeout=600
    )
    rows = [json.loads(line) for line in run.stdout.decode().splitlines()]
    return run.returncode, rows, run.stderr.decode()


def _records_found(rows: list[dict[str, object]]) -> list[int]:
    return [int(str(r["record"])) for r in rows if r.get("code") == "HT301"]


@pytest.mark.parametrize("kind", sorted(COMPRESS))
def test_several_streams_are_read_whole(kind: str, tmp_path: Path) -> None:
    """A file of several streams (``pbzip2`` writes one per block) is one input: every record of every stream."""
    path = tmp_path / f"d.jsonl.{kind}"
    path.write_bytes(b"".join(_streams(kind, pieces=7)))
    status, rows, err = _validate(path)
    assert (status, err.count("HT611")) == (1, 0)
    assert _records_found(rows) == list(range(1, N + 1))


@pytest.mark.parametrize("kind", sorted(COMPRESS))
@pytest.mark.parametrize("damage", ["damaged second stream", "cut second stream", "trailing bytes"])
def test_damage_after_the_first_stream_reports_its_records_then_ht611(kind: str, damage: str, tmp_path: Path) -> None:
    first, second = _streams(kind)
    data = {
        "damaged second stream": first + _damaged(second),
        "cut second stream": first + second[: len(second) // 2],
        "trailing bytes": first + second + b"\x01garbage",
    }[damage]
    path = tmp_path / f"d.jsonl.{kind}"
    path.write_bytes(data)
    status, rows, err = _validate(path)
    assert status == 2, err
    found = _records_found(rows)
    wanted = N if damage == "trailing bytes" else FIRST
    assert found[:wanted] == list(range(1, wanted + 1))  # every record of the whole stream(s), in order
    assert found == list(range(1, len(found) + 1))  # and nothing past the damage but whole records
    assert "HT611" in err and "Traceback" not in err and err.count("\n") == 1


def test_corrupt_xz_is_an_input_error_not_an_internal_one(tmp_path: Path) -> None:
    """Issue 30 item 4: corrupt xz data was "internal error", exit 3."""
    data = bytearray(lzma.compress(b"".join(RECORDS)))
    data[40:48] = b"\xff" * 8
    path = tmp_path / "d.jsonl.xz"
    path.write_bytes(bytes(data))
    status, _, err = _validate(path)
    assert status == 2 and "HT611" in err and "internal" not in err


@pytest.mark.parametrize("kind", sorted(COMPRESS))
def test_standard_input_too(kind: str) -> None:
    first, second = _streams(kind)
    run = subprocess.run(
        [BIN, "validate", "-", "--format", "jsonl"], input=first + _damaged(second), capture_output=True, check=False
    )
    assert run.returncode == 2 and "HT611" in run.stderr.decode()
    rows = [json.loads(line) for line in run.stdout.decode().splitlines()]
    assert _records_found(rows)[:FIRST] == list(range(1, FIRST + 1))


@pytest.mark.parametrize("kind", ["gzip", "xz"])
def test_the_padding_the_format_allows(kind: str) -> None:
    first, second = _streams(kind)
    data = first + b"\0" * 4 + second + b"\0" * 8
    assert decompress(io.BytesIO(data), kind).read() == b"".join(RECORDS)
    if kind == "xz":  # xz stream padding comes in groups of four
        with pytest.raises(Damaged, match="multiple of 4"):
            decompress(io.BytesIO(first + second + b"\0" * 3), kind).read()


@settings(max_examples=60, deadline=None)
@given(kind=st.sampled_from(sorted(COMPRESS)), data=st.data())
def test_any_damage_is_found_after_every_byte_decoded_before_it(kind: str, data: st.DataObject) -> None:
    """Cut anywhere, or bytes overwritten anywhere, or bytes appended: the damage is raised, never a quiet end,
    and the bytes decoded before it are a prefix of the records' bytes (never a byte of garbage); only bytes
    that no check of the format covers can be overwritten unnoticed, and then nothing changed."""
    whole = b"".join(_streams(kind, pieces=data.draw(st.integers(1, 4), label="streams")))
    how = data.draw(st.sampled_from(["cut", "overwrite", "append"]), label="damage")
    if how == "cut":
        damaged = whole[: data.draw(st.integers(1, len(whole) - 1), label="cut at")]
    elif how == "overwrite":
        at = data.draw(st.integers(6, len(whole) - 1), label="at")
        junk = data.draw(st.binary(min_size=1, max_size=8), label="junk")
        damaged = whole[:at] + junk + whole[at + len(junk) :]
        if damaged == whole:
            return
    else:
        damaged = whole + data.draw(st.binary(min_size=1, max_size=8).filter(lambda b: b.strip(b"\0")), label="tail")
    stream = decompress(io.BytesIO(damaged), kind)
    out = bytearray()
    try:
        while chunk := stream.read(997):
            out += chunk
    except Damaged:
        assert b"".join(RECORDS).startswith(bytes(out))
        return
    # not found: only an overwrite of bytes no check covers (a gzip header's time stamp) is harmless
    assert how == "overwrite" and bytes(out) == b"".join(RECORDS)


# ------------------------------------------------------------------------------------ Ray


@pytest.mark.ci_required("a real Ray cluster, started locally")
@pytest.mark.parametrize("kind", ["gzip", "zstd"])
def test_ray_reports_the_same_findings_and_ht611(kind: str, tmp_path: Path) -> None:
    """Issue 30 item 4: under ``--engine ray`` a truncated archive gave 0 findings, Ray's tracebacks, no HT611."""
    pytest.importorskip("ray")
    first, second = _streams(kind)
    path = tmp_path / f"d.jsonl.{kind}"
    path.write_bytes(first + second[: len(second) // 2])
    plain = _validate(path, "--jobs", "1")
    ray = _validate(path, "--engine", "ray")
    assert plain[0] == ray[0] == 2
    assert [r for r in ray[1] if r.get("type") == "finding"] == [r for r in plain[1] if r.get("type") == "finding"]
    assert len(_records_found(ray[1])) >= FIRST
    assert "HT611" in ray[2] and "Traceback" not in ray[2]
    assert ray[2].splitlines()[-1] == plain[2].splitlines()[-1]
