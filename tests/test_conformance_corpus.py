"""The conformance corpus: it covers the rules and the field failures, and our engines score 100% on it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hermes_toolcall.conformance import Case, load_cases, run_case
from hermes_toolcall.conformance._engines import grammar, machine

CASES_DIR = Path(__file__).resolve().parent.parent / "conformance" / "cases"
CASES = load_cases(CASES_DIR)

# field-failures.md §1 items that concern parsing or streaming (J rendering and N training data do not;
# K54, the OpenAI delta contract, is held by tests/test_properties.py::test_openai_chunks_accumulate).
PARSING_ITEMS = (
    [f"A{n}" for n in range(1, 13)]
    + [f"B{n}" for n in range(13, 21)]
    + [f"C{n}" for n in range(21, 24)]
    + [f"D{n}" for n in range(24, 28)]
    + [f"E{n}" for n in range(28, 33)]
    + [f"F{n}" for n in range(33, 36)]
    + [f"G{n}" for n in range(36, 40)]
    + [f"H{n}" for n in range(40, 46)]
    + ["I46", "K53", "L55", "L56", "L57", "M58", "M59"]
)
TABLE_ROWS = ("4.b", "5.a", "5.b", "5.c", "5.d", "5.e", "8.b", "8.d")


def _whys() -> str:
    return "\n".join(f"{c.group} {c.why}" for c in CASES)


@pytest.mark.parametrize("rule", [f"R{n}" for n in range(1, 9)])
def test_corpus_covers_every_rule(rule: str) -> None:
    assert any(re.search(rf"\b{rule}\b", f"{c.group} {c.why}") for c in CASES), f"no case for {rule}"


@pytest.mark.parametrize("seed", range(1, 16))
def test_corpus_covers_every_seed(seed: int) -> None:
    assert re.search(rf"§7 seed {seed}\b", _whys()), f"no case for field-failures §7 seed {seed}"


@pytest.mark.parametrize("item", PARSING_ITEMS)
def test_corpus_covers_every_field_failure(item: str) -> None:
    assert re.search(rf"\b{item}\b", _whys()), f"no case for field-failures §1 {item}"


@pytest.mark.parametrize("row", TABLE_ROWS)
def test_corpus_covers_the_parity_table(row: str) -> None:
    assert row in _whys(), f"no case for field-failures §2 row {row}"


def test_corpus_has_both_levels_strict_and_streaming_cases() -> None:
    assert {c.level for c in CASES} == {"completion", "transcript"}
    assert any(c.options.get("strict") for c in CASES) and any(c.expect.error for c in CASES)
    assert sum(c.chunks is not None for c in CASES) >= 10
    assert len({c.dialect for c in CASES}) >= 4


def _id(case: Case) -> str:
    return case.id


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_grammar_engine_passes(case: Case) -> None:
    result = run_case(grammar, case)
    assert result.status == "pass", "\n".join(result.failures)


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_machine_engine_passes(case: Case) -> None:
    result = run_case(machine, case)
    assert result.status == "pass", "\n".join(result.failures)
