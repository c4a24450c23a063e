"""The conformance corpus runner: load cases, run them against parser adapters, report.

>>> from hermes_toolcall.conformance import Request, Outcome, FunctionAdapter
>>> FunctionAdapter(name="x", fn=lambda r: Outcome()).run(Request(text="", chunks=("",))).calls
()
"""

from __future__ import annotations

from pathlib import Path

from ..errors import ConformanceError
from .adapter import Adapter, CallOut, FunctionAdapter, MessageOut, Outcome, Request, load_adapter
from .cases import Case, Expected, ExpectedCall, ExpectedMessage, case_from_dict, load_cases
from .runner import CaseResult, FuzzResult, Report, check_outcome, run, run_case, run_cases, run_fuzz

__all__ = [
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
    "load_adapter",
    "load_cases",
    "run",
    "run_case",
    "run_cases",
    "run_fuzz",
]


def default_cases_dir() -> Path:
    """The corpus shipped with the repository: ``conformance/cases`` (from the working directory, else
    beside the source tree).

    Raises:
        ConformanceError: no corpus directory is found (pass ``--cases DIR``).
    """
    for base in (Path.cwd(), Path(__file__).resolve().parents[3]):
        candidate = base / "conformance" / "cases"
        if candidate.is_dir():
            return candidate
    raise ConformanceError("no conformance/cases directory here or beside the package; pass --cases DIR")
