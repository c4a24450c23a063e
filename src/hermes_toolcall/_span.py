"""Positions and findings, the lowest values: ``Span`` (a character range with the line:column of its
start) and ``Diagnostic`` (a finding at a span). ``errors`` carries diagnostics, so these import
nothing of the package; ``_model`` re-exports them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["Diagnostic", "Severity", "Span"]

Severity = Literal["error", "warning", "info"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Span:
    """A half-open character range ``[start, end)`` of the input, with the line:column of ``start``.

    >>> Span(start=0, end=3, line=1, column=1).length
    3
    """

    start: int
    end: int
    line: int
    column: int

    @property
    def length(self) -> int:
        """Number of characters covered."""
        return self.end - self.start

    def text(self, source: str) -> str:
        """The covered slice of ``source``."""
        return source[self.start : self.end]


@dataclass(frozen=True, slots=True, kw_only=True)
class Diagnostic:
    """One finding: a stable code from the catalogue, a severity, a message, where, and a fix hint.

    The ``code`` values are listed in ``docs/diagnostics.md`` and never change meaning.
    """

    code: str
    severity: Severity
    message: str
    span: Span
    hint: str | None = None

    @property
    def start(self) -> int:
        return self.span.start

    @property
    def end(self) -> int:
        return self.span.end

    @property
    def line(self) -> int:
        return self.span.line

    @property
    def column(self) -> int:
        return self.span.column
