"""Runs inside the SGLang 0.5.23 venv (tests/integrations/test_servers.py): the detector through SGLang's classes.

Streaming is ``FunctionCallParser.parse_stream_chunk`` per delta and ``parse_stream_end`` with the
last one, as ``OpenAIServingChat._process_tool_call_stream`` does (``flush`` on the final chunk);
non-streaming is ``has_tool_call`` + ``parse_non_stream`` as ``_process_tool_calls`` does. SGLang's
reasoning parser runs before the detector, so the oracle is the no-reasoning-parser one.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from common import EDGE, XML_EDGE, Accumulator, Input, Message, chunkings, groups, inputs, oracle, tool_objects
from sglang.srt.entrypoints.openai.protocol import Tool
from sglang.srt.function_call.function_call_parser import FunctionCallParser
from xml_serving import (
    PENDING,
    PLUGINS,
    SGLANG_PARSERS,
    TABLE,
    Case,
    plugin_reads_as_the_engine,
    run,
    sglang_stream,
    sglang_whole,
)
from xml_serving import cases as xml_cases

import hermes_toolcall.integrations.sglang as plugin
from hermes_toolcall.integrations.sglang import HermesDetector, register

INPUTS = inputs()


def _tools(item: Input) -> list[Tool]:
    return [Tool(**t) for t in tool_objects(item)]


def _parser(item: Input) -> FunctionCallParser:
    suffix = item.dialect.replace("-", "_").replace(".", "")
    return FunctionCallParser(_tools(item), f"hermes_toolcall_{suffix}")


def stream(item: Input, cuts: list[int]) -> tuple[Message, Any, list[str]]:
    parser = _parser(item)
    acc = Accumulator()
    pieces = groups(list(item.text), cuts) or [[]]
    for n, group in enumerate(pieces):
        text, calls = parser.parse_stream_chunk("".join(group))
        if n == len(pieces) - 1:
            end_text, end_calls = parser.parse_stream_end()
            text, calls = (text or "") + end_text, list(calls) + end_calls
        acc.add(text, None, [(c.tool_index, "id" if c.name else None, c.name, c.parameters) for c in calls])
    return acc.message(), parser.detector, acc.problems


def whole(item: Input) -> Message:
    parser = _parser(item)
    if not parser.has_tool_call(item.text):
        return Message(item.text, None, ()).normal()
    text, calls = parser.parse_non_stream(item.text)
    return Message(text, None, tuple((c.name, c.parameters) for c in calls)).normal()


@pytest.mark.parametrize("item", INPUTS, ids=[i.id for i in INPUTS])
def test_stream_equals_whole_equals_parse_completion(item: Input) -> None:
    expected = oracle(item, reasoning_parser=False)
    assert whole(item) == expected
    for cuts in chunkings(len(item.text), seed=len(item.text)):
        got, detector, problems = stream(item, cuts)
        assert not problems
        assert got == expected, f"cuts={cuts[:20]}"
        # _check_for_unstreamed_tool_args: the last call's expected arguments minus what was streamed
        if detector.prev_tool_call_arr:
            last = len(detector.prev_tool_call_arr) - 1
            assert detector.prev_tool_call_arr[last]["arguments"] == detector.streamed_args_for_tool[last]


def test_registered_and_structural_tag_matches_the_dialect() -> None:
    register()
    assert FunctionCallParser.ToolCallParserEnum["hermes_toolcall"] is HermesDetector
    item = EDGE[0]
    tag = FunctionCallParser(_tools(item), "hermes_toolcall_qwen3").get_legacy_structural_tag(at_least_one=True)
    begin, end = tag.structures[0].begin, tag.structures[0].end
    assert begin == '<tool_call>\n{"name": "get_weather", "arguments": '
    assert end == "}\n</tool_call>"
    assert tag.triggers == ["<tool_call>"]
    from hermes_toolcall import parse_completion

    assert parse_completion(begin + '{"a": 1}' + end).tool_calls[0].name == "get_weather"


def test_launcher_module_imports_sglang_entry_points() -> None:
    import hermes_toolcall.integrations.sglang_launch as launch

    assert callable(launch.main)
    from sglang.srt.server_args import prepare_server_args

    args = prepare_server_args(["--model-path", "/nonexistent", "--tool-call-parser", "hermes_toolcall"])
    assert args.tool_call_parser == "hermes_toolcall"


@pytest.mark.parametrize(
    "step", [("Hi", "", ()), ("", "", ((0, "c", "f", '{"a"'),)), ("x", "", ((0, None, None, "1}"),))]
)
def test_results_built_directly_equal_pydantic_construction(step: Any) -> None:
    # regression: pydantic validated two models per delta; integrations.models sets the same state directly
    from sglang.srt.function_call.core_types import StreamingParseResult, ToolCallItem

    from hermes_toolcall.integrations._models import plain
    from hermes_toolcall.integrations._session import Policy, Session

    assert plain(StreamingParseResult) and plain(ToolCallItem)  # the direct path is used
    content, _, pieces = step
    detector = HermesDetector()
    detector._session = Session(Policy())
    got = detector._sent(step)
    expected = StreamingParseResult(
        normal_text=content, calls=[ToolCallItem(tool_index=i, name=n, parameters=a) for i, _, n, a in pieces]
    )
    assert got == expected
    assert got.model_dump() == expected.model_dump()
    assert got.model_fields_set == expected.model_fields_set
    for g, e in zip(got.calls, expected.calls, strict=True):
        assert g.model_fields_set == e.model_fields_set


def test_docstring_examples_with_the_real_server() -> None:
    """The module's own examples need the server's classes: run here, in its venv (the main venv skips them)."""
    import doctest

    assert doctest.testmod(plugin, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE).failed == 0


# ---------------------------------------------------------------------------------------------- XML bodies
# issue 29 item 8: the XML-body dialects served; the serving table of docs/integrations.md

XML_CASES = xml_cases()
RECORDED = json.loads(TABLE.read_text(encoding="utf-8"))["cases"]


@pytest.mark.parametrize("case", XML_CASES, ids=[c.id for c in XML_CASES])
def test_xml_serving_table_is_what_sglang_gives(case: Case, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every SGLang cell of tests/data/peers/xml_serving.json, recomputed with SGLang's classes; the plugin reads
    every case as the engine does (4-token, 1-character and one-delta streams, and the whole text)."""
    monkeypatch.setenv("HERMES_TOOLCALL_UNDECLARED", "keep")
    for column, _, name in SGLANG_PARSERS:
        cell = run(column, case)
        if column in PLUGINS:
            if case.id not in PENDING:
                assert cell == RECORDED[case.id][column], column
            for deltas in (None, list(case.text), [case.text]):
                if deltas is not None and len(case.text) > 10_000 and len(deltas) > 1:
                    continue  # the 100 KB case: 4-token deltas only
                assert plugin_reads_as_the_engine(case, sglang_stream(name, case, deltas)), column
            assert plugin_reads_as_the_engine(case, sglang_whole(name, case)), column
        else:
            assert cell == RECORDED[case.id][column], column


@pytest.mark.parametrize("dialect", ["qwen3-coder", "qwen3.5", "nemotron-3", "step-3.5"])
def test_xml_dialects_constrain_required_calls_to_their_xml_body(dialect: str) -> None:
    """``required``: the dialect's own structural tag (``grammar_export``; Step 3.5, whose prompt always opens
    reasoning, asked for none: xgrammar's built-in ``qwen_3_coder``); never the JSON frame."""
    from xgrammar import StructuralTag

    from hermes_toolcall.errors import UsageError
    from hermes_toolcall.grammar_export import xgrammar_structural_tag

    suffix = dialect.replace("-", "_").replace(".", "")
    item = EDGE[0]
    parser = FunctionCallParser(_tools(item), f"hermes_toolcall_{suffix}")
    kind, tag = parser.get_structure_constraint("required")
    assert kind == "structural_tag"
    text = tag.model_dump_json()
    assert "<function=get_weather>" in text and '{\\"name\\"' not in text
    if dialect != "step-3.5":
        export = xgrammar_structural_tag(tool_objects(item), dialect=dialect, tool_choice="required", reasoning=False)
        assert text == StructuralTag.model_validate(export).model_dump_json()
    else:
        assert '"style":"qwen_xml"' in text
    with pytest.raises(UsageError):
        parser.detector.structure_info()


@pytest.mark.parametrize("item", XML_EDGE, ids=[i.id for i in XML_EDGE])
def test_xml_eager_calls_announced_at_their_name_arguments_append_only(
    item: Input, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Eager (``HERMES_TOOLCALL_EAGER=1``), 1-character deltas: a call's name goes out in the delta that completes
    ``<function=NAME>`` (a JSON body's at its name), its argument pieces only append and join to the
    non-streaming arguments; a call cut off after its name stays announced with partial arguments."""
    monkeypatch.setenv("HERMES_TOOLCALL_EAGER", "1")
    whole_calls = whole(item).calls
    parser = _parser(item)
    acc = Accumulator()
    fed = ""
    for n, ch in enumerate(item.text):
        fed += ch
        text, calls = parser.parse_stream_chunk(ch)
        if n == len(item.text) - 1:
            end_text, end_calls = parser.parse_stream_end()
            text, calls = (text or "") + end_text, list(calls) + end_calls
        for c in calls:
            if c.name:
                assert fed.endswith(f"<function={c.name}>") or item.id.startswith("xml-json-body"), fed[-40:]
        acc.add(text, None, [(c.tool_index, "id" if c.name else None, c.name, c.parameters) for c in calls])
    assert not acc.problems
    got = acc.message().calls
    if item.id.startswith("xml-truncated-second"):
        assert got[: len(whole_calls)] == whole_calls and len(got) == len(whole_calls) + 1
    else:
        assert got == whole_calls
