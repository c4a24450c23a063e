"""The output formats of ``hermes-toolcall validate``: text, JSON, JSON lines, GitHub workflow commands, SARIF,
and HTML (its sink is in ``_validate_html``).

Each format is a sink: ``finding(path, record, f)`` as findings arrive, then ``finish(summary)``.
Text, JSON lines and GitHub write as they go (memory stays flat); JSON and SARIF write one document at
the end (SARIF keeps at most ``SARIF_MAX_RESULTS`` results, the most severe first).
"""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from .. import __version__
from .. import _jsonio as jsonio
from .._diagnostics import CATALOGUE
from .._excerpt import sanitize
from ..validate import Located, RecordResult
from ._common import format_finding, record_label

__all__ = ["FORMATS", "SARIF_MAX_RESULTS", "Sink", "Summary", "make_sink"]

FORMATS = ("text", "json", "jsonl", "github", "sarif", "html")
SARIF_MAX_RESULTS = 25_000  # GitHub code scanning rejects a run with more results
_SARIF_LEVEL = {"error": "error", "warning": "warning", "info": "note"}
_RANK = {"error": 0, "warning": 1, "info": 2}
_GITHUB_COMMAND = {"error": "error", "warning": "warning", "info": "notice"}


@dataclass(slots=True, kw_only=True)
class Summary:
    """What the run found so far (mutable: it grows as records are checked)."""

    records: int = 0
    files: int = 0
    counts: Counter[str] = field(default_factory=Counter)
    severities: Counter[str] = field(default_factory=Counter)
    status: int = 0
    complete: bool = True
    note: str | None = None  # why the run did not complete (interrupted, …)

    def add(self, f: Located) -> None:
        """Count one finding."""
        self.counts[f.code] += 1
        self.severities[f.severity] += 1

    def line(self) -> str:
        """``N record(s) in M file(s): …`` (and what stopped the run, if anything)."""
        s = self.severities
        text = (
            f"{self.records} record(s) in {self.files} file(s): {s['error']} error(s), {s['warning']} warning(s), "
            f"{s['info']} info"
        )
        return text + (f" ({self.note})" if self.note else "")

    def to_json(self) -> dict[str, Any]:
        """The summary as JSON data."""
        return {
            "records": self.records,
            "files": self.files,
            "errors": self.severities["error"],
            "warnings": self.severities["warning"],
            "infos": self.severities["info"],
            "summary": dict(sorted(self.counts.items())),
            "complete": self.complete,
            "exit_status": self.status,
        }


def _message(f: Located) -> str:
    """The message, with the position in the record's ChatML text when it was checked via ``--text-column``."""
    return f.message if f.text is None else f"{f.message} [{f.text.label()}]"


def _finding_json(path: str, f: Located) -> dict[str, Any]:
    out = _finding_fields(path, f)
    if f.text is not None:  # only then: the other records' findings are as before, byte for byte
        t = f.text
        out["text"] = {"field": t.field, "line": t.line, "column": t.column, "offset": t.offset}
    return out


def _finding_fields(path: str, f: Located) -> dict[str, Any]:
    return {
        "file": path,
        "record": f.record,
        "record_id": f.record_id,
        "line": f.line,
        "column": f.column,
        "end_column": f.column + f.width,
        "code": f.code,
        "name": CATALOGUE[f.code].name,
        "severity": f.severity,
        "message": f.message,
        "hint": f.hint,
    }


class Sink:
    """The text format: compiler-style findings as they come, then a table by code and a summary line."""

    streaming = True  # findings are written as they come (flushed after each record that has some)

    def __init__(self, out: TextIO, *, detail: str = "full") -> None:
        self.out = out
        self.detail = detail  # text: full, statistics (the table and the summary line), quiet (the line only)

    def record_done(self) -> None:
        """A record's findings were all given: make them visible (a pipe is block-buffered)."""
        if self.streaming:
            self.out.flush()

    def finding(self, path: str, result: RecordResult, f: Located) -> None:
        """Report one finding."""
        if self.detail != "full":
            return
        self.out.write(
            format_finding(
                path=path,
                line=f.line,
                column=f.column,
                code=f.code,
                severity=f.severity,
                message=_message(f),
                snippet=f.snippet,
                caret=f.caret,
                width=f.width,
                hint=f.hint,
                record=f.record,
                record_id=f.record_id,
            )
            + "\n"
        )

    def finish(self, summary: Summary) -> None:
        """Write what comes after the findings."""
        from rich.console import Console
        from rich.table import Table

        console = Console(file=self.out, highlight=False, soft_wrap=True, markup=False)
        if summary.counts and self.detail != "quiet":
            if self.detail == "full":
                self.out.write("\n")
            table = Table(title="findings by code", title_justify="left")
            for name, justify in (("code", "left"), ("name", "left"), ("kind", "left"), ("count", "right")):
                table.add_column(name, justify=justify)  # type: ignore[arg-type]
            for code in sorted(summary.counts):
                e = CATALOGUE.get(code)
                table.add_row(code, e.name if e else "?", e.kind if e else "?", str(summary.counts[code]))
            console.print(table)
        console.print(summary.line())


class _JsonLines(Sink):
    def finding(self, path: str, result: RecordResult, f: Located) -> None:
        self.out.write(jsonio.dumps_fast({"type": "finding", **_finding_json(path, f)}) + "\n")

    def finish(self, summary: Summary) -> None:
        self.out.write(jsonio.dumps_fast({"type": "summary", **summary.to_json()}) + "\n")


class _Json(Sink):
    streaming = False

    def __init__(self, out: TextIO) -> None:
        super().__init__(out)
        self.items: list[dict[str, Any]] = []

    def finding(self, path: str, result: RecordResult, f: Located) -> None:
        self.items.append(_finding_json(path, f))

    def finish(self, summary: Summary) -> None:
        doc = {**summary.to_json(), "diagnostics": self.items}
        self.out.write(jsonio.dumps_spaced(doc) + "\n")


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


class _GitHub(Sink):
    """GitHub Actions workflow commands: ``::error file=…,line=…,col=…::message`` (annotations on the diff)."""

    def finding(self, path: str, result: RecordResult, f: Located) -> None:
        props = {
            "file": Path(path).as_posix(),
            "line": str(f.line),
            "col": str(f.column),
            "endColumn": str(f.column + f.width),
            "title": f"{f.code} {CATALOGUE[f.code].name}",
        }
        head = ",".join(f"{k}={_escape_property(sanitize(v))}" for k, v in props.items())
        message = f"{record_label(f.record, f.record_id)}: {_message(f)}" + (f" (hint: {f.hint})" if f.hint else "")
        self.out.write(f"::{_GITHUB_COMMAND.get(f.severity, 'warning')} {head}::{_escape_data(sanitize(message))}\n")

    def finish(self, summary: Summary) -> None:
        self.out.write(sanitize(summary.line()) + "\n")


class _Sarif(Sink):
    """SARIF 2.1.0 for GitHub code scanning, within its limits; fingerprints survive moved records."""

    streaming = False

    def __init__(self, out: TextIO, *, command: list[str], limit: int = SARIF_MAX_RESULTS) -> None:
        super().__init__(out)
        self.command = command
        self.limit = limit
        self.kept: list[list[tuple[str, str, Located]]] = [[], [], []]  # by severity rank
        self.dropped: Counter[str] = Counter()

    def finding(self, path: str, result: RecordResult, f: Located) -> None:
        rank = _RANK.get(f.severity, 1)
        self.kept[rank].append((path, result.digest, f))
        if sum(len(k) for k in self.kept) > self.limit:  # drop the least severe, latest finding
            worst = max(r for r in range(3) if self.kept[r])
            _, _, gone = self.kept[worst].pop()
            self.dropped[gone.severity] += 1

    def _result(self, path: str, digest: str, f: Located, index: dict[str, int], seen: Counter[str]) -> Any:
        uri = Path(path).as_posix()  # the same file name in every run
        key = hashlib.blake2b(f"{f.code}\0{uri}\0{digest}\0{f.message}".encode(), digest_size=16).hexdigest()
        seen[key] += 1
        return {
            "ruleId": f.code,
            "ruleIndex": index[f.code],
            "level": _SARIF_LEVEL.get(f.severity, "warning"),
            "message": {"text": f"{record_label(f.record, f.record_id)}: {_message(f)}"},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": uri},
                        "region": {"startLine": f.line, "startColumn": f.column, "endColumn": f.column + f.width},
                    }
                }
            ],
            "partialFingerprints": {"hermesToolcallFinding/v1": f"{key}:{seen[key]}"},
            "properties": {"record": f.record, "recordId": f.record_id},
        }

    def finish(self, summary: Summary) -> None:
        items = [item for group in self.kept for item in group]
        used = sorted({f.code for _, _, f in items})
        index = {code: k for k, code in enumerate(used)}
        rules = [
            {
                "id": code,
                "name": CATALOGUE[code].name,
                "shortDescription": {"text": CATALOGUE[code].summary},
                "help": {"text": CATALOGUE[code].fix},
                "defaultConfiguration": {"level": _SARIF_LEVEL.get(CATALOGUE[code].kind, "warning")},
            }
            for code in used
        ]
        seen: Counter[str] = Counter()
        results = [self._result(path, digest, f, index, seen) for path, digest, f in items]
        notes = []
        if self.dropped:
            total = sum(self.dropped.values())
            what = ", ".join(f"{n} {sev}" for sev, n in sorted(self.dropped.items(), key=lambda kv: _RANK[kv[0]]))
            notes.append(
                {
                    "level": "warning",
                    "message": {
                        "text": f"{total} finding(s) not included ({what}): a SARIF run holds at most {self.limit} "
                        "results (GitHub code scanning's limit); the most severe were kept. Run with --format "
                        "jsonl for every finding."
                    },
                }
            )
        if summary.note:
            notes.append({"level": "error", "message": {"text": f"the run did not complete: {summary.note}"}})
        invocation: dict[str, Any] = {
            "executionSuccessful": summary.complete and summary.status in (0, 1),
            "exitCode": summary.status,
            "commandLine": " ".join(self.command),
        }
        if notes:
            invocation["toolExecutionNotifications"] = notes
        driver = {"name": "hermes-toolcall", "version": __version__, "rules": rules}
        doc = {
            "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
            "version": "2.1.0",
            "runs": [
                {
                    "tool": {"driver": driver},
                    "invocations": [invocation],
                    "columnKind": "unicodeCodePoints",
                    "results": results,
                }
            ],
        }
        self.out.write(jsonio.dumps_spaced(doc) + "\n")


def make_sink(name: str, out: TextIO, *, command: list[str], detail: str = "full") -> Sink:
    """The sink of an output format of ``FORMATS`` other than ``html`` (``_validate_html.HtmlSink``); ``detail``,
    text only: ``full``, ``statistics`` (the table by code and the summary line) or ``quiet`` (the summary line)."""
    if name == "sarif":
        return _Sarif(out, command=command)
    if name == "text":
        return Sink(out, detail=detail)
    sinks: dict[str, type[Sink]] = {"json": _Json, "jsonl": _JsonLines, "github": _GitHub}
    return sinks[name](out)
