"""Rendering speed: hermes-toolcall against the Jinja oracle (the transformers set-up), in one process.

Both renderers get the same conversations; the template is compiled once (as transformers caches it),
so the ratio compares rendering only. The injection guard's cost is measured in the same run: ours with
the guard (the default) against ours with ``allow_injection=True`` (no check at all), rounds interleaved.
``--baseline REV`` also loads the renderer of git revision REV (``git archive``, imported under another package
name) and times it in the same process, interleaved with ours: the before/after of a change.
``--set`` picks the conversations: ``reference`` (the example request and agent loops built from it, one
shared tool set), ``small`` (1,000 random conversations of 2-6 messages, each with its own 1-3 tools, a ``<``
in about a third of them) and ``large`` (50 random conversations of 100-300 messages, each with its own
tools, ``<`` here and there): issue 24's workloads. Every set is rendered byte-identical to Jinja first.
The ``floor`` column is the least work any renderer of these conversations does in Python, timed in the
same rounds: each tool and each call's arguments written as JSON by orjson (compact: no spacing), each
message's text joined with constant headers, one join per conversation; ``ceiling`` is Jinja's time over
it, the ratio no renderer doing at least that work can pass.
Usage: ``python bench/render.py [--repeat N] [--baseline REV] [--set reference,small,large]``.
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

import orjson

from hermes_toolcall import render
from hermes_toolcall._jsonio import loads
from hermes_toolcall._profiles import DIALECTS
from hermes_toolcall.render._oracle import oracle_render, template_path

REPO = Path(__file__).resolve().parent.parent
DIALECT_NAMES = ["hermes", "hermes-vllm", "qwen3", "qwen2.5", "qwq", "qwen3-coder", "qwen3.5", "nemotron-3",
                 "step-3.5"]


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


_LT_TEXTS = ("if a < b then", "x<y", "use <div> here", "1 <= 2", "a <b> c", "<<", "i<3")


def _random_tools(rng: random.Random) -> list[dict[str, Any]]:
    tools = []
    for k in range(rng.randint(1, 3)):
        props = {f"p{j}": {"type": rng.choice(["string", "integer", "number", "boolean"]),
                           "description": f"parameter {j} of tool {k}"} for j in range(rng.randint(0, 3))}
        tools.append({"type": "function", "function": {
            "name": f"tool_{rng.randrange(10**6)}_{k}", "description": "Does " + " ".join(
                rng.choice(("the", "a", "file", "city", "search", "weather")) for _ in range(rng.randint(2, 12))),
            "parameters": {"type": "object", "properties": props, "required": list(props)[:1]}}})
    return tools


def _text(rng: random.Random, lt: float) -> str:
    words = " ".join(rng.choice(("hello", "please", "check", "the", "files", "é", "東京", "now")) for _ in
                     range(rng.randint(3, 40)))
    return words + " " + rng.choice(_LT_TEXTS) if rng.random() < lt else words


def random_conversation(rng: random.Random, size: int, lt: float) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """A system message, then user / assistant (calls) / tool turns up to ``size`` messages, its own tools;
    each text holds a ``<`` with probability ``lt``."""
    tools = _random_tools(rng)
    msgs: list[dict[str, Any]] = [{"role": "system", "content": "You are helpful. " + _text(rng, 0)}]
    while len(msgs) < size:
        msgs.append({"role": "user", "content": _text(rng, lt)})
        if len(msgs) < size - 1 and rng.random() < 0.5:
            calls = [{"id": f"c{len(msgs)}_{i}", "type": "function", "function": {
                "name": rng.choice(tools)["function"]["name"], "arguments": {"q": _text(rng, 0), "n": i}}}
                for i in range(rng.randint(1, 2))]
            msgs.append({"role": "assistant", "content": "", "tool_calls": calls})
            msgs.extend({"role": "tool", "tool_call_id": c["id"], "content": '{"ok": true, "text": "done"}'}
                        for c in calls)
        msgs.append({"role": "assistant", "content": _text(rng, lt)})
    return msgs[:size], tools


SETS: dict[str, Callable[[], list[tuple[list[dict[str, Any]], list[dict[str, Any]]]]]] = {
    "reference": conversations,
    "small": lambda: [random_conversation(rng, rng.randint(2, 6), 0.1) for rng in [random.Random(24)]
                      for _ in range(1000)],
    "large": lambda: [random_conversation(rng, rng.randint(100, 300), 0.02) for rng in [random.Random(25)]
                      for _ in range(50)],
}


def _floor(convs: list[tuple[list[dict[str, Any]], list[dict[str, Any]]]]) -> None:
    """The least work of a render (see the module docstring): no checks, no template logic."""
    for msgs, tools in convs:
        out = ["<|im_start|>system\n# Tools\n<tools>"]
        out.extend([orjson.dumps(t).decode() for t in tools])
        out.append("</tools><|im_end|>\n")
        for m in msgs:
            content = m.get("content")
            out.append("<|im_start|>" + m["role"] + "\n" + (content if type(content) is str else ""))
            for call in m.get("tool_calls") or ():
                out.append("<tool_call>\n" + orjson.dumps(call["function"]).decode() + "\n</tool_call>")
            out.append("<|im_end|>\n")
        out.append("<|im_start|>assistant\n")
        "".join(out)


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
    parser.add_argument("--set", default="reference", help="comma-separated: " + ", ".join(SETS))
    args = parser.parse_args(argv)
    baseline = load_baseline(args.baseline) if args.baseline else None
    for set_name in args.set.split(","):
        _run_set(set_name, SETS[set_name](), args.repeat, args.rounds, baseline, args.baseline)
    return 0


def _run_set(set_name: str, convs: list[tuple[list[dict[str, Any]], list[dict[str, Any]]]], repeat: int, rounds: int,
             baseline: Any, rev: str | None) -> None:
    sizes = sorted(len(m) for m, _ in convs)
    shown = ", ".join(map(str, sizes)) if len(sizes) <= 6 else f"{sizes[0]}-{sizes[-1]}"
    with_lt = sum(any("<" in str(m.get("content")) for m in msgs) for msgs, _ in convs)
    print(f"\n[{set_name}] {len(convs)} conversations ({shown} messages; {with_lt} with a '<' in a text), "
          f"best of {rounds} x {repeat} renders of the set (CPU time), Python {sys.version.split()[0]}")
    before = f" {rev + ' ms':>12} {'change':>8}" if baseline else ""
    print(f"{'dialect':<12} {'jinja ms':>10} {'ours ms':>10} {'ratio':>8} {'no guard ms':>12} {'guard cost':>11}"
          f" {'floor ms':>9} {'ceiling':>8}" + before)
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

        def floor() -> None:
            _floor(convs)

        fns: list[Callable[[], object]] = [jinja, ours, unguarded, floor]
        if baseline:
            fns.append(old)
        t_jinja, t_ours, t_bare, t_floor, *t_old = (t / repeat * 1000 for t in _interleaved(fns, repeat, rounds))
        ratios.append(t_jinja / t_ours)
        costs.append(t_ours / t_bare)
        line = (f"{name:<12} {t_jinja:>10.3f} {t_ours:>10.3f} {t_jinja / t_ours:>7.1f}x {t_bare:>12.3f} "
                f"{(t_ours / t_bare - 1) * 100:>+10.1f}% {t_floor:>9.3f} {t_jinja / t_floor:>7.1f}x")
        if t_old:
            changes.append(t_ours / t_old[0])
            line += f" {t_old[0]:>12.3f} {(t_ours / t_old[0] - 1) * 100:>+7.1f}%"
        print(line, flush=True)
    summary = (f"geometric mean ratio: {_geomean(ratios):.1f}x (lowest {min(ratios):.1f}x); guard cost (geometric "
               f"mean): {(_geomean(costs) - 1) * 100:+.1f}%")
    if changes:
        summary += f"; change against {rev}: {(_geomean(changes) - 1) * 100:+.1f}%"
    print(summary)


def _geomean(values: list[float]) -> float:
    product = 1.0
    for v in values:
        product *= v
    return float(product ** (1 / len(values)))


if __name__ == "__main__":
    raise SystemExit(main())
