"""The grammar's runtime: load time of the generated tables, and the token pass against an older driver.

Usage: ``.venv/bin/python bench/grammar_runtime.py [--repeat 7] [--before REV] [--sizes 1,10]``

* **load** (always): a fresh interpreter per sample, timing ``from hermes_toolcall.grammar import
  parser`` plus the first ``tokens()``: the package import alone (the floor), the default variant,
  all 16 option variants, and the alternative design (Lark compiles the grammar at first use and its
  serialisation is read at run time, as ``grammar/_tablegen.py`` does at build time). Samples of the
  kinds are taken in turn (the host's speed drifts); the best of each is printed.
* **before/after** (``--before REV``): ``grammar/_driver.py`` of the git revision ``REV`` (one that
  still took a ``Lark`` instance, e.g. ``732a22d``) against the current one, in the same process on
  bench/parse.py's transcripts: the token pass and ``parse_transcript``, interleaved as
  bench/parse.py does, the order of before and after swapped every other round.
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

import parse as bench_parse  # noqa: E402 - bench/parse.py, beside this file

from hermes_toolcall import parse_transcript, sequential_ids  # noqa: E402
from hermes_toolcall.grammar import Variant  # noqa: E402
from hermes_toolcall.grammar import _build as build  # noqa: E402
from hermes_toolcall.grammar import _parser as parser  # noqa: E402

_T0 = (
    "import time; t = time.perf_counter()\n"
    "from hermes_toolcall.grammar import Variant, _parser as parser, _tablegen as tablegen\n"
)
_T1 = "print(time.perf_counter() - t)\n"
LOADS = {
    "package import alone (the floor)": _T0 + _T1,
    "default variant": _T0 + "parser.driver(Variant()).tokens('hi', 'completion')\n" + _T1,
    "all 16 option variants": _T0
    + "[parser.driver(v).tokens('hi', 'completion') for v in tablegen.variants()]\n"
    + _T1,
    "default variant, Lark compiled and its serialisation read at run time (alternative)": _T0
    + "c = tablegen._compile(Variant())\n[tablegen._lexer(c, row) for row in c.rows.values()]\n"
    + _T1,
}


def _before_loads(driver_file: Path) -> dict[str, str]:
    """The load samples of an older driver (one that takes a ``Lark`` instance): Lark imported and compiled."""
    load = (
        "import importlib.util as u\n"
        f"s = u.spec_from_file_location('driver_before', {str(driver_file)!r})\n"
        "m = u.module_from_spec(s); s.loader.exec_module(m)\n"
    )
    return {
        "before: default variant": _T0
        + load
        + "m.Driver(parser.lark_parser(Variant())).tokens('hi', 'completion')\n"
        + _T1,
        "before: all 16 option variants": _T0
        + load
        + "[m.Driver(parser.lark_parser(v)).tokens('hi', 'completion') for v in tablegen.variants()]\n"
        + _T1,
    }


def load_times(repeat: int, extra: dict[str, str]) -> dict[str, float]:
    loads = {**LOADS, **extra}
    best = dict.fromkeys(loads, float("inf"))
    for _ in range(repeat):
        for name, code in loads.items():
            out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
            best[name] = min(best[name], float(out))
    return best


def _driver_file(rev: str) -> Path:
    source = subprocess.run(
        ["git", "-C", str(ROOT), "show", f"{rev}:src/hermes_toolcall/grammar/_driver.py"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    path = Path(tempfile.mkdtemp()) / "driver_before.py"
    path.write_text(source, encoding="utf-8")
    return path


def _old_tokens(path: Path) -> Callable[..., list[tuple[str, int, int]]]:
    spec = importlib.util.spec_from_file_location("driver_before", path)
    assert spec is not None and spec.loader is not None
    module: Any = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    drivers: dict[Variant, Any] = {}

    def tokens(text: str, start: str, variant: Variant, offset: int = 0) -> list[tuple[str, int, int]]:
        if variant not in drivers:
            drivers[variant] = module.Driver(parser.lark_parser(variant))
        result: list[tuple[str, int, int]] = drivers[variant].tokens(text, start, offset)
        return result

    return tokens


def before_after(rev: str, sizes: list[float], repeat: int) -> None:
    old, new = _old_tokens(_driver_file(rev)), parser.tokens
    ids = sequential_ids()

    def parse_with(tokens: Callable[..., list[tuple[str, int, int]]]) -> Callable[[str], object]:
        def batches(text: str, start: str, variant: Variant, pos: int = 0) -> Iterator[list[tuple[str, int, int]]]:
            yield tokens(text[pos:] if pos else text, start, variant, pos)

        def run(text: str) -> object:
            # the builder reads the token pass by this name; the older driver's tokens come as one batch
            build.token_batches = batches  # type: ignore[attr-defined]
            try:
                return parse_transcript(text, ids=ids)
            finally:
                build.token_batches = parser.token_batches  # type: ignore[attr-defined]

        return run

    fns: list[Callable[[str], object]] = [
        bench_parse.floor,
        lambda t: old(t, "transcript", Variant()),
        lambda t: new(t, "transcript", Variant()),
        parse_with(old),
        parse_with(new),
    ]
    print(f"| input | floor MB/s | tokens before ({rev}) | tokens after | parse_transcript before | after |")
    print("|---|---|---|---|---|---|")
    for mb in sizes:
        text = bench_parse.transcript(int(mb * 1_000_000))
        for fn in fns:
            fn(text[:20000])  # warm the caches
        best = [float("inf")] * len(fns)
        for r in range(repeat):
            order = [0, 1, 2, 3, 4] if r % 2 == 0 else [0, 2, 1, 4, 3]
            times = bench_parse._best_interleaved([fns[k] for k in order], text, 1)
            for k, s in zip(order, times, strict=True):
                best[k] = min(best[k], s)
        m = len(text) / 1e6
        cells = [f"{m / s:.1f}" for s in best]
        ratios = [f"{best[1] / best[2] - 1:+.1%}", f"{best[3] / best[4] - 1:+.1%}"]
        row = [f"{m:.1f} MB", cells[0], cells[1], f"{cells[2]} ({ratios[0]})", cells[3], f"{cells[4]} ({ratios[1]})"]
        print("| " + " | ".join(row) + " |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--before", help="a git revision whose grammar/_driver.py took a Lark instance (e.g. 732a22d)")
    ap.add_argument("--sizes", default="1,10", help="comma-separated sizes in MB (with --before)")
    args = ap.parse_args()
    extra: dict[str, str] = {}
    if args.before:
        before_after(args.before, [float(s) for s in args.sizes.split(",")], args.repeat)
        print()
        extra = _before_loads(_driver_file(args.before))
    print("| load: fresh interpreter, grammar modules + first tokens() | best ms |")
    print("|---|---|")
    for name, seconds in load_times(args.repeat, extra).items():
        print(f"| {name} | {seconds * 1e3:.0f} |")


if __name__ == "__main__":
    main()
