"""Fallback driver: run the fuzz invariants without atheris, over corpus files or random inputs.

    python fuzz/driver.py fuzz/corpus                 # every file of the corpus, as fuzzer bytes
    python fuzz/driver.py --random 2000 --seed 7      # generated adversarial inputs
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from targets import FUZZ_TOOLS, check, check_bytes

from hermes_toolcall.conformance._generate import random_text


def run_files(paths: list[Path]) -> int:
    """Run every file (directories are walked); returns the number of inputs."""
    files = sorted(f for p in paths for f in ([p] if p.is_file() else p.rglob("*")) if f.is_file())
    for f in files:
        try:
            check_bytes(f.read_bytes())
        except AssertionError as exc:
            raise AssertionError(f"{f}: {exc}") from exc
    return len(files)


def run_random(count: int, seed: int) -> int:
    """Run ``count`` generated inputs at both levels, cycling through option sets."""
    rng = random.Random(seed)
    for k in range(count):
        text = random_text(rng)
        level = "transcript" if k % 3 == 2 else "completion"
        options: dict[str, object] = {"calls_in_reasoning": k % 4 == 1, "stop_at_fabricated_response": k % 5 == 3}
        if level == "completion" and k % 7 == 4:
            options["starts_in_reasoning"] = True
        if k % 6 == 5:
            options.update(tools=FUZZ_TOOLS, undeclared=("keep", "text", "drop")[k % 3], coerce_arguments=k % 4 == 3)
        try:
            check(text, level=level, options=options, chunk_size=1 + k % 5)
        except AssertionError as exc:
            raise AssertionError(f"input {k} (seed {seed}) {text!r}: {exc}") from exc
    return count


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("paths", nargs="*", type=Path, help="corpus files or directories")
    parser.add_argument("--random", type=int, default=0, metavar="N", help="also run N generated inputs")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    start = time.perf_counter()
    n = run_files(args.paths) + (run_random(args.random, args.seed) if args.random else 0)
    print(f"{n} inputs passed in {time.perf_counter() - start:.1f}s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
