"""The text of call blocks that gave no call, in the OpenAI view (issue 30, item 8).

An invalid block (``HT103``, a truncated call, ``HT115``, a block cut at ``max_block_chars``) is kept in
``parts``, but ``to_openai()`` returned ``content: ""`` and no call: a client that reads only the OpenAI
message saw an empty answer where vLLM and SGLang pass the text through. ``invalid_calls="content"`` (the
default) puts the block's raw text into ``content`` in its place (also for a block inside reasoning);
``"drop"`` leaves it out, as before. ``OpenAIChunker(invalid_calls=…)`` streams the same:
its chunks accumulate to ``to_openai(invalid_calls=…)`` on every input and chunking, both chunker modes.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

import hermes_toolcall as ht
from hermes_toolcall.testing import adversarial_texts, check_openai_chunks, chunkings, nasty_calls
from hypothesis_stats import count

pytest_plugins = ["hypothesis_stats"]

BROKEN = '<tool_call>\n{"name": "get_weather", "arguments": {"city": }}\n</tool_call>'


def test_an_unparseable_call_is_content_not_an_empty_answer() -> None:
    """Issue 30 item 8: the OpenAI message was ``content: ""`` and no call."""
    message = ht.parse_completion(BROKEN).to_openai()
    assert message["content"] == BROKEN and message["tool_calls"] == []
    assert ht.parse_completion(BROKEN).to_openai(invalid_calls="drop")["content"] == ""


@pytest.mark.parametrize(
    ("text", "content"),
    [
        ("Let me check. " + BROKEN + " Sorry.", "Let me check. " + BROKEN + " Sorry."),
        ('<tool_call>{"name": "f", "arguments": {}}</tool_call>\n' + BROKEN + "\n", BROKEN),
        ('<tool_call>{"name": "f", "arguments": {"a": 1', '<tool_call>{"name": "f", "arguments": {"a": 1'),
        ('<tool_call>{"name": "f", "name": "g", "arguments": {}}</tool_call>', None),  # HT115
        ("<think>\nplan\n</think>\n\n" + BROKEN, BROKEN),
    ],
)
def test_the_raw_text_is_content_in_its_place(text: str, content: str | None) -> None:
    c = ht.parse_completion(text)
    assert any(isinstance(p, ht.InvalidToolCall) for p in c.parts)
    expected = text if content is None else content
    assert c.to_openai()["content"] == expected
    for eager in (False, True):
        check_openai_chunks(tuple(text), eager=eager, options={}, invalid_calls="content")
        check_openai_chunks((text,), eager=eager, options={}, invalid_calls="drop")


def test_a_block_inside_reasoning_is_content_too() -> None:
    """With ``calls_in_reasoning=True`` a block inside reasoning is a call block: its text, when it gives no
    call, is content like any other's (a stream cannot always know it was inside reasoning)."""
    text = "<think>a " + BROKEN + " b</think>ok"
    c = ht.parse_completion(text, calls_in_reasoning=True)
    assert c.to_openai()["reasoning_content"] == "a  b" and c.to_openai()["content"] == BROKEN + "ok"
    assert c.to_openai(invalid_calls="drop")["content"] == "ok"
    for eager in (False, True):
        for mode in ("content", "drop"):
            check_openai_chunks(tuple(text), eager=eager, options={"calls_in_reasoning": True}, invalid_calls=mode)


def test_a_cut_block_gives_back_all_of_its_text() -> None:
    text = '<tool_call>{"name": "f", "arguments": {"q": "' + "x" * 200 + '"}}</tool_call> done'
    c = ht.parse_completion(text, max_block_chars=50)
    assert c.to_openai()["content"] == text


def test_transcripts_too() -> None:
    t = ht.parse_transcript("<|im_start|>assistant\n" + BROKEN + "<|im_end|>\n")
    assert t.to_openai_messages()[0]["content"] == BROKEN
    assert t.to_openai_messages(invalid_calls="drop")[0]["content"] == ""
    with pytest.raises(ht.UsageError):
        t.to_openai_messages(invalid_calls="keep")  # type: ignore[arg-type]
    with pytest.raises(ht.UsageError):
        ht.OpenAIChunker(invalid_calls="text")  # type: ignore[arg-type]


def test_cli_parse_openai_shows_the_text(tmp_path: object) -> None:
    import subprocess
    import sys

    run = subprocess.run(
        [sys.executable, "-m", "hermes_toolcall", "parse", "--completion", "--format", "openai", "-"],
        input=BROKEN.encode(),
        capture_output=True,
        check=False,
    )
    assert b'"content": "<tool_call>' in run.stdout.replace(b'":"', b'": "')


@given(st.data(), st.one_of(adversarial_texts(), nasty_calls()), st.sampled_from(["content", "drop"]), st.booleans())
def test_stream_equals_whole_for_the_invalid_text_option(
    data: st.DataObject, text: str, mode: str, calls_in_reasoning: bool
) -> None:
    """Every input and chunking, both chunker modes: the chunks accumulate to ``to_openai(invalid_calls=mode)``."""
    count("invalid calls: stream = whole")
    chunks = data.draw(chunkings(text))
    options = {"calls_in_reasoning": calls_in_reasoning, "ids": ht.sequential_ids()}
    for eager in (False, True):
        options["ids"] = ht.sequential_ids()
        check_openai_chunks(chunks, eager=eager, options=options, invalid_calls=mode, oracle=False)  # type: ignore[arg-type]
