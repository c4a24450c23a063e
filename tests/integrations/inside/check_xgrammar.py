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
import sys
from pathlib import Path
from typing import Any

import pytest
import xgrammar as xgr
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # tests/: grammar_cases

from grammar_cases import DIALECTS, cases, completion, eos_id, forgeries, problems, tokenizer_json, xml_writes
from hermes_toolcall.grammar_export import (
    llguidance_grammar,
    outlines_regex,
    xgrammar_structural_tag,
)

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


def xg_accepts(structural_tag: dict[str, Any], text: str) -> bool:
    """Whether xgrammar's matcher takes the tokenizer's tokens of ``text`` and then the end token."""
    matcher = xgr.GrammarMatcher(_compiler().compile_structural_tag(json.dumps(structural_tag)))
    for token in _hf().encode(text, add_special_tokens=False):
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
