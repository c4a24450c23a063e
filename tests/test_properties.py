"""Properties of the streaming engine's results: render → stream round trip, OpenAI chunk accumulation,
totality (lenient never raises, strict raises only HermesError), spans partition the input, and a short
run of the fuzz targets' fallback driver.
"""

from __future__ import annotations

import importlib
import random
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hermes_toolcall import _jsonio as jsonio
from hermes_toolcall._model import Completion, Transcript
from hermes_toolcall._openai_chunks import OpenAIChunker
from hermes_toolcall._profiles import DIALECTS
from hermes_toolcall.conformance._engines import grammar_parse
from hermes_toolcall.errors import HermesError
from hermes_toolcall.statemachine import StreamParser
from hermes_toolcall.testing import (
    accumulate_chunks,
    adversarial_texts,
    assert_spans_tile,
    chunkings,
    completion_cases,
    conversations,
    feed_in_chunks,
)

pytest_plugins = ["hypothesis_stats"]

DIALECT_NAMES = sorted(DIALECTS)
LEVELS = st.sampled_from(["completion", "transcript"])
OPTIONS = st.fixed_dictionaries(
    {},
    optional={
        "dialect": st.sampled_from(DIALECT_NAMES),
        "calls_in_reasoning": st.booleans(),
        "stop_at_fabricated_response": st.booleans(),
        "max_block_chars": st.integers(min_value=1, max_value=64),
    },
)
ANY_TEXT = st.one_of(adversarial_texts(), st.text(max_size=60))
FUZZ_DIR = Path(__file__).resolve().parent.parent / "fuzz"
_WS = " \t\n\r"


def examples(n: int) -> int:
    """``n`` examples, or the loaded profile's default when larger (the opt-in ``long`` profile)."""
    return max(n, settings().max_examples)


def count(name: str) -> None:
    """Count one example (summary printed by the hypothesis_stats plugin)."""
    importlib.import_module("hypothesis_stats").count(name)


# ---- render → stream round trip ----------------------------------------------------------------------


@pytest.mark.parametrize("dialect", DIALECT_NAMES)
@settings(max_examples=examples(40))
@given(data=st.data())
def test_render_then_stream_round_trip(dialect: str, data: st.DataObject) -> None:
    """Every call of a rendered conversation comes back, in order, from the streaming engine."""
    from hermes_toolcall.errors import RenderError
    from hermes_toolcall.render import render

    messages, tools = data.draw(conversations(dialect), label="conversation")
    try:
        text = render(messages, tools=tools, dialect=dialect)
    except RenderError as exc:  # the strategy promises renderable conversations
        raise AssertionError(f"conversations({dialect!r}) drew a conversation the renderer refuses: {exc}") from exc
    chunks = data.draw(chunkings(text), label="chunks")
    # the tools type an XML body's values (a string "0" of a string parameter stays a string)
    _, result = feed_in_chunks({"level": "transcript", "dialect": dialect, "tools": tools}, text, chunks)
    assert isinstance(result, Transcript) and not result.errors, result.errors
    got = [
        (c["function"]["name"], jsonio.loads(c["function"]["arguments"]))
        for m in result.to_openai_messages()
        if m["role"] == "assistant"
        for c in m.get("tool_calls") or ()
    ]
    want = [(c["function"]["name"], c["function"]["arguments"]) for m in messages for c in m.get("tool_calls") or ()]
    assert got == want
    results = [m["content"] for m in result.to_openai_messages() if m["role"] == "tool"]
    assert results == [m["content"] for m in messages if m["role"] == "tool"]
    count("round trip: render → stream")


# ---- OpenAI chunk accumulation -----------------------------------------------------------------------


def _stream_message(text: str, chunks: tuple[str, ...], *, eager: bool, **options: Any) -> tuple[Any, Any, Any]:
    parser = StreamParser(level="completion", stream_arguments=True, **options)
    chunker = OpenAIChunker(eager=eager)
    out = chunker.start() if hasattr(chunker, "start") else []
    for piece in chunks:
        out += chunker.feed(parser.feed(piece))
    out += chunker.feed(parser.close())
    out += chunker.finish()
    message, finish = accumulate_chunks(out)
    return message, finish, parser.result()


def _assert_same_message(message: dict[str, Any], finish: str | None, result: Any) -> None:
    want = result.to_openai()
    assert message.get("role") == "assistant"
    assert finish == result.finish_reason
    calls = message.get("tool_calls") or []
    assert calls == want["tool_calls"]
    # exact: leading content ws is stripped only after a valid call, which a stream knows in time
    assert (message.get("content") or "") == (want["content"] or "")
    assert (message.get("reasoning_content") or "") == (want["reasoning_content"] or "")


@settings(max_examples=examples(150))
@given(data=st.data(), dialect=st.sampled_from(DIALECT_NAMES))
def test_openai_chunks_accumulate_to_the_message(data: st.DataObject, dialect: str) -> None:
    """Eager chunks of a well-formed completion accumulate (openai-python style) to ``to_openai()``."""
    case = data.draw(completion_cases(dialect), label="completion")
    chunks = data.draw(chunkings(case.text), label="chunks")
    message, finish, result = _stream_message(case.text, chunks, eager=True, dialect=dialect)
    _assert_same_message(message, finish, result)
    count("openai: eager chunks of generated completions")


@settings(max_examples=examples(150))
@given(data=st.data(), text=adversarial_texts(), options=OPTIONS)
def test_openai_chunks_accumulate_on_any_input_when_not_eager(
    data: st.DataObject, text: str, options: dict[str, Any]
) -> None:
    """With ``eager=False`` the accumulation equals ``to_openai()`` for any input."""
    chunks = data.draw(chunkings(text), label="chunks")
    message, finish, result = _stream_message(text, chunks, eager=False, **options)
    _assert_same_message(message, finish, result)
    count("openai: non-eager chunks of adversarial input")


# ---- totality and spans --------------------------------------------------------------------------------


@settings(max_examples=examples(200))
@given(data=st.data(), text=ANY_TEXT, level=LEVELS, options=OPTIONS)
def test_lenient_nothing_escapes_and_spans_partition(
    data: st.DataObject, text: str, level: str, options: dict[str, Any]
) -> None:
    """Lenient mode: neither engine raises, and both results' spans partition the input (R1)."""
    chunks = data.draw(chunkings(text), label="chunks")
    assert_spans_tile(grammar_parse(text, level=level, **options))
    assert_spans_tile(feed_in_chunks({"level": level, **options}, text, chunks)[1])
    count("lenient: nothing escapes, spans partition")


@settings(max_examples=examples(200))
@given(data=st.data(), text=ANY_TEXT, level=LEVELS, options=OPTIONS)
def test_strict_only_hermes_errors_escape(data: st.DataObject, text: str, level: str, options: dict[str, Any]) -> None:
    """Strict mode: a result, or a HermesError carrying only error diagnostics; nothing else."""
    chunks = data.draw(chunkings(text), label="chunks")
    runs: list[Callable[[], Completion | Transcript]] = [
        lambda: grammar_parse(text, level=level, strict=True, **options),
        lambda: feed_in_chunks({"level": level, "strict": True, **options}, text, chunks)[1],
    ]
    for run in runs:
        try:
            result = run()
        except HermesError as exc:
            found = getattr(exc, "diagnostics", ())
            assert found and all(d.severity == "error" for d in found), exc
        else:
            assert not result.errors
            assert_spans_tile(result)
    count("strict: only HermesError escapes")


# ---- the fuzz targets' fallback driver (the short CI run) ---------------------------------------------------


@pytest.fixture
def fuzz_driver(monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.syspath_prepend(str(FUZZ_DIR))
    for name in ("driver", "targets", "fuzz_engines"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    return importlib.import_module("driver")


def test_fuzz_fallback_driver_over_the_seed_corpus(fuzz_driver: Any) -> None:
    assert fuzz_driver.run_files([FUZZ_DIR / "corpus"]) >= 100


def test_fuzz_fallback_driver_on_generated_inputs(fuzz_driver: Any) -> None:
    assert fuzz_driver.run_random(150, seed=11) == 150


def test_fuzz_target_entry_point_decodes_any_bytes(fuzz_driver: Any) -> None:
    target = importlib.import_module("fuzz_engines")
    rng = random.Random(2)
    for _ in range(50):
        target.test_one_input(bytes(rng.randrange(256) for _ in range(rng.randrange(40))))
    level, text, options, sizes = importlib.import_module("targets").decode_input(b"\x0f\x01\x05<tool_call>")
    assert (level, text, options["max_block_chars"], sizes) == ("transcript", "<tool_call>", 6, (6,))
