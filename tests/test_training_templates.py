"""``generation_template``: the official templates with ``{% generation %}`` blocks, checked two ways.

1. With the tags removed, each renders byte for byte what the official template renders, with the
   render conformance test's oracle, on its generated conversations (template crashes included: both
   crash) and on the training generator's.
2. transformers' own ``apply_chat_template(..., return_assistant_tokens_mask=True)`` with the template
   gives the text ``render`` gives, the ``{% generation %}`` character ranges ``train_mask`` gives, and
   the ``assistant_masks`` that ``token_labels`` gives (``mask``), for a byte-level BPE tokenizer trained
   here with ``tokenizers`` (no download): one that splits like GPT-2 (words, spaces, newlines apart)
   and one that merges across anything but the special tokens (so tokens straddle turn headers and
   content, and the straddle policy is exercised). No torch is involved: the mask path needs none.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import textwrap
import warnings
from functools import cache
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import template_source
from hermes_toolcall import (
    RenderError,
    TemplateSourceWarning,
    TokenBoundaryWarning,
    UsageError,
    generation_template,
    render,
    token_labels,
    train_mask,
)
from hermes_toolcall._profiles import DIALECTS
from hermes_toolcall.render._oracle import OracleCrash, oracle_render
from hermes_toolcall.training import GENERATION_DIALECTS, strip_generation_tags
from hermes_toolcall.training._templates import _RECIPES
from hypothesis_stats import count, examples
from test_render_conformance import BOS, request
from test_render_spans import REF, TOOLS
from training_strategies import conversations

pytest_plugins = ["hypothesis_stats"]
pytestmark = pytest.mark.ci_required("transformers and tokenizers come with the [test] extra that .ci/run installs")

SPECIAL = ["<|im_start|>", "<|im_end|>", BOS]


def _official(dialect: str) -> str:
    template = DIALECTS[dialect].template
    assert template is not None
    return template_source(template)


@pytest.mark.parametrize("dialect", GENERATION_DIALECTS)
def test_recipe_is_for_the_official_bytes(dialect: str) -> None:
    source = _official(dialect)
    template = DIALECTS[dialect].template
    assert template is not None
    assert hashlib.sha256(source.encode()).hexdigest() == _RECIPES[template].sha256
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the official text: no warning
        tagged = generation_template(dialect, source)
    assert tagged == generation_template(dialect)  # read from the templates folder by default
    assert tagged.count("{% generation %}") == tagged.count("{% endgeneration %}") >= 1


def _both(source: str, tagged: str, req: dict[str, Any]) -> bool:
    """The official template and the tagged one without its tags render alike (or both crash)."""
    out = []
    for s in (source, strip_generation_tags(tagged)):
        try:
            out.append(oracle_render(s, req["messages"], req["tools"], req["add_generation_prompt"], **req["kwargs"]))
        except OracleCrash:
            out.append(None)
    assert out[0] == out[1]
    return out[0] is not None


def _tagged(name: str) -> tuple[str, str]:
    """(official text, the text with the recipe's tags) of a template file (every recipe, whether or not its
    dialect has landed: the XML-body ones are checked here before their render exists)."""
    source = template_source(name)
    out = source
    for edit in _RECIPES[name].edits:
        assert out.count(edit.old) == 1
        out = out.replace(edit.old, edit.new)
    return source, out


@pytest.mark.parametrize("name", sorted(_RECIPES))
@settings(max_examples=examples(100))
@given(req=request())
def test_without_tags_renders_as_the_official_template(name: str, req: dict[str, Any]) -> None:
    rendered = _both(*_tagged(name), req)
    count("generation template = official (conformance set): rendered" if rendered else
          "generation template = official (conformance set): both crash")


@pytest.mark.parametrize("name", sorted(_RECIPES))
@settings(max_examples=examples(60))
@given(rec=conversations(), add_generation_prompt=st.booleans())
def test_without_tags_renders_as_the_official_template_training_set(name: str, rec: dict[str, Any],
                                                                     add_generation_prompt: bool) -> None:
    req = {**rec, "add_generation_prompt": add_generation_prompt}
    if _both(*_tagged(name), req):
        count("generation template = official (training set)")


def test_other_sources() -> None:
    source = _official("qwen3")
    changed = source.replace("You may call one or more functions", "You may call functions")
    with pytest.warns(TemplateSourceWarning, match="HT705"):
        assert "{% generation %}" in generation_template("qwen3", changed)
    with pytest.raises(UsageError, match="edit 1 of 2 finds its text 0 times"):
        generation_template("qwen3", _official("qwen2.5"))
    with pytest.raises(UsageError, match="already has"):
        generation_template("qwen3", generation_template("qwen3"))
    with pytest.raises(UsageError, match="no generation template for dialect 'omp'"):
        generation_template("omp")
    with pytest.raises(UsageError, match="'tool_use'"):
        generation_template("hermes", {"default": "", "tool_use": ""})  # type: ignore[arg-type]
    with pytest.raises(UsageError, match="cannot read the official qwen3 template"):
        generation_template("qwen3", templates="/nonexistent")


# ---- transformers' own mask ---------------------------------------------------------------------------------


_CORPUS = [
    REF,
    [{"role": "user", "content": "Plan a trip to Zürich 🙂"},
     {"role": "assistant", "content": "\n\nSure.  Let me think", "reasoning_content": "The user wants {\"a\": 1}."},
     {"role": "user", "content": "  and then?\n"},
     {"role": "assistant", "content": "<think>\nok\n</think>\n\nDone: 東京\n"}],
]


@cache
def _tokenizers(kind: str) -> tuple[Any, Any]:
    """(tokenizers.Tokenizer, transformers fast tokenizer): a byte-level BPE trained on rendered conversations."""
    tokenizers = pytest.importorskip("tokenizers")
    transformers = pytest.importorskip("transformers")
    corpus = []
    for msgs in _CORPUS:
        for dialect in GENERATION_DIALECTS:
            for tools in (TOOLS, []):
                corpus.append(render(msgs, tools=tools, dialect=dialect, bos_token=BOS))
    tok = tokenizers.Tokenizer(tokenizers.models.BPE())
    tok.pre_tokenizer = tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=kind == "regex")
    tok.decoder = tokenizers.decoders.ByteLevel()
    trainer = tokenizers.trainers.BpeTrainer(vocab_size=700, special_tokens=SPECIAL, show_progress=False,
                                             initial_alphabet=tokenizers.pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(corpus * 3, trainer)
    fast = transformers.PreTrainedTokenizerFast(tokenizer_object=tok, bos_token=BOS, eos_token="<|im_end|>")
    return tok, fast


def _compare(dialect: str, kind: str, rec: dict[str, Any], add_generation_prompt: bool) -> str:
    from transformers.utils.chat_template_utils import _normalize_chat_messages, render_jinja_template

    tok, fast = _tokenizers(kind)
    template = generation_template(dialect)
    msgs, tools, kwargs = rec["messages"], rec["tools"], {**rec["kwargs"], "bos_token": BOS}
    try:
        r = render(msgs, tools=tools, dialect=dialect, add_generation_prompt=add_generation_prompt,
                   return_spans=True, **kwargs)
    except RenderError:
        return "refused"
    text = fast.apply_chat_template(msgs, tools=tools, chat_template=template, tokenize=False,
                                    add_generation_prompt=add_generation_prompt, **kwargs)
    assert text == r.text  # transformers renders what render renders (the oracle is transformers)
    plain = _normalize_chat_messages(msgs)  # apply_chat_template's own first step (None-valued keys dropped)
    rendered, indices = render_jinja_template(conversations=[plain], tools=tools, chat_template=template,
                                              return_assistant_tokens_mask=True,
                                              add_generation_prompt=add_generation_prompt, **kwargs)
    assert rendered[0] == r.text
    assert tuple(indices[0]) == train_mask(r), (indices[0], train_mask(r))
    out = fast.apply_chat_template(msgs, tools=tools, chat_template=template, tokenize=True, return_dict=True,
                                   return_assistant_tokens_mask=True, add_generation_prompt=add_generation_prompt,
                                   **kwargs)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        labels = token_labels(r, fast)
        again = token_labels(r, tok)
    assert labels == again  # a transformers tokenizer and the tokenizers one give the same labels
    assert list(out["input_ids"]) == list(labels.input_ids)
    assert list(out["assistant_masks"]) == list(labels.mask)
    assert [x for x, m in zip(labels.input_ids, labels.mask, strict=True) if m] == [
        x for x in labels.labels if x != -100]
    straddled = bool(labels.straddling)
    assert straddled == any(isinstance(w.message, TokenBoundaryWarning) for w in caught)
    return "straddled" if straddled else "aligned"


@pytest.mark.parametrize("kind", ["regex", "no-regex"])
@pytest.mark.parametrize("dialect", GENERATION_DIALECTS)
@settings(max_examples=examples(100))
@given(rec=conversations(), add_generation_prompt=st.booleans())
def test_transformers_mask_is_train_mask(dialect: str, kind: str, rec: dict[str, Any],
                                         add_generation_prompt: bool) -> None:
    outcome = _compare(dialect, kind, rec, add_generation_prompt)
    count(f"transformers assistant_masks = token_labels: {outcome}")


@pytest.mark.parametrize("dialect", GENERATION_DIALECTS)
@settings(max_examples=examples(40))
@given(req=request())
def test_transformers_mask_on_the_conformance_set(dialect: str, req: dict[str, Any]) -> None:
    try:
        oracle_render(_official(dialect), req["messages"], req["tools"], req["add_generation_prompt"], **req["kwargs"])
    except OracleCrash:
        return
    rec = {"messages": req["messages"], "tools": req["tools"], "kwargs": req["kwargs"]}
    outcome = _compare(dialect, "no-regex", rec, req["add_generation_prompt"])
    count(f"transformers assistant_masks = token_labels (conformance set): {outcome}")


def test_the_mask_path_needs_no_torch(tmp_path: Any) -> None:
    """transformers' assistant mask and token_labels run with torch unimportable (the [test] extra pulls none)."""
    pytest.importorskip("transformers")
    script = textwrap.dedent("""
        import sys, warnings
        sys.modules["torch"] = None  # importing torch now fails
        from tokenizers import Tokenizer, models, pre_tokenizers
        from transformers import PreTrainedTokenizerFast
        import hermes_toolcall as ht
        tok = Tokenizer(models.WordLevel({"x": 0}, unk_token="x"))
        tok.pre_tokenizer = pre_tokenizers.Split("", "isolated")
        fast = PreTrainedTokenizerFast(tokenizer_object=tok)
        msgs = [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}]
        out = fast.apply_chat_template(msgs, chat_template=ht.generation_template("qwen2.5"), tokenize=True,
                                       return_dict=True, return_assistant_tokens_mask=True)
        r = ht.render(msgs, dialect="qwen2.5", return_spans=True)
        assert list(out["assistant_masks"]) == list(ht.token_labels(r, fast).mask)
        assert sum(out["assistant_masks"]) == len("a<|im_end|>")
        print("ok", "torch" in sys.modules and sys.modules["torch"] is not None)
    """)
    env = {**os.environ, "HERMES_TOOLCALL_TEMPLATES": str(_templates_dir())}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["ok", "False"]


def _templates_dir() -> Any:
    from conftest import TEMPLATES

    return TEMPLATES
