"""``validate --engine ray``: the checks as a Ray Data ``map_batches`` over any dataset input.

The input is read on the node that runs the command (a Parquet file one task per row group, any other
input by one streaming task), in blocks of records; ``map_batches`` runs ``check_record`` on them
wherever the cluster has CPUs; the findings come back in input order, the same values ``--jobs 1``
gives (pickled ``Located`` values, so byte-identical output). Ray Data's streaming executor bounds the
blocks in flight, so memory stays flat.
"""

from __future__ import annotations

import contextlib
import logging
import pickle
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .._gcpause import paused
from ..errors import HermesError, UsageError
from ..validate import InputFormat, Options, RawRecord, RecordResult, check_record
from ._compressed import CorruptInputError
from ._extras import require
from ._rows import NO_MAPPING, Columns
from ._sources import iter_input, sniff

__all__ = ["ray_cluster", "run_ray"]

_FIELDS = ("number", "line", "end", "kind", "text", "error", "oversize")


@contextlib.contextmanager
def ray_cluster(address: str | None = None, *, num_cpus: int | None = None) -> Iterator[None]:
    """Use the running Ray, or connect to ``address``, or start a local one (stopped on exit).

    Raises:
        UsageError: Ray is not installed, or the cluster cannot be reached.
    """
    ray = require("ray")
    require("ray.data")
    if ray.is_initialized():
        yield
        return
    logging.getLogger("ray").setLevel(logging.WARNING)
    try:
        ray.init(
            address=address,
            num_cpus=None if address else num_cpus,
            include_dashboard=False,
            log_to_driver=False,
            logging_level=logging.WARNING,
            configure_logging=True,
        )
    except Exception as exc:  # ConnectionError, RuntimeError, ValueError from ray.init
        raise UsageError(f"cannot start or reach Ray{f' at {address}' if address else ''}: {exc}") from exc
    try:
        yield
    finally:
        ray.shutdown()


def _table(records: list[RawRecord]) -> Any:
    pa = require("pyarrow")
    return pa.table(
        {
            "number": pa.array([r.number for r in records], pa.int64()),
            "line": pa.array([r.line for r in records], pa.int64()),
            "end": pa.array([r.end for r in records], pa.int64()),
            "kind": pa.array([r.kind for r in records], pa.string()),
            "text": pa.array([r.text for r in records], pa.large_string()),
            "error": pa.array([r.error for r in records], pa.string()),
            "oversize": pa.array([r.oversize for r in records], pa.int64()),
        }
    )


# a read task that stops at an input error (a damaged archive: HT611; an unreadable input) does not fail:
# it ends with one row of this kind after the records it read, and the driver raises the error when its
# turn comes, after every finding before it (a failed Ray task would lose its block and print tracebacks)
_STOP = {"damage": CorruptInputError, "usage": UsageError}


def _read_task(
    path: str, input_format: InputFormat, columns: Columns, groups: list[int] | None, size: int, limit: int
) -> Any:
    def read() -> Iterator[Any]:
        if groups is None:
            records: Iterator[RawRecord] = iter_input(path, input_format, columns, limit)
        else:
            from ._parquet import iter_parquet_rows
            from ._rows import row_record

            records = (row_record(n, row, columns, end) for n, row, end in iter_parquet_rows(path, columns, groups))
        block: list[RawRecord] = []
        last = 0
        stop: RawRecord | None = None
        try:
            for r in records:
                block.append(r)
                last = r.number
                if len(block) >= size:
                    yield _table(block)
                    block = []
        except (CorruptInputError, UsageError) as exc:
            kind = "damage" if isinstance(exc, CorruptInputError) else "usage"
            message = exc.message if isinstance(exc, CorruptInputError) else str(exc)
            stop = RawRecord(number=last + 1, line=0, end=0, kind=kind, text=message)  # type: ignore[arg-type]
        if stop is not None:
            block.append(stop)
        if block:
            yield _table(block)

    return read


class _Source:
    """A Ray Data datasource over one dataset input (read tasks built in ``get_read_tasks``)."""

    def __init__(self, path: str, input_format: InputFormat, columns: Columns, block: int, limit: int) -> None:
        self.path, self.input_format, self.columns, self.block, self.limit = path, input_format, columns, block, limit

    def datasource(self) -> Any:
        from ray.data.block import BlockMetadata
        from ray.data.datasource import Datasource, ReadTask

        source = self

        class HermesInput(Datasource):  # type: ignore[misc,unused-ignore]  # Any when ray is not installed
            def __init__(self) -> None:
                super().__init__()  # type: ignore[no-untyped-call,unused-ignore]

            def estimate_inmemory_data_size(self) -> int | None:
                return None

            def get_read_tasks(
                self, parallelism: int, per_task_row_limit: int | None = None, data_context: Any = None
            ) -> list[ReadTask]:
                if sniff(source.path) == "parquet":
                    from ._parquet import row_groups

                    splits: list[list[int] | None] = [[g] for g, _, _ in row_groups(source.path)] or [None]
                else:
                    splits = [None]
                meta = BlockMetadata(num_rows=None, size_bytes=None, input_files=None, exec_stats=None)
                return [
                    ReadTask(
                        _read_task(source.path, source.input_format, source.columns, s, source.block, source.limit),
                        meta,
                    )
                    for s in splits
                ]

        return HermesInput()


@paused  # a block of small records: the collector runs after it (_gcpause.py)
def _check_block(batch: Any, options: Options) -> Any:
    pa = require("pyarrow")
    cols = {name: batch.column(name).to_pylist() for name in _FIELDS}
    numbers, ends, found = [], [], []
    for k in range(batch.num_rows):
        raw = RawRecord(**{name: cols[name][k] for name in _FIELDS})
        if raw.kind in _STOP:  # the end of a read task that stopped at an input error: passed on as it is
            numbers.append(raw.number)
            ends.append(-1)
            found.append(pickle.dumps((raw.kind, raw.text), protocol=pickle.HIGHEST_PROTOCOL))
            continue
        result = check_record(raw, options)
        numbers.append(result.number)
        ends.append(result.end)
        found.append(pickle.dumps((result.findings, result.raw), protocol=pickle.HIGHEST_PROTOCOL))
    return pa.table(
        {"number": pa.array(numbers, pa.int64()), "end": pa.array(ends, pa.int64()), "findings": pa.array(found)}
    )


def run_ray(
    path: str | Path,
    options: Options,
    *,
    columns: Columns = NO_MAPPING,
    block: int = 256,
) -> Iterator[RecordResult]:
    """Validate one input on the current Ray cluster (see ``ray_cluster``); results in input order.

    Args:
        path: any input ``dataio.iter_input`` reads.
        options: what to check.
        columns: the column mapping.
        block: records per block (one ``map_batches`` call each).

    Raises:
        UsageError: Ray is not installed or not started, or the input cannot be read.
    """
    ray = require("ray")
    data = require("ray.data")
    if not ray.is_initialized():
        raise UsageError("Ray is not started: run inside `with ray_cluster(address):`")
    sniff(path)  # a bad path is a usage error here, not a task failure
    here = {"ray.io/node-id": ray.get_runtime_context().get_node_id()}  # read where the input is
    logging.getLogger("ray.data").setLevel(logging.ERROR)
    ctx = data.DataContext.get_current()
    ctx.execution_options.preserve_order = True
    ctx.enable_progress_bars = False
    ctx.print_on_execution_start = False
    source = _Source(str(path), options.input_format, columns, block, options.max_record_bytes).datasource()
    ds = data.read_datasource(source, label_selector=here).map_batches(
        _check_block, fn_kwargs={"options": options}, batch_format="pyarrow", batch_size=None, zero_copy_batch=True
    )
    expected = 1
    pending: dict[int, RecordResult] = {}
    stops: dict[int, HermesError] = {}
    try:
        for batch in ds.iter_batches(batch_format="pyarrow", batch_size=None):
            numbers = batch.column("number").to_pylist()
            ends = batch.column("end").to_pylist()
            for number, end, blob in zip(numbers, ends, batch.column("findings").to_pylist(), strict=True):
                if end == -1:
                    kind, message = pickle.loads(blob)
                    stops[number] = _STOP[kind](message)
                else:
                    findings, raw = pickle.loads(blob)  # raw: the record, kept for an HTML report (keep_records)
                    pending[number] = RecordResult(number=number, end=end, findings=findings, raw=raw)
            while expected in pending:
                yield pending.pop(expected)
                expected += 1
            if expected in stops:
                raise stops[expected]
    except HermesError:
        raise
    except Exception as exc:  # a task failed: its cause (a UsageError from a reader) is inside Ray's error
        cause = getattr(exc, "cause", None) or exc.__cause__
        if isinstance(cause, HermesError):
            raise UsageError(str(cause)) from exc
        raise UsageError(f"the Ray run failed: {exc}") from exc
    if pending:
        raise UsageError(f"the Ray run lost records before record {expected}")
