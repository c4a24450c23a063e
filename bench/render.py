"""Rendering speed: hermes-toolcall against the Jinja oracle (the transformers set-up), in one process.

Both renderers get the same conversations; the template is compiled once (as transformers caches it),
so the ratio compares rendering only. The injection guard's cost is measured in the same run: ours with
the guard (the default) against ours with ``allow_injection=True`` (no check at all), rounds interleaved.
``--baseline REV`` also loads the renderer of git revision REV (``git archive``, imported under another package
name) and times it in the same process, interleaved with ours: the before/after of a change.
Usage: ``python bench/render.py [--repeat N] [--baseline REV]``.
"""

from __future__ import annotations

import argparse
import copy
import importlib.util
import io
import random
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hermes_toolcall import render
from hermes_toolcall._jsonio import loads
from hermes_toolcall._profiles import DIALECTS
from hermes_toolcall.render._oracle import oracle_render, template_path

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


def _interleaved(fns: list[Callable[[], object]], repeat: int, rounds: int = 7) -> list[float]:
    """Best CPU time of ``repeat`` calls of each, over ``rounds`` alternating rounds (host speed drifts alike)."""
    best = [float("inf")] * len(fns)
    for _ in range(rounds):
        for k, fn in enumerate(fns):
            start = time.process_time()
            for _ in range(repeat):
                fn()
            best[k] = min(best[k], time.process_time() - start)
    return best


def load_baseline(rev: str) -> Any:
    """The ``render`` function of git revision ``rev`` of this repository, imported as ``hermes_toolcall_baseline``."""
    archive = subprocess.run(["git", "-C", str(REPO), "archive", rev, "src/hermes_toolcall"], check=True,
                             capture_output=True).stdout
    folder = Path(tempfile.mkdtemp(prefix="render-baseline-"))
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(folder, filter="data")
    package = folder / "src" / "hermes_toolcall"
    spec = importlib.util.spec_from_file_location("hermes_toolcall_baseline", package / "__init__.py",
                                                  submodule_search_locations=[str(package)])
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module.render


def main(argv: list[str] | None = None) -> int:
    """Print, per dialect, the time per conversation set of both renderers and the ratio."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=7, help="interleaved rounds of the guard/baseline timing")
    parser.add_argument("--baseline", metavar="REV", default=None,
                        help="also time the renderer of this git revision, in the same process (before/after)")
    args = parser.parse_args(argv)
    baseline = load_baseline(args.baseline) if args.baseline else None
    convs = conversations()
    print(f"{len(convs)} conversations ({', '.join(str(len(m)) for m, _ in convs)} messages), "
          f"best of 3 x {args.repeat} renders of the set (CPU time), Python {sys.version.split()[0]}")
    before = f" {args.baseline + ' ms':>12} {'change':>8}" if baseline else ""
    print(f"{'dialect':<12} {'jinja ms':>10} {'ours ms':>10} {'ratio':>8} {'no guard ms':>12} {'guard cost':>11}"
          + before)
    ratios = []
    costs = []
    changes = []
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

        def unguarded(name: str = name, tokens: dict[str, Any] = tokens) -> None:
            for msgs, tools in convs:
                render(msgs, tools=tools, dialect=name, add_generation_prompt=True, allow_injection=True, **tokens)

        def jinja(source: str = source, tokens: dict[str, Any] = tokens) -> None:
            for msgs, tools in convs:
                oracle_render(source, msgs, tools, True, tokens)

        def old(name: str = name, tokens: dict[str, Any] = tokens) -> None:
            assert baseline is not None
            for msgs, tools in convs:
                baseline(msgs, tools=tools, dialect=name, add_generation_prompt=True, **tokens)

        t_jinja = _time(jinja, args.repeat) / args.repeat * 1000
        fns: list[Callable[[], object]] = [ours, unguarded, old] if baseline else [ours, unguarded]
        t_ours, t_bare, *t_old = (t / args.repeat * 1000 for t in _interleaved(fns, args.repeat, args.rounds))
        ratios.append(t_jinja / t_ours)
        costs.append(t_ours / t_bare)
        line = (f"{name:<12} {t_jinja:>10.3f} {t_ours:>10.3f} {t_jinja / t_ours:>7.1f}x {t_bare:>12.3f} "
                f"{(t_ours / t_bare - 1) * 100:>+10.1f}%")
        if t_old:
            changes.append(t_ours / t_old[0])
            line += f" {t_old[0]:>12.3f} {(t_ours / t_old[0] - 1) * 100:>+7.1f}%"
        print(line)
    summary = (f"geometric mean ratio: {_geomean(ratios):.1f}x; guard cost (geometric mean): "
               f"{(_geomean(costs) - 1) * 100:+.1f}%")
    if changes:
        summary += f"; change against {args.baseline}: {(_geomean(changes) - 1) * 100:+.1f}%"
    print(summary)
    return 0


def _geomean(values: list[float]) -> float:
    product = 1.0
    for v in values:
        product *= v
    return float(product ** (1 / len(values)))


if __name__ == "__main__":
    raise SystemExit(main())
