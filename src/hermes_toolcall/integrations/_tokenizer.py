"""A local byte-level BPE tokenizer with the format's special tokens (``tokenizers``; nothing downloaded).

For the integration tests, ``bench/serving.py`` and the ``score_builtin`` conformance adapters:
``build(directory)`` trains a small vocabulary on the format's own text and saves it with
``transformers`` as a fast tokenizer, so the servers load it the way they load a model's. Needs
``tokenizers`` and ``transformers`` (both come with vLLM and SGLang).
"""

from __future__ import annotations

from pathlib import Path

from ..tags import (
    CALL_CLOSE,
    CALL_OPEN,
    IM_END,
    IM_START,
    RESP_CLOSE,
    RESP_OPEN,
    SCRATCH_CLOSE,
    SCRATCH_OPEN,
    THINK_CLOSE,
    THINK_OPEN,
    TOOLS_CLOSE,
    TOOLS_OPEN,
)

__all__ = ["ADDED", "SPECIAL", "build"]

SPECIAL = [IM_START, IM_END, "<|endoftext|>"]
ADDED = [
    CALL_OPEN, CALL_CLOSE, THINK_OPEN, THINK_CLOSE, RESP_OPEN, RESP_CLOSE,
    SCRATCH_OPEN, SCRATCH_CLOSE, TOOLS_OPEN, TOOLS_CLOSE,
]  # fmt: skip
_CORPUS = [
    '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris", "unit": "celsius"}}\n</tool_call>',
    "Let me check the weather for you. I will call the tool now and then answer.",
    "<think>\nThe user wants the weather; I should call get_weather.\n</think>\n\nSure.",
    '{"query": "SELECT * FROM t WHERE x = 1", "limit": 10, "flag": true, "none": null}',
    "0123456789 abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ \\n \\t \\\" {}[]:,",
]


def build(directory: str | Path) -> str:
    """Train the tokenizer, save it in ``directory`` and return the directory."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.post_processor = processors.ByteLevel(trim_offsets=False)
    trainer = trainers.BpeTrainer(
        vocab_size=600, special_tokens=SPECIAL, initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
    )
    tok.train_from_iterator(_CORPUS * 20, trainer=trainer)
    tok.add_tokens(ADDED)
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, eos_token=IM_END, pad_token="<|endoftext|>")
    fast.save_pretrained(str(directory))
    return str(directory)
