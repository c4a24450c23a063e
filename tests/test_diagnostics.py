"""The diagnostics catalogue: stable codes, severities by mode, one entry per code."""

from __future__ import annotations

import re

import pytest

from hermes_toolcall._diagnostics import CATALOGUE, Entry, assemble, entry, make, severity_of
from hermes_toolcall._model import Span
from hermes_toolcall.errors import HermesError, UsageError

SPAN = Span(start=0, end=1, line=1, column=1)


def test_codes_are_well_formed_and_names_unique() -> None:
    names = [e.name for e in CATALOGUE.values()]
    assert len(names) == len(set(names))
    for code, e in CATALOGUE.items():
        assert re.fullmatch(r"HT\d{3}", code), code
        assert e.code == code
        assert re.fullmatch(r"[a-z0-9-]+", e.name), e.name
        assert e.summary and e.example and e.fix


def test_recoverable_codes_depend_on_mode() -> None:
    assert severity_of("HT202", strict=False) == "warning"
    assert severity_of("HT202", strict=True) == "error"
    assert severity_of("HT102", strict=False) == "error"
    assert severity_of("HT124", strict=True) == "info"


def test_make_uses_the_catalogue_severity() -> None:
    d = make("HT121", "stray </think>", SPAN, strict=True, hint="remove it")
    assert (d.code, d.severity, d.hint) == ("HT121", "error", "remove it")


def test_unknown_code_is_a_usage_error() -> None:
    with pytest.raises(UsageError):
        entry("HT999")
    with pytest.raises(HermesError):
        make("nope", "", SPAN, strict=False)


def test_register_refuses_a_conflicting_code() -> None:
    e = CATALOGUE["HT001"]
    assemble((e,), (e,))  # the same entry again is fine
    clash = Entry(code="HT001", name="other", kind="info", group="x", summary="s", example="e", fix="f")
    with pytest.raises(UsageError):
        assemble((e,), (clash,))
