"""The conformance package: case schema and loading, the adapter protocol, the runner, reports, the CLI."""

from __future__ import annotations

import argparse
import sys
import types
from pathlib import Path

import pytest

from hermes_toolcall import _jsonio as jsonio
from hermes_toolcall.cli import _conformance_cmd as conformance_cmd
from hermes_toolcall.conformance import (
    CallOut,
    FunctionAdapter,
    MessageOut,
    Outcome,
    Request,
    case_from_dict,
    check_outcome,
    load_adapter,
    load_cases,
    run,
    run_fuzz,
)
from hermes_toolcall.conformance._generate import random_chunking, random_text
from hermes_toolcall.conformance._report import print_tables, reports_json, summary_markdown
from hermes_toolcall.errors import ConformanceError, HermesError


def main(argv: list[str]) -> int:
    """The ``conformance`` subcommand alone (the other subcommands are not needed here)."""
    parser = argparse.ArgumentParser(prog="hermes-toolcall")
    conformance_cmd.register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    try:
        status: int = args.func(args)
    except HermesError as exc:
        print(f"hermes-toolcall: error: {exc}", file=sys.stderr)
        return 2
    return status


BASE = {"id": "c1", "group": "g", "input": "hi", "why": "R1", "expect": {"content": "hi"}}


def _case(**changes: object) -> dict[str, object]:
    obj: dict[str, object] = dict(BASE)
    obj.update(changes)
    return obj


def _echo(request: Request) -> Outcome:
    return Outcome(content=request.text)


ECHO = FunctionAdapter(name="echo", fn=_echo)


# ---- case schema -------------------------------------------------------------------------------


def test_case_defaults() -> None:
    case = case_from_dict(BASE)
    assert (case.level, case.dialect, case.options, case.chunks) == ("completion", "hermes", {}, None)
    assert case.expect.content == "hi" and case.expect.content_given and not case.expect.reasoning_given


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"level": "turn"}, "'level'"),
        ({"dialect": "llama"}, "unknown dialect"),
        ({"options": {"fast": True}}, "'options'"),
        ({"chunks": ["h", "x"]}, "concatenate"),
        ({"why": "  "}, "'why'"),
        ({"extra": 1}, "unknown keys"),
        ({"expect": {"calls": [{"name": "f"}]}}, "exactly 'name' and 'arguments'"),
        ({"expect": {"error": True}}, "strict"),
        ({"expect": {"messages": []}}, "transcript cases"),
        ({"level": "transcript", "expect": {"content": "x"}}, "per message"),
        ({"expect": {"diagnostics": "HT101"}}, "list of diagnostic codes"),
        ({"expect": {"positions": [{"code": "HT1"}]}}, "a position"),
        ({"expect": {"bogus": 1}}, "unknown 'expect' keys"),
    ],
)
def test_case_schema_errors(changes: dict[str, object], message: str) -> None:
    with pytest.raises(ConformanceError, match=message):
        case_from_dict(_case(**changes))


def test_case_missing_input() -> None:
    obj = _case()
    del obj["input"]
    with pytest.raises(ConformanceError, match="missing key 'input'"):
        case_from_dict(obj)


def test_load_cases_jsonl_and_json(tmp_path: Path) -> None:
    (tmp_path / "a.jsonl").write_text(jsonio.dumps_spaced(_case(id="a")) + "\n\n" + jsonio.dumps_spaced(_case(id="b")))
    (tmp_path / "b.json").write_text(jsonio.dumps_spaced([_case(id="c")]))
    (tmp_path / "notes.txt").write_text("ignored")
    cases = load_cases(tmp_path)
    assert [c.id for c in cases] == ["a", "b", "c"]
    assert cases[1].source == "a.jsonl:3"


def test_load_cases_duplicate_id(tmp_path: Path) -> None:
    (tmp_path / "a.jsonl").write_text(jsonio.dumps_spaced(_case()) + "\n" + jsonio.dumps_spaced(_case()))
    with pytest.raises(ConformanceError, match="duplicate case id 'c1'"):
        load_cases(tmp_path)


def test_load_cases_bad_json(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_text("{nope")
    with pytest.raises(ConformanceError, match="invalid JSON"):
        load_cases(tmp_path)


def test_load_cases_empty(tmp_path: Path) -> None:
    with pytest.raises(ConformanceError, match="no conformance cases"):
        load_cases(tmp_path)


# ---- checking outcomes ---------------------------------------------------------------------------


def test_check_outcome_calls_content_reasoning() -> None:
    expect = case_from_dict(
        _case(expect={"calls": [{"name": "f", "arguments": {"a": 1}}], "content": None, "reasoning": "r"})
    ).expect
    assert check_outcome(expect, Outcome(calls=(CallOut(name="f", arguments={"a": 1}),), reasoning="r")) == []
    same = Outcome(calls=(CallOut(name="f", arguments={"a": 1}),), content="", reasoning="r")
    assert check_outcome(expect, same) == []
    problems = check_outcome(expect, Outcome(calls=(CallOut(name="f", arguments={"a": 2}),), content="x"))
    assert len(problems) == 3
    assert "calls [f({'a': 2})], expected [f({'a': 1})]" in problems[0]


def test_check_outcome_diagnostics_multiset_and_positions() -> None:
    expect = case_from_dict(
        _case(
            expect={
                "diagnostics": ["HT121", "HT121"],
                "positions": [{"code": "HT121", "start": 0, "end": 1, "line": 1, "column": 1}],
            }
        )
    ).expect
    assert check_outcome(expect, Outcome(diagnostics=("HT121", "HT121"), positions=(("HT121", 0, 1, 1, 1),))) == []
    assert check_outcome(expect, Outcome(diagnostics=None)) == []  # adapter without diagnostics: not compared
    problems = check_outcome(expect, Outcome(diagnostics=("HT121",), positions=(("HT121", 0, 2, 1, 1),)))
    assert len(problems) == 2


def test_check_outcome_strict_error() -> None:
    expect = case_from_dict(_case(options={"strict": True}, expect={"error": True, "diagnostics": ["HT101"]})).expect
    assert check_outcome(expect, Outcome(error=True, diagnostics=("HT101",))) == []
    assert check_outcome(expect, Outcome()) == ["expected the parse to be rejected (strict)"]
    assert check_outcome(expect, Outcome(diagnostics=())) == [
        "expected the parse to be rejected (strict)",
        "diagnostics [], expected ['HT101']",
    ]


def test_check_outcome_messages() -> None:
    expect = case_from_dict(
        _case(
            level="transcript",
            expect={"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "calls": []}]},
        )
    ).expect
    good = Outcome(messages=(MessageOut(role="user", content="hi"), MessageOut(role="assistant", content="whatever")))
    assert check_outcome(expect, good) == []
    bad = Outcome(messages=(MessageOut(role="user", content="ho"),))
    assert check_outcome(expect, bad) == ["messages: expected 2, got 1 ['user']"]


# ---- the runner ------------------------------------------------------------------------------------


def test_run_pass_fail_skip_and_exception() -> None:
    cases = [
        case_from_dict(_case(id="ok")),
        case_from_dict(_case(id="bad", expect={"content": "other"})),
        case_from_dict(_case(id="tr", level="transcript", expect={})),
    ]

    def boom(request: Request) -> Outcome:
        raise RuntimeError("kaput")

    reports = run([ECHO, FunctionAdapter(name="boom", fn=boom)], cases)
    echo, broken = reports
    assert [r.status for r in echo.results] == ["pass", "fail", "skip"]
    assert (echo.passed, echo.failed, echo.skipped, echo.ok) == (1, 1, 1, False)
    assert broken.results[0].failures == ("[whole] raised RuntimeError: kaput",)
    assert echo.groups() == {"g": (1, 1, 1)}


def test_cases_with_unsupported_options_are_skipped() -> None:
    strict = case_from_dict(_case(id="s", options={"strict": True}, expect={"error": True}))
    lenient = case_from_dict(_case(id="l", options={"strict": False}))
    limited = FunctionAdapter(name="x", fn=_echo, options=frozenset())
    assert [r.status for r in run([limited], [strict, lenient])[0].results] == ["skip", "pass"]
    assert [r.status for r in run([ECHO], [strict, lenient])[0].results] == ["fail", "pass"]


def test_streaming_adapter_gets_every_chunking() -> None:
    seen: list[tuple[str, ...]] = []

    def stream(request: Request) -> Outcome:
        seen.append(request.chunks)
        return Outcome(content="".join(request.chunks))

    adapter = FunctionAdapter(name="s", fn=stream, streaming=True)
    case = case_from_dict(_case(input="abc", chunks=["ab", "c"], expect={"content": "abc"}))
    assert run([adapter], [case])[0].passed == 1
    assert seen == [("abc",), ("ab", "c"), ("a", "b", "c")]


def test_chunking_dependent_adapter_fails_the_case() -> None:
    def first_chunk_only(request: Request) -> Outcome:
        return Outcome(content=request.chunks[0])

    adapter = FunctionAdapter(name="s", fn=first_chunk_only, streaming=True)
    result = run([adapter], [case_from_dict(_case(input="ab", expect={"content": "ab"}))])[0].results[0]
    assert result.status == "fail"
    assert result.failures == ("[char by char] content 'a', expected 'ab'",)


def test_fuzz_finds_chunking_dependence_and_is_reproducible() -> None:
    def first_chunk_only(request: Request) -> Outcome:
        return Outcome(content=request.chunks[0])

    adapter = FunctionAdapter(name="s", fn=first_chunk_only, streaming=True)
    a, b = run_fuzz(adapter, 20, seed=3), run_fuzz(adapter, 20, seed=3)
    assert a == b and a.total == 20 and len(a.failures) > 0
    assert run_fuzz(ECHO, 20).failures == ()


def test_random_generators() -> None:
    import random

    rng = random.Random(5)
    texts = [random_text(rng) for _ in range(50)]
    assert any("<tool_call>" in t for t in texts) and any("<|im_end|>" in t for t in texts)
    for t in texts:
        assert "".join(random_chunking(rng, t)) == t


# ---- reports ------------------------------------------------------------------------------------


def test_reports_json_table_markdown(capsys: pytest.CaptureFixture[str]) -> None:
    from rich.console import Console

    cases = [case_from_dict(_case(id="ok")), case_from_dict(_case(id="bad", group="h", expect={"content": "x"}))]
    reports = run([ECHO], cases, fuzz=3)
    data = reports_json(reports)
    assert data["ok"] is False
    assert data["adapters"][0]["groups"] == {
        "g": {"passed": 1, "failed": 0, "skipped": 0},
        "h": {"passed": 0, "failed": 1, "skipped": 0},
    }
    assert data["adapters"][0]["fuzz"] == {"total": 3, "failed": 0, "failures": []}
    console = Console(width=200, record=True)
    print_tables(reports, console=console)
    text = console.export_text()
    assert "bad" in text and "content 'hi', expected 'x'" in text and "1/2 cases passed (50.0%)" in text
    last = ["| fuzz: generated inputs | 3/3 |", "| **all cases** | **1/2** |"]
    assert summary_markdown(reports).splitlines()[-2:] == last


# ---- adapters and the command line ------------------------------------------------------------------


@pytest.fixture
def adapter_module(monkeypatch: pytest.MonkeyPatch) -> str:
    module = types.ModuleType("h6_adapters")

    def echo(request: Request) -> Outcome:
        return Outcome(content=request.text)

    echo.streaming = True  # type: ignore[attr-defined]
    echo.options = ("strict",)  # type: ignore[attr-defined]

    class Factory:
        name = "factory"
        streaming = False
        levels = frozenset({"completion"})

        def run(self, request: Request) -> Outcome:
            return Outcome(content=request.text)

    module.echo = echo  # type: ignore[attr-defined]
    module.Factory = Factory  # type: ignore[attr-defined]
    module.instance = Factory()  # type: ignore[attr-defined]
    module.number = 3  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "h6_adapters", module)
    return "h6_adapters"


def test_load_adapter_kinds(adapter_module: str) -> None:
    fn = load_adapter(f"{adapter_module}:echo")
    assert (fn.name, fn.streaming, getattr(fn, "options", None)) == ("echo", True, frozenset({"strict"}))
    assert load_adapter(f"{adapter_module}:Factory").name == "factory"
    assert load_adapter(f"{adapter_module}:instance").name == "factory"
    for spec, message in [
        ("nocolon", "module:callable"),
        ("h6_missing_module:x", "cannot import"),
        (f"{adapter_module}:nope", "no attribute"),
        (f"{adapter_module}:number", "not an adapter"),
    ]:
        with pytest.raises(ConformanceError, match=message):
            load_adapter(spec)


def test_cli_runs_a_custom_adapter(adapter_module: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "c.jsonl").write_text(jsonio.dumps_spaced(_case()) + "\n")
    status = main(["conformance", "--adapter", f"{adapter_module}:echo", "--cases", str(tmp_path), "--format", "json"])
    out = jsonio.loads(capsys.readouterr().out)
    assert status == 0 and out["ok"] is True and out["adapters"][0]["passed"] == 1
    (tmp_path / "d.jsonl").write_text(jsonio.dumps_spaced(_case(id="x", expect={"content": "no"})) + "\n")
    args = ["conformance", "--adapter", f"{adapter_module}:echo", "--cases", str(tmp_path)]
    status = main([*args, "--format", "markdown"])
    assert status == 1 and capsys.readouterr().out.splitlines()[-1] == "| **all cases** | **1/2** |"
    status = main(["conformance", "--adapter", f"{adapter_module}:echo", "--cases", str(tmp_path), "--failures-only"])
    assert status == 1
    assert "content 'hi', expected 'no'" in capsys.readouterr().out


def test_cli_bad_cases_dir(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["conformance", "--cases", str(tmp_path / "none")]) == 2
    assert "no conformance cases" in capsys.readouterr().err


def test_real_command_line_runs_our_engines_on_one_group(capsys: pytest.CaptureFixture[str]) -> None:
    from hermes_toolcall.cli import main as real_main

    status = real_main(["conformance", "--group", "R3 string-aware", "--format", "json"])
    out = jsonio.loads(capsys.readouterr().out)
    assert [a["adapter"] for a in out["adapters"]] == ["grammar", "machine"]
    assert all(a["passed"] >= 9 and a["skipped"] == 0 for a in out["adapters"])
    assert status == (0 if out["ok"] else 1)
