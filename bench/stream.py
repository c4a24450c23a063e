"""Streaming benchmark: hermes-toolcall's StreamParser beside the re-parse-on-every-delta baseline.

    .venv/bin/python bench/stream.py            # all workloads
    .venv/bin/python bench/stream.py --quick    # smaller inputs (smoke run)

    .venv/bin/python bench/stream.py --openai-memory 30000,240000 [--before REV]

``--openai-memory`` runs ``hermes-toolcall stream --format openai`` on call-dense completions of that many
calls (about 110 characters each, read from a file) in fresh processes and prints the peak resident
memory of each (``ru_maxrss``, best of two); with ``--before REV`` the same runs of revision REV's
package too, alternated (issue 30: the chunker kept every call, about 0.33 KB each).

The baseline is what current servers do (vLLM / SGLang hermes parsers): on every delta, append it to
the buffer of the current message, re-scan the whole buffer with a regex for ``<tool_call>`` blocks,
heal the last (partial) JSON body by closing its open strings and brackets, decode it, and diff the
arguments against what was sent. Both run in this process, on the same chunks; figures are best-of-N
wall times and ratios (the linearity pairs are run alternately).
"""

from __future__ import annotations

import argparse
import gc
import importlib
import importlib.util
import re
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from hermes_toolcall import _jsonio as jsonio
from hermes_toolcall import parse_transcript
from hermes_toolcall._ids import sequential_ids
from hermes_toolcall.statemachine import StreamParser
from hermes_toolcall.statemachine._table import Marker, State, build_machine, config_of, next_table

# ---------------------------------------------------------------------------------------------- baseline

_CALL = re.compile(r"<tool_call>(.*?)(?:</tool_call>|$)", re.DOTALL)
_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"?|[\[\]{}]')
_PARTIAL_TAIL = re.compile(r"(?:,|:|\s|-|\d+\.?|t|tr|tru|f|fa|fal|fals|n|nu|nul)*$")
_MARKERS = ("<tool_call>", "</tool_call>")


def heal(body: str) -> object:
    """Close what a truncated JSON text left open (partial-JSON parsing) and decode it; None if hopeless."""
    stack: list[str] = []
    text = body
    for m in _TOKENS.finditer(body):
        tok = m.group()
        if tok == "{":
            stack.append("}")
        elif tok == "[":
            stack.append("]")
        elif tok in "}]":
            if stack:
                stack.pop()
        elif len(tok) == 1 or not tok.endswith('"') or (tok.endswith('\\"') and not tok.endswith('\\\\"')):
            text = text + '"'  # an open string at the end
    text = _PARTIAL_TAIL.sub("", text) if not text.endswith('"') else text
    return jsonio.loads_or_none(text + "".join(reversed(stack)))


class Baseline:
    """Re-parse the current message on every delta (the strategy of today's servers)."""

    def __init__(self) -> None:
        self.buffer = ""
        self.sent_text = 0
        self.sent_args: list[str] = []

    def feed(self, delta: str) -> int:
        """Returns the number of deltas produced (text + argument pieces)."""
        produced = 0
        self.buffer += delta
        start = self.buffer.rfind("<|im_start|>", max(0, len(self.buffer) - len(delta) - 12))
        if start >= 0:  # a new message: the server would start a new request
            rest = self.buffer[start:]
            self.__init__()  # type: ignore[misc]
            self.buffer = rest
        buf = self.buffer
        first = buf.find("<tool_call>")
        text_end = len(buf) if first < 0 else first
        for marker in _MARKERS:  # hold back a partial tag at the end of the text
            for k in range(len(marker) - 1, 0, -1):
                if buf.endswith(marker[:k], 0, text_end):
                    text_end = min(text_end, len(buf) - k)
                    break
        if text_end > self.sent_text:
            self.sent_text = text_end
            produced += 1
        for i, m in enumerate(_CALL.finditer(buf)):
            obj = heal(m.group(1))
            if not isinstance(obj, dict) or not isinstance(obj.get("arguments"), dict):
                continue
            args = jsonio.dumps_spaced(obj["arguments"])
            if i == len(self.sent_args):
                self.sent_args.append("")
            prev = self.sent_args[i]
            common = 0
            while common < min(len(prev), len(args)) and prev[common] == args[common]:
                common += 1
            if len(args) > common:
                self.sent_args[i] = args
                produced += 1
        return produced


# ---------------------------------------------------------------------------------------------- workloads


def mixed_transcript(size: int) -> str:
    """A transcript of about ``size`` characters: system + tools, user, assistant with reasoning,
    prose and calls, tool results, in a loop."""
    tools = "\n".join(
        jsonio.dumps_spaced({"type": "function", "function": {"name": f"tool_{i}", "parameters": {"type": "object"}}})
        for i in range(8)
    )
    system = f"<|im_start|>system\nYou are a function calling AI model.\n<tools>\n{tools}\n</tools><|im_end|>\n"
    parts = [system]
    total = len(system)
    n = 0
    while total < size:
        args = {"city": f"City {n}", "days": n % 7, "notes": "x" * (n % 50), "nested": {"a": [1, 2, {"b": None}]}}
        turn = (
            f"<|im_start|>user\nWhat is the weather in city {n}? Please check and explain.<|im_end|>\n"
            f"<|im_start|>assistant\n<think>\nThe user asks about city {n}; I should call the tool.\n</think>\n\n"
            f"Let me check that for you.\n<tool_call>\n{jsonio.dumps_spaced({'name': 'tool_1', 'arguments': args})}"
            f"\n</tool_call><|im_end|>\n"
            f"<|im_start|>tool\n<tool_response>\n{jsonio.dumps_spaced({'temp': n, 'sky': 'clear'})}\n"
            f"</tool_response><|im_end|>\n"
            f"<|im_start|>assistant\nIt is {n} degrees and clear in city {n}. "
            + "Some more prose. " * 5
            + "<|im_end|>\n"
        )
        parts.append(turn)
        total += len(turn)
        n += 1
    return "".join(parts)


def big_call(arg_chars: int) -> str:
    """One completion holding one call whose ``content`` argument has ``arg_chars`` characters."""
    line = 'def f(x):\n    return {"k": [x, "y"]}  # comment \\ with "quotes"\n'
    content = (line * (arg_chars // len(line) + 1))[:arg_chars]
    body = jsonio.dumps_spaced({"name": "write_file", "arguments": {"path": "a.py", "content": content}})
    return f"I'll write the file.\n<tool_call>\n{body}\n</tool_call>"


def call_dense_chunks(size: int, chunk_size: int = 256) -> Iterator[str]:
    """A call-dense completion of about ``size`` characters, generated as it is fed (not held whole):
    short prose, then a call, again and again (about 110 characters per call)."""
    total = 0
    n = 0
    pending = ""
    while total < size:
        unit = (
            f"Checking {n}.\n<tool_call>\n"
            f'{{"name": "get_weather", "arguments": {{"city": "City {n}", "days": {n % 7}}}}}\n</tool_call>\n'
        )
        pending += unit
        total += len(unit)
        n += 1
        while len(pending) >= chunk_size:
            yield pending[:chunk_size]
            pending = pending[chunk_size:]
    if pending:
        yield pending


def call_dense_transcript(size: int) -> str:
    """A call-dense transcript of about ``size`` characters: assistant turns of two calls, tool turns
    of two results."""
    parts = []
    total = 0
    n = 0
    while total < size:
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


def stream_peak(size: int) -> tuple[int, int, float]:
    """(characters fed, tracemalloc peak in bytes, seconds) of ``StreamParser(retain=False)`` on a
    call-dense completion of ``size`` characters (events are consumed and dropped, as a server does)."""
    tracemalloc.start()
    t0 = time.perf_counter()
    parser = StreamParser(retain=False, ids=sequential_ids())
    fed = 0
    for piece in call_dense_chunks(size):
        fed += len(piece)
        parser.feed(piece)
    parser.close()
    seconds = time.perf_counter() - t0
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return fed, peak, seconds


def transcript_peak(size: int) -> tuple[int, int]:
    """(characters, tracemalloc peak in bytes during ``parse_transcript``) on a call-dense transcript."""
    text = call_dense_transcript(size)
    gc.collect()
    tracemalloc.start()
    parse_transcript(text, ids=sequential_ids())
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return len(text), peak


def memory(sizes: Sequence[int], transcript_size: int) -> None:
    """Print the peak traced memory of the bounded stream (each size) and of ``parse_transcript``."""
    print("\nmemory (tracemalloc peak; tracing makes these runs several times slower)")
    peaks = []
    for size in sizes:
        fed, peak, seconds = stream_peak(size)
        peaks.append(peak)
        print(
            f"  StreamParser(retain=False), call-dense completion, {fed / 1e6:.0f} MB in 256-char chunks: "
            f"peak {peak / 1e6:.2f} MB ({seconds:.0f} s traced)"
        )
    if len(peaks) > 1:
        print(f"  {sizes[-1] // sizes[0]}x the stream -> {peaks[-1] / peaks[0]:.2f}x the peak")
    chars, peak = transcript_peak(transcript_size)
    print(
        f"  parse_transcript, call-dense transcript, {chars / 1e6:.1f} MB: peak {peak / 1e6:.1f} MB "
        f"= {peak / chars:.1f}x the input"
    )


def chunk(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


# ---------------------------------------------------------------------------------------------- timing


def best(fn: Callable[[], object], repeat: int, clock: Callable[[], float] = time.perf_counter) -> float:
    """Best time of ``repeat`` runs, each started on a collected heap (the garbage of the previous
    run is not left to the timed one; the collector stays on, so the parser's own garbage-collection
    cost is measured). ``clock``: wall time by default; ``time.process_time`` for CPU time."""
    times = []
    for _ in range(repeat):
        gc.collect()
        t0 = clock()
        fn()
        times.append(clock() - t0)
    return min(times)


def best_pair(
    small: Callable[[], object],
    big: Callable[[], object],
    repeat: int,
    clock: Callable[[], float] = time.perf_counter,
) -> tuple[float, float]:
    """Best times of two workloads run alternately, so that a change in the machine's load (it is
    shared) falls on both sides of their ratio."""
    t_small, t_big = float("inf"), float("inf")
    for _ in range(repeat):
        t_small = min(t_small, best(small, 1, clock))
        t_big = min(t_big, best(big, 1, clock))
    return t_small, t_big


def run_parser(chunks: Sequence[str], level: str, stream_arguments: bool = False) -> Callable[[], object]:
    def go() -> object:
        parser = StreamParser(level=level, ids=sequential_ids(), stream_arguments=stream_arguments)  # type: ignore[arg-type]
        feed = parser.feed
        for c in chunks:
            feed(c)
        parser.close()
        return parser.result()

    return go


def run_baseline(chunks: Sequence[str]) -> Callable[[], object]:
    def go() -> object:
        b = Baseline()
        return sum(b.feed(c) for c in chunks)

    return go


def baseline_with_budget(chunks: Sequence[str], budget: float) -> tuple[float, bool]:
    """Time the baseline on ``chunks``; past ``budget`` seconds, stop and project the total.

    The baseline's cost per delta grows with the buffer (it re-reads it), so the projection scales
    the time spent on the first ``k`` deltas by ``(n / k) ** 2`` (a lower bound when the rest of the
    buffer is longer). Returns (seconds, projected).
    """
    b = Baseline()
    t0 = time.perf_counter()
    for k, c in enumerate(chunks, 1):
        b.feed(c)
        if k % 256 == 0 and time.perf_counter() - t0 > budget:
            return (time.perf_counter() - t0) * (len(chunks) / k) ** 2, True
    return time.perf_counter() - t0, False


def machine_costs() -> dict[str, float]:
    """Per-trigger and per-construction cost of the ``transitions`` machine vs the derived table."""
    n = 2000
    config = config_of("completion", ("think",))
    t0 = time.perf_counter()
    for _ in range(50):
        build_machine(config)
    construct = (time.perf_counter() - t0) / 50
    _, model = build_machine(config, State.ASSISTANT)
    t0 = time.perf_counter()
    for _ in range(n):
        model.trigger("call_open")  # type: ignore[attr-defined]
        model.trigger("call_close")  # type: ignore[attr-defined]
    trigger = (time.perf_counter() - t0) / (2 * n)
    state = State.ASSISTANT
    table = next_table(config)
    t0 = time.perf_counter()
    for _ in range(n):
        state = table[(state, Marker.CALL_OPEN)]
        state = table[(state, Marker.CALL_CLOSE)]
    lookup = (time.perf_counter() - t0) / (2 * n)
    return {"construct_us": construct * 1e6, "trigger_us": trigger * 1e6, "lookup_us": lookup * 1e6}


def load_revision(rev: str) -> Any:
    """The package ``hermes_toolcall`` of git revision ``rev``, imported beside this tree's as
    ``hermes_toolcall_before`` (bench/parse.py uses it too)."""
    root = Path(__file__).resolve().parent.parent
    target = Path(tempfile.mkdtemp(prefix="hermes-before-"))
    archive = subprocess.run(
        ["git", "-C", str(root), "archive", rev, "src/hermes_toolcall"], check=True, capture_output=True
    )
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive.stdout, check=True)
    package = target / "src" / "hermes_toolcall"
    name = "hermes_toolcall_before"
    spec = importlib.util.spec_from_file_location(
        name, package / "__init__.py", submodule_search_locations=[str(package)]
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def before_after(rev: str, size: int, rep: int) -> None:
    """Time this tree's StreamParser and revision ``rev``'s on the same chunks, alternately (same run)."""
    before = load_revision(rev)
    before_cls, ids_before = before.StreamParser, before.sequential_ids

    def runner(cls: Any, ids: Any, chunks: Sequence[str], level: str, **kw: Any) -> Callable[[], object]:
        def go() -> object:
            parser = cls(level=level, ids=ids(), **kw)
            feed = parser.feed
            for c in chunks:
                feed(c)
            return parser.close()

        return go

    text = mixed_transcript(size)
    print(f"\nbefore ({rev}) / after (this tree), same chunks, run alternately, best of {rep}")
    print("  (wall time, then CPU time of this process: on a shared machine the CPU time is the steadier)")
    cases: list[tuple[str, list[str], str, dict[str, Any]]] = [
        (f"{len(text) / 1e6:.1f} MB transcript, 4-char chunks", chunk(text, 4), "transcript", {}),
        (f"{len(text) / 1e6:.1f} MB transcript, 64-char chunks", chunk(text, 64), "transcript", {}),
        ("100 KB arguments, 4-char chunks", chunk(big_call(100_000), 4), "completion", {}),
        (
            "100 KB arguments, 4-char chunks, stream_arguments",
            chunk(big_call(100_000), 4),
            "completion",
            {"stream_arguments": True},
        ),
    ]
    for label, chunks, level, kw in cases:
        for clock_name, clock in (("wall", time.perf_counter), ("cpu", time.process_time)):
            old, new = best_pair(
                runner(before_cls, ids_before, chunks, level, **kw),
                runner(StreamParser, sequential_ids, chunks, level, **kw),
                rep,
                clock,
            )
            print(
                f"  {label} ({clock_name}): before {old * 1e3:8.1f} ms, after {new * 1e3:8.1f} ms, "
                f"after/before {new / old:.3f}"
            )


def _extract(rev: str) -> Path:
    """Revision ``rev``'s ``src`` folder, extracted into a temporary folder."""
    root = Path(__file__).resolve().parent.parent
    target = Path(tempfile.mkdtemp(prefix="hermes-before-"))
    archive = subprocess.run(
        ["git", "-C", str(root), "archive", rev, "src/hermes_toolcall"], check=True, capture_output=True
    )
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive.stdout, check=True)
    return target / "src"


def _rss_of(src: Path, path: Path) -> float:
    """Peak RSS (MB) of ``stream --format openai`` on ``path`` with the package in ``src``."""
    import os

    env = {**os.environ, "PYTHONPATH": str(src)}
    argv = [sys.executable, "-m", "hermes_toolcall", "stream", str(path), "--format", "openai", "--sequential-ids"]
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    assert status == 0, f"{argv} failed"
    return usage.ru_maxrss / 1024


def openai_memory(counts: Sequence[int], before: str | None) -> None:
    """Peak RSS of ``stream --format openai`` on call-dense completions of ``counts`` calls."""
    folder = Path(tempfile.mkdtemp())
    trees = [("this tree", Path(__file__).resolve().parent.parent / "src")]
    if before:
        trees.insert(0, (f"before ({before})", _extract(before)))
    print("stream --format openai, peak RSS (MB, best of two, fresh processes)")
    print("| calls | input, MB | " + " | ".join(label for label, _ in trees) + " |")
    print("|---|---|" + "---|" * len(trees))
    for n in counts:
        path = folder / f"calls-{n}.txt"
        with open(path, "w", encoding="utf-8") as fh:
            for piece in call_dense_chunks(n * 110, chunk_size=1 << 16):
                fh.write(piece)
        peaks: dict[str, list[float]] = {label: [] for label, _ in trees}
        for _ in range(2):
            for label, src in trees:
                peaks[label].append(_rss_of(src, path))
        cells = " | ".join(f"{min(peaks[label]):.0f}" for label, _ in trees)
        print(f"| {n:,} | {path.stat().st_size / 1e6:.1f} | {cells} |")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--openai-memory", metavar="N,M", help="stream --format openai memory at these call counts")
    ap.add_argument("--quick", action="store_true", help="smaller inputs")
    ap.add_argument("--repeat", type=int, default=5, help="runs per measurement (the best is kept)")
    ap.add_argument("--budget", type=float, default=10.0, help="seconds before a baseline run is projected")
    ap.add_argument("--memory", default="", help="stream sizes in MB for the memory runs (default 10,50; quick 1,5)")
    ap.add_argument("--memory-only", action="store_true", help="only the memory runs")
    ap.add_argument("--no-memory", action="store_true", help="skip the memory runs")
    ap.add_argument("--before", metavar="REV", help="only compare this tree's speed with git revision REV's")
    args = ap.parse_args()
    size = 100_000 if args.quick else 1_000_000
    rep = args.repeat
    if args.openai_memory:
        openai_memory([int(x) for x in args.openai_memory.split(",")], args.before)
        return 0
    if args.before:
        before_after(args.before, size, rep)
        return 0
    if not args.no_memory:
        mbs = [float(x) for x in (args.memory or ("1,5" if args.quick else "10,50")).split(",")]
        memory([int(mb * 1_000_000) for mb in mbs], 1_000_000 if args.quick else 10_000_000)
    if args.memory_only:
        return 0

    costs = machine_costs()
    print(
        f"transitions: construct {costs['construct_us']:.0f} µs, trigger {costs['trigger_us']:.2f} µs; "
        f"derived table lookup {costs['lookup_us']:.3f} µs"
    )

    text = mixed_transcript(size)
    print(f"\nmixed transcript: {len(text):,} chars")
    for csize in (4, 64):
        chunks = chunk(text, csize)
        ours = best(run_parser(chunks, "transcript"), rep)
        base = best(run_baseline(chunks), 1)
        print(
            f"  {csize:>2}-char chunks ({len(chunks):,}): StreamParser {ours * 1e3:8.1f} ms "
            f"({ours / len(chunks) * 1e6:.2f} µs/chunk)   baseline {base * 1e3:9.1f} ms   ratio {base / ours:6.1f}x"
        )

    small = mixed_transcript(size // 10)
    t_small, t_big = best_pair(run_parser(chunk(small, 4), "transcript"), run_parser(chunk(text, 4), "transcript"), rep)
    print(
        f"  linearity: {len(small):,} chars {t_small * 1e3:.1f} ms, {len(text):,} chars {t_big * 1e3:.1f} ms: "
        f"{len(text) / len(small):.1f}x input -> {t_big / t_small:.2f}x time"
    )

    print("\none call, 4-char chunks")
    calls = {arg_chars: chunk(big_call(arg_chars), 4) for arg_chars in (10_000, 100_000)}
    times = {}
    for sa in (False, True):
        small_run, big_run = (run_parser(calls[n], "completion", stream_arguments=sa) for n in (10_000, 100_000))
        times[(10_000, sa)], times[(100_000, sa)] = best_pair(small_run, big_run, rep)
    for arg_chars, chunks in calls.items():
        base, projected = baseline_with_budget(chunks, args.budget)
        mark = " (projected)" if projected else ""
        print(
            f"  {arg_chars // 1000:>3} KB arguments ({len(chunks):,} chunks): "
            f"StreamParser {times[(arg_chars, False)] * 1e3:7.1f} ms, "
            f"with stream_arguments {times[(arg_chars, True)] * 1e3:7.1f} ms   "
            f"baseline {base * 1e3:9.0f} ms{mark}   ratio {base / times[(arg_chars, True)]:6.0f}x"
        )
    print(
        f"  linearity: 10x arguments -> {times[(100_000, False)] / times[(10_000, False)]:.2f}x time "
        f"({times[(100_000, True)] / times[(10_000, True)]:.2f}x with stream_arguments)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
