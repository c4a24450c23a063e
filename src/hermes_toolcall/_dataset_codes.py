"""The dataset codes (HT610–HT619), declared here and read by ``_diagnostics.CATALOGUE``."""

from __future__ import annotations

from ._entry import Entry

__all__ = ["CONVERSION", "ENTRIES", "INPUT"]

CONVERSION = "datasets: conversion"
INPUT = "datasets: input"

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
    Entry(
        code="HT611",
        name="input-corrupt",
        kind="error",
        group=INPUT,
        summary="A compressed input (gzip, zstd, bzip2, xz; a file or standard input) is truncated or corrupt. The "
        "records before the damage were read and reported; the run stops there with exit status 2 (an input "
        "error), never as a silent end of the dataset.",
        example="head -c 100000 data.jsonl.zst | hermes-toolcall validate -",
        fix="Download or write the file again; `zstd -t FILE` / `gzip -t FILE` tell whether an archive is whole.",
    ),
)
