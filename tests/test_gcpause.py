"""_gcpause.py: the collector is paused only for large inputs and batches, always restored, and loses nothing."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from hermes_toolcall import ParseError, parse_completion, parse_transcript
from hermes_toolcall._gcpause import PAUSE_AT, collector_paused, paused

TURN = '<|im_start|>assistant\n<think>r</think><tool_call>{"name": "f", "arguments": {"a": [1, {"b": 2}]}}</tool_call>'
MIXED = (
    "<|im_start|>system\n<tools>[{}]</tools><|im_end|>\n<|im_start|>user\nq</tool_response><|im_end|>\n"
    + TURN
    + "<|im_end|>\n<|im_start|>tool\n<tool_response>\n{\"name\": \"f\", \"content\": 1}\n</tool_response><|im_end|>\n"
    + "<|im_start|>assistant\n<tool_call>{'name': 'g', 'arguments': {'x': True,},}</tool_call><tool_call>{\"a"
)


@pytest.fixture
def collector_on() -> Iterator[None]:
    was = gc.isenabled()
    gc.enable()
    yield
    if was:  # restore either way: a test below disables it (it left the whole rest of the suite without a collector)
        gc.enable()
    else:
        gc.disable()


def test_small_inputs_leave_the_collector_alone(collector_on: None) -> None:
    with collector_paused(PAUSE_AT - 1):
        assert gc.isenabled()


def test_the_collector_is_enabled_again_after_an_exception(collector_on: None) -> None:
    with pytest.raises(KeyError), collector_paused(PAUSE_AT):
        assert not gc.isenabled()
        raise KeyError("x")
    assert gc.isenabled()


def test_a_disabled_collector_stays_disabled(collector_on: None) -> None:
    gc.disable()
    with collector_paused(PAUSE_AT):
        pass
    assert not gc.isenabled()


def test_a_large_parse_restores_the_collector_also_when_strict_raises(collector_on: None) -> None:
    big = MIXED * (PAUSE_AT // len(MIXED) + 1)
    assert len(big) >= PAUSE_AT
    assert len(parse_transcript(big).turns) > 1000
    assert gc.isenabled()
    with pytest.raises(ParseError):
        parse_transcript(big, strict=True)
    assert gc.isenabled()


@pytest.mark.parametrize("text", [MIXED, MIXED * 20, TURN])
def test_parsing_creates_no_reference_cycles(text: str, collector_on: None) -> None:
    # the premise of the pause: whatever a parse allocates is freed by reference counting alone
    parse_transcript(text)
    parse_completion(text)  # warm every cache first
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        for entry in (parse_transcript, parse_completion):
            result = entry(text)
            del result
        found = gc.collect()
        garbage = list(gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
    assert found == 0, [type(o).__name__ for o in garbage[:10]]


# ---- paused: the dataset paths' batches ----------------------------------------------------------------


def test_paused_runs_the_function_paused_and_restores_the_collector(collector_on: None) -> None:
    @paused
    def batch(items: list[int]) -> list[tuple[int, bool]]:
        return [(i, gc.isenabled()) for i in items]

    assert batch([1, 2]) == [(1, False), (2, False)]
    assert gc.isenabled()

    @paused
    def boom() -> None:
        raise KeyError("x")

    with pytest.raises(KeyError):
        boom()
    assert gc.isenabled()
    gc.disable()
    assert batch([3]) == [(3, False)]
    assert not gc.isenabled()  # a caller who disabled it keeps it disabled


def test_a_worker_batch_is_checked_paused(collector_on: None, monkeypatch: pytest.MonkeyPatch) -> None:
    from hermes_toolcall.validate import _runner as runner
    from hermes_toolcall.validate._datasets import RawRecord

    seen: list[bool] = []
    real = runner.check_record
    monkeypatch.setattr(runner, "check_record", lambda r, o: seen.append(gc.isenabled()) or real(r, o))
    records = [RawRecord(number=i, line=i, kind="jsonl", end=0, text="{") for i in range(1, 4)]
    results = runner._batch(records, runner.Options())
    assert [r.number for r in results] == [1, 2, 3] and seen == [False] * 3 and gc.isenabled()
