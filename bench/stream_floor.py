"""How far ``stream_arguments=True`` can come to the default mode: the per-delta floor, measured.

    python bench/stream_floor.py            # 100 KB of arguments in 4-character deltas, best of 9 rounds

Per delta of a long call's arguments the default mode only appends the delta to the deferred body;
with ``stream_arguments=True`` each delta also becomes one ``ArgumentsDelta`` event (a frozen,
slotted dataclass) in the list ``feed`` returns. Rows (thread time, alternated rounds, one process):

- the engine in its default mode and with ``stream_arguments=True``;
- one ``ArgumentsDelta`` per delta built the fastest way (``object.__new__`` and its slots set
  directly) in a one-element list, alone, inline in a loop;
- the floor: the default mode plus those events, what any event-per-delta design costs with no
  tracking of the JSON structure at all.

The floor's ratio to the default mode bounds what ``stream_arguments=True`` can reach.
"""

from __future__ import annotations

import gc
import math
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from serving import deltas, one_call

from hermes_toolcall.statemachine import ArgumentsDelta, StreamParser

_new = object.__new__
_SETS = tuple(ArgumentsDelta.__dict__[name].__set__ for name in ("ordinal", "id", "text"))


def events_alone(pieces: list[str]) -> float:
    """Thread time of one ``ArgumentsDelta`` and its one-element list per delta, built inline in the loop
    (no call), less the same loop doing nothing."""
    set_ordinal, set_id, set_text = _SETS
    gc.collect()
    gc.disable()
    try:
        start = time.thread_time()
        for piece in pieces:
            delta = _new(ArgumentsDelta)
            set_ordinal(delta, 0)
            set_id(delta, "call_0")
            set_text(delta, piece)
            out = [delta]
        built = time.thread_time() - start
        start = time.thread_time()
        for piece in pieces:
            out = [piece]  # noqa: F841
        empty = time.thread_time() - start
    finally:
        gc.enable()
    return built - empty


def timed(pieces: list[str], feed: Callable[[str], object]) -> float:
    gc.collect()
    gc.disable()
    try:
        start = time.thread_time()
        for piece in pieces:
            feed(piece)
        return time.thread_time() - start
    finally:
        gc.enable()


def main() -> None:
    pieces = deltas(one_call(100_000))
    best = {"default": math.inf, "stream": math.inf, "events": math.inf}
    for _ in range(9):
        best["default"] = min(best["default"], timed(pieces, StreamParser().feed))
        best["stream"] = min(best["stream"], timed(pieces, StreamParser(stream_arguments=True).feed))
        best["events"] = min(best["events"], events_alone(pieces))
    n, base = len(pieces), best["default"]
    rows = [
        ("engine, default", base),
        ("engine, stream_arguments=True", best["stream"]),
        ("one ArgumentsDelta and its list per delta, alone", best["events"]),
        ("floor: default + the events, no tracking of the JSON", base + best["events"]),
    ]
    print(f"100 KB of arguments, {n} deltas of 4 characters (thread time, best of 9)\n")
    print("| feed | total | per delta | / default |")
    print("|---|---|---|---|")
    for label, seconds in rows:
        print(f"| {label} | {seconds * 1e3:.2f} ms | {seconds / n * 1e9:.0f} ns | {seconds / base:.2f}x |")


if __name__ == "__main__":
    main()
