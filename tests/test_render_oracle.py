"""The Jinja oracle: transformers' environment, crash reporting, the missing-jinja2 error."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from helpers import template_source
from hermes_toolcall import HermesError, RenderError, UsageError
from hermes_toolcall.render import _oracle as oracle
from hermes_toolcall.render._oracle import OracleCrash, oracle_render, oracle_render_dialect


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


def test_template_folder_from_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # an installed copy has no ../shared beside it: HERMES_TOOLCALL_TEMPLATES names the folder
    (tmp_path / "Qwen-Qwen3-0.6B.jinja").write_text(template_source("Qwen-Qwen3-0.6B.jinja"), encoding="utf-8")
    monkeypatch.setenv(oracle.TEMPLATES_ENV, str(tmp_path))
    assert oracle.template_path("x.jinja") == tmp_path / "x.jinja"
    out = oracle_render_dialect([{"role": "user", "content": "Hi"}], dialect="qwen3")
    assert out == "<|im_start|>user\nHi<|im_end|>\n"
    with pytest.raises(UsageError, match=oracle.TEMPLATES_ENV):
        oracle_render_dialect([{"role": "user", "content": "Hi"}], dialect="hermes")
