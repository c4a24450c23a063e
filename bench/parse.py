"""Whole-text parsing throughput: the grammar engine against a regex+orjson floor, same process.

Usage: ``.venv/bin/python bench/parse.py [--sizes 1,10] [--repeat 5] [--before REV]``

For each size (MB) a mixed transcript is generated (prose turns, tool calls with realistic
arguments, results, reasoning). Measured in the same run:

* **floor**: one compiled regex pass locating every marker, plus ``orjson.loads`` of every call and
  result payload (the least any parser of this format must do);
* **grammar tokens**: the token pass alone (``grammar.tokens``: Lark's compiled LALR table and
  contextual lexer run by ``grammar/driver.py``), to show the split between parsing and building the
  model;
* **parse_transcript**: the grammar engine, whole parse to model values;
* peak memory of the parse (tracemalloc), as a multiple of the input size (characters).
"""

from __future__ import annotations

import argparse
import gc
import importlib
import random
import re
import time
import tracemalloc
from collections.abc import Callable

import orjson

from hermes_toolcall import jsonio, parse_transcript, sequential_ids
from hermes_toolcall.grammar import Variant, tokens

_WORDS = (
    "the weather in Paris is mild today and I will check the forecast for the next days "
    "please find the files that match the pattern and summarise their contents carefully "
    "über naïve café résumé 東京 données météo"
).split()

_TOOLS = [
    {
        "name": "get_weather",
        "description": "Current weather for a city.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}, "unit": {"type": "string"}}},
    },
    {
        "name": "search_files",
        "description": "Search files by glob pattern.",
        "parameters": {"type": "object", "properties": {"pattern": {"type": "string"}, "limit": {"type": "integer"}}},
    },
    {
        "name": "run_shell",
        "description": "Run a shell command.",
        "parameters": {"type": "object", "properties": {"cmd": {"type": "string"}}},
    },
]


def _prose(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(n))


def _args(rng: random.Random) -> tuple[str, dict[str, object]]:
    k = rng.randrange(3)
    if k == 0:
        return "get_weather", {"city": rng.choice(["Paris", "Zürich", "東京", "New York"]), "unit": "celsius"}
    if k == 1:
        return "search_files", {"pattern": f"src/**/*.{rng.choice(['py', 'md', 'ts'])}", "limit": rng.randrange(100)}
    return "run_shell", {"cmd": f'grep -rn "{rng.choice(_WORDS)}" . | head -n {rng.randrange(50)} # </tool_call>'}


def transcript(size_chars: int, seed: int = 7) -> str:
    """A mixed Hermes transcript of about ``size_chars`` characters."""
    rng = random.Random(seed)
    tools = "\n".join(jsonio.dumps_spaced({"type": "function", "function": t}) for t in _TOOLS)
    out = [f"<|im_start|>system\nYou are a function calling AI model.\n<tools>\n{tools}\n</tools><|im_end|>\n"]
    size = len(out[0])
    while size < size_chars:
        turn = [f"<|im_start|>user\n{_prose(rng, rng.randrange(10, 60))}<|im_end|>\n"]
        body = f"<think>\n{_prose(rng, rng.randrange(20, 80))}\n</think>\n\n{_prose(rng, rng.randrange(5, 30))}\n"
        results = []
        for _ in range(rng.randrange(1, 4)):
            name, args = _args(rng)
            body += "<tool_call>\n" + jsonio.dumps_spaced({"name": name, "arguments": args}) + "\n</tool_call>\n"
            payload = jsonio.dumps_spaced({"name": name, "content": {"result": _prose(rng, rng.randrange(10, 120))}})
            results.append(f"<tool_response>\n{payload}\n</tool_response>\n")
        turn.append(f"<|im_start|>assistant\n{body}<|im_end|>\n")
        turn.append("<|im_start|>tool\n" + "".join(results) + "<|im_end|>\n")
        turn.append(f"<|im_start|>assistant\n{_prose(rng, rng.randrange(20, 100))}<|im_end|>\n")
        chunk = "".join(turn)
        out.append(chunk)
        size += len(chunk)
    return "".join(out)


_MARKERS = re.compile(
    r"<\|im_start\|>|<\|im_end\|>|</?tool_call>|</?tool_response>|</?think>|</?scratch_pad>|</?tools>"
)


def floor(text: str) -> int:
    """One regex pass locating every marker, then orjson on every call/result payload."""
    count = 0
    opened = -1
    for m in _MARKERS.finditer(text):
        tag = m.group()
        if tag in ("<tool_call>", "<tool_response>"):
            opened = m.end()
        elif tag in ("</tool_call>", "</tool_response>") and opened >= 0:
            try:
                orjson.loads(text[opened : m.start()])
            except orjson.JSONDecodeError:
                pass
            opened = -1
            count += 1
    return count


def _best_interleaved(fns: list[Callable[[str], object]], text: str, repeat: int) -> list[float]:
    """Best time of each function, running them in turn each round (same machine phase for all).

    This machine's speed drifts by up to 2x between seconds (shared host); timing the functions one
    after another would compare different phases, so each round runs every function once.
    """
    best = [float("inf")] * len(fns)
    for _ in range(repeat):
        for k, fn in enumerate(fns):
            gc.collect()  # start each run from a collected heap (the collector stays on)
            t0 = time.perf_counter()
            result = fn(text)
            best[k] = min(best[k], time.perf_counter() - t0)
            del result  # freeing the result is not part of the parse: outside the timed region
    return best


def before_after(rev: str, sizes: list[float], repeat: int) -> None:
    """``parse_transcript`` of revision ``rev`` against this tree's, run in turn in this process."""
    from stream import load_revision  # bench/stream.py: the revision imported as a second package

    load_revision(rev)
    before = importlib.import_module("hermes_toolcall_before")
    ids_before, ids_after = before.sequential_ids(), sequential_ids()

    def old(text: str) -> object:
        return before.parse_transcript(text, ids=ids_before)

    def new(text: str) -> object:
        return parse_transcript(text, ids=ids_after)

    print(f"parse_transcript before ({rev}) / after (this tree), run in turn, best of {repeat}")
    for mb in sizes:
        text = transcript(int(mb * 1_000_000))
        old(text[:20000]), new(text[:20000])  # warm both
        t_old, t_new = _best_interleaved([old, new], text, repeat)
        print(
            f"  {mb:.1f} MB: before {mb / t_old:.1f} MB/s ({t_old * 1e3:.0f} ms), after {mb / t_new:.1f} MB/s "
            f"({t_new * 1e3:.0f} ms), after/before time {t_new / t_old:.3f}"
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--sizes", default="1,10", help="comma-separated sizes in MB")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--before", metavar="REV", help="only compare parse_transcript with git revision REV's")
    args = ap.parse_args()
    ids = sequential_ids()
    if args.before:
        before_after(args.before, [float(s) for s in args.sizes.split(",")], args.repeat)
        return

    def grammar(text: str) -> object:
        return parse_transcript(text, ids=ids)

    def token_pass(text: str) -> object:
        return tokens(text, "transcript", Variant())

    print(
        "| input | floor MB/s | grammar tokens MB/s | parse_transcript MB/s | ratio parse/floor | peak memory / input |"
    )
    print("|---|---|---|---|---|---|")
    for mb in (float(s) for s in args.sizes.split(",")):
        text = transcript(int(mb * 1_000_000))
        n = len(text)
        grammar(text[:20000])  # warm the cached parser
        t_floor, t_tokens, t_parse = _best_interleaved([floor, token_pass, grammar], text, args.repeat)
        tracemalloc.start()
        result = grammar(text)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        del result
        mbs = n / 1e6
        print(
            f"| {mbs:.1f} MB ({n:,} chars) | {mbs / t_floor:.1f} | {mbs / t_tokens:.1f} | {mbs / t_parse:.1f} | "
            f"{t_parse / t_floor:.1f}x | {peak / n:.1f}x |"
        )


if __name__ == "__main__":
    main()
