"""Rendering speed: hermes-toolcall against the Jinja oracle (the transformers set-up), in one process.

Both renderers get the same conversations; the template is compiled once (as transformers caches it),
so the ratio compares rendering only. Usage: ``python bench/render.py [--repeat N]``.
"""

from __future__ import annotations

import argparse
import copy
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hermes_toolcall import render
from hermes_toolcall.jsonio import loads
from hermes_toolcall.profiles import DIALECTS
from hermes_toolcall.render.oracle import oracle_render, template_path

REPO = Path(__file__).resolve().parent.parent
DIALECT_NAMES = ["hermes", "hermes-vllm", "qwen3", "qwen2.5", "qwq"]


def conversations() -> list[tuple[list[dict[str, Any]], list[dict[str, Any]]]]:
    """The reference conversation, and longer agent loops built from it (deterministic)."""
    req = loads((REPO / "examples" / "request.json").read_text(encoding="utf-8"))
    rng = random.Random(7)
    out = [(req["messages"], req["tools"])]
    for turns in (3, 10, 30):
        msgs = [copy.deepcopy(req["messages"][0])]
        for k in range(turns):
            msgs.append({"role": "user", "content": f"Question {k}: " + "é" * rng.randint(5, 80)})
            calls = rng.randint(0, 3)
            if calls:
                msgs.append({"role": "assistant", "content": "Let me check.", "reasoning_content": "plan " * 5,
                             "tool_calls": [{"id": f"c{k}_{i}", "type": "function", "function": {
                                 "name": "get_weather", "arguments": {"location": "Paris", "unit": "celsius"}}}
                                 for i in range(calls)]})
                msgs.extend({"role": "tool", "tool_call_id": f"c{k}_{i}", "content": '{"temperature": 18}'}
                            for i in range(calls))
            msgs.append({"role": "assistant", "content": "Answer " * rng.randint(5, 40)})
        out.append((msgs, req["tools"]))
    return out


def _time(fn: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(3):
        start = time.process_time()
        for _ in range(repeat):
            fn()
        best = min(best, time.process_time() - start)
    return best


def main(argv: list[str] | None = None) -> int:
    """Print, per dialect, the time per conversation set of both renderers and the ratio."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=50)
    args = parser.parse_args(argv)
    convs = conversations()
    print(f"{len(convs)} conversations ({', '.join(str(len(m)) for m, _ in convs)} messages), "
          f"best of 3 x {args.repeat} renders of the set (CPU time), Python {sys.version.split()[0]}")
    print(f"{'dialect':<12} {'jinja ms':>10} {'ours ms':>10} {'ratio':>8}")
    ratios = []
    for name in DIALECT_NAMES:
        profile = DIALECTS[name]
        assert profile.template is not None
        source = template_path(profile.template).read_text(encoding="utf-8")
        tokens: dict[str, Any] = {"bos_token": "<|begin_of_text|>"} if profile.bos else {}
        for msgs, tools in convs:  # same bytes, or the comparison is meaningless
            assert render(msgs, tools=tools, dialect=name, add_generation_prompt=True, **tokens) == oracle_render(
                source, msgs, tools, True, tokens)

        def ours(name: str = name, tokens: dict[str, Any] = tokens) -> None:
            for msgs, tools in convs:
                render(msgs, tools=tools, dialect=name, add_generation_prompt=True, **tokens)

        def jinja(source: str = source, tokens: dict[str, Any] = tokens) -> None:
            for msgs, tools in convs:
                oracle_render(source, msgs, tools, True, tokens)

        t_jinja = _time(jinja, args.repeat) / args.repeat * 1000
        t_ours = _time(ours, args.repeat) / args.repeat * 1000
        ratios.append(t_jinja / t_ours)
        print(f"{name:<12} {t_jinja:>10.3f} {t_ours:>10.3f} {t_jinja / t_ours:>7.1f}x")
    print(f"geometric mean ratio: {_geomean(ratios):.1f}x")
    return 0


def _geomean(values: list[float]) -> float:
    product = 1.0
    for v in values:
        product *= v
    return float(product ** (1 / len(values)))


if __name__ == "__main__":
    raise SystemExit(main())
