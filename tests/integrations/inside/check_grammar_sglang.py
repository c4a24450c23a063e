"""Runs inside the SGLang 0.5.23 venv (tests/integrations/test_grammar_engines.py): what docs/constrained.md §3 says
about passing each export to SGLang, checked with SGLang's own request model and grammar back ends (built over the
tokenizer trained in tests/grammar_cases.py). The regex comes from the main venv (outlines-core is not installed
here): the test passes them in ``HERMES_TOOLCALL_OUTLINES_REGEX`` (JSON, by dialect).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from sglang.srt.constrained.llguidance_backend import GuidanceBackend
from sglang.srt.constrained.xgrammar_backend import XGrammarGrammarBackend
from sglang.srt.entrypoints.openai.protocol import ChatCompletionRequest
from sglang.srt.function_call.function_call_parser import FunctionCallParser
from transformers import PreTrainedTokenizerFast

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # tests/: grammar_cases

from grammar_cases import eos_id, tokenizer_json
from hermes_toolcall.grammar_export import llguidance_grammar, xgrammar_structural_tag

TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"location": {"type": "string"}}, "required": ["location"]}}}]
MESSAGES = [{"role": "user", "content": "Weather in Paris?"}]


def _hf() -> Any:
    return PreTrainedTokenizerFast(tokenizer_file=tokenizer_json(), eos_token="<|im_end|>")


def _valid(grammar: Any) -> bool:
    return "Invalid" not in type(grammar).__name__


@pytest.mark.parametrize("dialect", ["qwen2.5", "qwen3.5"])
def test_each_export_compiles_in_the_back_end_the_docs_name(dialect: str) -> None:
    """The structural tag compiles in SGLang's xgrammar back end, not in its llguidance one (which takes only the
    legacy ``structures``/``triggers`` form); the llguidance grammar compiles as ``ebnf`` in the llguidance back end
    (a grammar that starts with ``%llguidance`` is read as Lark), not in xgrammar's; the regex in both."""
    tag = json.dumps(xgrammar_structural_tag(TOOLS, dialect=dialect, tool_choice="required"))
    lark = llguidance_grammar(TOOLS, dialect=dialect, tool_choice="required")
    regex = json.loads(os.environ["HERMES_TOOLCALL_OUTLINES_REGEX"])[dialect]
    guidance = GuidanceBackend(_hf(), eos_token_ids=[eos_id()])
    xgrammar = XGrammarGrammarBackend(_hf(), vocab_size=len(_hf()), model_eos_token_ids=[eos_id()])
    assert _valid(xgrammar.dispatch_structural_tag(tag)) and not _valid(guidance.dispatch_structural_tag(tag))
    assert _valid(guidance.dispatch_ebnf(lark)) and not _valid(xgrammar.dispatch_ebnf(lark))
    assert _valid(guidance.dispatch_regex(regex)) and _valid(xgrammar.dispatch_regex(regex))


def _constraint(request: ChatCompletionRequest) -> Any:
    """The tool-call constraint SGLang's chat serving derives for the request (with ``--tool-call-parser qwen25``)."""
    parser = FunctionCallParser(request.tools, "qwen25")
    return parser.get_structure_constraint(request.tool_choice, parallel_tool_calls=request.parallel_tool_calls)


def test_request_fields_and_tool_choice() -> None:
    """``response_format`` takes the structural tag and ``ebnf``/``regex`` the others, under the default
    ``tool_choice`` (auto): the sampling parameters carry them. ``required`` or a named choice beside them is a
    ``ValueError`` ("cannot be combined"): SGLang's own tool-call constraint and the export cannot both hold."""
    tag = xgrammar_structural_tag(TOOLS, dialect="qwen2.5", tool_choice="required")
    request = ChatCompletionRequest(model="m", messages=MESSAGES, tools=TOOLS, response_format=tag)
    params = request.to_sampling_params([], {}, _constraint(request))
    sent = json.loads(params["structural_tag"])  # xgrammar's StructuralTag, re-dumped with its defaults written out
    assert sent["format"]["type"] == tag["format"]["type"] == "sequence"
    assert [e["type"] for e in sent["format"]["elements"]] == [e["type"] for e in tag["format"]["elements"]]
    lark = llguidance_grammar(TOOLS, dialect="qwen2.5", tool_choice="required")
    request = ChatCompletionRequest(model="m", messages=MESSAGES, tools=TOOLS, ebnf=lark)
    assert request.to_sampling_params([], {}, _constraint(request))["ebnf"] == lark
    named = {"type": "function", "function": {"name": "get_weather"}}
    for choice in ("required", named):
        request = ChatCompletionRequest(model="m", messages=MESSAGES, tools=TOOLS, tool_choice=choice,
                                        response_format=tag)
        constraint = _constraint(request)
        assert constraint is not None
        with pytest.raises(ValueError, match="cannot be combined"):
            request.to_sampling_params([], {}, constraint)
