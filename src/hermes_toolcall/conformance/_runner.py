"""The conformance runner: run cases (and generated fuzz inputs) against adapters, collect a report.

A streaming adapter runs every case three ways (the case's chunks, the whole text in one chunk, one
character at a time) and passes only if all three meet the expectation. Fuzz inputs have no
expectation: a streaming adapter must return the same outcome for the whole text, one character at
a time and a random chunking (chunking invariance); any adapter must not raise in lenient mode.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ._adapter import Adapter, CallOut, Outcome, Request
from ._cases import Case, Expected, ExpectedCall
from ._generate import random_chunking, random_text

__all__ = ["CaseResult", "FuzzResult", "Report", "check_outcome", "run", "run_case", "run_cases", "run_fuzz"]


@dataclass(frozen=True, slots=True, kw_only=True)
class CaseResult:
    """The result of one case on one adapter: ``status`` is ``pass``, ``fail`` or ``skip``."""

    case_id: str
    group: str
    status: str
    failures: tuple[str, ...] = ()
    why: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class FuzzResult:
    """Generated inputs checked for chunking invariance (``failures`` hold the input and the problem)."""

    total: int
    failures: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class Report:
    """Everything one adapter did: per-case results and the fuzz summary."""

    adapter: str
    results: tuple[CaseResult, ...]
    fuzz: FuzzResult | None = None

    @property
    def passed(self) -> int:
        return sum(r.status == "pass" for r in self.results)

    @property
    def failed(self) -> int:
        return sum(r.status == "fail" for r in self.results)

    @property
    def skipped(self) -> int:
        return sum(r.status == "skip" for r in self.results)

    @property
    def ok(self) -> bool:
        """No case failed and no fuzz input failed."""
        return self.failed == 0 and (self.fuzz is None or not self.fuzz.failures)

    def groups(self) -> dict[str, tuple[int, int, int]]:
        """Per group: (passed, failed, skipped), in first-seen order."""
        out: dict[str, list[int]] = {}
        for r in self.results:
            row = out.setdefault(r.group, [0, 0, 0])
            row[("pass", "fail", "skip").index(r.status)] += 1
        return {g: (p, f, s) for g, (p, f, s) in out.items()}

    def to_json(self) -> dict[str, Any]:
        """The report as JSON-ready data."""
        return {
            "adapter": self.adapter,
            "passed": self.passed,
            "failed": self.failed,
            "skipped": self.skipped,
            "groups": {g: {"passed": p, "failed": f, "skipped": s} for g, (p, f, s) in self.groups().items()},
            "cases": [
                {"id": r.case_id, "group": r.group, "status": r.status, "failures": list(r.failures)}
                for r in self.results
            ],
            "fuzz": None
            if self.fuzz is None
            else {
                "total": self.fuzz.total,
                "failed": len(self.fuzz.failures),
                "failures": [{"input": t, "problem": p} for t, p in self.fuzz.failures],
            },
        }


def _norm_text(value: str | None) -> str:
    return value or ""


def _calls_equal(got: Sequence[CallOut], want: Sequence[ExpectedCall]) -> bool:
    return [(c.name, c.arguments) for c in got] == [(c.name, c.arguments) for c in want]


def _show_calls(calls: Iterable[CallOut | ExpectedCall]) -> str:
    return "[" + ", ".join(f"{c.name}({c.arguments!r})" for c in calls) + "]"


def _check_messages(expect: Expected, got: Outcome) -> list[str]:
    if expect.messages is None or got.messages is None:
        return []
    if len(expect.messages) != len(got.messages):
        roles = [m.role for m in got.messages]
        return [f"messages: expected {len(expect.messages)}, got {len(got.messages)} {roles}"]
    problems = []
    for k, (want, have) in enumerate(zip(expect.messages, got.messages, strict=True)):
        if want.role != have.role:
            problems.append(f"message {k}: role {have.role!r}, expected {want.role!r}")
        if want.check_content and _norm_text(want.content) != _norm_text(have.content):
            problems.append(f"message {k}: content {have.content!r}, expected {want.content!r}")
        if want.reasoning is not None and want.reasoning != _norm_text(have.reasoning):
            problems.append(f"message {k}: reasoning {have.reasoning!r}, expected {want.reasoning!r}")
        if want.calls is not None and not _calls_equal(have.calls, want.calls):
            problems.append(f"message {k}: calls {_show_calls(have.calls)}, expected {_show_calls(want.calls)}")
    return problems


def check_outcome(expect: Expected, got: Outcome) -> list[str]:
    """The ways ``got`` misses ``expect`` (empty when it conforms).

    ``None`` and ``""`` are equal for content and reasoning; diagnostics are compared as multisets,
    and only when the adapter reports them.

    >>> check_outcome(Expected(content="hi", content_given=True), Outcome(content="hi"))
    []
    """
    problems: list[str] = []
    if expect.error != got.error:
        problems.append("expected the parse to be rejected (strict)" if expect.error else "the parse was rejected")
    if got.diagnostics is not None:
        if expect.diagnostics is not None and Counter(expect.diagnostics) != Counter(got.diagnostics):
            problems.append(f"diagnostics {sorted(got.diagnostics)}, expected {sorted(expect.diagnostics)}")
        missing = Counter(expect.diagnostics_include) - Counter(got.diagnostics)
        if missing:
            problems.append(f"diagnostics {sorted(got.diagnostics)} lack {sorted(missing.elements())}")
    if got.positions is not None:
        missing_at = [p for p in expect.positions if p not in got.positions]
        if missing_at:
            problems.append(f"diagnostics {list(got.positions)} lack {missing_at} (code, start, end, line, column)")
    if expect.error:
        return problems
    if not _calls_equal(got.calls, expect.calls):
        problems.append(f"calls {_show_calls(got.calls)}, expected {_show_calls(expect.calls)}")
    if expect.content_given and _norm_text(expect.content) != _norm_text(got.content):
        problems.append(f"content {got.content!r}, expected {expect.content!r}")
    if expect.reasoning_given and _norm_text(expect.reasoning) != _norm_text(got.reasoning):
        problems.append(f"reasoning {got.reasoning!r}, expected {expect.reasoning!r}")
    problems.extend(_check_messages(expect, got))
    return problems


def _attempt(adapter: Adapter, request: Request) -> Outcome | str:
    try:
        return adapter.run(request)
    except Exception as exc:  # the adapter under test is foreign code: any exception is a finding
        return f"raised {type(exc).__name__}: {exc}"


def _variants(case: Case, adapter: Adapter, char_by_char: bool) -> list[tuple[str, tuple[str, ...]]]:
    whole: tuple[str, ...] = (case.input,)
    if not adapter.streaming:
        return [("whole", case.chunks or whole)]
    variants: list[tuple[str, tuple[str, ...]]] = [("whole", whole)]
    if case.chunks is not None and case.chunks != whole:
        variants.append(("case chunks", case.chunks))
    if char_by_char and len(case.input) > 1:
        variants.append(("char by char", tuple(case.input)))
    return variants


def run_case(adapter: Adapter, case: Case, *, char_by_char: bool = True) -> CaseResult:
    """Run one case on one adapter (every chunking variant for a streaming adapter)."""
    supported = getattr(adapter, "options", None)
    unsupported = supported is not None and any(v and k not in supported for k, v in case.options.items())
    if case.level not in adapter.levels or unsupported:
        return CaseResult(case_id=case.id, group=case.group, status="skip", why=case.why)
    failures: list[str] = []
    for label, chunks in _variants(case, adapter, char_by_char):
        request = Request(text=case.input, chunks=chunks, level=case.level, dialect=case.dialect, options=case.options)
        got = _attempt(adapter, request)
        problems = [got] if isinstance(got, str) else check_outcome(case.expect, got)
        failures.extend(f"[{label}] {p}" for p in problems)
    status = "fail" if failures else "pass"
    return CaseResult(case_id=case.id, group=case.group, status=status, failures=tuple(failures), why=case.why)


def run_cases(adapter: Adapter, cases: Iterable[Case], *, char_by_char: bool = True) -> tuple[CaseResult, ...]:
    """Run every case on one adapter."""
    return tuple(run_case(adapter, c, char_by_char=char_by_char) for c in cases)


def run_fuzz(adapter: Adapter, count: int, *, seed: int = 0, dialect: str = "hermes") -> FuzzResult:
    """Check ``count`` generated completions: no exception (lenient), and chunking invariance.

    Args:
        adapter: the parser under test.
        count: how many inputs.
        seed: the random seed (the same seed gives the same inputs).
        dialect: the dialect passed in each request.

    Returns:
        The fuzz summary.
    """
    rng = random.Random(seed)
    failures: list[tuple[str, str]] = []
    for _ in range(count):
        text = random_text(rng)
        chunkings: list[tuple[str, ...]] = [(text,)]
        if adapter.streaming:
            chunkings += [tuple(text), random_chunking(rng, text)]
        outcomes: list[Outcome] = []
        for chunks in chunkings:
            got = _attempt(adapter, Request(text=text, chunks=chunks, dialect=dialect))
            if isinstance(got, str):
                failures.append((text, got))
                break
            outcomes.append(got)
        else:
            for chunks, other in zip(chunkings[1:], outcomes[1:], strict=True):
                if other != outcomes[0]:
                    failures.append((text, f"outcome changes with chunking {list(chunks)!r}"))
                    break
    return FuzzResult(total=count, failures=tuple(failures))


def run(
    adapters: Sequence[Adapter], cases: Sequence[Case], *, fuzz: int = 0, seed: int = 0, char_by_char: bool = True
) -> tuple[Report, ...]:
    """Run the corpus (and ``fuzz`` generated inputs) on each adapter.

    Args:
        adapters: the parsers under test.
        cases: the corpus.
        fuzz: number of generated inputs per adapter (0: none).
        seed: the fuzz seed.
        char_by_char: also feed streaming adapters one character at a time.

    Returns:
        One report per adapter.

    >>> from hermes_toolcall.conformance._adapter import FunctionAdapter
    >>> from hermes_toolcall.conformance._cases import case_from_dict
    >>> case = case_from_dict({"id": "t", "group": "g", "input": "hi", "why": "R1", "expect": {"content": "hi"}})
    >>> run([FunctionAdapter(name="echo", fn=lambda r: Outcome(content=r.text))], [case])[0].passed
    1
    """
    reports = []
    for adapter in adapters:
        results = run_cases(adapter, cases, char_by_char=char_by_char)
        fuzz_result = run_fuzz(adapter, fuzz, seed=seed) if fuzz > 0 else None
        reports.append(Report(adapter=adapter.name, results=results, fuzz=fuzz_result))
    return tuple(reports)
