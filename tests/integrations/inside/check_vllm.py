"""Runs inside the vLLM 0.33 venv (tests/integrations/test_servers.py): the plugin through vLLM's own classes.

Each output goes through the real serving path: ``ParserManager.get_parser`` composes the plugin's
tool parser (and reasoning parser) into vLLM's ``DelegatingParser``; streaming is
``ChatStreamProcessor.step()`` fed the way ``OpenAIServingChat`` feeds it (token ids decoded with
``tokenizers``' ``DecodeStream`` as vLLM's fast detokenizer does; the last delta carries the
finish reason); non-streaming is ``Parser.parse()`` after ``set_prompt_token_ids``.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from common import EDGE, XML_EDGE, Accumulator, Input, Message, chunkings, groups, inputs, oracle, tool_objects
from tokenizers.decoders import DecodeStream
from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest
from vllm.entrypoints.openai.chat_completion.stream_processor import ChatStreamProcessor
from vllm.parser import ParserManager
from vllm.tokenizers import get_tokenizer
from xml_serving import (
    PENDING,
    PLUGINS,
    TABLE,
    VLLM_PARSERS,
    Case,
    plugin_reads_as_the_engine,
    run,
    token_deltas,
    vllm_stream,
    vllm_whole,
)
from xml_serving import cases as xml_cases

import hermes_toolcall.integrations.vllm as plugin
from hermes_toolcall.conformance._adapter import Request
from hermes_toolcall.integrations._tokenizer import build
from hermes_toolcall.integrations.vllm import score_builtin

INPUTS = inputs()


@pytest.fixture(scope="module")
def tokenizer(tmp_path_factory: pytest.TempPathFactory) -> Any:
    return get_tokenizer(build(tmp_path_factory.mktemp("tok")))


def _request(item: Input, tool_choice: Any = "auto") -> ChatCompletionRequest:
    tools = tool_objects(item)
    return ChatCompletionRequest(
        model="m", messages=[{"role": "user", "content": "hi"}], tools=tools, tool_choice=tool_choice, stream=True
    )


def _prompt(tokenizer: Any, item: Input) -> list[int]:
    opener = "<think>\n" if item.opens else ""
    ids: list[int] = tokenizer.encode(f"<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n{opener}")
    return ids


def _parser_cls(reasoning: bool, dialect: str) -> Any:
    suffix = dialect.replace("-", "_").replace(".", "")
    return ParserManager.get_parser(
        tool_parser_name=f"hermes_toolcall_{suffix}",
        reasoning_parser_name=f"hermes_toolcall_{suffix}" if reasoning else None,
        enable_auto_tools=True,
    )


def stream(tokenizer: Any, item: Input, cuts: list[int] | None, *, reasoning: bool, tool_choice: Any = "auto",
           by_text: bool = False) -> tuple[Message, Any, str | None, list[str]]:
    """Stream the output through ChatStreamProcessor.step(); returns the client's message and the parser."""
    cls = _parser_cls(reasoning, item.dialect)
    request = _request(item, tool_choice)
    parser = cls(tokenizer, request.tools)
    request = parser.adjust_request(request)  # as OpenAIServingChat does before generating
    processor = ChatStreamProcessor(request, parser, enable_auto_tools=True, parser_cls=cls)
    prompt = _prompt(tokenizer, item)
    if by_text:  # character deltas (inputs the tokenizer cannot encode, e.g. lone surrogates)
        pieces = [(c, [0]) for c in item.text]
    else:
        ids = tokenizer.encode(item.text)
        decoder = DecodeStream(skip_special_tokens=request.skip_special_tokens)
        pieces = [(decoder.step(tokenizer._tokenizer, t) or "", [t]) for t in ids]
    steps = groups(pieces, cuts if cuts is not None else []) or [[]]  # an empty output: one final step
    acc = Accumulator()
    finish = None
    for n, group in enumerate(steps):
        last = n == len(steps) - 1
        text = "".join(p for p, _ in group)
        ids_ = [i for _, t in group for i in t]
        step = processor.step(text, ids_, "stop" if last else None, prompt)
        delta = step.delta
        if delta is not None:
            acc.add(delta.content, delta.reasoning, [
                (tc.index, tc.id, tc.function.name if tc.function else None,
                 (tc.function.arguments or "") if tc.function else "") for tc in delta.tool_calls])
        finish = step.finish_reason
    return acc.message(), parser, finish, acc.problems


def whole(tokenizer: Any, item: Input, *, reasoning: bool, tool_choice: Any = "auto") -> Message:
    cls = _parser_cls(reasoning, item.dialect)
    request = _request(item, tool_choice)
    parser = cls(tokenizer, request.tools)
    parser.set_prompt_token_ids(_prompt(tokenizer, item))
    r, content, calls = parser.parse(item.text, request, enable_auto_tools=True)
    return Message(content, r, tuple((c.name, c.arguments) for c in calls or ())).normal()


def _roundtrips(tokenizer: Any, text: str) -> bool:
    try:
        return bool(tokenizer.decode(tokenizer.encode(text)) == text)
    except Exception:
        return False


@pytest.mark.parametrize("reasoning", [False, True], ids=["tool-parser", "tool+reasoning-parser"])
@pytest.mark.parametrize("item", INPUTS, ids=[i.id for i in INPUTS])
def test_stream_equals_whole_equals_parse_completion(tokenizer: Any, item: Input, reasoning: bool) -> None:
    by_text = not _roundtrips(tokenizer, item.text)
    expected = oracle(item, reasoning_parser=reasoning)
    assert whole(tokenizer, item, reasoning=reasoning) == expected
    n = len(item.text) if by_text else len(tokenizer.encode(item.text))
    for cuts in chunkings(n, seed=len(item.text)):
        got, parser, finish, problems = stream(tokenizer, item, cuts, reasoning=reasoning, by_text=by_text)
        assert not problems
        assert got == expected, f"cuts={cuts[:20]}"
        tool_parser = parser.tool_parser
        assert tool_parser.get_remaining_unstreamed_args() == ""  # vLLM's finish logic adds nothing
        assert [c["arguments"] for c in tool_parser.prev_tool_call_arr] == tool_parser.streamed_args_for_tool
        assert finish == ("tool_calls" if expected.calls else "stop")


@pytest.mark.parametrize("item", EDGE + XML_EDGE, ids=[i.id for i in EDGE + XML_EDGE])
def test_eager_mode_streams_arguments(tokenizer: Any, item: Input, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HERMES_TOOLCALL_EAGER", "1")
    expected = oracle(item, reasoning_parser=True)
    got, parser, _, problems = stream(tokenizer, item, list(range(1, len(tokenizer.encode(item.text)))),
                                      reasoning=True)
    assert not problems
    assert parser.tool_parser.get_remaining_unstreamed_args() == ""
    if item.id.startswith(("truncated-second-call", "xml-truncated-second")):  # announced before it was cut: the
        # client has a partial call
        assert got.calls[0] == expected.calls[0] and len(got.calls) == 2
    else:
        assert got == expected


def test_tool_choice_none_gives_the_output_as_content(tokenizer: Any) -> None:
    item = EDGE[0]
    got, *_ = stream(tokenizer, item, [3, 9, 20], reasoning=False, tool_choice="none")
    assert got == Message(item.text, None, ()).normal()
    assert whole(tokenizer, item, reasoning=False, tool_choice="none") == Message(item.text, None, ()).normal()


@pytest.mark.parametrize("choice", ["required", {"type": "function", "function": {"name": "get_weather"}}])
def test_required_and_named_parse_the_native_format(tokenizer: Any, choice: Any) -> None:
    item = EDGE[0]
    got, *_ = stream(tokenizer, item, [5, 11], reasoning=False, tool_choice=choice)
    assert got.calls == (("get_weather", '{"city": "Paris"}'),)
    assert whole(tokenizer, item, reasoning=False, tool_choice=choice).calls == got.calls


def test_registered_names_and_plugin_loading() -> None:
    from vllm.reasoning.abs_reasoning_parsers import ReasoningParserManager
    from vllm.tool_parsers.abstract_tool_parser import ToolParserManager

    ToolParserManager.import_tool_parser("hermes_toolcall.integrations.vllm")  # --tool-parser-plugin's path
    assert ToolParserManager.get_tool_parser("hermes_toolcall") is plugin.HermesToolParser
    assert ReasoningParserManager.get_reasoning_parser("hermes_toolcall") is plugin.HermesReasoningParser
    assert ToolParserManager.get_tool_parser("hermes_toolcall_qwen3").dialect == "qwen3"


def test_prompt_opened_reasoning_is_read_from_token_ids(tokenizer: Any) -> None:
    item = next(i for i in EDGE if i.id == "qwq-reasoning-open")
    cls = _parser_cls(True, item.dialect)
    parser = cls(tokenizer, None)
    assert not parser.is_reasoning_end(_prompt(tokenizer, item))
    closed = tokenizer.encode("<|im_start|>assistant\n<think>\n\n</think>\n\n")
    assert parser.is_reasoning_end(closed)


@pytest.mark.parametrize("choice", ["required", {"type": "function", "function": {"name": "get_weather"}}])
def test_required_and_named_constrain_generation_to_the_native_format(choice: Any) -> None:
    item = EDGE[0]
    cls = _parser_cls(False, item.dialect)
    request = cls(None, None).adjust_request(_request(item, choice))
    tag = request.structured_outputs.structural_tag
    assert tag is not None and "<tool_call>" in tag and "get_weather" in tag
    assert request.skip_special_tokens is False


def test_builtin_hermes_scored_by_the_same_harness() -> None:
    out = score_builtin(Request(text=EDGE[0].text, chunks=(EDGE[0].text,)))
    assert [c.name for c in out.calls] == ["get_weather"]


@pytest.mark.parametrize(
    "step",
    [
        ("Hi", "", ()),
        ("", "hm", ()),
        ("", "", ((0, "call_0", "f", '{"a"'),)),
        ("", "", ((0, None, None, ': 1, "b"'),)),  # one more argument piece: the fused builder (_piece_builder)
        ("", "", ((3, None, None, ""),)),
        ("x", "", ((0, None, None, ": 1}"), (1, "call_1", "g", "{}"))),
    ],
)
def test_delta_messages_built_directly_equal_model_construct(step: Any) -> None:
    # regression: model_construct cost 3 field walks per delta; integrations.models sets the same state directly
    from vllm.entrypoints.generate.base.protocol import DeltaFunctionCall, DeltaMessage, DeltaToolCall

    from hermes_toolcall.integrations._models import plain

    assert all(plain(cls) for cls in (DeltaMessage, DeltaToolCall, DeltaFunctionCall))  # the direct path is used
    content, reasoning, pieces = step
    calls = [
        DeltaToolCall.model_construct(
            id=c, type="function" if c is not None else None, index=i,
            function=DeltaFunctionCall.model_construct(name=n, arguments=a),
        )
        for i, c, n, a in pieces
    ]
    expected = DeltaMessage.model_construct(
        role=None, content=content or None, reasoning=reasoning or None, tool_calls=calls
    )
    got = plugin._delta_message(step)
    assert got == expected
    assert got.model_fields_set == expected.model_fields_set
    assert got.__pydantic_extra__ == expected.__pydantic_extra__
    assert got.model_dump_json() == expected.model_dump_json()
    for g, e in zip(got.tool_calls, expected.tool_calls, strict=True):
        assert g.model_fields_set == e.model_fields_set and g.function.model_fields_set == e.function.model_fields_set
        assert g.__pydantic_extra__ == e.__pydantic_extra__


def test_an_empty_step_sends_no_delta() -> None:
    assert plugin._delta_message(("", "", ())) is None


def test_docstring_examples_with_the_real_server() -> None:
    """The module's own examples need the server's classes: run here, in its venv (the main venv skips them)."""
    import doctest

    assert doctest.testmod(plugin, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE).failed == 0


class _GeneralPath(plugin.HermesToolParser):  # type: ignore[misc]
    """The plugin with every step through its general route (``_sent``: the bookkeeping, then the
    ``DeltaMessage`` of the step): the oracle for its lone-argument-piece path. (``Session.step``'s own
    shortcuts are checked against the chunker's chunks in tests/integrations/test_session.py.)"""

    def extract_tool_calls_streaming(self, previous_text: str, current_text: str, delta_text: str,
                                     *args: Any) -> Any:
        if self._session is None:
            self._session = plugin.Session(self._policy(args[-1]))
        try:
            step = self._session.step(delta_text)
        except plugin.StreamStateError:
            return None
        return None if step is plugin.NO_STEP else self._sent(step)


def _dump(message: Any) -> Any:
    """A delta message as its JSON (call ids, random, made equal) and its fields set."""
    if message is None:
        return None
    return re.sub(r'"id":"[^"]+"', '"id":"-"', message.model_dump_json()), message.model_fields_set


@pytest.mark.parametrize("item", EDGE, ids=[i.id for i in EDGE])
def test_regression_lone_argument_piece_path_equals_the_general_step(
    tokenizer: Any, item: Input, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 2026-12-04: extract_tool_calls_streaming handles a lone ArgumentsDelta itself (Session.piece,
    # Bookkeeping._current, the fused DeltaMessage); every delta message and the bookkeeping after every
    # delta must be the general path's
    monkeypatch.setenv("HERMES_TOOLCALL_EAGER", "1")
    request = _request(item)
    text = item.text
    for cut in (1, 3, 4, 7):
        fast, general = plugin.HermesToolParser(tokenizer, request.tools), _GeneralPath(tokenizer, request.tools)
        for i in range(0, len(text), cut):
            piece = text[i : i + cut]
            got = [p.extract_tool_calls_streaming("", "", piece, [], [], [], request) for p in (fast, general)]
            assert _dump(got[0]) == _dump(got[1]), f"cut={cut} at {i}"
            assert fast.prev_tool_call_arr == general.prev_tool_call_arr
            assert fast.streamed_args_for_tool == general.streamed_args_for_tool
            assert fast.current_tool_id == general.current_tool_id
        assert _dump(fast.finish_streaming()) == _dump(general.finish_streaming())
        assert fast.prev_tool_call_arr == general.prev_tool_call_arr
        assert fast.streamed_args_for_tool == general.streamed_args_for_tool


def test_shared_fields_sets_read_the_same_after_vllm_assigns_fields() -> None:
    # the builders' instances share one fields-set per class (integrations._models.fields_set); vLLM assigns
    # fields of a message it got (delta.tool_calls = [], last_tc.function.arguments += remaining): every
    # other message must read exactly as model_construct would have built it
    from vllm.entrypoints.generate.base.protocol import DeltaFunctionCall, DeltaMessage, DeltaToolCall

    first, second = plugin._PIECE(0, "x"), plugin._PIECE(1, "y")
    general = plugin._delta_message(("Hi", "", ((2, "call_2", "f", "{}"),)))
    first.tool_calls[0].function.arguments += "z"
    first.tool_calls = []
    first.content = "c"
    expected = DeltaMessage.model_construct(
        role=None, content=None, reasoning=None,
        tool_calls=[DeltaToolCall.model_construct(
            id=None, type=None, index=1, function=DeltaFunctionCall.model_construct(name=None, arguments="y")
        )],
    )
    assert second.model_dump_json() == expected.model_dump_json()
    assert second.model_dump_json(exclude_unset=True) == expected.model_dump_json(exclude_unset=True)
    assert second.model_fields_set == expected.model_fields_set
    assert second.tool_calls[0].model_fields_set == expected.tool_calls[0].model_fields_set
    assert general is not None and general.tool_calls[0].function.arguments == "{}"
    assert first.model_dump_json(exclude_unset=True) == DeltaMessage.model_construct(
        role=None, content="c", reasoning=None, tool_calls=[]
    ).model_dump_json(exclude_unset=True)


# ---------------------------------------------------------------------------------------------- XML bodies
# issue 29 item 8: the XML-body dialects served; the serving table of docs/integrations.md


def _add(acc: Accumulator, delta: Any) -> None:
    if delta is not None:
        pieces = [(tc.index, tc.id, tc.function.name if tc.function else None,
                   (tc.function.arguments or "") if tc.function else "") for tc in delta.tool_calls]
        acc.add(delta.content, None, pieces)


@pytest.mark.parametrize("item", XML_EDGE, ids=[i.id for i in XML_EDGE])
def test_xml_call_announced_when_its_name_is_complete_arguments_append_only(
    tokenizer: Any, item: Input, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Eager: a call's id and name go out in the delta that completes ``<function=NAME>``; its argument
    pieces only append, and join to the non-streaming arguments, character for character."""
    monkeypatch.setenv("HERMES_TOOLCALL_EAGER", "1")
    request = _request(item)
    suffix = item.dialect.replace("-", "_").replace(".", "")
    from vllm.tool_parsers.abstract_tool_parser import ToolParserManager

    parser = ToolParserManager.get_tool_parser(f"hermes_toolcall_{suffix}")(tokenizer, request.tools)
    whole = [(c.function.name, c.function.arguments) for c in parser.extract_tool_calls(item.text, request).tool_calls]
    parser = ToolParserManager.get_tool_parser(f"hermes_toolcall_{suffix}")(tokenizer, request.tools)
    acc = Accumulator()
    announced: list[tuple[str, str]] = []  # (name, text fed so far) at each announcement
    fed = ""
    for ch in item.text:
        fed += ch
        delta = parser.extract_tool_calls_streaming("", "", ch, [], [], [], request)
        if delta is None:
            continue
        announced += [(tc.function.name, fed) for tc in delta.tool_calls if tc.function and tc.function.name]
        _add(acc, delta)
    _add(acc, parser.finish_streaming())
    assert not acc.problems
    for name, text in announced:
        if text.endswith(f"<function={name}>"):
            continue
        assert item.id.startswith("xml-json-body"), (name, text[-40:])  # a JSON body: announced at its name's end
    got = acc.message()
    if item.id.startswith("xml-truncated-second"):  # the cut call was announced: the client has it, partial
        assert got.calls[: len(whole)] == tuple(whole) and len(got.calls) == len(whole) + 1
    else:
        assert got.calls == tuple(whole)


@pytest.mark.parametrize("choice", ["required", {"type": "function", "function": {"name": "ping"}}])
@pytest.mark.parametrize("dialect", ["qwen3-coder", "qwen3.5", "nemotron-3", "step-3.5"])
def test_xml_dialects_constrain_required_calls_with_their_own_tag(dialect: str, choice: Any) -> None:
    """``required`` / a named tool: vLLM applies the dialect's own structural tag (``grammar_export``), which takes
    the call without arguments the templates write (xgrammar's built-in ``qwen_3_coder`` refuses it)."""
    from check_xgrammar import _F, completion, xg_accepts
    from vllm.tool_parsers.abstract_tool_parser import ToolParserManager
    from xgrammar import StructuralTag

    from hermes_toolcall.grammar_export import xgrammar_structural_tag

    suffix = dialect.replace("-", "_").replace(".", "")
    assert ToolParserManager.get_tool_parser(f"hermes_toolcall_{suffix}").dialect == dialect
    request = ChatCompletionRequest(model="m", messages=[{"role": "user", "content": "hi"}], tools=_F,
                                    tool_choice=choice, stream=True)
    request = _parser_cls(False, dialect)(None, None).adjust_request(request)
    tag = json.loads(request.structured_outputs.structural_tag)
    assert request.skip_special_tokens is False
    if dialect == "step-3.5":  # its prompt always opens reasoning: no tag without it, the built-in one
        assert '"style": "qwen_xml"' in json.dumps(tag) and "<function=" in json.dumps(tag)
        return
    export = xgrammar_structural_tag(_F, dialect=dialect, tool_choice=choice, reasoning=False)
    assert tag == json.loads(StructuralTag.model_validate(export).model_dump_json())
    assert xg_accepts(tag, completion(dialect, False, thought="", content="", calls=[{"name": "ping", "arguments": {}}],
                                      tools=_F))


XML_CASES = xml_cases()
RECORDED = json.loads(TABLE.read_text(encoding="utf-8"))["cases"]


@pytest.mark.parametrize("case", XML_CASES, ids=[c.id for c in XML_CASES])
def test_xml_serving_table_is_what_vllm_gives(case: Case, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every vLLM cell of tests/data/peers/xml_serving.json, recomputed with vLLM's classes; the plugin reads
    every case as the engine does (4-token, 1-token and one-delta streams, and the whole text)."""
    monkeypatch.setenv("HERMES_TOOLCALL_UNDECLARED", "keep")
    for column, _, name in VLLM_PARSERS:
        cell = run(column, case)
        if column in PLUGINS:
            if case.id not in PENDING:
                assert cell == RECORDED[case.id][column], column
            for deltas in (None, token_deltas(case.text, 1), token_deltas(case.text, 10**9)):
                if deltas is not None and len(case.text) > 10_000 and len(deltas) > 1:
                    continue  # the 100 KB case: 4-token deltas only
                assert plugin_reads_as_the_engine(case, vllm_stream(name, case, deltas)), column
            assert plugin_reads_as_the_engine(case, vllm_whole(name, case)), column
        else:
            assert cell == RECORDED[case.id][column], column


def test_bench_xml_call_reads_the_same_through_qwen3_coder_and_the_plugin(monkeypatch: pytest.MonkeyPatch) -> None:
    """bench/serving.py's XML rows compare equal work: its call gives vLLM's ``qwen3_coder`` and the plugin (both
    modes) the same typed arguments from the same 4-token deltas."""
    import importlib.util

    from xml_serving import ROOT

    spec = importlib.util.spec_from_file_location("bench_serving", ROOT / "bench" / "serving.py")
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    case = Case("bench", bench.xml_call(10_000), bench.XML_TOOLS, None, False, None, "any")
    deltas = bench.token_deltas(case.text)
    got = []
    for name, eager in (("qwen3_coder", ""), ("hermes_toolcall_qwen3_coder", "1"), ("hermes_toolcall_qwen3_coder", "")):
        monkeypatch.setenv("HERMES_TOOLCALL_EAGER", eager)
        content, calls = vllm_stream(name, case, deltas)
        assert content is None and [n for n, _ in calls] == ["write_file"]
        got.append(json.loads(calls[0][1]))
    assert got[0] == got[1] == got[2]
    assert isinstance(got[0]["mode"], int) and isinstance(got[0]["rows"], list)
