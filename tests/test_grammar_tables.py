"""grammar/_tables.py is hermes.lark compiled by Lark, read through Lark's public serialisation (tablegen.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from hermes_toolcall import parse_completion, parse_transcript
from hermes_toolcall.grammar import GrammarBug, Variant
from hermes_toolcall.grammar import _parser as parser
from hermes_toolcall.grammar import _tablegen as tablegen
from hermes_toolcall.grammar import _tables as tables

ROOT = Path(__file__).resolve().parent.parent


def test_committed_tables_are_what_lark_compiles_from_the_grammar() -> None:
    # if this fails after an edit of hermes.lark or of parser.py's variants: run scripts/gen_grammar_tables.py
    assert tablegen.TABLES_PATH.read_text(encoding="utf-8") == tablegen.generate()


def test_generation_does_not_depend_on_the_hash_seed() -> None:
    # Lark's own state numbers change with PYTHONHASHSEED; the canonical numbering does not
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    script = ROOT / "scripts" / "gen_grammar_tables.py"
    run = subprocess.run([sys.executable, str(script), "--check"], env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "current" in run.stdout


def test_tables_record_the_grammar_they_were_generated_from() -> None:
    assert tables.GRAMMAR_SHA256 == tablegen.grammar_sha256()


def test_stale_tables_are_refused_with_the_fix(monkeypatch: pytest.MonkeyPatch) -> None:
    parser._check_tables.cache_clear()
    parser.driver.cache_clear()
    monkeypatch.setattr(tables, "GRAMMAR_SHA256", "0" * 64)
    try:
        with pytest.raises(GrammarBug, match="gen_grammar_tables"):
            parser.driver(Variant())
    finally:
        monkeypatch.undo()
        parser._check_tables.cache_clear()
        parser.driver.cache_clear()
    assert parser.driver(Variant()).tokens("x", "completion") == [("A_TEXT", 0, 1)]


def test_every_variant_has_a_lexer_for_every_state() -> None:
    keys = {v.key for v in tablegen.variants()}
    assert set(tables.VARIANT_LEXERS) == keys and len(keys) == 16
    for lexers in tables.VARIANT_LEXERS.values():
        assert len(lexers) == len(tables.STATES)
        assert all(0 <= k < len(tables.LEXERS) for k in lexers)
    # a variant spelled with its kinds in another order, or twice, is the same variant
    assert Variant(kinds=("scratch_pad", "think", "think")).key == Variant().key


def test_a_changed_serialisation_fails_loudly_naming_lark(monkeypatch: pytest.MonkeyPatch) -> None:
    real = tablegen._serialised

    def without_parse_table(variant: Variant) -> tuple[dict[str, Any], dict[Any, Any]]:
        data, memo = real(variant)
        data["parser"] = {k: v for k, v in data["parser"].items() if k != "parser"}
        return data, memo

    monkeypatch.setattr(tablegen, "_serialised", without_parse_table)
    with pytest.raises(tablegen.TableGenError, match=r"Lark \d.*no parser\.parser"):
        tablegen.generate()


def test_a_lexer_feature_the_driver_lacks_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    real = tablegen._serialised

    def with_ignore(variant: Variant) -> tuple[dict[str, Any], dict[Any, Any]]:
        data, memo = real(variant)
        data["parser"]["lexer_conf"]["ignore"] = ["GAP"]
        return data, memo

    monkeypatch.setattr(tablegen, "_serialised", with_ignore)
    with pytest.raises(tablegen.TableGenError, match="%ignore"):
        tablegen.generate()


def test_parsing_does_not_import_lark() -> None:
    # the driver runs the generated tables: Lark is needed to generate them and for the reference parser
    code = (
        "import sys\n"
        "from hermes_toolcall import parse_completion, parse_transcript\n"
        "parse_transcript('<|im_start|>assistant\\n<think>a</think><tool_call>{\"name\": \"f\"}</tool_call>')\n"
        "parse_completion('hi<tool_response>x', stop_at_fabricated_response=True)\n"
        "assert not [m for m in sys.modules if m == 'lark' or m.startswith('lark.')], 'lark imported'\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr


def test_the_public_calls_use_the_tables() -> None:
    assert parse_completion("a<|im_end|>").end is not None
    assert parse_transcript("<|im_start|>user\nhi<|im_end|>\n").turns[0].role == "user"


class _Token(str):
    """A str subclass with its own repr, as Lark 1.1.9 serialises rule and terminal names."""

    def __repr__(self) -> str:
        return f"Token({str(self)!r})"


def _tokenise(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {k: (_Token(v) if k == "name" and isinstance(v, str) else _tokenise(v)) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_tokenise(v) for v in obj]
    return obj


def test_regression_lark_1_1_9_names_are_written_as_plain_strings(monkeypatch: pytest.MonkeyPatch) -> None:
    # Lark 1.1.9 serialises names as lark.Token (a str subclass): the file must not depend on it
    real = tablegen._serialised

    def with_tokens(variant: Variant) -> tuple[dict[str, Any], dict[Any, Any]]:
        data, memo = real(variant)
        table = data["parser"]["parser"]
        table["tokens"] = {k: _Token(v) for k, v in table["tokens"].items()}
        return data, _tokenise(memo)

    monkeypatch.setattr(tablegen, "_serialised", with_tokens)
    assert "Token(" not in tablegen.generate()
