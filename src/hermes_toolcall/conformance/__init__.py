"""The conformance corpus runner: load cases, run them against parser adapters, report.

>>> from hermes_toolcall.conformance import Request, Outcome, FunctionAdapter
>>> FunctionAdapter(name="x", fn=lambda r: Outcome()).run(Request(text="", chunks=("",))).calls
()
"""

from __future__ import annotations

from pathlib import Path

from ..errors import ConformanceError
from ._adapter import Adapter, CallOut, FunctionAdapter, MessageOut, Outcome, Request, load_adapter
from ._cases import Case, Expected, ExpectedCall, ExpectedMessage, case_from_dict, load_cases
from ._engines import grammar_parse
from ._generate import FRAGMENTS, MARKERS, VALID_CALLS
from ._report import print_tables, reports_json, summary_markdown
from ._runner import CaseResult, FuzzResult, Report, check_outcome, run, run_case, run_cases, run_fuzz

__all__ = [
    "FRAGMENTS",
    "MARKERS",
    "VALID_CALLS",
    "Adapter",
    "CallOut",
    "Case",
    "CaseResult",
    "Expected",
    "ExpectedCall",
    "ExpectedMessage",
    "FunctionAdapter",
    "FuzzResult",
    "MessageOut",
    "Outcome",
    "Report",
    "Request",
    "case_from_dict",
    "check_outcome",
    "default_cases_dir",
    "grammar_parse",
    "load_adapter",
    "load_cases",
    "print_tables",
    "reports_json",
    "run",
    "run_case",
    "run_cases",
    "run_fuzz",
    "summary_markdown",
]


def default_cases_dir() -> Path:
    """The corpus shipped in the package (``hermes_toolcall/conformance/cases``, read with ``importlib.resources``).

    Raises:
        ConformanceError: the package was installed without its corpus (pass ``--cases DIR``).

    >>> (default_cases_dir() / "01-text.jsonl").is_file()
    True
    """
    from importlib.resources import files

    corpus = files(__name__) / "cases"
    if corpus.is_dir():
        return Path(str(corpus))  # an installed package is a directory (not a zip): a real path
    raise ConformanceError("the conformance corpus is not installed with the package; pass --cases DIR")
