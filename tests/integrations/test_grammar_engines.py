"""grammar_export's xgrammar structural tag against the real xgrammar, in vLLM's cached venv (vLLM depends on it).

``tests/integrations/inside/check_xgrammar.py`` runs there with this checkout's ``src/`` on ``PYTHONPATH``,
as the server tests do (test_servers.py); it also puts each export through vLLM's own request validators and
parsers. ``check_grammar_sglang.py`` does the same with SGLang's request model and grammar back ends.
"""

from __future__ import annotations

import json

import pytest
from test_servers import _run

from helpers import GRAMMAR_EXTRA, skip_without
from hermes_toolcall.grammar_export import outlines_regex


@pytest.mark.ci_required("the xgrammar export must be proven against the real xgrammar")
def test_xgrammar_export_in_vllm_venv() -> None:
    _run("vllm-0.33.0", "check_xgrammar.py")


@pytest.mark.ci_required("docs/constrained.md's SGLang requests must be checked against SGLang's own classes")
def test_grammar_exports_in_sglang_venv(monkeypatch: pytest.MonkeyPatch) -> None:
    skip_without(GRAMMAR_EXTRA)  # the regexes are made here, with outlines-core ([test]-only set-up: a skip)
    tools = [{"type": "function", "function": {"name": "get_weather", "parameters": {
        "type": "object", "properties": {"location": {"type": "string"}}, "required": ["location"]}}}]
    regexes = {d: outlines_regex(tools, dialect=d, tool_choice="required") for d in ("qwen2.5", "qwen3.5")}
    monkeypatch.setenv("HERMES_TOOLCALL_OUTLINES_REGEX", json.dumps(regexes))  # outlines-core is not in that venv
    _run("sglang-0.5.23", "check_grammar_sglang.py")
