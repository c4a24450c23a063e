"""The agreement properties in checked mode: every move of the streaming engine goes through the
``transitions`` machine itself (``model.trigger``), and a refused or different move is a bug.

``HERMES_TOOLCALL_CHECKED=1`` (set for this module) makes every ``StreamParser`` built run its moves
through ``_table.CheckedMachine`` (docs/statemachine.md, "Which machine runs"); the properties are a subset
of ``test_agreement.py``'s, so CI (the README's test command) runs the agreement suite checked.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hermes_toolcall.errors import InternalError
from hermes_toolcall.statemachine import StreamParser
from hermes_toolcall.statemachine._table import CheckedMachine, MachineBug, Marker, State, checked_mode
from hermes_toolcall.testing import (
    adversarial_texts,
    assert_engines_agree,
    chunkings,
    completions,
    rendered_transcripts,
)

LEVELS = st.sampled_from(["completion", "transcript"])
OPTIONS = st.fixed_dictionaries(
    {},
    optional={
        "calls_in_reasoning": st.booleans(),
        "stop_at_fabricated_response": st.booleans(),
        "strict": st.booleans(),
        "max_block_chars": st.integers(min_value=1, max_value=48),
        "dialect": st.sampled_from(["hermes", "qwen3", "qwq"]),
    },
)


@pytest.fixture(autouse=True, scope="module")
def checked() -> Iterator[None]:
    before = os.environ.get("HERMES_TOOLCALL_CHECKED")
    os.environ["HERMES_TOOLCALL_CHECKED"] = "1"
    yield
    if before is None:
        del os.environ["HERMES_TOOLCALL_CHECKED"]
    else:
        os.environ["HERMES_TOOLCALL_CHECKED"] = before


def _follow(text: str, chunks: list[str], level: str, options: dict[str, Any]) -> None:
    """After every feed, the library machine and the parser are in the same state."""
    parser = StreamParser(level=level, **options)  # type: ignore[arg-type]
    assert isinstance(parser._checked, CheckedMachine)
    checked = parser._checked
    for chunk in chunks:
        parser.feed(chunk)
        assert checked.model.state == parser.state.value
    try:
        parser.close()
    except Exception:  # strict mode errors; the state is still checked
        pass
    assert checked.model.state == State.DONE.value == parser.state.value


@settings(max_examples=150)
@given(data=st.data(), text=adversarial_texts(), level=LEVELS, options=OPTIONS)
def test_checked_agreement_on_adversarial_texts(
    data: st.DataObject, text: str, level: str, options: dict[str, Any]
) -> None:
    assert checked_mode()
    chunks = data.draw(chunkings(text), label="chunks")
    if level == "transcript":
        options = {k: v for k, v in options.items() if k != "dialect"}
    assert_engines_agree(text, level=level, chunkings=[chunks], **options)
    _follow(text, list(chunks), level, options)


@settings(max_examples=40)
@given(data=st.data(), text=completions())
def test_checked_agreement_on_generated_completions(data: st.DataObject, text: str) -> None:
    assert_engines_agree(text, level="completion", chunkings=[data.draw(chunkings(text), label="chunks")])


@settings(max_examples=20)
@given(data=st.data(), text=rendered_transcripts())
def test_checked_agreement_on_rendered_transcripts(data: st.DataObject, text: str) -> None:
    chunks = data.draw(chunkings(text), label="chunks")
    assert_engines_agree(text, level="transcript", chunkings=[chunks])
    _follow(text, list(chunks), "transcript", {})


def test_a_move_the_machine_is_not_in_is_an_internal_error() -> None:
    parser = StreamParser()
    parser._state = State.GAP  # the parser's state no longer the library machine's (assistant)
    with pytest.raises(InternalError):
        parser.feed("<tool_call>")


def test_a_move_the_machine_refuses_is_a_machine_bug() -> None:
    parser = StreamParser()
    with pytest.raises(MachineBug, match="refused"):
        parser._checked.move(State.ASSISTANT, Marker.CALL_CLOSE, State.ASSISTANT)


def test_without_the_switch_the_parser_runs_on_the_derived_table() -> None:
    os.environ["HERMES_TOOLCALL_CHECKED"] = "0"
    try:
        assert StreamParser()._checked is None
    finally:
        os.environ["HERMES_TOOLCALL_CHECKED"] = "1"
