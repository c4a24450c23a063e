"""OpenAIChunker's cost per argument delta, and whether it stays linear in a call's length.

    .venv/bin/python bench/chunker.py

The events are produced once (``StreamParser(stream_arguments=True)``, 4-character chunks), then only the
eager chunker is timed on them (best of 7): a call of 10 KB and one of 100 KB of arguments. Its chunks
are counted and dropped, as a server sends them (a list holding them all would time the garbage
collector walking it). Linear growth means the 100 KB run costs about 10x the 10 KB one.
"""

from __future__ import annotations

import time

import hermes_toolcall as ht
from hermes_toolcall._events import Event


def events_of(size: int) -> list[list[Event]]:
    """The events of one call with ``size`` characters of string arguments, fed in 4-character chunks."""
    text = '<tool_call>{"name": "f", "arguments": {"a": "' + "x" * size + '"}}</tool_call>'
    parser = ht.StreamParser(stream_arguments=True, ids=ht.sequential_ids())
    return [parser.feed(text[i : i + 4]) for i in range(0, len(text), 4)] + [parser.close()]


def best_of(events: list[list[Event]], repeat: int = 7) -> float:
    """Best wall time of the eager chunker over ``events``."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        chunker = ht.OpenAIChunker(eager=True)
        sent = len(chunker.start())
        for batch in events:
            sent += len(chunker.feed(batch))  # sent and dropped, as a server does
        sent += len(chunker.finish())
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    times = {}
    for size in (10_000, 100_000):
        events = events_of(size)
        times[size] = best_of(events)
        deltas = sum(len(b) for b in events)
        per = times[size] / deltas * 1e6
        print(f"{size // 1000:>4} KB arguments: {times[size] * 1e3:7.1f} ms, {per:5.2f} µs per event")
    print(f"100 KB / 10 KB: {times[100_000] / times[10_000]:.1f}x (linear: about 10x)")


if __name__ == "__main__":
    main()
