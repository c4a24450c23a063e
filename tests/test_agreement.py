"""The two engines agree: the Lark grammar (whole text) and the streaming machine (any chunking).

Each property feeds the machine the whole text, one character at a time and a drawn chunking, and
compares results, merged events and argument deltas (``hermes_toolcall.testing.assert_engines_agree``).
Generated completions are written in the dialect's body kind: JSON bodies, or XML bodies with every
malformation (``testing.xml_completion_cases``) for the four XML-body dialects, which the strict-mode,
block-cut and every-chunking properties draw too. Example counts are reported by the ``hypothesis_stats``
plugin; CI runs more than 2,000 in total.
"""

from __future__ import annotations

import importlib
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from helpers import XML_DIALECT_NAMES, dialect_completions, xml_completions
from hermes_toolcall._profiles import DIALECTS
from hermes_toolcall.conformance._generate import FRAGMENTS
from hermes_toolcall.testing import (
    adversarial_texts,
    all_chunkings,
    assert_engines_agree,
    chunkings,
    completions,
    rendered_transcripts,
)

pytest_plugins = ["hypothesis_stats"]


def examples(n: int) -> int:
    """``n`` examples, or the loaded profile's default when larger (the opt-in ``long`` profile)."""
    return max(n, settings().max_examples)


def count(name: str) -> None:
    """Count one example of an agreement property (summary printed by the hypothesis_stats plugin)."""
    importlib.import_module("hypothesis_stats").count(name, agreement=True)

DIALECT_NAMES = sorted(DIALECTS)
LEVELS = st.sampled_from(["completion", "transcript"])
OPTIONS = st.fixed_dictionaries(
    {},
    optional={
        "dialect": st.sampled_from(DIALECT_NAMES),
        "calls_in_reasoning": st.booleans(),
        "stop_at_fabricated_response": st.booleans(),
    },
)


def _agree(data: st.DataObject, text: str, level: str, **options: Any) -> None:
    chunks = data.draw(chunkings(text), label="chunks")
    assert_engines_agree(text, level=level, chunkings=[chunks], **options)


@pytest.mark.parametrize("dialect", DIALECT_NAMES)
@settings(max_examples=examples(100))
@given(data=st.data())
def test_agree_on_generated_completions(dialect: str, data: st.DataObject) -> None:
    text, tools = data.draw(dialect_completions(dialect), label="text")
    options = {**data.draw(OPTIONS, label="options"), "dialect": dialect}
    _agree(data, text, "completion", tools=tools, **options)
    count("agree: generated XML-body completions" if dialect in XML_DIALECT_NAMES else "agree: generated completions")


@pytest.mark.parametrize("dialect", DIALECT_NAMES)
@settings(max_examples=examples(50))
@given(data=st.data())
def test_agree_on_rendered_transcripts(dialect: str, data: st.DataObject) -> None:
    text = data.draw(rendered_transcripts(dialect), label="text")
    _agree(data, text, "transcript", dialect=dialect)
    count("agree: rendered transcripts")


@settings(max_examples=examples(500))
@given(data=st.data(), text=adversarial_texts(), options=OPTIONS)
@example(data=None, text='<tool_call>{"name":"a","arguments":{"c":"echo </tool_call> t"}}</tool_call>', options={})
@example(data=None, text='0<tool_call>{"name": "a", "arguments": {"_\n0": null}}</tool_call>', options={})
@example(data=None, text='x<tool_call>{"a": "\\<|im_end|>"}', options={})
def test_agree_on_adversarial_completions(data: st.DataObject | None, text: str, options: dict[str, Any]) -> None:
    if data is None:
        assert_engines_agree(text, level="completion", **options)
    else:
        _agree(data, text, "completion", **options)
    count("agree: adversarial completions")


@settings(max_examples=examples(300))
@given(data=st.data(), text=adversarial_texts(), options=OPTIONS)
def test_agree_on_adversarial_transcripts(data: st.DataObject, text: str, options: dict[str, Any]) -> None:
    _agree(data, text, "transcript", **options)
    count("agree: adversarial transcripts")


@settings(max_examples=examples(200))
@given(data=st.data(), text=st.one_of(adversarial_texts(), completions(), xml_completions()), level=LEVELS,
       options=OPTIONS)
def test_agree_in_strict_mode(data: st.DataObject, text: str, level: str, options: dict[str, Any]) -> None:
    _agree(data, text, level, strict=True, **options)
    count("agree: strict mode")


@settings(max_examples=examples(150))
@given(
    data=st.data(),
    text=st.one_of(adversarial_texts(), xml_completions()),
    level=LEVELS,
    limit=st.integers(min_value=1, max_value=48),
    options=OPTIONS,
)
def test_agree_on_block_cuts(data: st.DataObject, text: str, level: str, limit: int, options: dict[str, Any]) -> None:
    """max_block_chars cuts (docs/parsing.md §5.4): results, events and argument deltas agree."""
    _agree(data, text, level, max_block_chars=limit, **options)
    count("agree: block cuts")


# ---- every chunking of short inputs ---------------------------------------------------------------

SHORT_INPUTS = [
    "<tool_call>x",
    "</tool_call>",
    "a<tool_call>",
    "<think>x</th",
    "x</think>yz!",
    "<scratch_pad",
    "<tool_respon",
    '{"a": "<|im_',
    "<|im_start|>",
    "<|im_end|>\n<",
    "ab<think>cd<",
    "<tools>x</to",
    '<tool_call>{"',
    "<|im_end|>ab",
]


#: short XML-body inputs, read in an XML-body dialect: the function and parameter tags, whole and cut
SHORT_XML_INPUTS = [
    "<function=f>\n",
    "<parameter=a",
    "\n1\n</parame",
    "</function>\n",
    "=f>\n<parame",
    "<function=f\n",
]


@pytest.mark.parametrize("level", ["completion", "transcript"])
@pytest.mark.parametrize(
    ("text", "dialect"),
    [(t[:12], "hermes") for t in SHORT_INPUTS] + [(t[:12], "qwen3-coder") for t in SHORT_XML_INPUTS],
)
def test_every_chunking_of_short_inputs(text: str, dialect: str, level: str) -> None:
    assert_engines_agree(text, level=level, dialect=dialect, char_by_char=False, chunkings=all_chunkings(text))
    count("agree: all chunkings, curated ≤12 chars")


SHORT_PIECES = st.sampled_from([f for f in FRAGMENTS if len(f) <= 6] + ["<tool_call>", "</think>", "<think>", "{}"])
#: the XML body's tags, whole and cut, and what sits between them
XML_PIECES = st.sampled_from(
    ["<function=", "<function=f>", "</function>", "<parameter=", "<parameter=a>", "</parameter>", "</param", "f>",
     "\n", "=", ">", "1"]
)


@settings(max_examples=examples(30))
@given(
    text=st.lists(st.one_of(SHORT_PIECES, XML_PIECES), min_size=1, max_size=6).map("".join)
    .filter(lambda t: len(t) <= 12),
    level=LEVELS,
    dialect=st.sampled_from(["hermes", *XML_DIALECT_NAMES]),
)
def test_every_chunking_of_generated_short_inputs(text: str, level: str, dialect: str) -> None:
    assert_engines_agree(text, level=level, dialect=dialect, char_by_char=False, chunkings=all_chunkings(text))
    count("agree: all chunkings, generated ≤12 chars")


# ---- empty blocks of every kind (issue 30: a planted bug here passed the whole suite) ---------------------

EMPTY_COMPLETIONS = [
    "<think></think>",
    "<think>\n</think>\n\nok",
    "<scratch_pad></scratch_pad>",
    "a<scratch_pad>\n</scratch_pad>b",
    "<tool_call></tool_call>",
    "<tool_call>\n</tool_call>",
    "<tool_call> </tool_call>x<tool_call></tool_call>",
    "<tool_response></tool_response>",
    "<tools></tools>",
    "<think></think><think></think><tool_call></tool_call>",
    "<think><tool_call></tool_call></think>",
]
#: the prompt opened the block (``starts_in_reasoning=True``): the completion starts inside it
EMPTY_OPENED = ["", "</think>", "</think>\n\n", "</think><tool_call></tool_call>", "<tool_call></tool_call></think>"]
EMPTY_TRANSCRIPTS = [
    "<|im_start|>system\n<tools></tools><|im_end|>\n<|im_start|>user\nhi<|im_end|>\n"
    "<|im_start|>assistant\n<think></think><tool_call></tool_call><|im_end|>\n"
    "<|im_start|>user\n<tool_response></tool_response><|im_end|>\n"
    "<|im_start|>assistant\n<scratch_pad></scratch_pad><|im_end|>\n",
    "<|im_start|>tool\n<tool_response></tool_response><|im_end|>\n<|im_start|>assistant\n<think>\n",
    "<|im_start|>assistant\n<think>\n\n</think>\n\n<|im_end|>\n<|im_start|>assistant\n</think><|im_end|>",
    "<|im_start|>system\n<tools>\n</tools><|im_end|>\n<|im_start|>assistant\n<tool_call>\n</tool_call>",
]


@pytest.mark.parametrize("dialect", DIALECT_NAMES)
@pytest.mark.parametrize("calls_in_reasoning", [False, True])
def test_agree_on_empty_blocks(dialect: str, calls_in_reasoning: bool) -> None:
    """Empty think, scratch_pad, call, response and tools blocks, also when the prompt opened the block,
    in both levels, lenient and strict (strict: both raise with the same diagnostics, or neither)."""
    for strict in (False, True):
        options = {"dialect": dialect, "calls_in_reasoning": calls_in_reasoning, "strict": strict}
        for text in EMPTY_COMPLETIONS:
            pairs = tuple(text[i : i + 2] for i in range(0, len(text), 2))
            assert_engines_agree(text, level="completion", chunkings=[pairs], **options)
        for text in EMPTY_OPENED:
            assert_engines_agree(text, level="completion", starts_in_reasoning=True, **options)
        for text in EMPTY_TRANSCRIPTS:
            assert_engines_agree(text, level="transcript", **options)
    count("agree: empty blocks")


# ---- regressions found by the properties ---------------------------------------------------------------


def test_regression_cut_block_announced_call_events() -> None:
    """A call announced early and then cut by max_block_chars: fed whole, the machine emitted no argument
    delta before the cut, fed char by char it emitted '{"' (merged events differed; results agreed).
    Found by the fuzz run of the agreement invariants; fixed in the streaming engine."""
    assert_engines_agree('<tool_call>{"name":"f","arguments":{"a":1}}', level="completion", max_block_chars=26)


@pytest.mark.parametrize("level", ["completion", "transcript"])
def test_regression_backslash_before_control_token(level: str) -> None:
    """A backslash inside a JSON string right before ``<|im_end|>``: the control token still ends the
    block (format.md R2, parsing.md §5.3). Found by test_agree_on_adversarial_completions; the grammar
    engine cut the call there (HT102, then HT006), the machine took ``\\<`` as an escape and read on
    (fixed in the streaming engine)."""
    prefix = "<|im_start|>assistant\n" if level == "transcript" else ""
    assert_engines_agree(prefix + '<tool_call>{"a": "\\<|im_end|>"}', level=level)


def test_regression_raw_newline_in_key_argument_deltas() -> None:
    """A raw newline inside an argument key (HT204 recovery): the re-serialised arguments differ from the
    streamed raw text, so delta checks skip recovered calls (found by test_agree_on_adversarial_completions)."""
    assert_engines_agree('0<tool_call>{"name": "a", "arguments": {"_\n0": null}}</tool_call>', level="completion")
