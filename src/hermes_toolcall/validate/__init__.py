"""Validation of model outputs and datasets against the format and the tools' JSON Schemas.

Importing this package registers the HT3xx–HT6xx codes in the diagnostics catalogue.
"""

from __future__ import annotations

from . import codes as codes
from .api import Selector, ValidationReport, validate, validate_conversation, validate_record
from .view import Where

__all__ = ["Selector", "ValidationReport", "Where", "validate", "validate_conversation", "validate_record"]
