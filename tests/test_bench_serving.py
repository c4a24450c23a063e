"""bench/serving.py's row selection: ``--only`` keeps the same rows in every table, ``--before``'s pairs too."""

from __future__ import annotations

import importlib.util
import sys
import types
from typing import Any

import pytest

from conftest import REPO


def _serving() -> Any:
    spec = importlib.util.spec_from_file_location("bench_serving", REPO / "bench" / "serving.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _tables(monkeypatch: pytest.MonkeyPatch, *argv: str) -> list[tuple[str, list[str]]]:
    """The tables ``main`` would run with ``argv`` (title, row labels), nothing timed: the timing helpers
    record what they are given, and ``--before``'s revision is this tree."""
    serving = _serving()
    seen: list[tuple[str, list[str]]] = []
    monkeypatch.setattr(serving, "calibrate", lambda: None)
    monkeypatch.setattr(serving, "token_deltas", lambda text: [(text, [])])
    monkeypatch.setattr(serving, "print_table", lambda rows, *a: seen.append(("table", [r[0] for r in rows])))
    monkeypatch.setattr(serving, "paired", lambda title, pairs, *a: seen.append((title, [p[0] for p in pairs])))
    this_tree = types.SimpleNamespace(StreamParser=serving.StreamParser, OpenAIChunker=serving.OpenAIChunker)
    fake = types.ModuleType("stream")
    fake.load_revision = lambda rev: this_tree  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "stream", fake)
    monkeypatch.setattr(sys, "argv", ["serving.py", "--quick", *argv])
    serving.main()
    return [(title, labels) for title, labels in seen if labels]


def test_regression_only_filters_the_before_pairs_too(monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression (smallfix 4): ``--before REV --only XML`` ran the JSON engine pairs as well; now the pairs
    are chosen by ``--only`` as the rows are (and the XML pairs need no server's rows to run)."""
    tables = _tables(monkeypatch, "--before", "HEAD", "--only", "XML")
    labels = [label for _, found in tables for label in found]
    assert labels and all("XML" in label for label in labels), tables
    assert "XML engine, default: after / before" in labels
    tables = _tables(monkeypatch, "--before", "HEAD", "--only", "engine, default")
    assert [label for _, found in tables for label in found] == [
        "hermes-toolcall engine, default",
        "engine, default: after / before",
        "XML engine, default: after / before",
    ]
    tables = _tables(monkeypatch, "--before", "HEAD")  # no --only: every pair
    pairs = [label for title, found in tables if title != "table" for label in found]
    assert len(pairs) == 4, tables


def test_chosen_keeps_rows_whose_label_holds_a_part() -> None:
    chosen = _serving().chosen
    rows = [("a XML b", 1), ("engine", 2)]
    assert chosen(rows, []) == rows and chosen(rows, ["XML"]) == [("a XML b", 1)]
    assert chosen(rows, ["nothing"]) == [] and chosen(rows, ["XML", "eng"]) == rows
