"""The public testing kit: hypothesis strategies for the Hermes format and engine-agreement helpers.

Helpers (no extra dependency): ``feed_in_chunks``, ``all_chunkings``, ``chunk_at``,
``assert_engines_agree``, ``assert_spans_tile``, ``merge_deltas``, ``check_argument_deltas``,
``describe``, ``accumulate_chunks`` (OpenAI chunks to the message, as openai-python does),
``check_events`` (the event invariants), ``check_openai_chunks`` (chunks accumulate to
``to_openai()``, both chunker modes; ``openai_accumulate`` runs openai-python's own accumulator when
the ``openai`` package is installed), ``apply_corrections``.
Strategies (need ``hypothesis``, from the ``testing`` extra; imported on first use, a
``UsageError`` names the missing package):
``conversations``, ``rendered_transcripts``, ``completions``, ``completion_cases``,
``adversarial_texts``, ``nasty_calls``, ``truncations``, ``mutations``, ``chunkings``, ``json_values``,
``arguments``, ``tools``, ``tool_names``, ``plain_texts``; for XML bodies (Qwen3-Coder, Qwen3.5+,
Nemotron 3, Step 3.5) ``xml_completion_cases`` (every malformation, by name), ``xml_arguments``
(typed values with their schemas), ``xml_strings`` and ``xml_call_block`` (the templates' bytes).

Example, a property test for your own streaming parser::

    from hypothesis import given, strategies as st
    from hermes_toolcall.testing import adversarial_texts, chunkings

    @given(st.data(), adversarial_texts())
    def test_my_parser_is_chunking_invariant(data, text):
        chunks = data.draw(chunkings(text))
        assert my_parse_stream(chunks) == my_parse_stream([text])

>>> from hermes_toolcall.testing import all_chunkings
>>> len(list(all_chunkings("abcd")))
8
"""

from __future__ import annotations

import importlib
from typing import Any

from ._helpers import (
    all_chunkings,
    assert_engines_agree,
    assert_spans_tile,
    check_argument_deltas,
    chunk_at,
    describe,
    feed_in_chunks,
    merge_deltas,
)
from ._invariants import apply_corrections, check_events, check_openai_chunks, openai_accumulate
from ._openai_stream import accumulate_chunks, accumulate_delta

__all__ = [
    "CompletionCase",
    "XmlCase",
    "accumulate_chunks",
    "accumulate_delta",
    "adversarial_texts",
    "all_chunkings",
    "apply_corrections",
    "arguments",
    "assert_engines_agree",
    "assert_spans_tile",
    "check_argument_deltas",
    "check_events",
    "check_openai_chunks",
    "chunk_at",
    "chunkings",
    "completion_cases",
    "completions",
    "conversations",
    "describe",
    "feed_in_chunks",
    "json_values",
    "merge_deltas",
    "mutations",
    "nasty_calls",
    "openai_accumulate",
    "plain_texts",
    "rendered_transcripts",
    "tool_names",
    "tools",
    "truncations",
    "xml_arguments",
    "xml_call_block",
    "xml_completion_cases",
    "xml_strings",
]

_STRATEGIES = frozenset(__all__) - {
    "accumulate_chunks",
    "accumulate_delta",
    "apply_corrections",
    "check_events",
    "check_openai_chunks",
    "openai_accumulate",
    "all_chunkings",
    "assert_engines_agree",
    "assert_spans_tile",
    "check_argument_deltas",
    "chunk_at",
    "describe",
    "feed_in_chunks",
}


def __getattr__(name: str) -> Any:
    """Import the hypothesis strategies on first use (so the helpers work without hypothesis)."""
    if name in _STRATEGIES:
        return getattr(importlib.import_module(f"{__name__}._strategies"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
