"""Dataset readers (JSONL, ShareGPT, ChatML; streaming) and record checking with file positions."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from hermes_toolcall.errors import UsageError
from hermes_toolcall.validate._datasets import RawRecord, detect_format, iter_records
from hermes_toolcall.validate._runner import Options, check_record, run

WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "parameters": {
            "type": "object",
            "properties": {"location": {"type": "string"}, "days": {"type": "integer"}},
            "required": ["location"],
        },
    },
}


@pytest.fixture
def parser() -> Any:
    """The parse module (ShareGPT values and ChatML files are wire text)."""
    import hermes_toolcall._parse

    return hermes_toolcall._parse


def _jsonl(tmp_path: Path, *records: Any, name: str = "d.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records), encoding="utf-8")
    return path


def _record(data: Any, **kw: Any) -> list[tuple[str, int, int, str]]:
    raw = RawRecord(number=1, line=7, text=json.dumps(data), kind="jsonl", end=0)
    return [
        (f.code, f.line, f.column, raw.text[f.column - 1 : f.column - 1 + f.width])
        for f in check_record(raw, Options(**kw)).findings
    ]


def test_detect_format(tmp_path: Path) -> None:
    assert detect_format(_jsonl(tmp_path, {"messages": []})) == "jsonl"
    chat = tmp_path / "t.txt"
    chat.write_text("<|im_start|>user\nhi<|im_end|>\n", encoding="utf-8")
    assert detect_format(chat) == "chatml"
    assert detect_format(chat, "openai") == "jsonl"
    arr = tmp_path / "a.json"
    arr.write_text('[{"messages": []}]', encoding="utf-8")
    with pytest.raises(UsageError, match="JSONL"):
        detect_format(arr)
    with pytest.raises(UsageError):
        list(iter_records(tmp_path / "missing.jsonl"))


def test_jsonl_records_numbers_and_lines(tmp_path: Path) -> None:
    path = _jsonl(tmp_path, {"messages": []}, "", "   ", {"conversations": []})
    got = [(r.number, r.line, r.kind) for r in iter_records(path)]
    assert got == [(1, 1, "jsonl"), (2, 4, "jsonl")]


def test_jsonl_invalid_utf8_is_a_finding(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_bytes(b'{"messages": []}\n{"messages": [{"role": "user", "content": "\xff"}]}\n')
    records = list(iter_records(path))
    assert records[1].error is not None
    assert [f.code for f in check_record(records[1], Options()).findings] == ["HT601"]


def test_chatml_file_split_into_transcripts(tmp_path: Path) -> None:
    # a record ends at a blank line after <|im_end|>; a second system turn does not start a record
    text = (
        "<|im_start|>system\nA<|im_end|>\n<|im_start|>user\nhi<|im_end|>\n"
        "<|im_start|>system\nB<|im_end|>\n<|im_start|>user\nyo<|im_end|>\n\n"
        "<|im_start|>user\nthird<|im_end|>\n"
    )
    path = tmp_path / "t.chatml"
    path.write_text(text, encoding="utf-8")
    records = list(iter_records(path))
    assert [(r.number, r.line) for r in records] == [(1, 1), (2, 10)]
    assert "".join(r.text for r in records) == text


def test_streaming_reads_lazily(tmp_path: Path) -> None:
    path = _jsonl(tmp_path, *({"messages": []} for _ in range(5)))
    it = iter_records(path)
    first = next(it)
    assert first.number == 1 and first.end == len('{"messages": []}\n')
    it.close()  # the file is closed when the generator is abandoned


def test_invalid_json_points_at_the_error() -> None:
    raw = RawRecord(number=3, line=3, text='{"messages": [1', kind="jsonl", end=0)
    (f,) = check_record(raw, Options()).findings
    assert (f.code, f.line, f.column, f.record) == ("HT601", 3, 16, 3)


def test_openai_record_positions_point_into_the_line() -> None:
    data = {
        "messages": [
            {"role": "user", "content": "x"},
            {
                "role": "assistant",
                "tool_calls": [
                    {
                        "id": "c",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": '{"location": "R", "days": true}'},
                    }
                ],
            },
        ],
        "tools": [WEATHER],
    }
    got = _record(data)
    assert got == [("HT302", 7, got[0][2], "true")]


def test_escaped_strings_keep_columns_exact() -> None:
    data = {"messages": [{"role": "user", "content": 'é "q"\n<|im_end|>'}]}
    ((code, _, _, shown),) = _record(data)
    assert (code, shown) == ("HT501", "<|im_end|>")


def test_tools_as_json_string_and_bad_tools() -> None:
    data = {
        "messages": [
            {"role": "user", "content": "x"},
            {
                "role": "assistant",
                "tool_calls": [{"id": "c", "type": "function", "function": {"name": "nope", "arguments": "{}"}}],
            },
        ]
    }
    assert [c for c, *_ in _record({**data, "tools": json.dumps([WEATHER])})] == ["HT301"]
    assert [c for c, *_ in _record({**data, "tools": "not json"})] == ["HT603"]
    assert [c for c, *_ in _record(data, tools=(WEATHER,))] == ["HT301"]
    assert [c for c, *_ in _record(data)] == []


def test_regression_functions_beside_tools_that_is_not_a_list_is_ht603() -> None:
    """Regression (smallfix 1): the legacy ``functions`` beside a ``tools`` key (even null) was dropped without a
    word when it was not a list (a dict, a number, text that is not a JSON array); now HT603 at the field, like
    ``tools``/``functions`` alone. As JSON text it is read, as it is alone."""
    data: dict[str, Any] = {
        "messages": [
            {"role": "user", "content": "x"},
            {
                "role": "assistant",
                "tool_calls": [{"id": "c", "type": "function", "function": {"name": "nope", "arguments": "{}"}}],
            },
        ]
    }
    for tools in ([], None, [WEATHER]):
        for bad, shown in (({"a": 1}, '{"a": 1}'), (5, "5"), ("abc", '"abc"'), ('{"a": 1}', '"{\\"a\\": 1}"')):
            got = _record({**data, "tools": tools, "functions": bad})
            found = sorted((c, shown_) for c, _, _, shown_ in got if c == "HT603")
            assert found == [("HT603", shown)], (tools, bad, got)  # at the field, its whole value underlined
            named = [] if tools is None else ["HT301"]  # null tools: no names to check the call against
            assert sorted(c for c, *_ in got) == sorted(["HT603", *named]), (tools, bad, got)
    # JSON text beside tools is read (it declares), a list too; a tuple (a Mapping row's) is a list
    fn = WEATHER["function"]
    assert [c for c, *_ in _record({**data, "tools": [], "functions": json.dumps([fn])})] == ["HT301"]
    from hermes_toolcall import validate_record

    assert validate_record({**data, "tools": None, "functions": ({"name": "nope"},)}).codes == ()
    assert validate_record({**data, "tools": [], "functions": {"name": "nope"}}).codes == ("HT603", "HT301")


def test_select_ignore_apply_to_record_errors() -> None:
    raw = RawRecord(number=1, line=1, text="{", kind="jsonl", end=0)
    assert check_record(raw, Options(ignore=("HT6",))).findings == ()


def test_sharegpt_record(parser: Any) -> None:
    call = '<tool_call>\n{"name": "get_weather", "arguments": {"location": "AT&T < HQ", "days": "2"}}\n</tool_call>'
    data = {
        "conversations": [
            {"from": "human", "value": "Weather at AT&T HQ? a < b"},
            {"from": "gpt", "value": "AT&T & co < here.\n" + call},
            {"from": "tool", "value": '<tool_response>\n{"name": "get_weather", "content": "ok"}\n</tool_response>'},
            {"from": "gpt", "value": "Fine."},
        ],
        "tools": json.dumps([WEATHER]),
    }
    assert [(c, s) for c, _, _, s in _record(data)] == [("HT302", '\\"2\\"')]


def test_sharegpt_tools_from_the_system_tools_block(parser: Any) -> None:
    system = "You may call:\n<tools>\n" + json.dumps(WEATHER) + "\n</tools>"
    data = {
        "conversations": [
            {"from": "system", "value": system},
            {"from": "human", "value": "hi"},
            {"from": "gpt", "value": '<tool_call>\n{"name": "img_gen", "arguments": {}}\n</tool_call>'},
        ]
    }
    assert [c for c, *_ in _record(data)] == ["HT301"]


def test_chatml_record_positions(parser: Any, tmp_path: Path) -> None:
    text = (
        "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n"
        '<tool_call>\n{"name": "get_weather", "arguments": {"location": 5}}\n</tool_call><|im_end|>\n'
    )
    path = tmp_path / "t.txt"
    path.write_text("<|im_start|>system\nfirst<|im_end|>\n" + text, encoding="utf-8")
    results = list(run(iter_records(path), Options(tools=(WEATHER,))))
    (f,) = [f for r in results for f in r.findings]
    assert (f.code, f.line, f.snippet[f.caret - 1]) == ("HT302", 7, "5")


def test_jobs_give_the_same_results_in_order(tmp_path: Path) -> None:
    recs = []
    for i in range(40):
        args = json.dumps({"location": "R", "days": i if i % 3 else True})
        recs.append(
            {
                "messages": [
                    {"role": "user", "content": "x"},
                    {
                        "role": "assistant",
                        "tool_calls": [
                            {"id": "c", "type": "function", "function": {"name": "get_weather", "arguments": args}}
                        ],
                    },
                ],
                "tools": [WEATHER],
            }
        )
    path = _jsonl(tmp_path, *recs)
    serial = list(run(iter_records(path), Options(), jobs=1))
    pooled = list(run(iter_records(path), Options(), jobs=2, batch_size=7))
    assert serial == pooled
    assert sum(len(r.findings) for r in serial) == 14


def test_record_shape_is_read_from_the_items() -> None:
    sharegpt_in_messages = {"messages": [{"from": "human", "value": "hi<|im_end|>"}]}
    openai_in_conversations = {"conversations": [{"role": "user", "content": "hi<|im_end|>"}]}
    assert [(c, s) for c, _, _, s in _record(sharegpt_in_messages)] == [("HT501", "<|im_end|>")]
    assert [(c, s) for c, _, _, s in _record(openai_in_conversations)] == [("HT501", "<|im_end|>")]


# ---- record splitting: no dialect's own rendering can start a record ------------------------------------

_PIECES = [*"ab \n<>/|{}_:", "<|im_", "system", "\n\n", "<tool_response>", "<think>"]
_TEXT = st.lists(st.sampled_from(_PIECES), max_size=12).map("".join)


@st.composite
def _conversation(draw: st.DrawFn) -> tuple[list[dict[str, Any]], list[Any], bool]:
    messages: list[dict[str, Any]] = []
    if draw(st.booleans()):
        messages.append({"role": "system", "content": draw(_TEXT)})
    for k in range(draw(st.integers(min_value=1, max_value=3))):
        messages.append({"role": "user", "content": draw(_TEXT)})
        if draw(st.booleans()):
            call = {
                "id": f"c{k}",
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"location": "x"}'},
            }
            messages.append({"role": "assistant", "content": draw(_TEXT), "tool_calls": [call]})
            messages.append({"role": "tool", "tool_call_id": f"c{k}", "content": draw(_TEXT)})
            if draw(st.booleans()):  # a system message in the middle of the conversation
                messages.append({"role": "system", "content": draw(_TEXT)})
        messages.append({"role": "assistant", "content": draw(_TEXT)})
    tools = [WEATHER] if draw(st.booleans()) else []
    return messages, tools, draw(st.booleans())


@settings(suppress_health_check=[HealthCheck.filter_too_much])  # the renderer refuses some drawn contents
@given(
    dialect=st.sampled_from(["hermes", "hermes-vllm", "qwen2.5", "qwen3", "omp"]),
    conversations=st.lists(_conversation(), min_size=1, max_size=3),
    crlf=st.booleans(),
)
def test_every_dialects_rendering_is_one_record(
    dialect: str, conversations: list[tuple[list[dict[str, Any]], list[Any], bool]], crlf: bool
) -> None:
    """Renders written one after the other, a blank line between them, read back as exactly those records.

    Only the last one may end in an open generation prompt (``<|im_start|>assistant``): an open turn has no
    ``<|im_end|>`` for a blank line to follow.
    """
    import tempfile

    from hermes_toolcall import render
    from hermes_toolcall.errors import RenderError

    texts = []
    for n, (messages, tools, prompt) in enumerate(conversations, 1):
        prompt = prompt and n == len(conversations)  # an open generation prompt can only end the file
        try:
            texts.append(render(messages, tools=tools, dialect=dialect, add_generation_prompt=prompt))
        except RenderError:  # content the renderer refuses (it would inject structure) is not a rendering
            assume(False)
    joined = "".join((t if t.endswith("\n") else t + "\n") + "\n" for t in texts)
    data = joined.replace("\n", "\r\n") if crlf else joined
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "t.chatml"
        path.write_bytes(data.encode())
        records = list(iter_records(path, "chatml"))
    assert [r.text.rstrip("\n") for r in records] == [t.rstrip("\n") for t in texts]
    lines = [1]
    for t in texts[:-1]:
        lines.append(lines[-1] + t.rstrip("\n").count("\n") + 2)
    assert [r.line for r in records] == lines


# ---- the reader hook (compressed files, Parquet … plug in here) ----------------------------------------


def test_a_registered_reader_gets_the_handle_and_its_peeked_bytes(tmp_path: Path) -> None:
    import gzip
    from collections.abc import Iterator
    from typing import BinaryIO

    from hermes_toolcall.validate._datasets import READERS, Reader, records_from_handle, register_reader

    def read(stream: BinaryIO, name: str, input_format: Any) -> Iterator[RawRecord]:
        with gzip.GzipFile(fileobj=stream) as inner:
            yield from records_from_handle(inner, name, input_format)  # type: ignore[arg-type]

    reader = Reader(name="gzip-test", sniff=lambda head, name: head[:2] == b"\x1f\x8b", read=read)
    register_reader(reader)
    try:
        path = tmp_path / "d.jsonl.gz"
        path.write_bytes(gzip.compress(b'{"messages": []}\n{"text": 1}\n'))
        records = list(iter_records(path))
        assert [(r.number, r.kind) for r in records] == [(1, "jsonl"), (2, "jsonl")]
        assert [f.code for r in records for f in check_record(r, Options()).findings] == ["HT602"]
        plain = _jsonl(tmp_path, {"messages": []})
        assert [r.kind for r in iter_records(plain)] == ["jsonl"]  # other inputs are not claimed
    finally:
        READERS.remove(reader)


def test_decoded_rows_are_records_too() -> None:
    row = {"messages": [{"role": "user", "content": "x"}, {"role": "tool", "content": "r", "tool_call_id": "z"}]}
    raw = RawRecord(number=4, line=4, text="", kind="object", end=0, data=row)
    (f,) = check_record(raw, Options()).findings
    assert (f.code, f.record, f.line, f.column) == ("HT402", 4, 4, 1)


def test_huge_numbers_and_deep_values_never_raise() -> None:
    from hermes_toolcall import validate, validate_record

    big = 10**4301
    tool = {
        "type": "function",
        "function": {
            "name": "f",
            "parameters": {"type": "object", "properties": {"a": {"type": "integer", "maximum": big}}},
        },
    }
    deep: Any = 1
    for _ in range(5000):
        deep = [deep]
    for args in ({"a": big}, '{"a": ' + "9" * 5000 + "}", {"a": deep}):
        rec = {
            "messages": [
                {"role": "user", "content": "x"},
                {
                    "role": "assistant",
                    "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": args}}],
                },
            ],
            "tools": [tool],
        }
        report = validate_record(rec)
        assert set(report.codes) <= {"HT302", "HT303", "HT604"}
        assert set(validate(rec["messages"], tools=[tool]).codes) <= {"HT302", "HT303", "HT604"}


def test_transcripts_joined_without_the_blank_line_are_reported(tmp_path: Path) -> None:
    from hermes_toolcall import render

    messages = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}]
    tools = [{"type": "function", "function": {**WEATHER["function"], "description": "Weather."}}]
    first, second = render(messages, tools=tools), render(messages, tools=tools)
    path = tmp_path / "joined.chatml"
    first = first.rstrip("\n") + "\n"
    path.write_text(first + second, encoding="utf-8")  # no blank line between them: one record
    (raw,) = list(iter_records(path))
    found = check_record(raw, Options()).findings
    (joined,) = [f for f in found if f.code == "HT605"]
    assert joined.severity == "warning" and joined.line == first.count("\n") + 1 and joined.column == 1
    separated = tmp_path / "separated.chatml"
    separated.write_text(first + "\n" + second, encoding="utf-8")
    assert [len(check_record(r, Options()).findings) for r in iter_records(separated)] == [0, 0]


def _check_or_die(raw: RawRecord, options: Options) -> Any:
    """``check_record``, except that a record holding ``KILL-WORKER`` ends its process (as an OOM kill would)."""
    import os

    if "KILL-WORKER" in raw.text and os.getpid() != _PARENT_PID:
        os._exit(9)
    return check_record(raw, options)


_PARENT_PID = __import__("os").getpid()


def test_regression_a_dead_worker_costs_only_its_record(monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker that dies (killed, out of memory) broke the whole pool: every record of every batch then in
    flight was reported HT604, innocent ones included. Now the broken batch is re-checked record by record in
    a fresh worker: only the record that kills its worker gets HT604, every other record (of that batch, of the
    batches in flight, of those after) gets exactly its ``--jobs 1`` findings, in input order."""
    import multiprocessing

    from hermes_toolcall.validate import _runner

    if multiprocessing.get_start_method() != "fork":
        pytest.skip("the planted killer reaches the workers only through fork (the default start method on Linux)")
    good = '{"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]}'
    bad = '{"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "x", "tool_calls": 3}]}'
    killer = '{"messages": [{"role": "user", "content": "KILL-WORKER"}]}'
    texts = [good if i % 3 else bad for i in range(40)]
    for at in (5, 6, 23):
        texts[at] = killer
    records = [RawRecord(number=i + 1, line=i + 1, kind="jsonl", end=0, text=t) for i, t in enumerate(texts)]
    expected = list(run(records, Options(), jobs=1))
    monkeypatch.setattr(_runner, "check_record", _check_or_die)
    got = list(run(records, Options(), jobs=2, batch_size=4))
    assert [r.number for r in got] == [r.number for r in expected]
    for i, (g, e) in enumerate(zip(got, expected, strict=True)):
        if texts[i] == killer:
            assert [f.code for f in g.findings] == ["HT604"], i
            assert "worker process checking it died" in g.findings[0].message
        else:
            assert g == e, i
