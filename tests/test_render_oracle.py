"""The Jinja oracle: transformers' environment, crash reporting, the missing-jinja2 error."""

from __future__ import annotations

import sys

import pytest

from helpers import template_source
from hermes_toolcall import HermesError, RenderError, UsageError
from hermes_toolcall.render import oracle
from hermes_toolcall.render.oracle import OracleCrash, oracle_render, oracle_render_dialect


def test_tojson_is_the_transformers_override() -> None:
    out = oracle_render("{{ x | tojson }}", [], x={"b": "<Zürich & 'x'>", "a": 1})
    assert out == '{"b": "<Zürich & \'x\'>", "a": 1}'  # insertion order, no HTML escaping, raw non-ASCII


def test_message_preprocessing() -> None:
    src = "{% for m in messages %}{{ m.reasoning_content }}|{{ m.thinking }}|{{ m.content is defined }};{% endfor %}"
    out = oracle_render(src, [{"role": "assistant", "content": None, "reasoning": "r"}])
    assert out == "r|r|False;"


def test_template_errors_become_oracle_crash() -> None:
    with pytest.raises(OracleCrash) as info:
        oracle_render("{{ raise_exception('boom') }}", [])
    assert isinstance(info.value, RenderError) and "boom" in str(info.value)
    with pytest.raises(OracleCrash, match="UndefinedError"):
        oracle_render("{{ messages[0].content + 'x' }}", [{"role": "user"}])


def test_dialect_entry_point() -> None:
    template_source("Qwen-Qwen3-0.6B.jinja")  # skips when ../shared is absent
    msgs = [{"role": "user", "content": "Hi"}]
    assert oracle_render_dialect(msgs, dialect="hermes", tools=[], bos_token="<B>").startswith("<B><|im_start|>system")
    with pytest.raises(OracleCrash):
        oracle_render_dialect(msgs, dialect="hermes")  # tools=None: TypeError in the HF template
    with pytest.raises(UsageError):
        oracle_render_dialect(msgs, dialect="omp")


def test_missing_jinja2_is_a_hermes_error(monkeypatch: pytest.MonkeyPatch) -> None:
    oracle._environment.cache_clear()
    oracle._compiled.cache_clear()
    monkeypatch.setitem(sys.modules, "jinja2", None)
    monkeypatch.setitem(sys.modules, "jinja2.ext", None)
    monkeypatch.setitem(sys.modules, "jinja2.sandbox", None)
    monkeypatch.setitem(sys.modules, "jinja2.exceptions", None)
    try:
        with pytest.raises(HermesError, match="jinja2"):
            oracle_render("x", [])
    finally:
        oracle._environment.cache_clear()
        oracle._compiled.cache_clear()
