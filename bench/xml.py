"""XML call bodies against JSON call bodies of the same size: whole parse and stream, per MB, same process.

Usage: ``.venv/bin/python bench/xml.py [--sizes 0.25,0.5,1,2] [--repeat 5] [--chunk 4]``

For each size (MB) two completions carry the same calls (the same names and arguments, prose between
them padded so the two texts have the same length): one with JSON bodies as Qwen3 writes them
(``dialect="qwen3"``), one with XML bodies as Qwen3-Coder writes them (``dialect="qwen3-coder"``,
values typed by the tools). Measured in the same run, CPU time (``time.process_time``), each
configuration run in turn in every round (best of ``--repeat`` rounds):

* **parse**: ``parse_completion`` (the grammar engine), per MB, and the XML/JSON ratio;
* **stream**: ``StreamParser`` fed ``--chunk``-character chunks with ``retain=False``, per MB, and the ratio;
* **stream, arguments**: the same with ``stream_arguments=True`` (an XML body's values are read as they
  arrive, to stream its ``arguments`` JSON text);
* **growth**: the time per MB at each size (linear cost: flat across sizes);
* **long whitespace**: a call whose value is 10,000 then 100,000 spaces, parse and stream (1-character
  and 4-character chunks): the ratio of the two is about 10 when the cost is linear.

The issue's target (29): XML within 1.5x of JSON per MB, parse and stream.
"""

from __future__ import annotations

import argparse
import gc
import random
import time
from collections.abc import Callable
from typing import Any

from hermes_toolcall import StreamParser, parse_completion
from hermes_toolcall import _jsonio as jsonio
from hermes_toolcall.testing import xml_call_block

TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "days": {"type": "integer"}, "metric": {"type": "boolean"}},
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "write_file",
            "parameters": {"type": "object", "properties": {"path": {"type": "string"}, "content": {"type": "string"}}},
        },
    },
    {
        "type": "function",
        "function": {
            "name": "search",
            "parameters": {
                "type": "object",
                "properties": {
                    "query": {"type": "string"},
                    "filters": {"type": "object"},
                    "limit": {"type": ["integer", "null"]},
                },
            },
        },
    },
]
_WORDS = "the weather in Paris is mild today and I will check the forecast über naïve 東京".split()
_CODE = 'def f(x):\n    if x < 3 and "<b>" in s:\n        return {"k": [x, None]}  # & <i>\n'


def _calls(rng: random.Random) -> tuple[str, dict[str, Any]]:
    k = rng.randrange(3)
    if k == 0:
        return "get_weather", {
            "city": rng.choice(["Paris", "Zürich", "東京"]),
            "days": rng.randrange(9),
            "metric": True,
        }
    if k == 1:
        return "write_file", {"path": f"src/m{rng.randrange(99)}.py", "content": _CODE * rng.randrange(1, 6)}
    return "search", {
        "query": " ".join(rng.choices(_WORDS, k=5)),
        "filters": {"lang": "en", "year": 2024},
        "limit": None,
    }


def pair(size_chars: int, seed: int = 5) -> tuple[str, str]:
    """Two completions of about ``size_chars`` characters with the same calls: JSON bodies, XML bodies."""
    rng = random.Random(seed)
    js: list[str] = []
    xs: list[str] = []
    n = 0
    while n < size_chars:
        prose = " ".join(rng.choices(_WORDS, k=rng.randrange(5, 40))) + "\n"
        name, args = _calls(rng)
        j = "<tool_call>\n" + jsonio.dumps_spaced({"name": name, "arguments": args}) + "\n</tool_call>\n"
        x = xml_call_block(name, args) + "\n"
        pad = " " * (len(x) - len(j)) if len(x) > len(j) else ""
        xpad = " " * (len(j) - len(x)) if len(j) > len(x) else ""
        js.append(prose + pad + j)
        xs.append(prose + xpad + x)
        n += len(js[-1])
    return "".join(js), "".join(xs)


def _best(fns: list[Callable[[], object]], repeat: int) -> list[float]:
    best = [float("inf")] * len(fns)
    for r in range(repeat):
        order = range(len(fns)) if r % 2 == 0 else reversed(range(len(fns)))
        for k in order:
            gc.collect()
            t0 = time.process_time()
            fns[k]()
            best[k] = min(best[k], time.process_time() - t0)
    return best


def _parse(text: str, dialect: str) -> Callable[[], object]:
    return lambda: parse_completion(text, dialect=dialect, tools=TOOLS)


def _stream(text: str, dialect: str, chunk: int, arguments: bool = False) -> Callable[[], object]:
    chunks = [text[i : i + chunk] for i in range(0, len(text), chunk)]

    def go() -> object:
        p = StreamParser(
            level="completion", dialect=dialect, tools=TOOLS, retain=False, stream_arguments=arguments
        )
        for c in chunks:
            p.feed(c)
        return p.close()

    return go


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--sizes", default="0.25,0.5,1,2")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--chunk", type=int, default=4)
    args = ap.parse_args()
    print(
        "size MB | parse JSON s/MB | parse XML s/MB | XML/JSON | stream JSON s/MB | stream XML s/MB | XML/JSON"
        " | stream+args JSON s/MB | stream+args XML s/MB | XML/JSON"
    )
    for mb in (float(s) for s in args.sizes.split(",")):
        js, xs = pair(int(mb * 1_000_000))
        fns = [
            _parse(js, "qwen3"),
            _parse(xs, "qwen3-coder"),
            _stream(js, "qwen3", args.chunk),
            _stream(xs, "qwen3-coder", args.chunk),
            _stream(js, "qwen3", args.chunk, arguments=True),
            _stream(xs, "qwen3-coder", args.chunk, arguments=True),
        ]
        pj, px, sj, sx, aj, ax = (t / (len(js) / 1e6) for t in _best(fns, args.repeat))
        print(
            f"{mb:7.2f} | {pj:15.3f} | {px:14.3f} | {px / pj:8.2f} | {sj:16.3f} | {sx:15.3f} | {sx / sj:8.2f}"
            f" | {aj:21.3f} | {ax:20.3f} | {ax / aj:8.2f}"
        )
    print("\nlong whitespace value (seconds): 10,000 then 100,000 spaces, and their ratio (linear: about 10)")
    for label, make in (
        ("parse", lambda t: _parse(t, "qwen3-coder")),
        ("stream, 1-char chunks", lambda t: _stream(t, "qwen3-coder", 1)),
        ("stream, 4-char chunks", lambda t: _stream(t, "qwen3-coder", 4)),
    ):
        texts = [
            f"<tool_call>\n<function=search>\n<parameter=query>\n{' ' * n}\n</parameter>\n</function>\n</tool_call>"
            for n in (10_000, 100_000)
        ]
        small, big = _best([make(texts[0]), make(texts[1])], args.repeat)
        print(f"  {label:24s} {small:8.4f} {big:8.4f}  ratio {big / max(small, 1e-9):5.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
