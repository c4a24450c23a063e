"""``validate --format html``: the HTML report sink (``hermes_toolcall.html.ReportWriter`` fed as records come).

Each record with findings is shown as soon as its findings are in: a ChatML record (or a record's
``--text-column`` transcript) as its turns with the findings highlighted in the text, a JSON record as
its messages with the findings highlighted in the strings they point into, a record that could not be
read as its raw text. Beyond ``--html-max-findings`` findings are counted, not shown, and the page says
how many of each code and severity it left out. Memory stays flat: nothing but counters outlives a record.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from typing import Any, TextIO

from .. import __version__
from .. import _jsonio as jsonio
from .._diagnostics import CATALOGUE
from .._parse import parse_transcript
from ..errors import UsageError
from ..html import DEFAULT_LIMIT, Finding, ReportWriter, json_path, json_record_body, raw_body, record_body, text
from ..validate import Located, RecordResult
from ._validate_report import Sink, Summary

__all__ = ["HtmlSink", "add_arguments", "settings"]


def add_arguments(p: Any) -> None:
    """Add ``--html-max-findings``."""
    p.add_argument(
        "--html-max-findings",
        type=int,
        metavar="N",
        help=f"--format html: show at most N findings (default {DEFAULT_LIMIT:,}); the rest are counted and summarised",
    )


def settings(args: argparse.Namespace) -> dict[str, Any]:
    """The HTML sink's settings from the command line (checked even when the format is not html).

    Raises:
        UsageError: ``--html-max-findings`` without ``--format html``, or below 0.
    """
    limit = getattr(args, "html_max_findings", None)
    if limit is not None and args.format != "html":
        raise UsageError("--html-max-findings is for --format html")
    if limit is not None and limit < 0:
        raise UsageError("--html-max-findings must be 0 or more")
    return {
        "dialect": args.dialect,
        "limit": DEFAULT_LIMIT if limit is None else limit,
        "text_column": getattr(args, "text_column", None),
    }


def _record_id(data: Any) -> str | None:
    """The record's own ``id`` (a string or an integer field), for the reader to find it in the source."""
    if isinstance(data, Mapping):
        value = data.get("id")
        if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
            return str(value)
    return None


class HtmlSink(Sink):
    """The ``html`` format (see the module)."""

    def __init__(self, out: TextIO, *, command: list[str], dialect: str, limit: int, text_column: str | None) -> None:
        super().__init__(out)
        self.dialect = dialect
        self.text_column = text_column
        self.writer = ReportWriter(
            out,
            title="hermes-toolcall validate",
            command=" ".join(command),
            generator=f"hermes-toolcall {__version__}",
            limit=limit,
        )
        self.pending: list[Located] = []
        self.path = ""
        self.result: RecordResult | None = None

    def finding(self, path: str, result: RecordResult, f: Located) -> None:
        if self.result is not None and self.result is not result:
            self._flush()
        self.pending.append(f)
        self.path, self.result = path, result

    def record_done(self) -> None:
        self._flush()
        super().record_done()

    def finish(self, summary: Summary) -> None:
        self._flush()
        names = {code: entry.name for code, entry in CATALOGUE.items()}
        self.writer.finish(records=summary.records, note=summary.note, status=summary.status, names=names)

    def _finding(self, f: Located) -> Finding:
        where = f"{self.path}:{f.line}:{f.column}" + (f" ({f.text.label()})" if f.text is not None else "")
        entry = CATALOGUE.get(f.code)
        common: dict[str, Any] = {
            "code": f.code, "severity": f.severity, "message": f.message, "hint": f.hint,
            "name": entry.name if entry else "",
        }
        w = f.where
        if w is None:  # a record-level finding (not JSON, not UTF-8, no text column, the validator failed)
            point = f.column - 1
            return Finding(**common, where=where, start=point, end=point)
        if w.path is None:
            return Finding(**common, where=where, start=w.span.start, end=w.span.end)
        label = f"{where} · {json_path(w.path)}" if w.path else where
        return Finding(**common, where=label, start=w.span.start, end=w.span.end, path=tuple(w.path),
                       whole=not w.in_value)

    def _body(self, result: RecordResult, found: list[Located], shown: list[Finding], prefix: str) -> tuple[str, Any]:
        """The record's conversation with ``shown`` highlighted, and its data (for its id)."""
        raw = result.raw
        if raw is None:
            return "", None
        data: Any = None
        if raw.kind == "jsonl":
            data = jsonio.loads_or_none(raw.text)
        elif raw.kind == "object":  # a decoded record (no reader gives one today)
            data = raw.data
        if any(f.where is None for f in found):
            return raw_body(raw.text, shown, prefix=prefix), data
        if raw.kind == "chatml":
            return record_body(parse_transcript(raw.text, dialect=self.dialect), shown, prefix=prefix), data
        if self.text_column is not None and isinstance(data, dict) and isinstance(data.get(self.text_column), str):
            source = data[self.text_column].replace("\r\n", "\n")  # as the runner checked it
            return record_body(parse_transcript(source, dialect=self.dialect), shown, prefix=prefix), data
        return json_record_body(data, shown, prefix=prefix), data

    def _flush(self) -> None:
        found, result = self.pending, self.result
        self.pending, self.result = [], None
        if not found or result is None:
            return
        converted = [self._finding(f) for f in found]
        for c in converted:
            self.writer.count(self.path, c)
        self.writer.record_seen()
        room = self.writer.room()
        if not room:
            return
        shown = converted[:room]
        prefix = self.writer.next_prefix()
        try:
            body, data = self._body(result, found[:room], shown, prefix)
        except Exception as exc:  # a display problem must not lose the findings: they are listed all the same
            body, data = f'<p class="note">(the record could not be drawn: {text(type(exc).__name__)})</p>', None
        line = result.raw.line if result.raw is not None else found[0].line
        rid = found[0].record_id  # the runner's (--id-column); the record's own `id` when the runner has none
        shown_id = str(rid) if rid is not None else _record_id(data)
        self.writer.record(file=self.path, number=result.number, line=line, record_id=shown_id, body=body,
                           findings=shown, prefix=prefix)
