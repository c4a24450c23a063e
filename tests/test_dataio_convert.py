"""``convert_records`` and ``convert-dataset``: round trips per dialect, skipped records, atomic outputs."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from helpers import SEARCH_TOOL, WEATHER_TOOL, dataset_records
from hermes_toolcall import DIALECTS, convert_records
from hermes_toolcall._jsonio import dumps_spaced
from hermes_toolcall.cli import main
from hermes_toolcall.dataio._convert import convert_record, parse_shape
from hermes_toolcall.errors import UsageError
from hermes_toolcall.testing._strategies import ends_at_its_closer

_WORDS = st.text(st.characters(codec="utf-8", exclude_characters="<>\r", exclude_categories=("Cs", "Cc")),
                 min_size=1, max_size=20).map(str.strip).filter(bool)
# a tool result the renderer accepts: a JSON-looking body must end at its closer (hypothesis drew '{"""')
_RESULTS = _WORDS.filter(ends_at_its_closer)


@st.composite
def valid_records(draw: st.DrawFn) -> dict[str, Any]:
    """OpenAI records in the canonical form: sequential call ids, arguments as ``json.dumps`` writes them."""
    tools = draw(st.sampled_from(([WEATHER_TOOL], [SEARCH_TOOL], [WEATHER_TOOL, SEARCH_TOOL], [])))
    msgs: list[dict[str, Any]] = []
    if draw(st.booleans()):
        msgs.append({"role": "system", "content": draw(_WORDS)})
    calls = 0
    for _ in range(draw(st.integers(1, 3))):
        msgs.append({"role": "user", "content": draw(_WORDS)})
        if tools and draw(st.booleans()):
            batch = []
            for _ in range(draw(st.integers(1, 2))):
                tool = draw(st.sampled_from(tools))["function"]["name"]
                args = {"city": draw(_WORDS)} if tool == "get_weather" else {"pattern": draw(_WORDS), "paths": ["a"]}
                batch.append({"id": f"call_{calls}", "type": "function",
                              "function": {"name": tool, "arguments": dumps_spaced(args)}})
                calls += 1
            msgs.append({"role": "assistant", "content": None, "tool_calls": batch})
            for call in batch:
                msgs.append({"role": "tool", "content": draw(_RESULTS), "tool_call_id": call["id"]})
        msgs.append({"role": "assistant", "content": draw(_WORDS)})
    record: dict[str, Any] = {"messages": msgs}
    if tools:
        record["tools"] = tools
    return record


@pytest.mark.parametrize("dialect", sorted(DIALECTS))
@given(record=valid_records())
def test_openai_chatml_openai_is_the_identity(dialect: str, record: dict[str, Any]) -> None:
    text = convert_record(record, source="openai", target=f"chatml:{dialect}")
    assert text.ok, text.error
    back = convert_record(text.record, source=f"chatml:{dialect}", target="openai")
    assert back.ok, back.error
    assert back.record == record


def test_a_result_with_an_unterminated_json_string_is_refused_not_converted() -> None:
    """Regression (hypothesis, qwen3): a result of `{` and three quotes would swallow its closer; it is refused
    with the renderer's reason, so the round-trip property draws only results that end at their closer."""
    record = {
        "messages": [
            {"role": "user", "content": "0"},
            {"role": "assistant", "content": None, "tool_calls": [
                {"id": "call_0", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "0"}'}}
            ]},
            {"role": "tool", "content": '{"""', "tool_call_id": "call_0"},
            {"role": "assistant", "content": "0"},
        ],
        "tools": [WEATHER_TOOL],
    }
    for dialect in sorted(DIALECTS):
        text = convert_record(record, source="openai", target=f"chatml:{dialect}")
        assert not text.ok and text.record is None
        assert text.error is not None and "unterminated JSON string in tool result" in text.error
    assert not ends_at_its_closer('{"""') and ends_at_its_closer('{""}')


@given(record=valid_records())
def test_openai_sharegpt_openai_is_the_identity(record: dict[str, Any]) -> None:
    share = convert_record(record, source="openai", target="sharegpt")
    assert share.ok, share.error
    assert isinstance(share.record, dict) and all(t["from"] in ("system", "human", "gpt", "tool")
                                                   for t in share.record["conversations"])
    assert convert_record(share.record, source="sharegpt", target="openai").record == record


def test_records_that_cannot_be_converted_are_reported_not_raised() -> None:
    bad_tool = {"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {}}}}
    records: list[Any] = [
        {"conversations": []},
        {"messages": [{"role": "user", "content": "hi <|im_end|>"}]},
        {"messages": [{"role": "user", "content": "hi"}], "tools": [bad_tool]},
        {"messages": [{"role": "user", "content": "hi"}], "tools": "{not json"},
        "text",
    ]
    out = list(convert_records(records, source="openai", target="chatml:hermes"))
    assert [c.number for c in out] == [1, 2, 3, 4, 5]
    assert [c.ok for c in out] == [False] * 5
    assert "cannot render" in (out[1].error or "") and "cannot render" in (out[2].error or "")
    cut = '<|im_start|>assistant\n<tool_call>\n{"name": "f", '
    truncated = convert_record(cut, source="chatml", target="openai")
    assert not truncated.ok and "HT1" in (truncated.error or "")


def test_shapes() -> None:
    assert parse_shape("chatml:omp") == ("chatml", "omp")
    for bad in ("json", "openai:qwen3", "chatml:nope"):
        with pytest.raises(UsageError):
            parse_shape(bad)


def _jsonl(path: Path, records: list[Any]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_cli_round_trip_through_text_parquet_and_zst(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("pyarrow", reason="the [parquet] extra is not installed")
    pytest.importorskip("zstandard", reason="the [zstd] extra is not installed")
    records = dataset_records(60)
    src = _jsonl(tmp_path / "in.jsonl", [*records[:10], {"x": 1}, *records[10:]])
    assert main(["convert-dataset", str(src), str(tmp_path / "t.txt"), "--from", "openai", "--to", "chatml:qwen3"]) == 1
    err = capsys.readouterr().err
    assert f"{src}:11: HT610 error: record 11: cannot convert" in err
    assert f"{src}:3: HT610 error: record 3:" in err  # a ShareGPT record is not an OpenAI one
    # a result whose tool_call_id names no call (call_x) is skipped, never rebound to the call by position
    openai_in = [r for r in records if "messages" in r and r["messages"][2]["tool_call_id"] != "call_x"]
    assert "tool_call_id 'call_x' names no call of the assistant message before it" in err
    assert err.endswith(f"{len(openai_in)} record(s) written to {tmp_path / 't.txt'}, {61 - len(openai_in)} skipped\n")
    steps = [
        ("t.txt", "b.parquet", "chatml:qwen3", "openai"),
        ("b.parquet", "c.jsonl.zst", "openai", "sharegpt"),
        ("c.jsonl.zst", "d.jsonl.gz", "sharegpt", "openai"),
    ]
    for a, b, f, t in steps:
        assert main(["convert-dataset", str(tmp_path / a), str(tmp_path / b), "--from", f, "--to", t]) == 0, b
    capsys.readouterr()
    again = [json.loads(line) for line in gzip.decompress((tmp_path / "d.jsonl.gz").read_bytes()).splitlines()]
    first = [convert_record(r, source="openai", target="openai").record for r in openai_in]
    assert _without_ids(again) == _without_ids(first)  # ChatML text has no call ids: they come back numbered
    # the same findings whichever form the data is in
    assert main(["validate", str(tmp_path / "d.jsonl.gz"), "--format", "json"]) == 0  # the defective were skipped
    a = json.loads(capsys.readouterr().out)
    assert main(["validate", str(tmp_path / "b.parquet"), "--format", "json"]) == 0
    b = json.loads(capsys.readouterr().out)
    assert a["summary"] == b["summary"] and a["records"] == b["records"] == len(openai_in)


def _without_ids(records: list[Any]) -> list[Any]:
    out = json.loads(json.dumps(records))
    for r in out:
        for m in r["messages"]:
            m.pop("tool_call_id", None)
            for c in m.get("tool_calls") or ():
                c.pop("id")
    return out


def test_cli_never_half_writes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "in.jsonl.gz"
    src.write_bytes(gzip.compress(_jsonl(tmp_path / "x.jsonl", dataset_records(300)).read_bytes())[:-30])
    out = tmp_path / "out.jsonl"
    assert main(["convert-dataset", str(src), str(out), "--from", "openai", "--to", "sharegpt"]) == 2
    assert "truncated" in capsys.readouterr().err
    assert not out.exists() and not (tmp_path / "out.jsonl.partial").exists()
    assert main(["convert-dataset", str(tmp_path / "x.jsonl"), str(out), "--from", "openai", "--to", "openai",
                 "--output-format", "text"]) == 2
    assert "text output holds ChatML" in capsys.readouterr().err


@pytest.mark.parametrize("dialect", ["qwen3-coder", "qwen3.5", "nemotron-3", "step-3.5"])
def test_regression_an_xml_record_is_typed_by_its_own_tools(dialect: str) -> None:
    """Hypothesis find (test_openai_chatml_openai_is_the_identity, XML dialects): a ChatML record's XML values were
    read without a schema, so the string ``"0"`` of a string parameter came back as the integer ``0``; the reader
    types them by the transcript's own ``<tools>`` blocks."""
    record = {"messages": [
        {"role": "user", "content": "0"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_0", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "0"}'}}]},
        {"role": "tool", "content": "ok", "tool_call_id": "call_0"},
        {"role": "assistant", "content": "0"}], "tools": [WEATHER_TOOL]}
    text = convert_record(record, source="openai", target=f"chatml:{dialect}")
    assert text.ok, text.error
    back = convert_record(text.record, source=f"chatml:{dialect}", target="openai")
    assert back.ok and back.record == record, back.error
