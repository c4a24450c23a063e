"""Datasets where they live: Parquet, compressed JSONL, Hugging Face ``datasets``, Ray Data, dataset conversion.

Every reader turns its input into the same stream of ``validate.datasets.RawRecord`` values that plain
JSONL files give, so one code path (``validate.runner.check_record``) validates them all. Optional
dependencies sit in extras (``[parquet]``, ``[zstd]``, ``[datasets]``, ``[ray]``); a missing one is a
``UsageError`` that names the extra to install.
"""

from __future__ import annotations
