"""What validate's input handling costs: one handle per input, detection replayed from memory, Mapping records.

Usage: ``.venv/bin/python bench/validate_io.py [--records 8000]``

On the deterministic dataset of ``bench/validate.py``, measured in the same process:

* **raw lines**: ``open()`` and a loop over its lines (the floor of any line reader);
* **iter_records**: the dataset reader (one handle, the first bytes peeked and replayed, each line
  decoded into a record);
* per record: ``validate_record``, the check that makes any Mapping a record (run on every record),
  and the copy to plain data (run only on records that hold non-dict Mappings, e.g. ``datasets`` rows);
* peak memory of the reader (tracemalloc) while it streams the file, against the file size.

``--expanding MB`` measures the record size limit (issue 30): a gzip file of a few hundred KB holding
one line of MB megabytes between two small records, validated in fresh processes with the limit
above the line (the line is read whole, as before the limit) and with the default limit (64 MiB) and
a small one; the peak resident memory of each (``ru_maxrss``), best of two.

``--codecs MB`` measures what checking every archive to its last byte costs: reading a JSONL of
about MB megabytes compressed with each codec, through the library readers used before issue 30
(``GzipFile``, ``BZ2File``, ``LZMAFile``, zstd's ``decompressobj`` loop) and through
``dataio._compressed.decompress``, alternated in the same process (CPU time, best of three).

``--report-memory MB`` instead measures what an output format costs in memory: ``hermes-toolcall validate``
on a generated JSONL of about MB megabytes, ``--format jsonl`` and ``--format html`` alternated in fresh
processes (two trials each), the peak resident memory of each (``ru_maxrss``) and its ratio; also net of
a run on a one-record file (the interpreter and its imports).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from validate import make_dataset

from hermes_toolcall import _jsonio as jsonio
from hermes_toolcall.validate import _api as api
from hermes_toolcall.validate import _datasets as datasets


def _best(fn: Callable[[], Any], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def _peak_rss(argv: list[str]) -> float:
    """Peak resident memory (MB) of one run of the command line in a fresh process."""
    proc = subprocess.Popen([sys.executable, "-m", "hermes_toolcall", *argv], stdout=subprocess.DEVNULL)
    _, _, usage = os.wait4(proc.pid, 0)
    return usage.ru_maxrss / 1024  # KiB on Linux


def report_memory(megabytes: float) -> None:
    """Peak memory of ``validate --format html`` against ``--format jsonl`` on the same file."""
    folder = Path(tempfile.mkdtemp())
    path, tiny = folder / "d.jsonl", folder / "one.jsonl"
    make_dataset(tiny, 1)
    make_dataset(path, 100)
    per_record = path.stat().st_size / 100
    make_dataset(path, int(megabytes * 1e6 / per_record))
    size = path.stat().st_size
    lines = sum(1 for _ in open(path, "rb"))
    base = {fmt: _peak_rss(["validate", str(tiny), "--format", fmt, "-o", str(folder / f"t.{fmt}")])
            for fmt in ("jsonl", "html")}
    peaks: dict[str, list[float]] = {"jsonl": [], "html": []}
    for _ in range(2):
        for fmt in ("jsonl", "html"):
            peaks[fmt].append(_peak_rss(["validate", str(path), "--format", fmt, "-o", str(folder / f"out.{fmt}")]))
    found = sum(1 for line in open(folder / "out.jsonl", encoding="utf-8") if '"finding"' in line)
    page = (folder / "out.html").stat().st_size
    j, h = min(peaks["jsonl"]), min(peaks["html"])
    print(f"{lines} records, {size / 1e6:.1f} MB, {found} findings; HTML page {page / 1e6:.2f} MB")
    print("| format | peak RSS, MB (best of 2) | net of a one-record run, MB |")
    print("|---|---|---|")
    print(f"| jsonl | {j:.1f} | {j - base['jsonl']:.1f} |")
    print(f"| html | {h:.1f} | {h - base['html']:.1f} |")
    print(f"html / jsonl: {h / j:.2f}x peak RSS ({(h - base['html']) / max(j - base['jsonl'], 0.1):.2f}x net)")


def expanding(megabytes: float) -> None:
    """Peak memory of ``validate`` on a small gzip file that holds one line of ``megabytes`` MB."""
    import gzip

    folder = Path(tempfile.mkdtemp())
    path = folder / "expanding.jsonl.gz"
    small = b'{"messages": [{"role": "user", "content": "hi"}]}\n'
    size = int(megabytes * 1e6)
    with gzip.open(path, "wb", compresslevel=9) as fh:
        fh.write(small + b'{"messages": [{"role": "user", "content": "')
        block = b"a" * (1 << 20)
        for _ in range(size // len(block)):
            fh.write(block)
        fh.write(b'"}]}\n' + small)
    print(f"a {path.stat().st_size / 1e3:.0f} KB gzip file holding a {size / 1e6:.0f} MB line between two records")
    print("| --max-record-bytes | peak RSS, MB (best of 2) | the line |")
    print("|---|---|---|")
    for limit in (size + 1000, 64 << 20, 1 << 20):
        argv = ["validate", str(path), "--format", "jsonl", "-o", str(folder / "out.jsonl"), "--max-record-bytes",
                str(limit)]
        peak = min(_peak_rss(argv) for _ in range(2))
        found = (folder / "out.jsonl").read_text(encoding="utf-8")
        what = "HT612, not read" if "HT612" in found else "read and checked"
        print(f"| {limit:,} | {peak:.0f} | {what} |")


def codecs(megabytes: float) -> None:
    """CPU time of reading a compressed JSONL through the old library readers and through ``decompress``."""
    import bz2
    import gzip
    import io
    import lzma

    import zstandard

    from hermes_toolcall.dataio._compressed import decompress

    folder = Path(tempfile.mkdtemp())
    path = folder / "d.jsonl"
    make_dataset(path, 100)
    per_record = path.stat().st_size / 100
    make_dataset(path, int(megabytes * 1e6 / per_record))
    data = path.read_bytes()
    packed = {
        "gzip": gzip.compress(data),
        "bz2": bz2.compress(data),
        "xz": lzma.compress(data),
        "zstd": zstandard.ZstdCompressor(write_checksum=True).compress(data),
    }

    def zstd_loop(raw: io.BytesIO) -> Any:
        out = []
        obj = zstandard.ZstdDecompressor().decompressobj()
        while chunk := raw.read(1 << 16):
            out.append(obj.decompress(chunk))
        return io.BytesIO(b"".join(out))

    old = {
        "gzip": lambda raw: gzip.GzipFile(fileobj=raw, mode="rb"),
        "bz2": lambda raw: bz2.BZ2File(raw, mode="rb"),
        "xz": lambda raw: lzma.LZMAFile(raw, mode="rb"),
        "zstd": zstd_loop,
    }

    print(f"{len(data) / 1e6:.1f} MB of JSONL")
    print("| codec | compressed, MB | before, s | checked to the last byte, s | ratio |")
    print("|---|---|---|---|---|")
    for kind, blob in packed.items():
        before, after = [], []
        for _ in range(3):
            start = time.process_time()
            n_old = sum(1 for _ in io.BufferedReader(old[kind](io.BytesIO(blob)), buffer_size=1 << 16))
            before.append(time.process_time() - start)
            start = time.process_time()
            n_new = sum(1 for _ in decompress(io.BytesIO(blob), kind))  # type: ignore[arg-type]
            after.append(time.process_time() - start)
            assert n_old == n_new
        b, a = min(before), min(after)
        print(f"| {kind} | {len(blob) / 1e6:.2f} | {b:.3f} | {a:.3f} | {a / b:.2f}x |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--records", type=int, default=8000)
    ap.add_argument("--report-memory", type=float, metavar="MB", help="compare the output formats' memory instead")
    ap.add_argument("--expanding", type=float, metavar="MB", help="the record limit on one line of MB megabytes")
    ap.add_argument("--codecs", type=float, metavar="MB", help="the cost of checking archives to their last byte")
    args = ap.parse_args()
    if args.report_memory:
        report_memory(args.report_memory)
        return
    if args.expanding:
        expanding(args.expanding)
        return
    if args.codecs:
        codecs(args.codecs)
        return
    path = Path(tempfile.mkdtemp()) / "d.jsonl"
    make_dataset(path, args.records)
    size = path.stat().st_size

    def raw() -> int:
        with open(path, "rb") as fh:
            return sum(1 for line in fh if line.strip())

    def reader() -> int:
        return sum(1 for _ in datasets.iter_records(path))

    records = [jsonio.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]

    def per_record(fn: Callable[[Any], Any]) -> float:
        return _best(lambda: [fn(r) for r in records], 3) / len(records) * 1e6

    t_raw, t_reader = _best(raw, 5), _best(reader, 5)
    t_check, t_copy, t_validate = (per_record(f) for f in (api._needs_plain, api._plain, api.validate_record))
    tracemalloc.start()
    reader()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    print(f"{args.records} records, {size / 1e6:.1f} MB")
    print("| step | seconds | ratio |")
    print("|---|---|---|")
    print(f"| raw lines | {t_raw:.3f} | 1.00 |")
    print(f"| iter_records | {t_reader:.3f} | {t_reader / t_raw:.2f}x raw lines |")
    print("| per record | µs | share of validate_record |")
    print("|---|---|---|")
    print(f"| validate_record | {t_validate:.1f} | 1.000 |")
    print(f"| the Mapping check (every record) | {t_check:.2f} | {t_check / t_validate:.3f} |")
    print(f"| the copy to plain data (records holding non-dict Mappings) | {t_copy:.1f} | {t_copy / t_validate:.3f} |")
    print(f"reader peak memory: {peak / 1e6:.2f} MB for a {size / 1e6:.1f} MB file")


if __name__ == "__main__":
    main()
