"""The shape of a diagnostics catalogue entry (the tables: ``_diagnostics``, ``_validation_codes``,
``_dataset_codes``; the catalogue: ``_diagnostics.CATALOGUE``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["Entry", "Kind"]

#: ``recoverable``: a warning in lenient mode (the named recovery was applied), an error in strict mode.
Kind = Literal["error", "warning", "info", "recoverable"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Entry:
    """One catalogue row.

    >>> Entry(code="HT000", name="x", kind="info", group="g", summary="s", example="e", fix="f").kind
    'info'
    """

    code: str
    name: str
    kind: Kind
    group: str
    summary: str
    example: str
    fix: str
