"""TRL's ``assistant_only_loss`` with ``generation_template``, and a plain PyTorch loop on ``token_labels``
(run in the TRL venv, CPU torch, by ``tests/integrations/test_trl.py``).

No download: the tokenizer is a byte-level BPE trained here on rendered conversations (merging across
everything but the special tokens, so tokens straddle turn boundaries), the model a one-layer Qwen2
built from a config. TRL's own dataset preparation (``SFTTrainer``: ``apply_chat_template(...,
return_assistant_tokens_mask=True)``, then ``labels``) must give, row by row, exactly the ``input_ids`` and
``labels`` of ``token_labels(render(..., return_spans=True), tokenizer)``; then two optimiser steps run.
"""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path
from typing import Any

import torch
import trl
from datasets import Dataset
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
from transformers import PreTrainedTokenizerFast, Qwen2Config, Qwen2ForCausalLM

import hermes_toolcall as ht

TOOLS = [{"type": "function", "function": {"name": "get_weather", "description": "Get the weather.", "parameters": {
    "type": "object", "properties": {"city": {"type": "string", "description": "City"}}}}}]


def _records() -> list[dict[str, Any]]:
    call = {"type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}
    out = []
    for k, answer in enumerate(["It is 18 °C.", "Sunny, 18 °C 🙂", "  18 degrees\n", "Zürich: 12 °C."]):
        msgs: list[dict[str, Any]] = [{"role": "user", "content": f"Weather {k}?"},
                                      {"role": "assistant", "content": "", "tool_calls": [call]},
                                      {"role": "tool", "content": '{"temp": 18}'},
                                      {"role": "assistant", "content": answer,
                                       "reasoning_content": "The tool says 18." if k % 2 else ""}]
        if k == 3:
            msgs += [{"role": "user", "content": "And tomorrow?"}, {"role": "assistant", "content": "No idea."}]
        out.append({"messages": msgs, "tools": json.dumps(TOOLS)})
    return out


def _tokenizer() -> PreTrainedTokenizerFast:
    corpus = [ht.render(r["messages"], tools=TOOLS, dialect="qwen3") for r in _records()]
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=500, special_tokens=["<|im_start|>", "<|im_end|>", "<|endoftext|>"],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tok.train_from_iterator(corpus * 4, trainer)
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, eos_token="<|im_end|>", pad_token="<|endoftext|>")
    fast.chat_template = ht.generation_template("qwen3")
    return fast


def _model(fast: PreTrainedTokenizerFast) -> Qwen2ForCausalLM:
    torch.manual_seed(0)
    config = Qwen2Config(vocab_size=len(fast), hidden_size=32, intermediate_size=64, num_hidden_layers=1,
                         num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=4096,
                         pad_token_id=fast.pad_token_id, eos_token_id=fast.eos_token_id)
    return Qwen2ForCausalLM(config)


def test_trl_assistant_only_loss_labels_are_token_labels(tmp_path: Path) -> None:
    fast = _tokenizer()
    template = fast.chat_template
    records = _records()
    config = trl.SFTConfig(output_dir=str(tmp_path), assistant_only_loss=True, max_steps=2,
                           per_device_train_batch_size=2, report_to=[], use_cpu=True, save_strategy="no",
                           logging_steps=1, max_length=4096)
    trainer = trl.SFTTrainer(model=_model(fast), args=config, train_dataset=Dataset.from_list(records),
                             processing_class=fast)
    assert trainer.processing_class.chat_template == template  # TRL kept our template (it has the markers)
    straddled = 0
    for row, record in zip(trainer.train_dataset, records, strict=True):
        rendered = ht.render(record["messages"], tools=TOOLS, dialect="qwen3", return_spans=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            labels = ht.token_labels(rendered, fast)
        straddled += bool(caught)
        assert row["input_ids"] == list(labels.input_ids)
        assert row["labels"] == list(labels.labels)
    assert straddled  # the tokenizer merges across boundaries: the straddle policy was exercised
    result = trainer.train()
    assert math.isfinite(result.training_loss)


def test_plain_torch_loop() -> None:
    """The loop of docs/training.md, on the tiny model: the loss is finite and goes down on one sample."""
    fast = _tokenizer()
    model = _model(fast)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
    record = _records()[1]
    rendered = ht.render(record["messages"], tools=TOOLS, dialect="qwen3", return_spans=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ht.TokenBoundaryWarning)
        labelled = ht.token_labels(rendered, fast, "all_assistant")
    input_ids = torch.tensor([labelled.input_ids])
    labels = torch.tensor([labelled.labels])
    losses = []
    for _ in range(5):
        logits = model(input_ids=input_ids).logits
        loss = torch.nn.functional.cross_entropy(logits[0, :-1], labels[0, 1:], ignore_index=ht.training.IGNORE_INDEX)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        losses.append(loss.item())
    assert all(math.isfinite(x) for x in losses) and losses[-1] < losses[0]
    # the loss is over the trained tokens only: as many targets as the labels that are not -100
    assert int((labels[0, 1:] != ht.training.IGNORE_INDEX).sum()) == sum(labelled.mask[1:])
