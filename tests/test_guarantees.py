"""The promises of issue 10 as properties over adversarial inputs (docs: parsing.md, statemachine.md).

On any input string and any chunking (1-char included): only ``HermesError`` subclasses escape any
entry point; the stream's result equals the whole-text parse; the stream's events satisfy the event
invariants; the default ``OpenAIChunker``'s chunks, accumulated by openai-python's
``ChatCompletionStreamState`` and by the kit's ``accumulate_chunks``, equal ``to_openai()``; the eager
chunker's do once its last chunk's corrections are applied.

Two runs of the same property: ``test_guarantees_on_adversarial_inputs`` under the loaded profile
(derandomised under CI; 10,000 examples with ``HYPOTHESIS_PROFILE=long``), and
``test_guarantees_explore_new_examples`` with a fixed budget and a fresh random seed on every run
(also under CI), so each CI run explores examples no earlier run saw.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import hermes_toolcall as ht
from hermes_toolcall.statemachine import StreamParser
from hermes_toolcall.testing import (
    adversarial_texts,
    check_events,
    check_openai_chunks,
    chunkings,
    nasty_calls,
    openai_accumulate,
)
from hypothesis_stats import count

pytest_plugins = ["hypothesis_stats"]

LONG = settings().max_examples >= 5000
#: examples of the derandomised run (10,000 under the long profile) and of the random exploration run
EXAMPLES = 10_000 if LONG else 150
EXPLORE = 300

_texts = st.one_of(adversarial_texts(), nasty_calls())


def _chunks_of(data: st.DataObject, text: str) -> tuple[str, ...]:
    if data.draw(st.booleans(), label="one char at a time") and len(text) < 3000:
        return tuple(text) or ("",)
    return data.draw(chunkings(text), label="chunks")


def _whole(level: str, text: str, strict: bool) -> ht.Completion | ht.Transcript | None:
    parse = ht.parse_completion if level == "completion" else ht.parse_transcript
    try:
        return parse(text, strict=strict, ids=ht.sequential_ids())
    except ht.ParseError:
        assert strict
        return None


def check_guarantees(text: str, chunks: tuple[str, ...], level: str, strict: bool, stream_arguments: bool) -> None:
    """Every guarantee of the module docstring on one input and chunking."""
    ht.detect_dialect(text)  # total
    whole = _whole(level, text, strict)
    parser = StreamParser(level=level, strict=strict, stream_arguments=stream_arguments, ids=ht.sequential_ids())  # type: ignore[arg-type]
    events = [e for c in chunks for e in parser.feed(c)]
    try:
        events += parser.close()
        assert whole is not None, "strict: the stream passed, the whole-text parse raised"
    except ht.StreamError:
        assert whole is None, "strict: the stream raised, the whole-text parse passed"
        events += parser.closing_events
    result = parser.result()
    if whole is not None:
        assert result == whole
    check_events(events, result)
    if level == "completion":
        options = {"strict": strict, "stream_arguments": stream_arguments}
        check_openai_chunks(chunks, eager=False, options=options, result=None)
        check_openai_chunks(chunks, eager=True, options=options, result=None, oracle=False)


#: the inputs of both runs of the guarantees property
_inputs = given(
    data=st.data(),
    text=_texts,
    level=st.sampled_from(["completion", "transcript"]),
    strict=st.booleans(),
    stream_arguments=st.booleans(),
)


@settings(max_examples=EXAMPLES)
@_inputs
def test_guarantees_on_adversarial_inputs(
    data: st.DataObject, text: str, level: str, strict: bool, stream_arguments: bool
) -> None:
    check_guarantees(text, _chunks_of(data, text), level, strict, stream_arguments)
    count("guarantees: adversarial inputs (profile)")


@settings(max_examples=EXPLORE, derandomize=False, database=None)
@_inputs
def test_guarantees_explore_new_examples(
    data: st.DataObject, text: str, level: str, strict: bool, stream_arguments: bool
) -> None:
    check_guarantees(text, _chunks_of(data, text), level, strict, stream_arguments)
    count("guarantees: random exploration (fixed budget)")




@pytest.mark.ci_required("the chunk invariant is checked against openai-python's own accumulator")
def test_openai_python_accumulator_is_available() -> None:
    pytest.importorskip("openai", reason="openai (test extra) is not installed: the oracle accumulator is skipped")
    out = check_openai_chunks(list('Hi<tool_call>{"name": "f", "arguments": {}}</tool_call>'), eager=False, options={})
    assert openai_accumulate(out) is not None
