"""Runs inside the vLLM 0.33 venv (tests/integrations/test_grammar_engines.py): the xgrammar structural tag against
the real xgrammar that vLLM depends on (``GrammarCompiler`` + ``GrammarMatcher``, token level), over the tokenizer
trained in tests/grammar_cases.py, and the three exports through vLLM's own request validators.

Properties as tests/test_grammar_export.py: renderings of valid calls accepted for every choice, forged blocks
rejected. Named tests reproduce the failures of xgrammar's built-in structural tags quoted in issue 26
(chatml-family.md §7.2) and show the export accepting those renderings.
"""

from __future__ import annotations

import functools
import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest
import xgrammar as xgr
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # tests/: grammar_cases

import hermes_toolcall as ht
from grammar_cases import (
    CUT_TOOLS,
    DIALECTS,
    SENTINEL,
    cases,
    completion,
    cut_completions,
    eos_id,
    forgeries,
    problems,
    rendered_with,
    tokenizer_json,
    xml_writes,
)
from hermes_toolcall.grammar_export import (
    llguidance_grammar,
    outlines_regex,
    xgrammar_structural_tag,
)
from hermes_toolcall.grammar_export._ir import CUT

settings.register_profile("inside", max_examples=25, deadline=None, derandomize=True,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.load_profile("inside")


def test_xgrammar_is_the_version_vllm_pins() -> None:
    from importlib.metadata import version

    assert version("xgrammar") == "0.2.8"  # the version chatml-family.md §7.2 measured; vLLM 0.33.0 depends on it


@functools.lru_cache(maxsize=1)
def _hf() -> Any:
    from transformers import PreTrainedTokenizerFast

    return PreTrainedTokenizerFast(tokenizer_file=tokenizer_json(), eos_token="<|im_end|>")


@functools.lru_cache(maxsize=1)
def _compiler() -> Any:
    info = xgr.TokenizerInfo.from_huggingface(_hf(), stop_token_ids=[eos_id()])
    return xgr.GrammarCompiler(info)


def _spelled(text: str) -> list[int]:
    """The tokens of ``text`` with each control token's text written with ordinary tokens (its first character, then
    the rest), as a model may write it."""
    ids: list[int] = []
    for part in re.split("(" + "|".join(map(re.escape, CUT)) + ")", text):
        if part in CUT:
            ids += _hf().encode(part[:1], add_special_tokens=False) + _hf().encode(part[1:], add_special_tokens=False)
        elif part:
            ids += _hf().encode(part, add_special_tokens=False)
    return ids


def xg_accepts(structural_tag: dict[str, Any], text: str, *, spell: bool = False) -> bool:
    """Whether xgrammar's matcher takes the tokenizer's tokens of ``text`` (``spell``: control tokens written with
    ordinary ones) and then the end token."""
    matcher = xgr.GrammarMatcher(_compiler().compile_structural_tag(json.dumps(structural_tag)))
    for token in _spelled(text) if spell else _hf().encode(text, add_special_tokens=False):
        if not matcher.accept_token(token):
            return False
    return bool(matcher.accept_token(eos_id())) and matcher.is_terminated()


def _request(case: Any) -> dict[str, Any]:
    return {"dialect": case.dialect, "tool_choice": case.tool_choice, "parallel_tool_calls": case.parallel,
            "reasoning": case.reasoning}


@pytest.mark.parametrize("dialect", DIALECTS)
@given(data=st.data())
def test_renderings_of_valid_calls_are_accepted(dialect: str, data: st.DataObject) -> None:
    case = data.draw(cases(dialect))
    assert problems(case.text, dialect=dialect, tools=case.tools, starts_in_reasoning=case.starts_in_reasoning) == []
    assert xg_accepts(xgrammar_structural_tag(case.tools, **_request(case)), case.text) == xml_writes(case), case


@pytest.mark.parametrize("dialect", DIALECTS)
@given(data=st.data())
def test_forged_blocks_are_rejected(dialect: str, data: st.DataObject) -> None:
    kind, case = data.draw(forgeries(dialect))
    assert problems(case.text, dialect=dialect, tools=case.tools, starts_in_reasoning=case.starts_in_reasoning)
    assert not xg_accepts(xgrammar_structural_tag(case.tools, **_request(case)), case.text), (kind, case)


@pytest.mark.parametrize("control", CUT)
def test_json_string_holding_a_control_token_is_rejected(control: str) -> None:
    """Regression (issue 26; tests/test_grammar_export.py for llguidance and outlines-core): xgrammar matches a token
    by its bytes, so a JSON string took a control token's text, even the added ``<|im_start|>`` token, which the
    library reads as the control token (the call cut off, HT102). The export now gives each ``json_schema`` format
    the texts of ``CUT`` as ``excludes``: rejected in every kind of JSON string, every dialect, fed as the
    tokenizer's own tokens (the added token) and spelled with ordinary ones."""
    added = _hf().convert_tokens_to_ids(control)
    assert _hf().encode(control, add_special_tokens=False) == [added]
    checked = 0
    for dialect, reasoning, text in cut_completions(control):
        opens = reasoning and ht.generation_prompt_state(dialect).starts_in_reasoning
        found = problems(text, dialect=dialect, tools=CUT_TOOLS, starts_in_reasoning=opens)
        assert found and "HT102" in found[0], (dialect, text, found)
        tag = xgrammar_structural_tag(CUT_TOOLS, dialect=dialect, tool_choice="required", reasoning=reasoning)
        assert not xg_accepts(tag, text), (dialect, text)  # the added token
        assert not xg_accepts(tag, text, spell=True), (dialect, text)  # ordinary tokens
        checked += 1
    assert checked == 8 * 6 + 6 * 4


@pytest.mark.parametrize("near", ["<|im_end|", "<|im_sta", "|im_end|>", "<<|im_end", "<|im_start>"])
def test_json_string_near_a_control_token_is_accepted(near: str) -> None:
    """The other side: a text that only comes close to a control token is an ordinary string for the library and for
    the structural tag, in every kind of JSON string and dialect; and an escaped one (``<\\u007cim_end|>``), which
    the library reads as written (no control token), is accepted too: ``excludes`` reads the text as written."""
    for dialect, reasoning, text in cut_completions(near):
        opens = reasoning and ht.generation_prompt_state(dialect).starts_in_reasoning
        assert problems(text, dialect=dialect, tools=CUT_TOOLS, starts_in_reasoning=opens) == [], (dialect, text)
        tag = xgrammar_structural_tag(CUT_TOOLS, dialect=dialect, tool_choice="required", reasoning=reasoning)
        assert xg_accepts(tag, text), (dialect, text)
    escaped = '<tool_call>\n{"name": "f", "arguments": {"s": "a<\\u007cim_end|>b"}}\n</tool_call>'
    assert problems(escaped, dialect="qwen3", tools=CUT_TOOLS, starts_in_reasoning=False) == []
    assert xg_accepts(xgrammar_structural_tag(CUT_TOOLS, dialect="qwen3", reasoning=False), escaped)


_REF_TOOLS = [{"type": "function", "function": {"name": "f", "description": "f", "parameters": {
    "type": "object", "$defs": {"word": {"type": "string"}},
    "properties": {"r": {"$ref": "#/$defs/word"}, "p": {"type": "string", "pattern": "^[a-z<|_>]*$"}}}}}]


@pytest.mark.parametrize("control", CUT)
def test_control_token_through_a_ref_and_beside_a_pattern(control: str) -> None:
    """As tests/test_grammar_export.py: through ``$ref`` the text is excluded; a string with a ``pattern`` of its
    own is written from the pattern alone (xgrammar's ``excludes`` skip it: a limit, docs/constrained.md §5)."""
    tag = xgrammar_structural_tag(_REF_TOOLS, dialect="qwen3", reasoning=False)
    for key, rejected in (("r", True), ("p", False)):
        text = rendered_with(f"a{control}b", "qwen3", False, {"name": "f", "arguments": {key: SENTINEL}}, _REF_TOOLS)
        assert problems(text, dialect="qwen3", tools=_REF_TOOLS, starts_in_reasoning=False)
        assert xg_accepts(tag, text, spell=True) is not rejected, key
        fine = text.replace(control, control[:-1])
        assert problems(fine, dialect="qwen3", tools=_REF_TOOLS, starts_in_reasoning=False) == []
        assert xg_accepts(tag, fine), key


def _json_formats(node: Any) -> list[dict[str, Any]]:
    """The ``json_schema`` formats in a structural tag."""
    if isinstance(node, dict):
        own = [node] if node.get("type") == "json_schema" else []
        return own + [f for v in node.values() for f in _json_formats(v)]
    if isinstance(node, list):
        return [f for v in node for f in _json_formats(v)]
    return []


def test_length_bounds_go_without_excludes() -> None:
    """A limit (docs/constrained.md §5): xgrammar 0.2.8 drops a string's ``minLength``/``maxLength`` where its
    ``json_schema`` format has ``excludes`` (measured here: with them, a string below the bound is taken), so a
    schema with a length bound goes without them: the bound holds, and its strings may hold a control token's text
    spelled out."""
    tools = [{"type": "function", "function": {"name": "f", "description": "f", "parameters": {
        "type": "object", "properties": {"s": {"type": "string", "minLength": 3}}, "required": ["s"]}}}]
    tag = xgrammar_structural_tag(tools, dialect="qwen3", tool_choice="required", reasoning=False)
    formats = _json_formats(tag)
    assert formats and all("excludes" not in f for f in formats)
    short = '<tool_call>\n{"name": "f", "arguments": {"s": "ab"}}\n</tool_call>'
    assert problems(short, dialect="qwen3", tools=tools, starts_in_reasoning=False)
    assert not xg_accepts(tag, short)
    cut = '<tool_call>\n{"name": "f", "arguments": {"s": "a<|im_end|>b"}}\n</tool_call>'
    assert problems(cut, dialect="qwen3", tools=tools, starts_in_reasoning=False)
    assert xg_accepts(tag, cut, spell=True)
    for f in formats:
        f["excludes"] = list(CUT)
    assert xg_accepts(tag, short) and not xg_accepts(tag, cut, spell=True)  # why: the bound is gone


# --- what vLLM does with each export ---------------------------------------------------------------

_TOOLS = [{"type": "function", "function": {"name": "get_weather", "description": "w", "parameters": {
    "type": "object", "properties": {"location": {"type": "string"}, "unit": {"enum": ["celsius", "fahrenheit"]}},
    "required": ["location"]}}}]


def test_vllm_validators_accept_each_export() -> None:
    """The request fields docs/constrained.md shows pass vLLM 0.33's own validation, per back end."""
    import llguidance
    from vllm.sampling_params import SamplingParams, StructuredOutputsParams
    from vllm.v1.structured_output.backend_guidance import validate_guidance_grammar
    from vllm.v1.structured_output.backend_outlines import validate_structured_output_request_outlines
    from vllm.v1.structured_output.backend_xgrammar import validate_xgrammar_grammar

    for dialect in DIALECTS:
        st_json = json.dumps(xgrammar_structural_tag(_TOOLS, dialect=dialect, tool_choice="required"))
        validate_xgrammar_grammar(SamplingParams(structured_outputs=StructuredOutputsParams(structural_tag=st_json)))
        lark = llguidance_grammar(_TOOLS, dialect=dialect, tool_choice="required")
        validate_guidance_grammar(SamplingParams(structured_outputs=StructuredOutputsParams(grammar=lark)),
                                  tokenizer=llguidance.LLTokenizer(tokenizer_json()))
        regex = outlines_regex(_TOOLS, dialect=dialect, tool_choice="auto")
        validate_structured_output_request_outlines(
            SamplingParams(structured_outputs=StructuredOutputsParams(regex=regex)))


def _adjusted(parser: str, tokenizer: Any, **fields: Any) -> Any:
    """The request's structured outputs once vLLM's parser for ``parser`` (``--tool-call-parser``) adjusted it, as
    OpenAIServingChat does before generating (the structural tag as a dict, or None)."""
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest
    from vllm.parser import ParserManager

    import hermes_toolcall.integrations.vllm  # noqa: F401 (registers the hermes_toolcall parsers)

    cls = ParserManager.get_parser(tool_parser_name=parser, reasoning_parser_name=None, enable_auto_tools=True)
    request = ChatCompletionRequest(model="m", messages=[{"role": "user", "content": "hi"}], **fields)
    outputs = cls(tokenizer, request.tools).adjust_request(request).extract_structured_outputs()
    return json.loads(outputs.structural_tag) if outputs is not None and outputs.structural_tag else None


@pytest.mark.parametrize("parser", ["hermes", "hermes_toolcall"])
def test_vllm_keeps_the_export_alone_only_under_auto(parser: str, tmp_path: Path) -> None:
    """docs/constrained.md §3, with vLLM 0.33's parsers (its own ``hermes`` and this project's): under
    ``tool_choice="auto"`` with no strict tool, the export (as ``structured_outputs.structural_tag`` or as
    ``response_format``) is what vLLM constrains with; a strict tool makes vLLM put its built-in tag beside it (an
    ``or``); ``required`` and a named choice replace it with the built-in tag."""
    from vllm.tokenizers import get_tokenizer

    from hermes_toolcall.integrations._tokenizer import build

    tokenizer = get_tokenizer(build(tmp_path))
    tag = xgrammar_structural_tag(_TOOLS, dialect="qwen3", tool_choice="required", reasoning=False)
    fields: dict[str, Any] = {"structured_outputs": {"structural_tag": json.dumps(tag)}}
    assert _adjusted(parser, tokenizer, tools=_TOOLS, **fields) == tag
    assert _adjusted(parser, tokenizer, tools=_TOOLS, response_format=tag) == tag
    strict = [{"type": "function", "function": {**_TOOLS[0]["function"], "strict": True}}]
    both = _adjusted(parser, tokenizer, tools=strict, **fields)
    assert both["format"]["type"] == "or" and len(both["format"]["elements"]) == 2
    assert both["format"]["elements"][1]["type"] == tag["format"]["type"]  # the export, re-dumped with defaults
    for choice in ("required", {"type": "function", "function": {"name": "get_weather"}}):
        replaced = _adjusted(parser, tokenizer, tools=_TOOLS, tool_choice=choice, **fields)
        assert replaced is not None and replaced["format"]["type"] != tag["format"]["type"], choice


# --- named: the built-in structural tags' failures, and the export's answer ------------------------


def _builtin(model: str, **kwargs: Any) -> dict[str, Any]:
    from xgrammar.builtin_structural_tag import get_model_structural_tag

    tag = get_model_structural_tag(model, tools=_TOOLS, **kwargs)
    return json.loads(tag.model_dump_json())


def test_builtin_qwen_3_rejects_compact_separators() -> None:
    """chatml-family.md §7.2 / reach §B.3: xgrammar's ``qwen_3`` tag writes ``{"name": "NAME", "arguments": `` with
    spaces, so every omp rendering (``{"name":"…``) is rejected; the omp export accepts it."""
    text = completion("omp", False, thought="", content="", calls=[
        {"name": "get_weather", "arguments": {"location": "Paris"}}])
    assert text.startswith('<tool_call>\n{"name":"get_weather","arguments":{')
    assert not xg_accepts(_builtin("qwen_3", tool_choice="auto", reasoning=False), text)
    assert xg_accepts(xgrammar_structural_tag(_TOOLS, dialect="omp"), text)
    qwen3 = completion("qwen3", False, thought="", content="", calls=[
        {"name": "get_weather", "arguments": {"location": "Paris"}}])
    assert xg_accepts(_builtin("qwen_3", tool_choice="auto", reasoning=False), qwen3)  # its own spacing: fine


# the tools of chatml-family.md §7.2: f(s: string required, b: boolean, n: ["integer","null"], i: integer, o: object)
_F = [
    {"type": "function", "function": {"name": "f", "description": "f", "parameters": {
        "type": "object", "properties": {"s": {"type": "string"}, "b": {"type": "boolean"},
                                         "n": {"type": ["integer", "null"]}, "i": {"type": "integer"},
                                         "o": {"type": "object"}},
        "required": ["s"]}}},
    {"type": "function", "function": {"name": "ping", "description": "p",
                                      "parameters": {"type": "object", "properties": {}}}},
]


def _xml(dialect: str, reasoning: bool, calls: list[dict[str, Any]], *, content: str = "") -> str:
    return completion(dialect, reasoning, thought="Let me think.", content=content, calls=calls, tools=_F)


def _coder(tool_choice: str = "auto", reasoning: bool = False) -> dict[str, Any]:
    from xgrammar.builtin_structural_tag import get_model_structural_tag

    return json.loads(get_model_structural_tag("qwen_3_coder", tools=_F, tool_choice=tool_choice,
                                               reasoning=reasoning).model_dump_json())


@pytest.mark.parametrize("args", [{"s": "hi", "b": False}, {"s": "hi", "b": True}, {"s": "hi", "n": None},
                                  {"s": "a</parameter>b"}])
@pytest.mark.parametrize("dialect", ["qwen3-coder", "qwen3.5"])
def test_builtin_qwen_3_coder_rejects_what_the_templates_render(dialect: str, args: dict[str, Any]) -> None:
    """chatml-family.md §7.2: the built-in ``qwen_3_coder`` tag rejects the Python literals the Qwen3-Coder and
    Qwen3.5 templates write (``False``, ``True``, ``None``) and a ``</parameter>`` inside a string value."""
    text = _xml(dialect, False, [{"name": "f", "arguments": args}])
    assert problems(text, dialect=dialect, tools=_F, starts_in_reasoning=False) == []
    assert not xg_accepts(_coder(), text)
    assert xg_accepts(xgrammar_structural_tag(_F, dialect=dialect, reasoning=False), text)


@pytest.mark.parametrize("dialect", ["qwen3-coder", "qwen3.5", "nemotron-3", "step-3.5"])
def test_builtin_qwen_3_coder_rejects_a_call_without_arguments(dialect: str) -> None:
    """All four templates write a call with no arguments as ``<function=ping>\\n</function>``: rejected by the
    built-in tag (it wants ``<function=ping>\\n\\n</function>``), accepted by the export."""
    text = completion(dialect, False if dialect != "step-3.5" else True, thought="Let me think.", content="",
                      calls=[{"name": "ping", "arguments": {}}], tools=_F)
    assert "<function=ping>\n</function>" in text
    reasoning = dialect == "step-3.5"
    builtin = _coder(reasoning=reasoning)
    if not reasoning:
        assert not xg_accepts(builtin, text)
    assert xg_accepts(xgrammar_structural_tag(_F, dialect=dialect, reasoning=reasoning), text)


@pytest.mark.parametrize("dialect", ["nemotron-3", "step-3.5"])
def test_builtin_qwen_3_coder_rejects_one_newline_after_think(dialect: str) -> None:
    """Nemotron and Step write ``</think>`` then one newline; the built-in tag wants ``\\n\\n``."""
    text = _xml(dialect, True, [{"name": "f", "arguments": {"s": "hi"}}])
    assert "\n</think>\n<tool_call>" in text
    assert problems(text, dialect=dialect, tools=_F, starts_in_reasoning=True) == []
    assert not xg_accepts(_coder(reasoning=True), text)
    assert xg_accepts(xgrammar_structural_tag(_F, dialect=dialect), text)


def test_builtin_qwen_3_coder_rejects_prose_before_a_required_call() -> None:
    """Under ``required`` the built-in tag forbids the reasoning in prose before the call that the templates'
    instructions invite (and the Qwen3.5 template renders: ``{content}\\n\\n<tool_call>``)."""
    text = _xml("qwen3.5", False, [{"name": "f", "arguments": {"s": "hi"}}], content="Sure.")
    assert text.startswith("Sure.\n\n<tool_call>")
    assert not xg_accepts(_coder(tool_choice="required"), text)
    assert xg_accepts(xgrammar_structural_tag(_F, dialect="qwen3.5", tool_choice="required", reasoning=False), text)
