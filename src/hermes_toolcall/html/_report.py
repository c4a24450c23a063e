"""The validation report page, written as the records come (memory stays flat on any dataset).

Each record with findings is written at once: its conversation (``record_body`` or ``json_record_body``)
beside the list of its findings. At most ``limit`` findings are shown; the rest are counted (by code
and severity, with the records they are in) and the page says so. At the end come the totals by
severity and by code with a bar chart, the filters (code, severity, file) and the script; the page's
style shows the totals and filters above the records.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import TextIO

from ._conversation import finding_item
from ._doc import Finding
from ._escape import attr, text
from ._page import page_end, page_start

__all__ = ["DEFAULT_LIMIT", "ReportWriter"]

DEFAULT_LIMIT = 2_000
_SEVERITIES = ("error", "warning", "info")


def _bar(count: int, most: int, severity: str) -> str:
    width = 100.0 * count / most if most else 0.0
    return (
        f'<svg class="bar {attr(severity)}" viewBox="0 0 100 10" preserveAspectRatio="none" aria-hidden="true">'
        f'<rect width="{width:.2f}" height="10"></rect></svg>'
    )


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}" + ("" if n == 1 or word == "info" else "s")


class ReportWriter:
    """Writes the HTML validation report to ``out`` as records come (see the module).

    >>> import io
    >>> out = io.StringIO()
    >>> w = ReportWriter(out, title="t", command="validate x", limit=10)
    >>> f = Finding(code="HT302", severity="error", message="bad", where="x:1:2")
    >>> w.count("x", f)
    >>> w.record(file="x", number=1, line=1, record_id="a<b", body="", findings=[f])
    'r1'
    >>> w.finish(records=1, note=None, status=1)
    >>> page = out.getvalue()
    >>> page.count('class="finding error"'), 'a&lt;b' in page, page.rstrip().endswith("</html>")
    (1, True, True)
    """

    def __init__(
        self, out: TextIO, *, title: str, command: str, generator: str = "hermes-toolcall", limit: int = DEFAULT_LIMIT
    ) -> None:
        self.out = out
        self.limit = limit
        self.shown = 0
        self.shown_records = 0
        self.records_with_findings = 0
        self.by_code: dict[str, Counter[str]] = {}  # code -> severity -> count (every finding)
        self.by_file: Counter[str] = Counter()
        self.shown_by_code: Counter[str] = Counter()
        self.shown_by_sev: Counter[str] = Counter()
        self.shown_files: Counter[str] = Counter()
        self.names: dict[str, str] = {}
        out.write(page_start(title, kind="report", generator=generator))
        out.write(f'<header><h1>{text(title)}</h1><p class="muted"><code>{text(command)}</code></p></header>\n')
        out.write('<main id="records">\n')

    def room(self) -> int:
        """How many more findings the page shows (0: the cap is reached; the rest are only counted)."""
        return max(0, self.limit - self.shown)

    def count(self, file: str, finding: Finding) -> None:
        """Count one finding in the totals (every finding, shown or not)."""
        self.by_code.setdefault(finding.code, Counter())[finding.severity] += 1
        self.by_file[file] += 1
        if finding.name:
            self.names.setdefault(finding.code, finding.name)

    def record_seen(self) -> None:
        """Count one record with findings (shown or not)."""
        self.records_with_findings += 1

    def record(
        self,
        *,
        file: str,
        number: int,
        line: int,
        record_id: str | None,
        body: str,
        findings: Sequence[Finding],
        prefix: str | None = None,
    ) -> str:
        """Write one record: its conversation ``body`` (made with ``prefix``) beside its ``findings``.

        Returns:
            The record's id prefix (``prefix``, or the next ``r<n>``) that ``body``'s marks must use.
        """
        prefix = prefix or self.next_prefix()
        self.shown_records += 1
        self.shown += len(findings)
        for f in findings:
            self.shown_by_code[f.code] += 1
            self.shown_by_sev[f.severity] += 1
        self.shown_files[file] += len(findings)
        codes = " ".join(sorted({f.code for f in findings}))
        ident = f' · id <code class="rid">{text(record_id)}</code>' if record_id is not None else ""
        items = "".join(finding_item(f, f"{prefix}f{k}") for k, f in enumerate(findings))
        self.out.write(
            f'<section class="record" id="{attr(prefix)}" data-file="{attr(file)}" data-codes="{attr(codes)}">'
            f'<h2><span class="file">{text(file)}</span> · record {number:,} · line {line:,}{ident}</h2>'
            f'<div class="rec-body"><div class="conv">{body}</div><ul class="findings">{items}</ul></div></section>\n'
        )
        return prefix

    def next_prefix(self) -> str:
        """The id prefix the next record gets."""
        return f"r{self.shown_records + 1}"

    def finish(self, *, records: int, note: str | None, status: int, names: Mapping[str, str] | None = None) -> None:
        """Write the totals, the filters and the end of the page."""
        names = {**self.names, **(names or {})}
        severities: Counter[str] = Counter()
        totals: Counter[str] = Counter()
        for code, by_sev in self.by_code.items():
            severities.update(by_sev)
            totals[code] = sum(by_sev.values())
        total = sum(totals.values())
        out = ['</main>\n<section id="summary">']
        files = len(self.by_file)
        line = (f"{_plural(records, 'record')} checked; {_plural(self.records_with_findings, 'record')} with findings"
                f" in {_plural(files, 'file')}: " + ", ".join(_plural(severities[s], s) for s in _SEVERITIES)
                + f". Exit status {status}.")
        out.append(f'<p class="line">{text(line)}</p>')
        if note:
            out.append(f'<div class="note incomplete">The run did not complete: {text(note)}.</div>')
        left = total - self.shown
        if left:
            unshown = {s: severities[s] - self.shown_by_sev[s] for s in _SEVERITIES}
            which = ", ".join(_plural(n, s) for s, n in unshown.items() if n)
            out.append(
                f'<div class="note capped" data-left-out="{left}">This page shows {self.shown:,} of {total:,} findings '
                f"(in {self.shown_records:,} of {self.records_with_findings:,} records with findings): "
                f"{left:,} more ({text(which)}) are counted in the totals below but not shown; the column "
                f"“not shown” says which codes. Run with --format jsonl for every finding, or raise "
                f"--html-max-findings (now {self.limit:,}).</div>"
            )
        out.append(self._filters(names))
        out.append('<div class="tables">')
        most = max(severities.values(), default=0)
        rows = "".join(
            f'<tr><td><span class="sev {s}">{s}</span></td><td class="n">{severities[s]:,}</td>'
            f"<td>{_bar(severities[s], most, s)}</td></tr>"
            for s in _SEVERITIES
        )
        out.append(f'<div><h2>Findings by severity</h2><table class="totals by-severity">{rows}</table></div>')
        if totals:
            most = max(totals.values())
            rows = ""
            for code in sorted(totals):
                by = self.by_code[code]
                worst = next(s for s in _SEVERITIES if by[s]) if any(by[s] for s in _SEVERITIES) else "warning"
                sev = ", ".join(_plural(by[s], s) for s in _SEVERITIES if by[s])
                hidden = totals[code] - self.shown_by_code[code]
                rows += (
                    f'<tr data-code="{attr(code)}"><td><code>{text(code)}</code></td>'
                    f'<td class="muted">{text(names.get(code, ""))}</td><td>{text(sev)}</td>'
                    f'<td class="n">{totals[code]:,}</td><td>{_bar(totals[code], most, worst)}</td>'
                    f'<td class="n">{hidden:,}</td></tr>'
                )
            out.append(
                '<div><h2>Findings by code</h2><table class="totals by-code"><thead><tr><th>code</th><th>name</th>'
                '<th>severity</th><th>count</th><th></th><th>not shown</th></tr></thead>'
                f"<tbody>{rows}</tbody></table></div>"
            )
            file_rows = "".join(
                f'<tr><td>{text(name)}</td><td class="n">{n:,}</td></tr>' for name, n in sorted(self.by_file.items())
            )
            out.append(f'<div><h2>Findings by file</h2><table class="totals by-file">{file_rows}</table></div>')
        out.append("</div></section>\n")
        self.out.write("".join(out))
        self.out.write(page_end())

    def _filters(self, names: Mapping[str, str]) -> str:
        if not self.shown:
            return '<p class="muted">No findings to show.</p>'
        codes = "".join(
            f'<option value="{attr(c)}">{attr(c)} {attr(names.get(c, ""))} ({n:,})</option>'
            for c, n in sorted(self.shown_by_code.items())
        )
        sevs = "".join(
            f'<option value="{s}">{s} ({self.shown_by_sev[s]:,})</option>' for s in _SEVERITIES if self.shown_by_sev[s]
        )
        files = "".join(
            f'<option value="{attr(name)}">{attr(name)} ({n:,})</option>'  # an option holds text only
            for name, n in sorted(self.shown_files.items())
        )
        return (
            '<div class="filters"><label>code <select id="filter-code"><option value="">all codes</option>'
            f'{codes}</select></label><label>severity <select id="filter-sev"><option value="">all</option>{sevs}'
            '</select></label><label>file <select id="filter-file"><option value="">all files</option>'
            f'{files}</select></label><span>showing <b id="shown-count">{self.shown}</b> '
            f"of {self.shown:,} findings on this page</span></div>"
        )
