"""See it: HTML views of parses and validation reports, and their terminal counterparts.

* `view_page`: one self-contained page for a ``Transcript`` or a ``Completion`` (``hermes-toolcall
  view``): turns by role, reasoning folded, calls with their name and pretty arguments, results bound
  to their calls, findings inline, and the raw text with every part's span on hover.
* `notebook_html`: the same view, compact, as a notebook fragment (``_repr_html_`` of ``Transcript``,
  ``Completion`` and ``ValidationReport``).
* `ReportWriter`: the validation report (``validate --format html``), written as records come.
* `short_repr` / `tree`: a one-line ``repr`` and a ``rich`` tree for a terminal.

Every character of the input is escaped (``_escape``); pages carry a Content-Security-Policy that lets
only their own style and script run, and no URL. This package reads parsed values through the
protocols of ``_doc`` (each part shows itself through ``part._shown()``), so the model's modules can
call it without an import cycle.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from ._conversation import finding_item, findings_of, record_body, summary_line, view_body
from ._doc import CompletionLike, DiagnosticLike, Finding, Shown, SpanLike, TranscriptLike
from ._escape import attr, shown, text
from ._page import CSP, fragment, page_end, page_start
from ._record import json_path, json_record_body, raw_body
from ._report import DEFAULT_LIMIT, ReportWriter
from ._terminal import findings_table, short_repr, tree

__all__ = [
    "CSP",
    "DEFAULT_LIMIT",
    "Finding",
    "ReportWriter",
    "Shown",
    "attr",
    "finding_item",
    "findings_of",
    "findings_table",
    "json_path",
    "json_record_body",
    "notebook_html",
    "raw_body",
    "record_body",
    "short_repr",
    "shown",
    "text",
    "tree",
    "validation_html",
    "view_page",
]

_fragments = itertools.count(1)


def view_page(
    value: TranscriptLike | CompletionLike,
    *,
    findings: Sequence[Finding] | None = None,
    title: str = "hermes-toolcall view",
    generator: str = "hermes-toolcall",
) -> str:
    """A self-contained HTML page showing one parse.

    Args:
        value: a ``Transcript`` or a ``Completion``.
        findings: what to show inline; default: the parse's own diagnostics.
        title: the page title.
        generator: what the page's ``generator`` meta names.

    Returns:
        The page (UTF-8 text; every character of the input escaped).

    >>> from hermes_toolcall import parse_completion
    >>> page = view_page(parse_completion('<tool_call>{"name": "f", "arguments": {"x": "<b>"}}</tool_call>'))
    >>> page.startswith("<!DOCTYPE html>"), "&lt;b&gt;" in page, "<b>" in page
    (True, True, False)
    """
    found = list(findings) if findings is not None else findings_of(value.diagnostics)
    head = f'<header><h1>{text(title)}</h1><p class="muted summary">{text(summary_line(value, found))}</p></header>'
    return page_start(title, kind="view", generator=generator) + head + view_body(value, found) + page_end()


def notebook_html(value: TranscriptLike | CompletionLike, findings: Sequence[Finding] | None = None) -> str:
    """The compact view of a parse for a notebook (no script; the raw text folded).

    Args:
        value: a ``Transcript`` or a ``Completion``.
        findings: what to show inline; default: the parse's own diagnostics.

    >>> from hermes_toolcall import parse_completion
    >>> notebook_html(parse_completion("hi")).startswith("<style>")
    True
    """
    found = list(findings) if findings is not None else findings_of(value.diagnostics)
    prefix = f"n{next(_fragments)}-"
    head = f'<div class="muted summary">{text(summary_line(value, found))}</div>'
    return fragment(head + view_body(value, found, prefix=prefix, compact=True), kind="view notebook")


class WhereLike(Protocol):
    """Where a validation finding points (``validate``'s ``Where``): into the source, or at a JSON path."""

    @property
    def span(self) -> SpanLike: ...
    @property
    def path(self) -> tuple[str | int, ...] | None: ...
    @property
    def in_value(self) -> bool: ...


def validation_html(
    diagnostics: Sequence[DiagnosticLike],
    locations: Sequence[WhereLike],
    subject: Any,
    names: Mapping[str, str] | None = None,
) -> str:
    """The compact view of a validation (``ValidationReport._repr_html_``): what was checked, findings inline.

    Args:
        diagnostics: the findings.
        locations: where each points (a span of the parsed source, or a JSON path into the messages).
        subject: what was checked: a ``Transcript``, a ``Completion``, the messages, or None (findings only).
        names: the codes' names.

    >>> from hermes_toolcall import validate
    >>> html = validate([{"role": "tool", "content": "<b>", "tool_call_id": "x"}])._repr_html_()
    >>> 'data-code="HT402"' in html, "<b>" in html
    (True, False)
    """
    names = names or {}
    found: list[Finding] = []
    for d, w in zip(diagnostics, locations, strict=True):
        path = None if w.path is None else ("messages", *w.path)
        found.append(Finding(
            code=d.code, severity=d.severity, message=d.message, hint=d.hint, name=names.get(d.code, ""),
            where=f"{d.span.line}:{d.span.column}" if path is None else json_path(path),
            start=w.span.start, end=w.span.end, path=path, whole=path is not None and not w.in_value,
        ))
    if hasattr(subject, "source") and (hasattr(subject, "turns") or hasattr(subject, "parts")):
        return notebook_html(subject, found)
    prefix = f"n{next(_fragments)}-"
    items = "".join(finding_item(f, f"{prefix}f{k}") for k, f in enumerate(found))
    body = json_record_body({"messages": list(subject)}, found, prefix=prefix) if subject is not None else ""
    head = f'<div class="muted summary">{text(f"{len(found)} finding(s)")}</div>'
    return fragment(
        f'{head}<div class="rec-body"><div class="conv">{body}</div><ul class="findings">{items}</ul></div>',
        kind="view notebook",
    )
