"""Printing conformance reports: a rich table per adapter (cases, groups, score) or JSON."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.console import Console
from rich.table import Table

from ._runner import Report

__all__ = ["print_tables", "reports_json", "summary_markdown"]

_STYLE = {"pass": "green", "fail": "bold red", "skip": "yellow"}


def reports_json(reports: Sequence[Report]) -> dict[str, Any]:
    """All reports as JSON-ready data: ``{"adapters": [...], "ok": bool}``."""
    return {"ok": all(r.ok for r in reports), "adapters": [r.to_json() for r in reports]}


def print_tables(reports: Sequence[Report], *, console: Console | None = None, show_passing: bool = True) -> None:
    """Print, per adapter, the case table (id, group, result, first failure) and the group table.

    Args:
        reports: the reports.
        console: where to print (default: standard output).
        show_passing: list passing cases too (else only failing and skipped ones).
    """
    out = console or Console()
    for report in reports:
        cases = Table(title=f"conformance: {report.adapter}", show_lines=False)
        cases.add_column("case")
        cases.add_column("group")
        cases.add_column("result")
        cases.add_column("detail", overflow="fold")
        for r in report.results:
            if r.status == "pass" and not show_passing:
                continue
            detail = "; ".join(r.failures[:3]) + (" …" if len(r.failures) > 3 else "")
            cases.add_row(r.case_id, r.group, f"[{_STYLE[r.status]}]{r.status}[/]", detail)
        if cases.row_count:
            out.print(cases)
        else:
            out.print(f"conformance: {report.adapter}: no failing or skipped case")
        groups = Table(title=f"groups: {report.adapter}")
        for column in ("group", "passed", "failed", "skipped"):
            groups.add_column(column, justify="left" if column == "group" else "right")
        for group, (p, f, s) in report.groups().items():
            groups.add_row(group, str(p), f"[red]{f}[/]" if f else "0", str(s))
        out.print(groups)
        ran = report.passed + report.failed
        score = 100.0 * report.passed / ran if ran else 100.0
        out.print(
            f"[bold]{report.adapter}[/]: {report.passed}/{ran} cases passed ({score:.1f}%), {report.skipped} skipped"
        )
        fz = report.fuzz
        if fz is not None:
            good = fz.total - len(fz.failures)
            out.print(f"[bold]{report.adapter}[/] fuzz: {good}/{fz.total} generated inputs passed")
            for text, problem in fz.failures[:5]:
                out.print(f"  [red]{problem}[/] on {text!r}")


def summary_markdown(reports: Sequence[Report]) -> str:
    """A Markdown table of per-group scores, one column per adapter (for ``docs/conformance.md``).

    >>> summary_markdown([])
    '| group |\\n|---|'
    """
    groups: list[str] = []
    for report in reports:
        groups.extend(g for g in report.groups() if g not in groups)
    head = "| group |" + "".join(f" {r.adapter} |" for r in reports)
    rule = "|---|" + "---|" * len(reports)
    rows = [head, rule]
    for g in groups:
        cells = []
        for report in reports:
            p, f, s = report.groups().get(g, (0, 0, 0))
            cells.append(f" {p}/{p + f}" + (f" ({s} skipped)" if s else "") + " |")
        rows.append(f"| {g} |" + "".join(cells))
    if any(r.fuzz is not None for r in reports):
        fuzz_cells = [
            f" {fz.total - len(fz.failures)}/{fz.total} |" if (fz := r.fuzz) is not None else " – |" for r in reports
        ]
        rows.append("| fuzz: generated inputs |" + "".join(fuzz_cells))
    if reports:
        total = "".join(f" **{r.passed}/{r.passed + r.failed}** |" for r in reports)
        rows.append("| **all cases** |" + total)
    return "\n".join(rows)
