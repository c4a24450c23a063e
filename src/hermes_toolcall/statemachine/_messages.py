"""Engine diagnostics of the streaming machine, worded by the shared table ``_diagnostics.MESSAGES``."""

from __future__ import annotations

from .. import _diagnostics as diagnostics
from .._diagnostics import message
from .._model import Diagnostic, Span

__all__ = ["diagnostic", "message"]


def diagnostic(key: str, span: Span, *, strict: bool, **fields: object) -> Diagnostic:
    """An engine diagnostic with the catalogue severity for the mode.

    >>> diagnostic("HT124", Span(start=0, end=11, line=1, column=1), strict=True).severity
    'info'
    """
    code = key.partition(":")[0]
    return diagnostics.make(code, message(key, **fields), span, strict=strict)
