"""Validation of model outputs and datasets against the format and the tools' JSON Schemas.

Importing this package registers the HT3xx–HT6xx codes in the diagnostics catalogue.
"""

from __future__ import annotations

from . import _codes as codes  # noqa: F401  (importing it registers the codes)
from ._api import Selector, ValidationReport, validate, validate_conversation, validate_record
from ._view import Where

__all__ = ["Selector", "ValidationReport", "Where", "validate", "validate_conversation", "validate_record"]
