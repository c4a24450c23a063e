"""Ids, positions, profiles, options and the public API surface."""

from __future__ import annotations

import os
import string
from concurrent.futures import ThreadPoolExecutor

import pytest
from hypothesis import given
from hypothesis import strategies as st

import hermes_toolcall
from hermes_toolcall._ids import openai_ids, sequential_ids, sub_id
from hermes_toolcall._model import Span
from hermes_toolcall._options import ParseOptions
from hermes_toolcall._positions import LineIndex
from hermes_toolcall._profiles import DIALECTS, get_profile
from hermes_toolcall.errors import UsageError


def test_ids() -> None:
    a, b = openai_ids(0), openai_ids(0)
    assert a != b and a.startswith("call_") and len(a) == 29 and a[5:].isalnum()
    assert [sequential_ids("t")(i) for i in range(3)] == ["t0", "t1", "t2"]
    assert sub_id("x", 0) == "x" and sub_id("x", 2) == "x_2"


def test_random_ids_use_every_letter_and_digit() -> None:
    ids = [openai_ids(0) for _ in range(2000)]
    assert len(set(ids)) == 2000
    letters = "".join(i[5:] for i in ids)
    # 48,000 uniform draws from 62 symbols: each appears about 774 times (a missing one is a bias bug)
    assert set(letters) == set(string.ascii_letters + string.digits)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork is POSIX-only")
def test_random_ids_are_not_shared_with_a_forked_child() -> None:
    """The ids come from a pool filled by one ``os.urandom`` read at a time: a forked child (a
    validate worker, a server's worker) must not hand out the ids its parent still holds."""
    openai_ids(0)  # the parent's pool now holds ids
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: its next ids, written back
        os.write(write, " ".join(openai_ids(0) for _ in range(50)).encode())
        os._exit(0)
    os.close(write)
    child = os.read(read, 1 << 16).decode().split()
    os.waitpid(pid, 0)
    os.close(read)
    assert len(child) == 50
    assert not set(child) & {openai_ids(0) for _ in range(500)}


def test_random_ids_from_threads_are_distinct() -> None:
    with ThreadPoolExecutor(max_workers=8) as pool:
        batches = list(pool.map(lambda _: [openai_ids(0) for _ in range(2000)], range(8)))
    ids = [i for batch in batches for i in batch]
    assert len(set(ids)) == len(ids) == 16000


def test_line_index() -> None:
    idx = LineIndex("ab\ncd\n\nü")
    assert idx.line_col(0) == (1, 1)
    assert idx.line_col(2) == (1, 3)
    assert idx.line_col(3) == (2, 1)
    assert idx.line_col(7) == (4, 1)
    assert idx.line_col(8) == (4, 2)
    assert idx.source_line(2) == "cd" and idx.source_line(3) == "" and idx.source_line(4) == "ü"


@given(st.text(alphabet="ab\n\rü", max_size=60), st.lists(st.integers(min_value=0, max_value=60), max_size=30))
def test_line_index_spans_in_any_order(text: str, offsets: list[int]) -> None:
    # the span cursor moves forward by counting newlines and back through the line table
    idx = LineIndex(text)
    for offset in [min(o, len(text)) for o in offsets]:
        line = text.count("\n", 0, offset) + 1
        column = offset - (text.rfind("\n", 0, offset) + 1) + 1
        assert idx.span(offset, len(text)) == Span(start=offset, end=len(text), line=line, column=column)
        assert idx.line_col(offset) == (line, column)


def test_profiles_cover_the_dialects() -> None:
    assert set(DIALECTS) == {"hermes", "hermes-vllm", "qwen3", "qwen2.5", "qwq", "omp", "qwen3-coder", "qwen3.5",
                             "nemotron-3", "step-3.5"}
    assert get_profile("omp").json_style == "compact"
    assert get_profile(DIALECTS["qwq"]) is DIALECTS["qwq"]
    with pytest.raises(UsageError, match="unknown dialect"):
        get_profile("llama")


def test_options_validate() -> None:
    opts = ParseOptions.make(dialect="qwen3", strict=True)
    assert opts.profile.name == "qwen3" and opts.strict
    with pytest.raises(UsageError):
        ParseOptions.make(max_block_chars=0)


def test_public_api_is_exported() -> None:
    for name in hermes_toolcall.__all__:
        assert hasattr(hermes_toolcall, name), name
    assert len(set(hermes_toolcall.__all__)) == len(hermes_toolcall.__all__)


def test_parse_options_and_every_event_class_are_exported_at_the_top_level() -> None:
    from hermes_toolcall import _events as events
    from hermes_toolcall import _options as options
    from hermes_toolcall import statemachine

    assert "ParseOptions" in hermes_toolcall.__all__ and hermes_toolcall.ParseOptions is options.ParseOptions
    event_classes = [n for n in events.__all__ if isinstance(getattr(events, n), type)]
    assert len(event_classes) >= 13  # TurnStart ... DiagnosticEvent
    for name in [*event_classes, "Event"]:
        assert name in hermes_toolcall.__all__, name
        assert getattr(hermes_toolcall, name) is getattr(statemachine, name) is getattr(events, name)


def test_bug_exceptions_live_in_errors_and_are_internal() -> None:
    from hermes_toolcall import errors
    from hermes_toolcall.grammar import _driver as driver
    from hermes_toolcall.grammar import _tablegen as tablegen

    for cls in (errors.DriverError, errors.TableGenError):
        assert issubclass(cls, errors.InternalError) and cls.__module__ == "hermes_toolcall.errors"
    assert driver.DriverError is errors.DriverError and tablegen.TableGenError is errors.TableGenError
