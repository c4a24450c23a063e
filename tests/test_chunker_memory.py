"""``OpenAIChunker`` keeps what a client still needs, not every call (issue 30, item 6).

It kept every call's id, name and arguments (about 0.33 KB a call: 122 MB at 240,000 calls), so ``stream
--format openai`` grew with the stream although the engine runs with ``retain=False``. Now a call sent
whole leaves nothing behind, and an announced call (eager mode) is kept until it ends;
``bench/stream.py --openai-memory 30000,240000`` measures the command's peak memory.
"""

from __future__ import annotations

from typing import Any

import pytest

from hermes_toolcall import OpenAIChunker, sequential_ids
from hermes_toolcall.statemachine import StreamParser


def _held(chunker: OpenAIChunker) -> int:
    """Items in the chunker's containers (what grows with the stream if anything does)."""
    return sum(len(v) for v in vars(chunker).values() if isinstance(v, (dict, list, set, tuple)))


def _feed(chunker: OpenAIChunker, parser: StreamParser, calls: int, start: int = 0) -> list[dict[str, Any]]:
    out = []
    for n in range(start, start + calls):
        piece = f'Step {n}.\n<tool_call>\n{{"name": "f", "arguments": {{"n": {n}}}}}\n</tool_call>\n'
        out += chunker.feed(parser.feed(piece))
    return out


@pytest.mark.parametrize("eager", [False, True])
def test_the_chunker_holds_no_record_of_ended_calls(eager: bool) -> None:
    """Issue 30 item 6: its records grew by one per call."""
    parser = StreamParser(retain=False, stream_arguments=True, ids=sequential_ids())
    chunker = OpenAIChunker(eager=eager)
    _feed(chunker, parser, 100)
    after_100 = _held(chunker)
    out = _feed(chunker, parser, 1000, start=100)
    assert _held(chunker) == after_100
    indices = [e["index"] for c in out for e in c["choices"][0]["delta"].get("tool_calls") or () if "id" in e]
    assert indices == list(range(100, 1100))  # the indices still count every call
    out = chunker.feed(parser.close()) + chunker.finish()
    assert out[-1]["choices"][0]["finish_reason"] == "tool_calls"
    assert "rejected_tool_calls" not in out[-1]


def test_an_announced_call_is_kept_until_it_ends() -> None:
    parser = StreamParser(retain=False, stream_arguments=True, ids=sequential_ids())
    chunker = OpenAIChunker(eager=True)
    chunker.feed(parser.feed('<tool_call>{"name": "f", "arguments": {"a": '))
    assert _held(chunker) == 1
    chunker.feed(parser.feed("1}}</tool_call>"))
    assert _held(chunker) == 0
    chunker.feed(parser.feed('<tool_call>{"name": "g", "arguments": {"b": 2'))
    last = (chunker.feed(parser.close()) + chunker.finish())[-1]
    assert [r["name"] for r in last["rejected_tool_calls"]] == ["g"]  # cut off: rejected, as before
