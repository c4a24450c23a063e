"""What validate's input handling costs: one handle per input, detection replayed from memory, Mapping records.

Usage: ``.venv/bin/python bench/validate_io.py [--records 8000]``

On the deterministic dataset of ``bench/validate.py``, measured in the same process:

* **raw lines**: ``open()`` and a loop over its lines (the floor of any line reader);
* **iter_records**: the dataset reader (one handle, the first bytes peeked and replayed, each line
  decoded into a record);
* **validate** with the ``Mapping`` → plain-data copy that makes any Mapping a record, and without it
  (the copy replaced by the identity), to show what it costs;
* peak memory of the reader (tracemalloc) while it streams the file, against the file size.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from validate import make_dataset

from hermes_toolcall.validate import api, datasets
from hermes_toolcall.validate.runner import Options, run


def _best(fn: Callable[[], Any], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--records", type=int, default=8000)
    args = ap.parse_args()
    path = Path(tempfile.mkdtemp()) / "d.jsonl"
    make_dataset(path, args.records)
    size = path.stat().st_size

    def raw() -> int:
        with open(path, "rb") as fh:
            return sum(1 for line in fh if line.strip())

    def reader() -> int:
        return sum(1 for _ in datasets.iter_records(path))

    def validate() -> int:
        return sum(len(r.findings) for r in run(datasets.iter_records(path), Options()))

    t_raw, t_reader = _best(raw, 5), _best(reader, 5)
    copy = api._plain
    t_copy = t_plain = float("inf")
    for _ in range(3):  # interleaved, so that other load on the machine hits both alike
        t_copy = min(t_copy, _best(validate, 1))
        api._plain = lambda value: value
        try:
            t_plain = min(t_plain, _best(validate, 1))
        finally:
            api._plain = copy
    tracemalloc.start()
    reader()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    print(f"{args.records} records, {size / 1e6:.1f} MB")
    print("| step | seconds | ratio |")
    print("|---|---|---|")
    print(f"| raw lines | {t_raw:.3f} | 1.00 |")
    print(f"| iter_records | {t_reader:.3f} | {t_reader / t_raw:.2f}x raw lines |")
    print(f"| validate, without the Mapping copy | {t_plain:.2f} | 1.00 |")
    print(f"| validate, with it | {t_copy:.2f} | {t_copy / t_plain:.3f}x |")
    print(f"reader peak memory: {peak / 1e6:.2f} MB for a {size / 1e6:.1f} MB file")


if __name__ == "__main__":
    main()
