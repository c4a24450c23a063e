"""Call-body decoding throughput: ``body.decode_call_body`` against a bare ``jsonio.loads``, same process.

Usage: ``.venv/bin/python bench/body.py [--calls 20000] [--repeat 3]``

Three body mixes are generated (seeded): canonical one-line calls as the templates render them,
calls with a long multi-line ``content`` argument, and Python-literal bodies (the tolerant path).
For each mix the script times the floor (``jsonio.loads`` of every body, the least any decoder
must do) and ``decode_call_body`` (lenient), and prints MB/s and the ratio decode / floor.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

from hermes_toolcall import _jsonio as jsonio
from hermes_toolcall._body import decode_call_body

_WORDS = "the weather in Paris is mild today über naïve café 東京 please check the files carefully".split()


def _words(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(n))


def _canonical(rng: random.Random) -> str:
    args = {"city": _words(rng, 2), "unit": rng.choice(["celsius", "fahrenheit"]), "days": rng.randint(1, 9)}
    return "\n" + jsonio.dumps_spaced({"name": "get_weather", "arguments": args}) + "\n"


def _long(rng: random.Random) -> str:
    content = "\n".join(_words(rng, 12) for _ in range(rng.randint(20, 80)))
    return "\n" + jsonio.dumps_spaced({"name": "write_file", "arguments": {"path": "a.md", "content": content}}) + "\n"


def _python(rng: random.Random) -> str:
    return "\n" + repr({"arguments": {"query": _words(rng, 6) + " it's", "safe": True}, "name": "search"}) + "\n"


def _best(fn: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--calls", type=int, default=20000)
    ap.add_argument("--repeat", type=int, default=3)
    ns = ap.parse_args()
    rng = random.Random(7)
    print(f"{'mix':<12} {'MB':>6} {'floor MB/s':>11} {'decode MB/s':>12} {'ratio':>6}")
    for name, make in (("canonical", _canonical), ("long-args", _long), ("python-lit", _python)):
        bodies = [make(rng) for _ in range(ns.calls)]
        size = sum(len(b) for b in bodies) / 1e6

        def floor(bodies: list[str] = bodies) -> None:
            for b in bodies:
                jsonio.loads_or_none(b)

        def decode(bodies: list[str] = bodies) -> None:
            for b in bodies:
                decode_call_body(b, strict=False)

        t_floor, t_decode = _best(floor, ns.repeat), _best(decode, ns.repeat)
        print(f"{name:<12} {size:>6.1f} {size / t_floor:>11.1f} {size / t_decode:>12.1f} {t_decode / t_floor:>6.2f}")


if __name__ == "__main__":
    main()
