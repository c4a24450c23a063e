"""The arguments-interior guard (``JsonBody.guard`` with ``bulk_arguments``) changes nothing.

With ``stream_arguments``, a run without ``<`` or backslash inside the streamed ``arguments`` object,
below its top level, is taken by counting quotes and brackets instead of the JSON scanner. These
properties feed deeply nested arguments whose strings hold quotes, escapes, brackets, ``]}``, ``<``,
markers and control tokens, cut anywhere (truncated calls too), in every chunking (one character at a
time, fixed sizes, random cuts), and compare, feed by feed, the events, the diagnostics and the
result with that guard on and off (``NoInterior``), and with the scanners alone (``Scanned``: no guard
at all). For a strict JSON body the concatenated ``ArgumentsDelta`` texts are its ``arguments_json``.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from hermes_toolcall._ids import sequential_ids
from hermes_toolcall._model import Completion
from hermes_toolcall.errors import StreamError
from hermes_toolcall.statemachine import ArgumentsDelta, Event, StreamParser
from hermes_toolcall.statemachine._readers import JsonBody, Readers, Value
from hermes_toolcall.testing import chunkings
from test_statemachine_paths import Scanned


class WithoutInterior(JsonBody):
    """``JsonBody`` whose guard lacks the arguments-interior shortcut (its other shortcuts stay)."""

    __slots__ = ()
    bulk_arguments = False


_NO_INTERIOR = Readers(guarded=True)
_NO_INTERIOR.bodies = {**_NO_INTERIOR.bodies, "json": (WithoutInterior,)}


class NoInterior(StreamParser):
    readers = _NO_INTERIOR

# string pieces that look like structure, escapes, markers and control tokens
_PIECES = st.sampled_from(
    ['"', "\\", "]}", "}]", "{", "[", "<", "</tool_call>", "<tool_call>", "<|im_end|>", ":", ",", " ", "\n", "é", "x"]
)
_STRINGS = st.lists(st.one_of(_PIECES, st.text(alphabet='ab"\\]}[{<>', max_size=4)), max_size=5).map("".join)
_SCALARS = st.one_of(st.integers(-99, 99), st.booleans(), st.none(), _STRINGS)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(_STRINGS, inner, max_size=4),
    ),
    max_leaves=20,
)
# arguments at least two levels deep, so that most chunks fall below the top level
_ARGUMENTS = st.dictionaries(_STRINGS, st.one_of(st.lists(_VALUES, max_size=4), st.dictionaries(_STRINGS, _VALUES)))
_SEPARATORS = st.sampled_from([(", ", ": "), (",", ":"), (" , ", " :\n ")])


@st.composite
def calls(draw: st.DrawFn) -> str:
    """A completion with one or two calls of nested arguments, sometimes cut short or followed by text."""
    parts = []
    for _ in range(draw(st.integers(1, 2))):
        body = json.dumps(
            {"name": "f", "arguments": draw(_ARGUMENTS)}, separators=draw(_SEPARATORS), ensure_ascii=draw(st.booleans())
        )
        parts.append(f"<tool_call>\n{body}\n</tool_call>")
    text = "Hi " + "\n".join(parts) + draw(st.sampled_from(["", " ok", "\n"]))
    if draw(st.booleans()):
        text = text[: draw(st.integers(0, len(text)))]  # a truncated call, cut anywhere
    return text


def run(chunks: tuple[str, ...], *, fast: bool, scanned: bool = False) -> Any:
    cls = Scanned if scanned else StreamParser if fast else NoInterior
    parser = cls(stream_arguments=True, ids=sequential_ids())
    per_feed: list[list[Event]] = [parser.feed(c) for c in chunks]
    errors = None
    try:
        per_feed.append(parser.close())
    except StreamError as exc:  # pragma: no cover - not strict
        errors = exc.diagnostics
        per_feed.append(parser.closing_events)
    return per_feed, errors, parser.result()


def check(text: str, chunks: tuple[str, ...]) -> None:
    assert "".join(chunks) == text
    fast = run(chunks, fast=True)
    assert fast == run(chunks, fast=False)
    assert fast == run(chunks, fast=False, scanned=True)
    result = fast[2]
    assert isinstance(result, Completion)
    streamed: dict[str, str] = {}
    for batch in fast[0]:
        for e in batch:
            if isinstance(e, ArgumentsDelta):
                streamed[e.id] = streamed.get(e.id, "") + e.text
    for call in result.tool_calls:
        if call.id in streamed and call.closed and _strict(call.raw):
            assert streamed[call.id] == call.arguments_json


def _strict(raw: str) -> bool:
    """Whether a closed call block's body is strict JSON (then no recovery changed its arguments)."""
    body = raw[raw.index(">") + 1 : raw.rindex("<")]
    try:
        json.loads(body)
    except ValueError:
        return False
    return True


@given(st.data(), calls())
@settings(max_examples=200, deadline=None)
@example(None, '<tool_call>{"name": "f", "arguments": {"a": {"b": ["x]}\\"", "<t>y", {"c": "]}"}]}}}</tool_call>')
@example(None, '<tool_call>{"name": "f", "arguments": {"a": [[1, 2], {"e": "\\\\"}], "z": "q"}}</tool_call> after')
@example(None, '<tool_call>{"name": "f", "arguments": {"a": {"b": [1, 2, 3]}}</tool_call>')
@example(None, '<tool_call>{"name": "f", "arguments": {"a": {"b": "<|im_end|>"}}}</tool_call>')
def test_the_fast_path_gives_the_scanners_events_in_every_chunking(data: Any, text: str) -> None:
    for size in (1, 2, 3, 4, 5, 7):
        check(text, tuple(text[i : i + size] for i in range(0, len(text), size)))
    check(text, data.draw(chunkings(text)) if data is not None else (text,))


@pytest.mark.parametrize("size", [1, 2, 3, 4, 9])
def test_the_fast_path_takes_the_arguments_interior(size: int) -> None:
    """It is used (the guard is not a no-op): with it, fewer chunks reach the string path or the scanner."""
    text = '<tool_call>{"name": "f", "arguments": {"a": [{"k": 1, "v": "s]}t"}, {"k": 2}]}}</tool_call>'
    chunks = tuple(text[i : i + size] for i in range(0, len(text), size))
    check(text, chunks)
    original = JsonBody._string_run
    taken: list[str] = []

    def spy(self: JsonBody, data: str, i: int, chunk: str) -> Value | None:
        taken.append(chunk)
        return original(self, data, i, chunk)

    counts = []
    JsonBody._string_run = spy  # type: ignore[method-assign]
    try:
        for fast in (True, False):
            taken.clear()
            run(chunks, fast=fast)
            counts.append(len(taken))
    finally:
        JsonBody._string_run = original  # type: ignore[method-assign]
    assert counts[0] * 2 <= counts[1]
