"""``convert-dataset`` never changes what a record means (issue 23 §2, §3): results stay bound to their calls
through ChatML (which binds by position), the legacy OpenAI function-calling records and LLaMA-Factory / glaive
senders are read, other columns are kept, and what cannot be written faithfully is reported and skipped."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hermes_toolcall import DIALECTS, validate_record
from hermes_toolcall._jsonio import dumps_spaced
from hermes_toolcall.dataio._convert import convert_record
from hermes_toolcall.testing._strategies import ends_at_its_closer

BIN = Path(sys.executable).parent / "hermes-toolcall"

TOOLS = [
    {"type": "function", "function": {"name": name, "description": f"{name} tool", "parameters": {
        "type": "object", "properties": {"q": {"type": "string"}, "n": {"type": "integer"}}, "required": ["q"]}}}
    for name in ("alpha", "beta", "gamma")
]
_WORDS = st.text(st.characters(codec="utf-8", exclude_characters="<>\r", exclude_categories=("Cs", "Cc")),
                 min_size=1, max_size=12).map(str.strip).filter(bool)
_RESULTS = _WORDS.filter(ends_at_its_closer)


@st.composite
def record_sets(draw: st.DrawFn) -> dict[str, Any]:
    """An OpenAI record as people have them: parallel calls, results in any order (bound by id), or without ids
    (bound by position), extra columns; every result names its call in its text, so a rebinding shows."""
    msgs: list[dict[str, Any]] = []
    if draw(st.booleans()):
        msgs.append({"role": "system", "content": draw(_WORDS)})
    with_ids = draw(st.booleans())
    serial = 0
    for _ in range(draw(st.integers(1, 3))):
        msgs.append({"role": "user", "content": draw(_WORDS)})
        if draw(st.integers(0, 3)):
            batch = []
            for _ in range(draw(st.integers(1, 4))):
                name = draw(st.sampled_from(["alpha", "beta", "gamma"]))
                args: dict[str, Any] = {"q": draw(_WORDS)}
                if draw(st.booleans()):
                    args["n"] = draw(st.integers(-(10**6), 10**6))
                call: dict[str, Any] = {"type": "function", "function": {"name": name, "arguments": dumps_spaced(args)}}
                if with_ids:
                    call["id"] = f"id-{draw(st.integers(0, 10**6))}-{serial}"
                serial += 1
                batch.append(call)
            content = draw(st.one_of(st.none(), _WORDS))
            msgs.append({"role": "assistant", "content": content, "tool_calls": batch})
            order = list(range(len(batch)))
            if with_ids:
                order = draw(st.permutations(order))
            for k in order:
                result: dict[str, Any] = {"role": "tool", "content": f"{batch[k]['function']['name']} {k} "
                                          + draw(_RESULTS)}
                if with_ids:
                    result["tool_call_id"] = batch[k]["id"]
                msgs.append(result)
        msgs.append({"role": "assistant", "content": draw(_WORDS)})
    record: dict[str, Any] = {"messages": msgs, "tools": TOOLS}
    for column in draw(st.lists(st.sampled_from(["id", "category", "source", "score"]), unique=True, max_size=3)):
        record[column] = draw(st.one_of(_WORDS, st.integers(0, 99)))
    order = draw(st.permutations(list(record)))
    return {k: record[k] for k in order}


def _pairs(record: dict[str, Any]) -> list[tuple[str, Any, str]]:
    """Every (call name, arguments, result text) the record binds, by id where it has ids, else by position."""
    out = []
    pending: list[dict[str, Any]] = []
    for m in record["messages"]:
        if m["role"] == "assistant":
            pending = list(m.get("tool_calls") or ())
            open_ = list(pending)
        elif m["role"] == "tool":
            by_id = [c for c in open_ if c.get("id") is not None and c.get("id") == m.get("tool_call_id")]
            call = by_id[0] if by_id else open_[0]
            open_.remove(call)
            out.append((call["function"]["name"], json.loads(call["function"]["arguments"]), m["content"]))
    return sorted(out, key=lambda p: (p[0], json.dumps(p[1]), p[2]))


def _texts(record: dict[str, Any]) -> list[tuple[str, str]]:
    return [(m["role"], m.get("content") or "") for m in record["messages"] if m["role"] != "tool"]


def _codes(record: dict[str, Any]) -> Counter[str]:
    return Counter(validate_record(record).codes)


@pytest.mark.parametrize("dialect", sorted(DIALECTS))
@given(record=record_sets())
def test_openai_to_every_chatml_dialect_and_back_keeps_every_pairing(dialect: str, record: dict[str, Any]) -> None:
    """openai → chatml:D → openai keeps every call↔result pairing, every argument, every message and every other
    column; a validate of the result has no finding that the source lacked."""
    text = convert_record(record, source="openai", target=f"chatml:{dialect}")
    if dialect in ("hermes", "hermes-vllm") and _text_beside_calls(record):  # the template drops it: refused
        assert not text.ok and "its text does not come back" in (text.error or ""), text
        return
    assert text.ok, text.error
    assert isinstance(text.record, str)
    back = convert_record(text.row(), source=f"chatml:{dialect}", target="openai")
    assert back.ok, back.error
    out = back.record
    assert isinstance(out, dict)
    assert _pairs(out) == _pairs(record)
    assert _texts(out) == _texts(record)
    assert {k: v for k, v in out.items() if k not in ("messages", "tools")} == {
        k: v for k, v in record.items() if k not in ("messages", "tools")
    }
    assert not _codes(out) - _codes(record), (_codes(out), _codes(record))


def _text_beside_calls(record: dict[str, Any]) -> bool:
    return any(m.get("tool_calls") and (m.get("content") or "").strip() for m in record["messages"])


def test_regression_text_beside_calls_is_not_dropped_by_the_hermes_template() -> None:
    """The Hermes templates write an assistant message's calls without its text: converting such a message to
    chatml:hermes (or to ShareGPT, which is written as Hermes turns) lost the text silently; it is refused."""
    record = {"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "Let me look.",
              "tool_calls": [{"type": "function", "function": {"name": "alpha", "arguments": "{}"}}]}]}
    for target in ("chatml:hermes", "chatml:hermes-vllm", "sharegpt"):
        out = convert_record(record, source="openai", target=target)
        assert not out.ok and out.error == f"{target} cannot hold message 1 as it is: its text does not come back " \
            "('Let me look.')"
    assert convert_record(record, source="openai", target="chatml:qwen3").ok


@given(record=record_sets())
def test_openai_to_sharegpt_and_back_keeps_every_pairing(record: dict[str, Any]) -> None:
    share = convert_record(record, source="openai", target="sharegpt")
    if _text_beside_calls(record):
        assert not share.ok
        return
    assert share.ok, share.error
    back = convert_record(share.record, source="sharegpt", target="openai")
    assert back.ok and isinstance(back.record, dict), back.error
    assert _pairs(back.record) == _pairs(record) and _texts(back.record) == _texts(record)


# ---- the bullets of issue 23, through the real entry point ---------------------------------------------------


def _cli(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(BIN), *argv], capture_output=True, text=True, check=False)


def _write(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def _out_of_order(i: int) -> dict[str, Any]:
    calls = [{"id": f"call_{k}", "type": "function", "function": {"name": name, "arguments": json.dumps({"q": name})}}
             for k, name in enumerate(("alpha", "beta", "gamma"))]
    return {
        "id": f"rec-{i}",
        "category": "weather",
        "messages": [
            {"role": "user", "content": f"question {i}"},
            {"role": "assistant", "content": None, "tool_calls": calls},
            {"role": "tool", "tool_call_id": "call_2", "content": "the gamma result"},
            {"role": "tool", "tool_call_id": "call_0", "content": "the alpha result"},
            {"role": "tool", "tool_call_id": "call_1", "content": "the beta result"},
            {"role": "assistant", "content": "done"},
        ],
        "tools": TOOLS,
    }


def test_regression_out_of_order_results_are_not_rebound_through_chatml(tmp_path: Path) -> None:
    """Before: openai → chatml:hermes → openai gave the gamma result to call_0 (alpha), exit 0, and the 50 HT403
    findings of the source vanished. Now each result still answers its call, and the columns are kept."""
    src = _write(tmp_path / "in.jsonl", [_out_of_order(i) for i in range(50)])
    assert _cli("convert-dataset", str(src), str(tmp_path / "t.jsonl"), "--from", "openai", "--to",
                "chatml:hermes").returncode == 0
    done = _cli("convert-dataset", str(tmp_path / "t.jsonl"), str(tmp_path / "back.jsonl"), "--from", "chatml:hermes",
                "--to", "openai")
    assert done.returncode == 0, done.stderr
    back = [json.loads(line) for line in (tmp_path / "back.jsonl").read_text().splitlines()]
    assert len(back) == 50
    for i, record in enumerate(back):
        assert (record["id"], record["category"]) == (f"rec-{i}", "weather")
        calls = {c["id"]: c["function"]["name"] for c in record["messages"][1]["tool_calls"]}
        answers = {calls[m["tool_call_id"]]: m["content"] for m in record["messages"] if m["role"] == "tool"}
        assert answers == {"alpha": "the alpha result", "beta": "the beta result", "gamma": "the gamma result"}
    checked = _cli("validate", str(tmp_path / "back.jsonl"), "--format", "json")
    assert json.loads(checked.stdout)["summary"] == {}, checked.stdout


def test_regression_convert_keeps_every_column(tmp_path: Path) -> None:
    """Before: every column but messages and tools was dropped (id, category, …): results could not be joined
    back to the source. Now they are kept in JSONL, Parquet-free here, and in ChatML records written as JSONL;
    --drop-columns leaves them out."""
    src = _write(tmp_path / "in.jsonl", [_out_of_order(0)])
    for target in ("openai", "sharegpt", "chatml:qwen3"):
        out = tmp_path / "out.jsonl"
        assert _cli("convert-dataset", str(src), str(out), "--from", "openai", "--to", target).returncode == 0
        row = json.loads(out.read_text())
        assert (row["id"], row["category"]) == ("rec-0", "weather"), target
        assert _cli("convert-dataset", str(src), str(out), "--from", "openai", "--to", target,
                    "--drop-columns").returncode == 0
        assert "id" not in json.loads(out.read_text()), target
    text = _cli("convert-dataset", str(src), str(tmp_path / "out.txt"), "--from", "openai", "--to", "chatml:qwen3")
    assert text.returncode == 0 and "the column(s) id, category were not written" in text.stderr


@pytest.mark.ci_required("the [parquet] extra is installed by .ci/run")
def test_chatml_records_in_parquet_hold_their_columns_and_read_back(tmp_path: Path) -> None:
    """A ChatML dataset written as Parquet holds one record per conversation (text plus the kept columns), and
    --from chatml:D reads it back record by record with its columns."""
    pytest.importorskip("pyarrow", reason="the [parquet] extra (pyarrow) is not installed")
    src = _write(tmp_path / "in.jsonl", [_out_of_order(i) for i in range(3)])
    assert _cli("convert-dataset", str(src), str(tmp_path / "t.parquet"), "--from", "openai", "--to",
                "chatml:qwen3").returncode == 0
    import pyarrow.parquet as pq

    table = pq.read_table(tmp_path / "t.parquet")
    assert table.column_names == ["id", "category", "text"] and table.num_rows == 3
    assert _cli("convert-dataset", str(tmp_path / "t.parquet"), str(tmp_path / "b.jsonl"), "--from", "chatml:qwen3",
                "--to", "openai").returncode == 0
    back = [json.loads(line) for line in (tmp_path / "b.jsonl").read_text().splitlines()]
    assert [r["id"] for r in back] == ["rec-0", "rec-1", "rec-2"]


@pytest.mark.parametrize(
    ("why", "messages"),
    [
        ("names no call", [{"role": "tool", "tool_call_id": "nope", "content": "x"}]),
        ("answered twice", [{"role": "tool", "tool_call_id": "call_0", "content": "x"},
                            {"role": "tool", "tool_call_id": "call_0", "content": "y"}]),
        ("has no result but a later call", [{"role": "tool", "tool_call_id": "call_1", "content": "x"}]),
    ],
)
def test_a_record_whose_pairing_chatml_cannot_hold_is_reported_and_skipped(why: str, messages: list[Any]) -> None:
    record = _out_of_order(0)
    record["messages"] = [*record["messages"][:2], *messages, record["messages"][-1]]
    out = convert_record(record, source="openai", target="chatml:hermes")
    assert not out.ok and why in (out.error or "") and out.record_id == "rec-0"


def test_a_skipped_record_exits_1_and_names_its_id(tmp_path: Path) -> None:
    bad = _out_of_order(1)
    bad["messages"][2]["tool_call_id"] = "call_9"
    src = _write(tmp_path / "in.jsonl", [_out_of_order(0), bad])
    done = _cli("convert-dataset", str(src), str(tmp_path / "o.jsonl"), "--from", "openai", "--to", "chatml:hermes")
    assert done.returncode == 1
    assert f"{src}:2: HT610 error: record 2 (id rec-1): cannot convert: message 2: tool_call_id 'call_9'" in done.stderr


# ---- legacy OpenAI records -------------------------------------------------------------------------------------

_LEGACY = {
    "messages": [
        {"role": "user", "content": "Weather in Paris?"},
        {"role": "assistant", "content": None, "function_call": {"name": "get_weather", "arguments": '{"city": 1}'}},
        {"role": "function", "name": "get_weather", "content": '{"t": 20}'},
        {"role": "assistant", "content": "20 degrees."},
    ],
    "functions": [{"name": "get_weather", "description": "weather", "parameters": {
        "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}],
}


def test_regression_legacy_function_call_records_are_checked(tmp_path: Path) -> None:
    """Before: `functions` + `function_call` + a `function` message passed with 0 findings and exit 0, even with
    {"city": 1} against a string schema (nothing was read). Now they are checked as tools, calls and results."""
    src = _write(tmp_path / "legacy.jsonl", [_LEGACY])
    done = _cli("validate", str(src), "--format", "jsonl")
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    assert done.returncode == 1
    assert [(r["code"], r["message"]) for r in rows if r["type"] == "finding"] == [
        ("HT302", "get_weather: arguments.city: 1 is not of type 'string'")
    ]
    bad_name = json.loads(json.dumps(_LEGACY))
    bad_name["messages"][1]["function_call"]["name"] = "rm_rf"
    assert validate_record(bad_name).codes == ("HT301", "HT406")


def test_legacy_records_convert_as_their_modern_twins() -> None:
    legacy = json.loads(json.dumps(_LEGACY))
    legacy["messages"][1]["function_call"]["arguments"] = '{"city": "Paris"}'
    out = convert_record(legacy, source="openai", target="chatml:hermes")
    assert out.ok, out.error
    back = convert_record(out.record, source="chatml:hermes", target="openai").record
    assert isinstance(back, dict)
    assert back["messages"][1]["tool_calls"][0]["function"] == {"name": "get_weather", "arguments": '{"city": "Paris"}'}
    assert back["messages"][2] == {"role": "tool", "content": '{"t": 20}', "tool_call_id": "call_0"}
    assert back["tools"][0]["function"]["name"] == "get_weather"


@given(record=record_sets())
def test_a_legacy_record_gives_the_findings_of_its_modern_twin(record: dict[str, Any]) -> None:
    """Property: written the legacy way (one call per assistant message, results as `function` messages, the
    tools as `functions`), a record has the findings of the same record written with tools and tool_calls."""
    modern: list[dict[str, Any]] = []
    legacy: list[dict[str, Any]] = []
    for m in record["messages"]:
        if m["role"] == "assistant" and m.get("tool_calls"):
            call = m["tool_calls"][0]
            modern.append({"role": "assistant", "content": m["content"], "tool_calls": [
                {"type": "function", "function": call["function"]}]})
            legacy.append({"role": "assistant", "content": m["content"], "function_call": call["function"]})
        elif m["role"] == "tool":
            if modern[-1]["role"] != "assistant" or not modern[-1].get("tool_calls"):
                continue  # one result per legacy call
            modern.append({"role": "tool", "content": m["content"]})
            legacy.append({"role": "function", "content": m["content"]})
            modern.append({"role": "assistant", "content": "ok"})
            legacy.append({"role": "assistant", "content": "ok"})
        else:
            modern.append(m)
            legacy.append(m)
    a = validate_record({"messages": modern, "tools": TOOLS})
    b = validate_record({"messages": legacy, "functions": [t["function"] for t in TOOLS]})
    assert a.codes == b.codes
    assert [d.message for d in a.diagnostics] == [d.message for d in b.diagnostics]


# ---- ShareGPT senders -----------------------------------------------------------------------------------------

_LLAMA_FACTORY = {
    "conversations": [
        {"from": "human", "value": "A password of 12 characters, please."},
        {"from": "function_call", "value": '{"name": "generate_password", "arguments": {"length": 12}}'},
        {"from": "observation", "value": '{"password": "aB3$dE6&gH9!"}'},
        {"from": "gpt", "value": "Here it is: aB3$dE6&gH9!"},
    ],
    "tools": '[{"name": "generate_password", "description": "A random password", "parameters": {"type": "object", '
    '"properties": {"length": {"type": "integer"}}, "required": ["length"]}}]',
}


def test_regression_llama_factory_senders_are_read(tmp_path: Path) -> None:
    """Before: every LLaMA-Factory / glaive record failed (HT603 unknown sender function_call) and converting such
    a file wrote an empty file. Now the calls are checked and converted."""
    src = _write(tmp_path / "lf.jsonl", [_LLAMA_FACTORY, _LLAMA_FACTORY])
    assert _cli("validate", str(src)).returncode == 0
    bad = json.loads(json.dumps(_LLAMA_FACTORY))
    bad["conversations"][1]["value"] = '{"name": "generate_password", "arguments": {"length": "12"}}'
    assert validate_record(bad).codes == ("HT302",)
    done = _cli("convert-dataset", str(src), str(tmp_path / "o.jsonl"), "--from", "sharegpt", "--to", "openai")
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in (tmp_path / "o.jsonl").read_text().splitlines()]
    assert len(rows) == 2
    msgs = rows[0]["messages"]
    assert msgs[1]["tool_calls"][0]["function"] == {"name": "generate_password", "arguments": '{"length": 12}'}
    assert msgs[2] == {"role": "tool", "content": '{"password": "aB3$dE6&gH9!"}', "tool_call_id": "call_0"}
    assert rows[0]["tools"][0] == {"type": "function", "function": json.loads(_LLAMA_FACTORY["tools"])[0]}


def test_parallel_calls_in_one_function_call_turn() -> None:
    record = {"conversations": [
        {"from": "human", "value": "both"},
        {"from": "function_call", "value": '[{"name": "alpha", "arguments": {"q": "a"}}, '
                                           '{"name": "beta", "arguments": "{\\"q\\": \\"b\\"}"}]'},
        {"from": "observation", "value": "A"},
        {"from": "observation", "value": "B"},
        {"from": "gpt", "value": "done"},
    ], "tools": TOOLS}
    assert validate_record(record).codes == ("HT304",)  # one call's arguments an object, the other's a string
    out = convert_record(record, source="sharegpt", target="openai").record
    assert isinstance(out, dict)
    assert [c["function"]["name"] for c in out["messages"][1]["tool_calls"]] == ["alpha", "beta"]
    assert [m["content"] for m in out["messages"] if m["role"] == "tool"] == ["A", "B"]


def test_sharegpt_roles_map_other_senders(tmp_path: Path) -> None:
    record = {"conversations": [{"from": "me", "value": "hi"}, {"from": "bot", "value": "hello"}]}
    src = _write(tmp_path / "s.jsonl", [record])
    assert "unknown ShareGPT sender 'me'" in _cli("validate", str(src)).stdout
    assert _cli("validate", str(src), "--sharegpt-roles", "me=user,bot=assistant").returncode == 0
    done = _cli("convert-dataset", str(src), str(tmp_path / "o.jsonl"), "--from", "sharegpt", "--to", "openai",
                "--sharegpt-roles", "me=user, bot=assistant")
    assert done.returncode == 0, done.stderr
    assert json.loads((tmp_path / "o.jsonl").read_text())["messages"] == [
        {"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    refused = _cli("validate", str(src), "--sharegpt-roles", "me=robot")
    assert refused.returncode == 2
    assert "the role is one of system, user, assistant, tool, function_call" in refused.stderr


# ---- shard folders ---------------------------------------------------------------------------------------------


def test_a_folder_of_shards_is_an_input(tmp_path: Path) -> None:
    import gzip

    folder = tmp_path / "data"
    (folder / "part-b").mkdir(parents=True)
    _write(folder / "part-a.jsonl", [_LEGACY])
    (folder / "part-b" / "x.bin").write_bytes(gzip.compress((json.dumps(_LEGACY) + "\n").encode()))
    (folder / "README.md").write_text("# my data\n")
    (folder / ".gitattributes").write_text("*.bin binary\n")
    done = _cli("validate", str(folder), "--format", "jsonl")
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    assert [(Path(r["file"]).name, r["code"]) for r in rows if r["type"] == "finding"] == [
        ("part-a.jsonl", "HT302"), ("x.bin", "HT302")]
    assert rows[-1]["files"] == 2 and rows[-1]["records"] == 2
    assert "1 file(s) that are not data left out: README.md" in done.stderr
    converted = _cli("convert-dataset", str(folder), str(tmp_path / "o.jsonl"), "--from", "openai", "--to", "openai")
    assert converted.returncode == 0 and len((tmp_path / "o.jsonl").read_text().splitlines()) == 2
    (folder / "README.md").unlink()
    empty = tmp_path / "empty"
    empty.mkdir()
    refused = _cli("validate", str(empty))
    assert refused.returncode == 2 and "a folder without data files" in refused.stderr
