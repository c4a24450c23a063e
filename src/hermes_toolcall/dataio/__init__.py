"""Datasets where they live: Parquet, compressed JSONL, Hugging Face ``datasets``, Ray Data, dataset conversion.

Every reader turns its input into the same stream of ``validate.RawRecord`` values that plain
JSONL files give, so one code path (``validate.check_record``) validates them all. Optional
dependencies sit in extras (``[parquet]``, ``[zstd]``, ``[datasets]``, ``[ray]``); a missing one is a
``UsageError`` that names the extra to install.
"""

from __future__ import annotations

from ._cli_hooks import add_arguments, add_sharegpt_roles, columns_of, engine, expand_inputs, results
from ._convert import Converted, convert_record, parse_shape
from ._rows import NO_MAPPING, Columns, drop_nulls
from ._sources import input_size, iter_input, sniff
from ._writers import RecordWriter, output_format

__all__ = [
    "NO_MAPPING",
    "Columns",
    "Converted",
    "RecordWriter",
    "add_arguments",
    "add_sharegpt_roles",
    "columns_of",
    "convert_record",
    "drop_nulls",
    "engine",
    "expand_inputs",
    "input_size",
    "iter_input",
    "output_format",
    "parse_shape",
    "results",
    "sniff",
]
