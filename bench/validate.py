"""Dataset validation throughput: records per second, against the parse-only rate in the same run.

Usage: ``.venv/bin/python bench/validate.py [--records 100000] [--jobs 0]``

A deterministic JSONL dataset is generated in a temporary directory: 70 % OpenAI chat records
(``messages`` + ``tools``; calls with JSON-string arguments, results, some reasoning) and 30 % ShareGPT
records (wire text: ``<tool_call>``/``<tool_response>`` in the values, tools as a JSON string), with
one record in twenty carrying a defect. Measured in the same process, on the same file:

* **parse only**: read the file line by line, decode each record, parse its wire text into the
  conversation view (everything ``validate`` does before its checks);
* **validate, --jobs 1**: ``runner.run`` with one process (every check, positions of findings);
* **validate, all cores**: ``runner.run`` with a process pool over record batches (``--jobs 0``);
* **floor**: the least a validator of these records does, a bare loop over the same file: each line
  decoded by ``orjson``, each call's arguments (an OpenAI call's JSON string, or the JSON of a
  ``<tool_call>`` block that a regular expression finds in a ShareGPT value) decoded and checked by
  ``jsonschema-rs`` against its tool's schema, compiled once per tool set (``orjson + jsonschema-rs``);
  and the same loop checking with ``jsonschema`` (``orjson + jsonschema``). No other check, no position;
* **structural floor**: the floor loop plus the least of the other checks ``validate`` makes, in a
  bare loop without positions or a view: each message's role known and in order, each result paired
  with a pending call (by id; a ShareGPT result by the name its ``<tool_response>`` body gives), every
  string scanned with ``in`` for ``<|im_``, ``</tool_response>`` and the reasoning tags (a ShareGPT
  value, whose tags are its structure, for ``<|im_`` only): the measured lower bound of a validator
  making these checks in Python (``orjson + jsonschema-rs + structure``).

``cpu/wall`` is the CPU time used (this process and the pool workers) over the wall time: near the
number of processes when the cores were free, lower when other work held them.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from hermes_toolcall import _jsonio as jsonio
from hermes_toolcall.validate._build import from_openai, from_sharegpt
from hermes_toolcall.validate._datasets import iter_records
from hermes_toolcall.validate._runner import Options, run

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


def make_dataset(path: Path, n: int, *, sharegpt: bool = True) -> None:
    """Write ``n`` records to ``path`` (deterministic; OpenAI records only when ``sharegpt`` is False)."""
    rng = random.Random(6)
    with open(path, "w", encoding="utf-8") as fh:
        for i in range(n):
            bad = i % 20 == 7
            record = _sharegpt(rng, bad) if sharegpt and rng.random() < 0.3 else _openai(rng, bad)
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


_CALL_BLOCK = re.compile(r"<tool_call>(.*?)</tool_call>", re.S)


def floor(path: Path, rs: bool = True) -> tuple[int, int]:
    """The bare loop (see the module docstring); returns (records, invalid calls)."""
    import jsonschema
    import jsonschema_rs
    import orjson

    compiled: dict[Any, dict[str, Any]] = {}
    records = invalid = 0

    def checkers(tools: Any) -> dict[str, Any]:
        key = tools if isinstance(tools, str) else orjson.dumps(tools)
        found = compiled.get(key)
        if found is None:
            listed = orjson.loads(tools) if isinstance(tools, str) else tools
            make = jsonschema_rs.validator_for if rs else jsonschema.Draft202012Validator
            found = compiled[key] = {t["function"]["name"]: make(t["function"]["parameters"]) for t in listed}
        return found

    with open(path, "rb") as fh:
        for line in fh:
            record = orjson.loads(line)
            records += 1
            check = checkers(record.get("tools"))
            if "messages" in record:
                for m in record["messages"]:
                    for call in m.get("tool_calls") or ():
                        fn = call["function"]
                        invalid += not check[fn["name"]].is_valid(orjson.loads(fn["arguments"]))
            else:
                for turn in record["conversations"]:
                    for body in _CALL_BLOCK.findall(turn["value"]):
                        call = orjson.loads(body)
                        invalid += not check[call["name"]].is_valid(call["arguments"])
    return records, invalid


_RESULT_BLOCK = re.compile(r"<tool_response>(.*?)</tool_response>", re.S)
_ROLES = {"system": 0, "developer": 0, "user": 1, "assistant": 2, "tool": 3, "function": 3}
_SENDERS = {"system": "system", "human": "user", "gpt": "assistant", "tool": "tool"}
_MARKERS = ("<|im_", "</tool_response>", "<think>", "</think>", "<scratch_pad>", "</scratch_pad>")


def structural_floor(path: Path) -> tuple[int, int]:
    """``floor`` plus the structure checks, bare (see the module docstring); returns (records, problems)."""
    import jsonschema_rs
    import orjson

    compiled: dict[Any, dict[str, Any]] = {}
    records = problems = 0

    def checkers(tools: Any) -> dict[str, Any]:
        key = tools if isinstance(tools, str) else orjson.dumps(tools)
        found = compiled.get(key)
        if found is None:
            listed = orjson.loads(tools) if isinstance(tools, str) else tools
            found = compiled[key] = {
                t["function"]["name"]: jsonschema_rs.validator_for(t["function"]["parameters"]) for t in listed
            }
        return found

    def scan(text: str) -> int:
        return sum(marker in text for marker in _MARKERS) if "<" in text else 0

    with open(path, "rb") as fh:
        for line in fh:
            record = orjson.loads(line)
            records += 1
            check = checkers(record.get("tools"))
            pending: list[str] = []
            seen_user = False
            if "messages" in record:
                for m in record["messages"]:
                    role = m.get("role")
                    rank = _ROLES.get(role)
                    if rank is None:
                        problems += 1
                        continue
                    seen_user = seen_user or rank == 1
                    problems += rank == 2 and not seen_user
                    content = m.get("content")
                    if isinstance(content, str):
                        problems += scan(content)
                    reasoning = m.get("reasoning_content")
                    if isinstance(reasoning, str):
                        problems += scan(reasoning)
                    if rank == 3:
                        call_id = m.get("tool_call_id")
                        if call_id in pending:
                            pending.remove(call_id)
                        else:
                            problems += 1
                    for call in m.get("tool_calls") or ():
                        fn = call["function"]
                        problems += not check[fn["name"]].is_valid(orjson.loads(fn["arguments"]))
                        pending.append(call.get("id"))
            else:
                for turn in record["conversations"]:
                    role = _SENDERS.get(turn["from"])
                    if role is None:
                        problems += 1
                        continue
                    value = turn["value"]
                    problems += "<|im_" in value  # the tags are the value's structure: only control tokens
                    if role == "assistant":
                        for body in _CALL_BLOCK.findall(value):
                            call = orjson.loads(body)
                            problems += not check[call["name"]].is_valid(call["arguments"])
                            pending.append(call["name"])
                    elif role == "tool":
                        for body in _RESULT_BLOCK.findall(value):
                            name = orjson.loads(body).get("name")
                            if name in pending:
                                pending.remove(name)
                            else:
                                problems += 1
            problems += len(pending)
    return records, problems


def validate(path: Path, jobs: int) -> tuple[int, int]:
    """Validate every record; returns (records, findings)."""
    records = findings = 0
    for result in run(iter_records(path), Options(), jobs=jobs):
        records += 1
        findings += len(result.findings)
    return records, findings


def _fast(enabled: bool) -> None:
    """Turn the jsonschema-rs first pass on or off (and forget the compiled tool sets)."""
    from hermes_toolcall import _fastschema as fastschema
    from hermes_toolcall import _schema as schema

    fastschema._RS = fastschema._MISSING if enabled else None
    schema._cached.cache_clear()


def _timed(fn: Any, *args: Any) -> tuple[Any, float, float]:
    t, cpu = time.perf_counter(), _cpu()
    out = fn(*args)
    return out, time.perf_counter() - t, _cpu() - cpu


def single_core(path: Path, rounds: int) -> None:
    """Parse-only against validate --jobs 1, in alternating rounds; the best CPU time of each counts.

    CPU time (not wall time) is compared: on a machine shared with other work the wall time of a
    single process measures the neighbours as much as the code.
    """
    best: dict[str, float] = {}
    found: dict[str, int] = {}
    n = 0
    labels = ("orjson + jsonschema-rs", "orjson + jsonschema", "orjson + jsonschema-rs + structure", "parse only",
              "validate --jobs 1, jsonschema only", "validate --jobs 1")
    for _ in range(rounds):
        for label in labels:
            if label.endswith("structure"):
                (n, found[label]), _wall, cpu = _timed(structural_floor, path)
            elif label.startswith("orjson"):
                (n, found[label]), _wall, cpu = _timed(floor, path, label.endswith("-rs"))
            elif label == "parse only":
                n, _wall, cpu = _timed(parse_only, path)
            else:
                _fast(label == "validate --jobs 1")
                (n, found[label]), _wall, cpu = _timed(validate, path, 1)
            best[label] = min(best.get(label, cpu), cpu)
    _fast(True)
    base = n / best["orjson + jsonschema-rs"]
    print(f"single core, best of {rounds} alternating rounds, records per CPU second:")
    for label, cpu in best.items():
        rate = n / cpu
        what = "findings"
        if label.startswith("orjson"):
            what = "problems" if label.endswith("structure") else "invalid calls"
        extra = f"; {found[label]} {what}" if label in found else ""
        print(f"  {label:36s}: {rate:8.0f} records/s  ({base / rate:.2f}x the orjson + jsonschema-rs time){extra}")


def child_round(path: Path) -> None:
    """One round in this process (``--child-round``): CPU seconds of parse-only, then of validate --jobs 1."""
    parse_only(path)  # warm: imports, compiled tool sets
    validate(path, 1)
    _, _, parse_cpu = _timed(parse_only, path)
    (_, found), _, validate_cpu = _timed(validate, path, 1)
    print(json.dumps({"parse": parse_cpu, "validate": validate_cpu, "findings": found}))


def compare(path: Path, rev: str, rounds: int) -> None:
    """Before/after in one run: ``rev``'s ``src`` and the working tree's, in alternating child processes.

    Each round runs one child per tree (a fresh interpreter each, the same file); the best CPU time of
    each tree counts. The ratio is validate against parse-only *of the same tree*, so a change that only
    speeds up parsing does not pass for a faster validator.
    """
    root = Path(__file__).resolve().parent.parent
    with tempfile.TemporaryDirectory() as old:
        archive = subprocess.run(["git", "-C", str(root), "archive", rev, "src"], capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", old], input=archive.stdout, check=True)
        trees = {f"before ({rev})": Path(old) / "src", "after (working tree)": root / "src"}
        best: dict[str, dict[str, float]] = {label: {} for label in trees}
        found: dict[str, int] = {}
        for _ in range(rounds):
            for label, src in trees.items():
                env = {**os.environ, "PYTHONPATH": str(src)}
                argv = [sys.executable, __file__, "--child-round", str(path)]
                out = json.loads(subprocess.run(argv, capture_output=True, text=True, check=True, env=env).stdout)
                found[label] = out["findings"]
                for key in ("parse", "validate"):
                    best[label][key] = min(best[label].get(key, out[key]), out[key])
    n = sum(1 for _ in iter_records(path))
    print(f"before/after, best of {rounds} alternating rounds (child processes), records per CPU second:")
    for label, cpu in best.items():
        parse, check = n / cpu["parse"], n / cpu["validate"]
        print(f"  {label:28s}: parse only {parse:7.0f}/s, validate --jobs 1 {check:7.0f}/s "
              f"({check / parse:.2f}x parse only); {found[label]} findings")


def parallel(path: Path, jobs: int, ray_engine: bool) -> None:
    """Records per wall second: --jobs 1, --jobs N, and (when asked) --engine ray on a local cluster."""
    print(f"wall clock (cpu/wall: CPU used by all processes over wall time; {os.cpu_count()} cores):")
    runs: list[tuple[str, Any]] = [("--jobs 1", lambda: validate(path, 1))]
    runs.append((f"--jobs {jobs}", lambda: validate(path, jobs)))
    if ray_engine:
        runs.append(("--engine ray", lambda: ray_validate(path)))
    for label, fn in runs:
        (n, found), wall, cpu = _timed(fn)
        print(f"  {label:14s}: {n / wall:8.0f} records/s  cpu/wall {cpu / wall:.2f}; {found} findings")


def ray_validate(path: Path) -> tuple[int, int]:
    """``validate --engine ray`` on the running cluster."""
    from hermes_toolcall.dataio._ray_engine import run_ray

    records = findings = 0
    for result in run_ray(path, Options()):
        records += 1
        findings += len(result.findings)
    return records, findings


def ray_overhead(blocks: int = 200) -> None:
    """Per-task cost of Ray Data here: ``map_batches`` of a function that does nothing, over tiny blocks."""
    import ray
    import ray.data

    def nothing(batch: Any) -> Any:
        return batch

    ds = ray.data.range(blocks, override_num_blocks=blocks).map_batches(nothing, batch_size=None)
    ds.materialize()  # warm the workers
    t = time.perf_counter()
    ray.data.range(blocks, override_num_blocks=blocks).map_batches(nothing, batch_size=None).materialize()
    wall = time.perf_counter() - t
    print(f"  ray per-task overhead: {wall / blocks * 1000:.1f} ms per block ({blocks} empty map_batches tasks)")


FORMS = ("jsonl.zst", "parquet", "jsonl")


def memory(path: Path | None, kind: str) -> None:
    """Peak RSS of a child process validating ``path`` (``kind``: how it was written; None: imports only)."""
    code = (
        "import resource, sys\n"
        "import pyarrow.parquet, zstandard\n"
        "from hermes_toolcall.dataio._sources import iter_input\n"
        "from hermes_toolcall.validate._runner import Options, run\n"
        "n = sum(1 for _ in run(iter_input(sys.argv[1]), Options(round_trip=False))) if sys.argv[1:] else 0\n"
        "print(n, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)\n"
    )
    t = time.perf_counter()
    argv = [sys.executable, "-c", code, *([str(path)] if path is not None else [])]
    out = subprocess.run(argv, capture_output=True, text=True, check=True)
    n, rss = out.stdout.split()
    size = path.stat().st_size / 1e6 if path is not None else 0.0
    print(f"  {kind:12s} {size:8.1f} MB on disk, {int(n):8d} records: peak RSS {rss} MB"
          f" ({time.perf_counter() - t:.0f} s)", flush=True)


def write_forms(path: Path, tmp: Path, forms: tuple[str, ...] = FORMS) -> dict[str, Path]:
    """The JSONL (OpenAI records only) as .jsonl.zst and/or Parquet (row groups of 2,000 rows), streaming.

    ``forms`` picks among ``jsonl.zst``, ``parquet`` and ``jsonl`` (the input itself).
    """
    import pyarrow as pa
    import pyarrow.parquet as pq
    import zstandard

    zst, par = tmp / "big.jsonl.zst", tmp / "big.parquet"
    writer = None
    with open(path, "rb") as src, open(zst if "jsonl.zst" in forms else os.devnull, "wb") as out:
        with zstandard.ZstdCompressor(level=3).stream_writer(out) as z:
            batch: list[Any] = []
            for line in src:
                if "jsonl.zst" in forms:
                    z.write(line)
                if "parquet" not in forms:
                    continue
                batch.append(json.loads(line))
                if len(batch) == 2000:
                    table = pa.Table.from_struct_array(pa.array(batch))
                    writer = writer or pq.ParquetWriter(par, table.schema)
                    writer.write_table(table.cast(writer.schema))
                    batch = []
            if batch:
                table = pa.Table.from_struct_array(pa.array(batch))
                writer = writer or pq.ParquetWriter(par, table.schema)
                writer.write_table(table.cast(writer.schema))
    if writer is not None:
        writer.close()
    made = {"jsonl.zst": zst, "parquet": par, "jsonl": path}
    return {form: made[form] for form in forms}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--records", type=int, default=100_000)
    ap.add_argument("--jobs", type=int, default=0, help="pool size for the parallel run (0 = all cores)")
    ap.add_argument("--rounds", type=int, default=3, help="alternating single-core rounds")
    ap.add_argument("--ray", action="store_true", help="also --engine ray on a local cluster (all cores)")
    ap.add_argument(
        "--memory", type=int, default=0, metavar="N",
        help="peak RSS validating a .jsonl.zst and a Parquet file of N, then 4N, OpenAI records",
    )
    ap.add_argument(
        "--memory-factors", default="1,4", metavar="F,G",
        help="multiples of --memory to measure (default 1,4: N then 4N records)",
    )
    ap.add_argument(
        "--memory-forms", default=",".join(FORMS), metavar="FORMS",
        help="input forms to measure, among " + ", ".join(FORMS) + " (default: all)",
    )
    ap.add_argument("--compare", metavar="REV", help="before/after: REV's src against the working tree's")
    ap.add_argument("--child-round", metavar="PATH", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child_round:
        child_round(Path(args.child_round))
        return
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.jsonl"
        make_dataset(path, args.records)
        size = path.stat().st_size
        print(f"dataset: {args.records} records, {size / 1e6:.1f} MB; cores: {os.cpu_count()}")
        print(f"load average before the run: {os.getloadavg()[0]:.1f} (cores busy with other work slow every figure)")
        if args.compare:
            compare(path, args.compare, args.rounds)
        elif args.rounds:
            single_core(path, args.rounds)
        if args.ray:
            import ray

            ray.init(include_dashboard=False, log_to_driver=False)
            try:
                parallel(path, args.jobs, True)
                ray_overhead()
            finally:
                ray.shutdown()
        elif args.jobs != 1:
            parallel(path, args.jobs, False)
        if args.memory:
            memory(None, "imports only")
        factors = [int(f) for f in args.memory_factors.split(",")] if args.memory else []
        forms = tuple(f for f in args.memory_forms.split(",") if f)
        unknown = set(forms) - set(FORMS)
        if unknown:
            ap.error(f"--memory-forms: unknown form(s) {sorted(unknown)}; choose among {FORMS}")
        for n in (args.memory * f for f in factors):
            big = Path(tmp) / f"openai-{n}.jsonl"
            make_dataset(big, n, sharegpt=False)
            print(f"memory, {n} records ({big.stat().st_size / 1e6:.0f} MB of JSONL):", flush=True)
            for kind, form in write_forms(big, Path(tmp), forms).items():
                memory(form, kind)
            big.unlink()


def _cpu() -> float:
    """CPU seconds of this process and its finished children (the pool workers)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


if __name__ == "__main__":
    main()
