"""Dataset validation throughput: records per second, against the parse-only rate in the same run.

Usage: ``.venv/bin/python bench/validate.py [--records 100000] [--jobs 0]``

A deterministic JSONL dataset is generated in a temporary directory: 70 % OpenAI chat records
(``messages`` + ``tools``; calls with JSON-string arguments, results, some reasoning) and 30 % ShareGPT
records (wire text: ``<tool_call>``/``<tool_response>`` in the values, tools as a JSON string), with
one record in twenty carrying a defect. Measured in the same process, on the same file:

* **parse only**: read the file line by line, decode each record, parse its wire text into the
  conversation view (everything ``validate`` does before its checks);
* **validate, --jobs 1**: ``runner.run`` with one process (every check, positions of findings);
* **validate, all cores**: ``runner.run`` with a process pool over record batches (``--jobs 0``).

``cpu/wall`` is the CPU time used (this process and the pool workers) over the wall time: near the
number of processes when the cores were free, lower when other work held them.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import tempfile
import time
from pathlib import Path
from typing import Any

from hermes_toolcall import jsonio
from hermes_toolcall.validate.build import from_openai, from_sharegpt
from hermes_toolcall.validate.datasets import iter_records
from hermes_toolcall.validate.runner import Options, run

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Weather for a city.",
            "parameters": {
                "type": "object",
                "properties": {
                    "city": {"type": "string"},
                    "days": {"type": "integer", "minimum": 1},
                    "unit": {"enum": ["celsius", "fahrenheit"]},
                },
                "required": ["city"],
                "additionalProperties": False,
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "search_files",
            "description": "Search files.",
            "parameters": {
                "type": "object",
                "properties": {
                    "pattern": {"type": "string"},
                    "limit": {"type": "integer"},
                    "paths": {"type": "array", "items": {"type": "string"}},
                },
                "required": ["pattern"],
            },
        },
    },
]
CITIES = ["Paris", "Zürich", "東京", "New York", "AT&T Park", "Lima"]


def _call(rng: random.Random, bad: bool) -> tuple[str, dict[str, Any]]:
    if rng.random() < 0.5:
        args: dict[str, Any] = {"city": rng.choice(CITIES), "days": rng.randint(1, 7), "unit": "celsius"}
        if bad:
            args["days"] = True
        return "get_weather", args
    args = {"pattern": "*.py", "limit": rng.randint(1, 50), "paths": ["src", "tests"]}
    if bad:
        args["limit"] = "ten"
    return "search_files", args


def _openai(rng: random.Random, bad: bool) -> dict[str, Any]:
    name, args = _call(rng, bad)
    msgs: list[dict[str, Any]] = [
        {"role": "system", "content": "You are a helpful assistant."},
        {"role": "user", "content": f"Please check {args.get('city', 'the files')} for me, a < b & c."},
        {
            "role": "assistant",
            "content": None,
            "reasoning_content": "I should call a tool.",
            "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": json.dumps({"result": "ok", "items": [1, 2, 3]})},
        {"role": "assistant", "content": "Here is what I found: everything is fine."},
    ]
    return {"messages": msgs, "tools": TOOLS}


def _sharegpt(rng: random.Random, bad: bool) -> dict[str, Any]:
    name, args = _call(rng, bad)
    block = "<tools>\n" + "\n".join(json.dumps(t) for t in TOOLS) + "\n</tools>"
    call = "<tool_call>\n" + json.dumps({"name": name, "arguments": args}) + "\n</tool_call>"
    result = "<tool_response>\n" + json.dumps({"name": name, "content": {"ok": True}}) + "\n</tool_response>"
    turns = [
        {"from": "system", "value": f"You are a function calling AI model. Signatures: {block}"},
        {"from": "human", "value": "Can you look this up?"},
        {"from": "gpt", "value": "<think>\nLet me call the tool.\n</think>\n" + call},
        {"from": "tool", "value": result},
        {"from": "gpt", "value": "Done: all good."},
    ]
    return {"conversations": turns, "tools": json.dumps(TOOLS)}


def make_dataset(path: Path, n: int) -> None:
    """Write ``n`` records to ``path`` (deterministic)."""
    rng = random.Random(6)
    with open(path, "w", encoding="utf-8") as fh:
        for i in range(n):
            bad = i % 20 == 7
            record = _sharegpt(rng, bad) if rng.random() < 0.3 else _openai(rng, bad)
            fh.write(json.dumps(record, ensure_ascii=False) + "\n")


def parse_only(path: Path) -> int:
    """Read, decode and parse every record into the conversation view; returns the record count."""
    n = 0
    for raw in iter_records(path):
        data = jsonio.loads(raw.text)
        if "messages" in data:
            from_openai(data["messages"], dialect="hermes", path=("messages",))
        else:
            from_sharegpt(data["conversations"], dialect="hermes", path=("conversations",))
        n += 1
    return n


def validate(path: Path, jobs: int) -> tuple[int, int]:
    """Validate every record; returns (records, findings)."""
    records = findings = 0
    for result in run(iter_records(path), Options(), jobs=jobs):
        records += 1
        findings += len(result.findings)
    return records, findings


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--records", type=int, default=100_000)
    ap.add_argument("--jobs", type=int, default=0, help="pool size for the parallel run (0 = all cores)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.jsonl"
        make_dataset(path, args.records)
        size = path.stat().st_size
        print(f"dataset: {args.records} records, {size / 1e6:.1f} MB; cores: {os.cpu_count()}")
        print(f"load average before the run: {os.getloadavg()[0]:.1f} (cores busy with other work slow every figure)")
        t, cpu = time.perf_counter(), _cpu()
        n = parse_only(path)
        wall = time.perf_counter() - t
        base = n / wall
        print(f"parse only            : {base:8.0f} records/s  (1.00x)          cpu/wall {(_cpu() - cpu) / wall:.2f}")
        for label, jobs in (("validate, --jobs 1", 1), (f"validate, --jobs {args.jobs}", args.jobs)):
            t, cpu = time.perf_counter(), _cpu()
            n, found = validate(path, jobs)
            wall = time.perf_counter() - t
            rate = n / wall
            print(
                f"{label:22s}: {rate:8.0f} records/s  ({rate / base:.2f}x parse only)  cpu/wall "
                f"{(_cpu() - cpu) / wall:.2f}; {found} findings"
            )


def _cpu() -> float:
    """CPU seconds of this process and its finished children (the pool workers)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


if __name__ == "__main__":
    main()
