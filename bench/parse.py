"""Whole-text parsing throughput: the grammar engine against a regex+orjson floor, same process.

Usage: ``.venv/bin/python bench/parse.py [--sizes 1,10] [--repeat 5] [--memory 5] [--before REV]``

For each size (MB) a mixed transcript is generated (prose turns, tool calls with realistic
arguments, results, reasoning). Measured in the same run:

* **floor**: one compiled regex pass locating every marker, plus ``orjson.loads`` of every call and
  result payload (the least any parser of this format must do);
* **grammar tokens**: the token pass alone (``grammar.tokens``: Lark's compiled LALR table and
  contextual lexer run by ``grammar/_driver.py``), to show the split between parsing and building the
  model;
* **parse_transcript**: the grammar engine, whole parse to model values;
* peak memory of the parse (tracemalloc), as a multiple of the input size (characters).

``--memory MB`` adds the memory ratio (tracemalloc peak during ``parse_transcript`` / input bytes in
UTF-8) on three transcripts of that size: the mixed one, a call-dense one (two calls and two results
per exchange, as ``bench/stream.py``'s) and a text-dense one (long prose turns, a call now and then).

``--workloads`` gives every workload's ratio to its floor in one run (CPU time, rounds interleaved):

* **records**: ``--records`` completions of about 300 characters each (prose, reasoning, zero to two
  calls: what ``validate`` and a dataset loop parse), ``parse_completion`` per record with every result
  kept, against the per-record floor (the same regex pass and ``orjson.loads`` per record, its decoded
  payloads kept too);
* **mixed**, **call-dense**, **prose-heavy** (``text-dense``) and **reasoning-heavy** transcripts of
  ``--sizes``' first size: ``parse_transcript`` against ``floor``.

``--before REV`` compares this tree with git revision ``REV`` in the same process (its package
imported beside this one under another name): ``parse_transcript`` time on the mixed and the
call-dense transcripts (best of ``--repeat`` rounds, before and after alternating, their order swapped
every other round) and the memory ratios of both.
"""

from __future__ import annotations

import argparse
import gc
import random
import re
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

import orjson

from hermes_toolcall import _jsonio as jsonio
from hermes_toolcall import parse_transcript, sequential_ids
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


def call_dense(size_chars: int) -> str:
    """A call-dense transcript of about ``size_chars`` characters: per exchange an assistant turn of two
    calls and a tool turn of two results (the shape of ``bench/stream.py``'s, about 317 characters)."""
    parts = []
    total = 0
    n = 0
    while total < size_chars:
        turn = (
            f"<|im_start|>assistant\n<tool_call>\n"
            f'{{"name": "get_weather", "arguments": {{"city": "City {n}", "days": {n % 7}}}}}\n</tool_call>\n'
            f'<tool_call>\n{{"name": "get_time", "arguments": {{"tz": "UTC"}}}}\n</tool_call><|im_end|>\n'
            f'<|im_start|>tool\n<tool_response>\n{{"temp": {n}}}\n</tool_response>\n'
            f"<tool_response>\n12:00\n</tool_response><|im_end|>\n"
        )
        parts.append(turn)
        total += len(turn)
        n += 1
    return "".join(parts)


def text_dense(size_chars: int, seed: int = 11) -> str:
    """A text-dense transcript of about ``size_chars`` characters: long prose turns (paragraphs of a few
    hundred words), a ``<think>`` block and a call in one assistant turn of ten."""
    rng = random.Random(seed)
    out = []
    size = 0
    k = 0
    while size < size_chars:
        user = "\n\n".join(_prose(rng, rng.randrange(80, 300)) for _ in range(rng.randrange(1, 4)))
        body = "\n\n".join(_prose(rng, rng.randrange(150, 400)) for _ in range(rng.randrange(2, 6)))
        if k % 10 == 0:
            name, args = _args(rng)
            call = jsonio.dumps_spaced({"name": name, "arguments": args})
            body = f"<think>\n{_prose(rng, 60)}\n</think>\n\n{body}\n<tool_call>\n{call}\n</tool_call>"
        chunk = f"<|im_start|>user\n{user}<|im_end|>\n<|im_start|>assistant\n{body}<|im_end|>\n"
        out.append(chunk)
        size += len(chunk)
        k += 1
    return "".join(out)


def reasoning_dense(size_chars: int, seed: int = 13) -> str:
    """A reasoning-heavy transcript of about ``size_chars`` characters: every assistant turn opens with a
    long ``<think>`` block (a few hundred words, some ``<`` comparisons in it), then a short answer or a call."""
    rng = random.Random(seed)
    out = []
    size = 0
    k = 0
    while size < size_chars:
        thought = "\n\n".join(_prose(rng, rng.randrange(100, 300)) for _ in range(rng.randrange(1, 4)))
        thought = thought.replace(" is ", " is < ", 1)  # a comparison: text, not markup
        body = f"<think>\n{thought}\n</think>\n\n"
        if k % 3 == 0:
            name, args = _args(rng)
            body += "<tool_call>\n" + jsonio.dumps_spaced({"name": name, "arguments": args}) + "\n</tool_call>"
        else:
            body += _prose(rng, rng.randrange(10, 40))
        user = _prose(rng, rng.randrange(5, 30))
        chunk = f"<|im_start|>user\n{user}<|im_end|>\n<|im_start|>assistant\n{body}<|im_end|>\n"
        out.append(chunk)
        size += len(chunk)
        k += 1
    return "".join(out)


def completions(n: int, seed: int = 17) -> list[str]:
    """``n`` assistant completions of about 300 characters: prose, reasoning, zero to two calls (deterministic)."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        shape = i % 4
        body = ""
        if shape in (1, 3):
            body += f"<think>\n{_prose(rng, rng.randrange(8, 16))}\n</think>\n\n"
        if shape != 2:
            body += _prose(rng, rng.randrange(4, 10)) + "\n"
        for _ in range(0 if shape == 0 else 1 if shape != 3 else 2):
            name, args = _args(rng)
            body += "<tool_call>\n" + jsonio.dumps_spaced({"name": name, "arguments": args}) + "\n</tool_call>\n"
        while len(body) < 280:
            body += _prose(rng, 6) + " "
        out.append(body)
    return out


def floor_kept(text: str) -> list[Any]:
    """``floor`` for one record, keeping what it decodes (as a parse keeps its result)."""
    out: list[Any] = []
    opened = -1
    for m in _MARKERS.finditer(text):
        tag = m.group()
        if tag in ("<tool_call>", "<tool_response>"):
            opened = m.end()
        elif tag in ("</tool_call>", "</tool_response>") and opened >= 0:
            try:
                out.append(orjson.loads(text[opened : m.start()]))
            except orjson.JSONDecodeError:
                out.append(None)
            opened = -1
    return out


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


#: The clock of the timings: wall time, or with ``--cpu`` this process's CPU time (steadier on a
#: shared host, where other processes' load stretches wall times).
CLOCK: Callable[[], float] = time.perf_counter


def _best_interleaved(fns: list[Callable[[str], object]], text: str, repeat: int) -> list[float]:
    """Best time of each function, running them in turn each round (same machine phase for all).

    This machine's speed drifts by up to 2x between seconds (shared host); timing the functions one
    after another would compare different phases, so each round runs every function once.
    """
    best = [float("inf")] * len(fns)
    for _ in range(repeat):
        for k, fn in enumerate(fns):
            gc.collect()  # start each run from a collected heap (the collector stays on)
            t0 = CLOCK()
            result = fn(text)
            best[k] = min(best[k], CLOCK() - t0)
            del result  # freeing the result is not part of the parse: outside the timed region
    return best


Parse = Callable[..., Any]


def peak_ratio(parse: Parse, ids: Callable[[], Any], text: str) -> float:
    """Tracemalloc peak during ``parse(text)`` over the input's UTF-8 size (the input is not traced)."""
    gc.collect()
    tracemalloc.start()
    result = parse(text, ids=ids())
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    del result
    return peak / len(text.encode("utf-8"))


WORKLOADS: dict[str, Callable[[int], str]] = {
    "mixed": transcript,
    "call-dense": call_dense,
    "text-dense": text_dense,
    "reasoning-heavy": reasoning_dense,
}


def each_record(parse: Callable[[str], Any]) -> Callable[[list[str]], list[Any]]:
    """A loop over records that calls ``parse`` on each and keeps every result (a dataset loop)."""

    def run(records: list[str]) -> list[Any]:
        return [parse(r) for r in records]

    return run


def workloads(mb: float, records: int, repeat: int) -> None:
    """Every workload's ratio to its floor, in one run: the records, then each transcript workload."""
    from hermes_toolcall import parse_completion

    ids = sequential_ids()
    texts = completions(records)
    chars = sum(map(len, texts))
    run_floor, run_parse = each_record(floor_kept), each_record(lambda t: parse_completion(t, ids=ids))
    run_parse(texts[:100])
    best = [float("inf")] * 2
    for _ in range(repeat):
        for k, fn in enumerate((run_floor, run_parse)):
            gc.collect()
            t0 = CLOCK()
            kept = fn(texts)
            best[k] = min(best[k], CLOCK() - t0)
            del kept
    print("| workload | input | floor | parse | ratio parse/floor |")
    print("|---|---|---:|---:|---:|")
    per = [b / records * 1e6 for b in best]
    print(
        f"| records (results kept) | {records:,} completions, {chars / records:.0f} chars each | "
        f"{per[0]:.2f} µs/record | {per[1]:.2f} µs/record | {best[1] / best[0]:.1f}x |"
    )

    def grammar(text: str) -> object:
        return parse_transcript(text, ids=ids)

    for name, make in WORKLOADS.items():
        text = make(int(mb * 1_000_000))
        grammar(text[:20000])
        t_floor, t_parse = _best_interleaved([floor, grammar], text, repeat)
        m = len(text) / 1e6
        label = "prose-heavy (text-dense)" if name == "text-dense" else name
        print(f"| {label} | {m:.1f} MB | {m / t_floor:.1f} MB/s | {m / t_parse:.1f} MB/s | {t_parse / t_floor:.1f}x |")


def memory(mb: float) -> None:
    """Print the memory ratio of ``parse_transcript`` on each workload of ``mb`` MB."""
    print(f"\n| {mb:g} MB transcript | chars | UTF-8 bytes | peak traced MB | peak / input bytes |")
    print("|---|---|---|---|---|")
    for name, make in WORKLOADS.items():
        text = make(int(mb * 1_000_000))
        size = len(text.encode("utf-8"))
        ratio = peak_ratio(parse_transcript, sequential_ids, text)
        print(f"| {name} | {len(text):,} | {size:,} | {ratio * size / 1e6:.1f} | {ratio:.2f}x |")


def before_after(rev: str, sizes: list[float], repeat: int, memory_mb: float) -> None:
    """This tree's parse against revision ``rev``'s: the records workload, ``parse_transcript``, memory (same run)."""
    from stream import load_revision  # bench/stream.py, beside this file

    from hermes_toolcall import parse_completion

    old = load_revision(rev)
    old_ids = old.sequential_ids
    ids = sequential_ids()
    before_ids = old_ids()

    def before(text: str) -> object:
        return old.parse_transcript(text, ids=before_ids)

    def after(text: str) -> object:
        return parse_transcript(text, ids=ids)

    texts = completions(10_000)
    floor_run = each_record(floor_kept)
    runs = [floor_run, each_record(lambda t: old.parse_completion(t, ids=before_ids)),
            each_record(lambda t: parse_completion(t, ids=ids))]
    for fn in runs:
        fn(texts[:100])
    best_r = [float("inf")] * 3
    for r in range(repeat):
        order = [0, 1, 2] if r % 2 == 0 else [0, 2, 1]
        for k in order:
            gc.collect()
            t0 = CLOCK()
            kept = runs[k](texts)
            best_r[k] = min(best_r[k], CLOCK() - t0)
            del kept
    us = [b / len(texts) * 1e6 for b in best_r]
    print(f"| records (10,000 completions, results kept) | floor µs | before ({rev}) µs | after µs | "
          "before/floor | after/floor |")
    print("|---|---:|---:|---:|---:|---:|")
    print(f"| | {us[0]:.2f} | {us[1]:.2f} | {us[2]:.2f} | {us[1] / us[0]:.1f}x | {us[2] / us[0]:.1f}x |\n")
    print(f"| input | before ({rev}) MB/s | after MB/s | after/before time |")
    print("|---|---|---|---|")
    for name in ("mixed", "call-dense"):
        for mb in sizes:
            text = WORKLOADS[name](int(mb * 1_000_000))
            before(text[:20000])
            after(text[:20000])
            best = [float("inf"), float("inf")]
            for r in range(repeat):
                order = [0, 1] if r % 2 == 0 else [1, 0]
                times = _best_interleaved([(before, after)[k] for k in order], text, 1)
                for k, t in zip(order, times, strict=True):
                    best[k] = min(best[k], t)
            m = len(text) / 1e6
            print(f"| {name} {m:.1f} MB | {m / best[0]:.1f} | {m / best[1]:.1f} | {best[1] / best[0]:.3f} |")
    print(f"\n| {memory_mb:g} MB transcript | before: peak / input bytes | after | after/before |")
    print("|---|---|---|---|")
    for name, make in WORKLOADS.items():
        text = make(int(memory_mb * 1_000_000))
        r_old = peak_ratio(old.parse_transcript, old_ids, text)
        r_new = peak_ratio(parse_transcript, sequential_ids, text)
        print(f"| {name} | {r_old:.2f}x | {r_new:.2f}x | {r_new / r_old:.2f} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--sizes", default="1,10", help="comma-separated sizes in MB")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--memory", type=float, default=0.0, help="also the memory ratios on transcripts of this many MB")
    ap.add_argument("--before", metavar="REV", help="only compare this tree with git revision REV (time, memory)")
    ap.add_argument("--cpu", action="store_true", help="time with this process's CPU time, not wall time")
    ap.add_argument("--workloads", action="store_true", help="every workload's ratio to its floor (CPU time)")
    ap.add_argument("--records", type=int, default=10_000, help="completions of the records workload")
    args = ap.parse_args()
    global CLOCK
    if args.cpu or args.workloads:
        CLOCK = time.process_time
    if args.workloads:
        workloads(float(args.sizes.split(",")[0]), args.records, args.repeat)
        return
    if args.before:
        before_after(args.before, [float(s) for s in args.sizes.split(",")], args.repeat, args.memory or 5.0)
        return
    ids = sequential_ids()

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
    if args.memory:
        memory(args.memory)


if __name__ == "__main__":
    main()
