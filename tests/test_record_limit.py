"""The record size limit (issue 30, item 9): ``validate --max-record-bytes N`` (64 MiB by default).

One line of a small archive can expand without bound (a 400 KB gzip holding one line needed 1.7 GB, about
4x the line): a record longer than the limit is now passed over in pieces, never held, and reported as
HT612; the records around it are read and checked as before. ``bench/validate_io.py --expanding MB``
measures the memory it holds.
"""

from __future__ import annotations

import gzip
import io
import json
import subprocess
import sys
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from hermes_toolcall.validate._datasets import MAX_RECORD_BYTES, RawRecord, records_from_handle

BIN = Path(sys.executable).parent / "hermes-toolcall"


def _jsonl_record(content: str) -> bytes:
    return json.dumps({"messages": [{"role": "user", "content": content}]}).encode() + b"\n"


def test_cli_reports_a_record_over_the_limit_and_checks_the_others(tmp_path: Path) -> None:
    """Issue 30 item 9, through the entry point: a 3 MB line in a small gzip file under a 1 MB limit."""
    path = tmp_path / "d.jsonl.gz"
    bad_call = {"role": "assistant", "content": "", "tool_calls": [
        {"id": "c", "type": "function", "function": {"name": "rm_rf", "arguments": "{}"}}]}
    after = json.dumps({"messages": [{"role": "user", "content": "x"}, bad_call], "tools": []}).encode() + b"\n"
    path.write_bytes(gzip.compress(_jsonl_record("a") + _jsonl_record("a" * (3 << 20)) + after))
    assert path.stat().st_size < 10_000
    run = subprocess.run(
        [BIN, "validate", str(path), "--format", "jsonl", "--max-record-bytes", "1000000"],
        capture_output=True,
        check=False,
    )
    rows = [json.loads(line) for line in run.stdout.decode().splitlines()]
    found = [(r["record"], r["line"], r["code"]) for r in rows if r["type"] == "finding"]
    assert found == [(2, 2, "HT612"), (3, 3, "HT301")]
    assert "3,145,7" in rows[0]["message"] and "1,000,000" in rows[0]["message"]
    assert rows[-1]["records"] == 3 and run.returncode == 1
    default = subprocess.run([BIN, "validate", str(path), "--format", "jsonl"], capture_output=True, check=False)
    assert "HT612" not in default.stdout.decode()  # 3 MB is far under the default (64 MiB)
    bad = subprocess.run([BIN, "validate", str(path), "--max-record-bytes", "0"], capture_output=True, check=False)
    assert bad.returncode == 2 and b"at least 1" in bad.stderr


def _read(data: bytes, limit: int, input_format: str) -> list[RawRecord]:
    return list(records_from_handle(io.BytesIO(data), "x", input_format, limit))  # type: ignore[arg-type]


_SIZES = st.lists(st.integers(0, 300), min_size=1, max_size=8)


@given(sizes=_SIZES, limit=st.integers(1, 400), blank=st.booleans())
def test_jsonl_records_over_the_limit_are_passed_over(sizes: list[int], limit: int, blank: bool) -> None:
    """Every record within the limit reads exactly as without one; each longer one is ``oversize`` with its
    size, at its own number and line; the byte offsets are those of the unlimited reading."""
    lines = [_jsonl_record("a" * n) for n in sizes]
    data = (b"\n" if blank else b"").join(lines)
    free = _read(data, MAX_RECORD_BYTES, "openai")
    limited = _read(data, limit, "openai")
    assert len(free) == len(limited)
    for a, b in zip(free, limited, strict=True):
        assert (a.number, a.line, a.end) == (b.number, b.line, b.end)
        size = len(a.text.encode()) + 1
        if size > limit:
            assert (b.text, b.oversize) == ("", size)
        else:
            assert b == a


@given(sizes=_SIZES, limit=st.integers(1, 500), one_line=st.booleans())
def test_chatml_records_over_the_limit_are_passed_over(sizes: list[int], limit: int, one_line: bool) -> None:
    """As for JSONL, whatever line is too long (the last one of a record, with its ``<|im_end|>``, too)."""
    sep = "" if one_line else "\n"
    turns = [f"<|im_start|>user\n{'b' * n}{sep}line two<|im_end|>\n".encode() for n in sizes]
    data = b"\n".join(turns)
    free = _read(data, MAX_RECORD_BYTES, "chatml")
    limited = _read(data, limit, "chatml")
    assert [(r.number, r.line, r.end) for r in free] == [(r.number, r.line, r.end) for r in limited]
    start = 0
    for a, b in zip(free, limited, strict=True):
        size = b.end - start
        start = b.end
        assert b == a if size <= limit else (b.text, b.oversize) == ("", size)


def test_the_reader_never_holds_more_than_the_limit() -> None:
    """The reader asks its handle for at most ``limit + 1`` bytes of a line at a time (and then pieces)."""

    class Watch(io.BytesIO):
        largest = 0

        def readline(self, size: int | None = -1) -> bytes:
            line = super().readline(size)
            Watch.largest = max(Watch.largest, len(line))
            return line

    data = _jsonl_record("x") + b'{"a": "' + b"y" * 1_000_000 + b'"}\n' + _jsonl_record("z")
    records = list(records_from_handle(Watch(data), "x", "openai", 1000))  # type: ignore[arg-type]
    assert [r.oversize for r in records] == [0, 1_000_010, 0]
    assert Watch.largest <= 1 << 16
