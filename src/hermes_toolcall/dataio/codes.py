"""The dataset codes (HT610–HT619): importing this module registers them in ``diagnostics.CATALOGUE``."""

from __future__ import annotations

from ..diagnostics import Entry, register

__all__ = ["CONVERSION", "ENTRIES"]

CONVERSION = "datasets: conversion"

ENTRIES: tuple[Entry, ...] = (
    Entry(
        code="HT610",
        name="record-not-convertible",
        kind="error",
        group=CONVERSION,
        summary="`convert-dataset` could not convert a record (not a record of the --from shape, a parse error in "
        "its text, a conversation the target template refuses); it was skipped, nothing of it was written.",
        example="--from openai on a ShareGPT record; --to chatml:hermes on a tool without a description",
        fix="Fix the record as the message says, or pick the right --from shape; validate the input first.",
    ),
)

register(ENTRIES)
