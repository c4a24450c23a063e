"""Helpers shared by the tests (merging adjacent deltas, reading shared files, grammar variants)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import strategies as st

from conftest import SHARED, TEMPLATES
from hermes_toolcall.conformance.generate import MARKERS
from hermes_toolcall.grammar import Variant

#: A tool in OpenAI shape, as the official templates receive it.
TIME: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "get_time",
        "description": "Get the current local time in a timezone.",
        "parameters": {
            "type": "object",
            "properties": {"timezone": {"type": "string", "description": "IANA timezone name"}},
            "required": ["timezone"],
        },
    },
}

# every option variant of the grammar (reasoning kinds × calls in reasoning × stop at a fabricated result)
VARIANTS = tuple(
    Variant(kinds=kinds, calls_in_reasoning=cir, stop_at_fabricated=stop)
    for kinds in (("think", "scratch_pad"), ("think",), ())
    for cir in (False, True)
    for stop in (False, True)
)


def stream_options(max_block_chars: int) -> st.SearchStrategy[dict[str, object]]:
    """Keyword options of a ``StreamParser`` (and of the whole-text parse), any subset of them."""
    return st.fixed_dictionaries(
        {},
        optional={
            "strict": st.booleans(),
            "calls_in_reasoning": st.booleans(),
            "stop_at_fabricated_response": st.booleans(),
            "max_block_chars": st.integers(min_value=1, max_value=max_block_chars),
            "stream_arguments": st.booleans(),
            "dialect": st.sampled_from(["hermes", "qwen3", "omp"]),
        },
    )


_PIECES = (*MARKERS, "assistant\n", "user\n", "tool\n", "system\n", "x\n", "<", "{", "[", '"', "\\", "a", "\n", " ")
soup = st.lists(st.sampled_from(_PIECES), max_size=30).map("".join)


def template_source(name: str) -> str:
    """The text of an official template from ``shared/conformance/templates``; skips when absent."""
    path = TEMPLATES / name
    if not path.exists():
        pytest.skip(f"{path} is absent: the official templates live in ../shared beside the repository")
    return path.read_text(encoding="utf-8")


def shared_file(relative: str) -> Path:
    """A file under ``../shared``; skips the test when the folder is absent."""
    path = SHARED / relative
    if not path.exists():
        pytest.skip(f"{path} is absent: ../shared is not beside the repository")
    return path


def jinja_render(
    source: str,
    messages: list[dict[str, object]],
    tools: list[dict[str, object]] | None = None,
    add_generation_prompt: bool = False,
    special_tokens: dict[str, str] | None = None,
    **kwargs: object,
) -> str:
    """Render a chat template the way transformers does: the library's oracle (official-templates.md §11)."""
    from hermes_toolcall.render.oracle import oracle_render

    return oracle_render(source, messages, tools, add_generation_prompt, special_tokens, **kwargs)


def merge_events(events: list[object]) -> list[object]:
    """Merge adjacent text, reasoning and argument deltas of one element and drop empty ones.

    The merged list does not depend on the chunking (format.md §4); same rules as
    ``hermes_toolcall.testing.merge_deltas``.
    """
    from hermes_toolcall.testing.helpers import merge_deltas

    merged: list[object] = merge_deltas(events)
    return merged


def openai_stream(
    chunks: tuple[str, ...] | list[str], *, eager: bool = True, **options: Any
) -> tuple[Any, dict[str, Any], list[dict[str, Any]]]:
    """Feed ``chunks`` to a ``StreamParser`` (sequential ids) and an ``OpenAIChunker``.

    Returns:
        ``(result, message, chunks)``: the folded completion, the message accumulated from the chunks
        the way openai-python does (``testing.accumulate_chunks``, with ``finish_reason`` checked
        against the result) and the chunks. ``stream_arguments`` follows ``eager`` unless given.
    """
    from hermes_toolcall.ids import sequential_ids
    from hermes_toolcall.statemachine import StreamParser
    from hermes_toolcall.statemachine.openai_chunks import OpenAIChunker
    from hermes_toolcall.testing import accumulate_chunks

    options.setdefault("stream_arguments", eager)
    parser = StreamParser(ids=sequential_ids(), **options)
    chunker = OpenAIChunker(eager=eager)
    out = chunker.start()
    for piece in chunks:
        out += chunker.feed(parser.feed(piece))
    out += chunker.feed(parser.close())
    out += chunker.finish()
    result = parser.result()
    message, finish = accumulate_chunks(out)
    assert finish == result.finish_reason
    return result, message, out
