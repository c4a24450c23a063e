"""Validation of model outputs and datasets against the format and the tools' JSON Schemas.
The HT3xx–HT6xx codes are declared in ``hermes_toolcall._validation_codes`` (``_diagnostics.CATALOGUE``).
"""

from __future__ import annotations

from ._api import OWN_EMPTY_THINK, QUIET, Selector, ValidationReport, validate, validate_conversation, validate_record
from ._datasets import (
    MAX_RECORD_BYTES,
    InputFormat,
    RawRecord,
    display_name,
    iter_records,
    open_input,
    peek,
    records_from_handle,
)
from ._runner import INTERNAL_ERROR, Located, Options, RecordResult, check_record, run
from ._view import Where

__all__ = [
    "INTERNAL_ERROR",
    "MAX_RECORD_BYTES",
    "OWN_EMPTY_THINK",
    "QUIET",
    "InputFormat",
    "Located",
    "Options",
    "RawRecord",
    "RecordResult",
    "Selector",
    "ValidationReport",
    "Where",
    "check_record",
    "display_name",
    "iter_records",
    "open_input",
    "peek",
    "records_from_handle",
    "run",
    "validate",
    "validate_conversation",
    "validate_record",
]
