"""Parsed transcripts and completions as HTML: turns by role, parts as cards, findings inline, the raw source.

Two layouts of the same walk:

* the **view** (`view_body`): the conversation (each part a card: prose, folded reasoning, calls with
  their name and pretty-printed arguments, results bound to their calls, invalid calls with their
  code), each finding under the part it points into; beside it the raw source, every part a region
  whose span shows on hover, every finding highlighted (`marked`);
* the **record** (`record_body`, the validation report): the raw source turn by turn, the findings
  highlighted, long texts and turns far from any finding left out (and counted).

Results bind to calls as the OpenAI view binds them (``Transcript.to_messages``): an assistant turn's
calls wait in order, and each result of a following tool turn (or of a user turn holding only
results) answers the next one.
"""

from __future__ import annotations

import bisect
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from .. import _jsonio as jsonio
from ..tags import ASSISTANT, SYSTEM, TOOL, USER
from ._doc import CompletionLike, DiagnosticLike, Finding, PartLike, Shown, SpanLike, TranscriptLike, split
from ._escape import attr, text
from ._marked import Mark, Region, marked

__all__ = ["finding_item", "findings_of", "record_body", "summary_line", "view_body"]

Parsed = TranscriptLike | CompletionLike
_WS = " \t\r\n"
_RANK = {"error": 0, "warning": 1, "info": 2}


def findings_of(diagnostics: Sequence[DiagnosticLike], names: Mapping[str, str] | None = None) -> list[Finding]:
    """The diagnostics of a parse (or a validation of it) as findings pointing into its source.

    >>> from hermes_toolcall import parse_completion
    >>> [(f.code, f.where) for f in findings_of(parse_completion("<tool_call>{").diagnostics)]
    [('HT102', '1:13')]
    """
    names = names or {}
    return [
        Finding(
            code=d.code,
            severity=d.severity,
            message=d.message,
            hint=d.hint,
            name=names.get(d.code, ""),
            where=f"{d.span.line}:{d.span.column}",
            start=d.span.start,
            end=d.span.end,
        )
        for d in diagnostics
    ]


def finding_item(f: Finding, ident: str) -> str:
    """One finding as a list item: severity, code (as text), name, place, message and hint.

    >>> finding_item(Finding(code="HT302", severity="error", message="<x>", where="3:4"), "f0")[:60]
    '<li class="finding error" id="f0" data-code="HT302" data-sev'
    """
    name = f' <span class="name muted">{text(f.name)}</span>' if f.name else ""
    where = f' <span class="where muted">{text(f.where)}</span>' if f.where else ""
    hint = f'<div class="hint">hint: {text(f.hint)}</div>' if f.hint else ""
    return (
        f'<li class="finding {attr(f.severity)}" id="{attr(ident)}" data-code="{attr(f.code)}" '
        f'data-sev="{attr(f.severity)}"><span class="sev {attr(f.severity)}">{text(f.severity)}</span> '
        f'<code class="code">{text(f.code)}</code>{name}{where}<div class="msg">{text(f.message)}</div>{hint}</li>'
    )


def _label(f: Finding) -> str:
    return f"{f.code} {f.severity} {f.where}: {f.message}"


@dataclass(slots=True)
class _Part:
    pid: str
    shown: Shown
    start: int
    end: int
    line: int
    column: int
    findings: list[int] = field(default_factory=list)


@dataclass(slots=True)
class _Turn:
    role: str
    start: int
    end: int
    header: tuple[int, int] | None
    closing: tuple[int, int] | None
    parts: list[_Part]
    line: int = 1
    column: int = 1
    findings: list[int] = field(default_factory=list)
    answers: str | None = None  # a tool turn without result blocks: the call its body answers


@dataclass(slots=True)
class _Layout:
    turns: list[_Turn]
    calls: dict[str, _Part]  # pid -> the call part
    bound: dict[str, str]  # result pid -> call pid
    outside: list[int]  # findings in no turn


def _part(part: PartLike, pid: str) -> _Part:
    s: SpanLike = part.span
    return _Part(pid=pid, shown=part._shown(), start=s.start, end=s.end, line=s.line, column=s.column)


def _turns(value: Parsed, prefix: str) -> list[_Turn]:
    n = 0
    transcript, completion = split(value)
    if transcript is None:
        parts = []
        for p in completion.parts:
            parts.append(_part(p, f"{prefix}p{n}"))
            n += 1
        close = completion.end
        end = len(completion.source)
        closing = (close.start, close.end) if close is not None else None
        return [_Turn(role=ASSISTANT, start=0, end=end, header=None, closing=closing, parts=parts)]
    items: list[tuple[int, _Turn]] = []
    for t in transcript.turns:
        parts = []
        for p in t.parts:
            parts.append(_part(p, f"{prefix}p{n}"))
            n += 1
        e = t.end
        turn = _Turn(
            role=t.role,
            start=t.span.start,
            end=t.span.end,
            header=(t.header.start, t.header.end),
            closing=(e.start, e.end) if e is not None else None,
            parts=parts,
            line=t.span.line,
            column=t.span.column,
        )
        items.append((turn.start, turn))
    for g in transcript.gaps:
        gap = _part(g, f"{prefix}p{n}")
        n += 1
        items.append((gap.start, _Turn(role="outside", start=gap.start, end=gap.end, header=None, closing=None,
                                       parts=[gap], line=gap.line, column=gap.column)))
    items.sort(key=lambda item: item[0])
    return [t for _, t in items]


def _bind(turns: list[_Turn]) -> tuple[dict[str, _Part], dict[str, str]]:
    """Calls by part id, and the call each result answers (the OpenAI view's rule, see the module)."""
    calls: dict[str, _Part] = {}
    bound: dict[str, str] = {}
    pending: list[str] = []
    for t in turns:
        if t.role == ASSISTANT:
            ids = [p.pid for p in t.parts if p.shown.kind == "call"]
            for p in t.parts:
                if p.shown.kind == "call":
                    calls[p.pid] = p
            if ids:
                pending = ids
            continue
        results = [p for p in t.parts if p.shown.kind == "result"]
        only_results = bool(results) and all(
            p.shown.kind == "result" or (p.shown.kind == "text" and not p.shown.body.strip(_WS)) for p in t.parts
        )
        if t.role == TOOL or (t.role == USER and only_results):
            if not results:
                t.answers = pending.pop(0) if pending else None
            for r in results:
                if pending:
                    bound[r.pid] = pending.pop(0)
    return calls, bound


def _layout(value: Parsed, findings: Sequence[Finding], prefix: str) -> _Layout:
    turns = _turns(value, prefix)
    calls, bound = _bind(turns)
    parts = sorted((p for t in turns for p in t.parts), key=lambda p: p.start)
    starts = [p.start for p in parts]
    turn_starts = [t.start for t in turns]
    outside: list[int] = []
    for k, f in enumerate(findings):
        if not f.placed or f.path is not None:
            outside.append(k)
            continue
        x = f.start
        i = bisect.bisect_right(starts, x) - 1
        hit = None
        for j in (i, i - 1):
            if 0 <= j < len(parts):
                p = parts[j]
                if p.start <= x < p.end or (x == p.end and (f.start == f.end or p.start == p.end)):
                    hit = p
                    break
        if hit is not None:
            hit.findings.append(k)
            continue
        i = bisect.bisect_right(turn_starts, x) - 1
        if 0 <= i < len(turns) and turns[i].start <= x <= turns[i].end:
            turns[i].findings.append(k)
        else:
            outside.append(k)
    return _Layout(turns=turns, calls=calls, bound=bound, outside=outside)


def _ident(prefix: str, k: int) -> str:
    return f"{prefix}f{k}"


def _marks(findings: Sequence[Finding], prefix: str) -> list[Mark]:
    return [
        Mark(start=f.start, end=f.end, ident=_ident(prefix, k), severity=f.severity, label=_label(f))
        for k, f in enumerate(findings)
        if f.placed and f.path is None
    ]


def _clip(body: str, limit: int | None) -> str:
    """``body`` escaped, cut after ``limit`` characters with a count of the rest."""
    if limit is None or len(body) <= limit:
        return text(body)
    return text(body[:limit]) + f'<span class="gap">[… {len(body) - limit:,} more characters …]</span>'


def _pretty(content: str) -> tuple[str, bool]:
    """A result's content pretty-printed when it is a JSON object or array (else as it is)."""
    stripped = content.strip(_WS)
    if stripped[:1] in ("{", "[") and len(stripped) < 1_000_000:
        value = jsonio.loads_or_none(stripped)
        if isinstance(value, dict | list):
            return jsonio.dumps_pretty(value), True
    return content, False


def _call_ref(call: _Part) -> str:
    s = call.shown
    ident = f' <code class="id">{text(s.call_id)}</code>' if s.call_id else ""
    return f'<a href="#{attr(call.pid)}"><b class="fn">{text(s.name or s.title)}</b>{ident}</a>'


def _items(ks: Sequence[int], findings: Sequence[Finding], prefix: str) -> str:
    if not ks:
        return ""
    return '<ul class="findings">' + "".join(finding_item(findings[k], _ident(prefix, k)) for k in ks) + "</ul>"


def _card(p: _Part, layout: _Layout, findings: Sequence[Finding], prefix: str, limit: int | None) -> str:
    s = p.shown
    items = _items(p.findings, findings, prefix)
    where = f' title="{attr(f"[{p.start}, {p.end}) · {p.line}:{p.column}")}"'
    head_attrs = f'class="part {s.kind}" data-part="{attr(p.pid)}"{where}'
    detail = f'<div class="detail">{text(s.detail)}</div>' if s.detail else ""
    if s.kind == "text":
        if not s.body.strip(_WS) and not items:
            return ""
        return f'<div {head_attrs}><div class="body">{_clip(s.body, limit)}</div>{items}</div>'
    if s.kind == "reasoning":
        summary = f"{text(s.title)} · {len(s.body):,} characters" + (f" · {text(s.detail)}" if s.detail else "")
        opened = " open" if items else ""
        return (
            f'<details {head_attrs}{opened}><summary>{summary}</summary>'
            f'<div class="body">{_clip(s.body, limit)}</div></details>{items}'
        )
    if s.kind == "call":
        ident = f' <code class="id">{text(s.call_id)}</code>' if s.call_id else ""
        return (
            f'<div {head_attrs} id="{attr(p.pid)}"><div class="head"><span class="kind">call</span>'
            f'<b class="fn">{text(s.title)}</b>{ident}</div>{detail}'
            f'<div class="json">{_clip(s.body, limit)}</div>{items}</div>'
        )
    if s.kind == "invalid":
        return (
            f'<div {head_attrs}><div class="head"><span class="kind">invalid call</span>'
            f'<b class="fn">{text(s.title)}</b></div>{detail}<div class="body">{_clip(s.body, limit)}</div>'
            f"{items}</div>"
        )
    if s.kind == "result":
        call = layout.calls.get(layout.bound.get(p.pid, ""))
        answers = f" of {_call_ref(call)}" if call is not None else ' <span class="muted">(no call to answer)</span>'
        named = f' <span class="muted">name {text(s.name)}</span>' if s.name else ""
        body, pretty = _pretty(s.body)
        return (
            f'<div {head_attrs}><div class="head"><span class="kind">result</span>{answers}{named}</div>{detail}'
            f'<div class="{"json" if pretty else "body"}">{_clip(body, limit)}</div>{items}</div>'
        )
    return (  # tools
        f'<details {head_attrs}><summary><span class="kind">tools</span>{text(s.title)}</summary>'
        f'<div class="json">{_clip(s.body, limit)}</div></details>{items}'
    )


def _regions(layout: _Layout) -> list[Region]:
    out: list[Region] = []
    for t in layout.turns:
        if t.header is not None:
            a, b = t.header
            out.append(Region(start=a, end=b, kind="tag", label=f"turn header ({t.role}) · [{a}, {b})", ident=""))
        if t.closing is not None:
            a, b = t.closing
            out.append(Region(start=a, end=b, kind="tag", label=f"turn end · [{a}, {b})", ident=""))
        for p in t.parts:
            s = p.shown
            what = {"text": "text", "reasoning": "reasoning", "call": "call", "invalid": "invalid call",
                    "result": "result", "tools": "tools"}[s.kind]
            name = f" {s.title}" if s.kind in ("call", "invalid", "reasoning") else ""
            out.append(Region(start=p.start, end=p.end, kind=s.kind, ident=p.pid,
                              label=f"{what}{name} · [{p.start}, {p.end}) · {p.line}:{p.column}"))
    return out


def summary_line(value: Parsed, findings: Sequence[Finding]) -> str:
    """``transcript · 4 turns · 2 calls · 1,234 characters · 1 error, 0 warnings, 0 info`` (plain text).

    >>> from hermes_toolcall import parse_completion
    >>> summary_line(parse_completion("hi"), [])
    'completion · 0 calls · 2 characters · 0 errors, 0 warnings, 0 info'
    """
    counts = {"error": 0, "warning": 0, "info": 0}
    for f in findings:
        counts[f.severity] = counts.get(f.severity, 0) + 1
    transcript, completion = split(value)
    if transcript is not None:
        calls = sum(1 for t in transcript.turns for p in t.parts if p._shown().kind == "call")
        head = f"transcript · {_n(len(transcript.turns), 'turn')} · {_n(calls, 'call')}"
    else:
        calls = sum(1 for p in completion.parts if p._shown().kind == "call")
        head = f"completion · {_n(calls, 'call')}"
    return (f"{head} · {_n(len(value.source), 'character')} · {_n(counts['error'], 'error')}, "
            f"{_n(counts['warning'], 'warning')}, {counts['info']} info")


def _n(count: int, word: str) -> str:
    return f"{count:,} {word}" + ("" if count == 1 else "s")


def view_body(
    value: Parsed,
    findings: Sequence[Finding],
    *,
    prefix: str = "",
    compact: bool = False,
) -> str:
    """The view of one parse: the conversation (findings inline) beside its raw source (parts on hover).

    Args:
        value: a ``Transcript`` or a ``Completion``.
        findings: what to show (``findings_of(value.diagnostics)``, or a validation's findings).
        prefix: a prefix for the element ids (several views in one page).
        compact: for a notebook: long bodies cut, the raw source folded.

    Returns:
        The HTML (no page around it; see ``hermes_toolcall.html.view_page``).

    >>> from hermes_toolcall import parse_completion
    >>> html = view_body(parse_completion('<tool_call>{"name": "f", "arguments": {}}</tool_call>'), [])
    >>> html.count('class="part call"'), html.count('class="pt k-call"')
    (1, 1)
    """
    layout = _layout(value, findings, prefix)
    limit = 2_000 if compact else None
    turns = []
    for t in layout.turns:
        cards = "".join(_card(p, layout, findings, prefix, limit) for p in t.parts)
        items = _items(t.findings, findings, prefix)
        if t.role == "outside" and not cards and not items:
            continue
        role = "outside any turn" if t.role == "outside" else t.role
        answers = ""
        if t.answers is not None and t.answers in layout.calls:
            answers = f' <span class="muted">result of {_call_ref(layout.calls[t.answers])}</span>'
        unclosed = ' <span class="muted">(not closed)</span>' if t.header is not None and t.closing is None else ""
        turns.append(
            f'<section class="turn role-{attr(t.role if t.role in _ROLES else "other")}">'
            f'<div class="role">{text(role)}{answers}{unclosed}</div>{cards}{items}</section>'
        )
    outside = _items(layout.outside, findings, prefix)
    source = value.source
    raw = marked(source, 0, len(source), regions=_regions(layout), marks=_marks(findings, prefix),
                 budget=50_000 if compact else None)
    raw_block = f'<div class="src">{raw}</div>'
    if compact:
        raw_block = f"<details><summary>raw text ({len(source):,} characters)</summary>{raw_block}</details>"
    return (
        f'<div class="panes"><div class="conv">{outside}{"".join(turns)}</div>'
        f'<div class="raw"><h2>raw text</h2>{raw_block}</div></div>'
    ) if not compact else (
        f'<div class="conv">{outside}{"".join(turns)}</div>{raw_block}'
    )


_ROLES = frozenset({SYSTEM, USER, ASSISTANT, TOOL, "outside"})


def record_body(
    value: Parsed, findings: Sequence[Finding], *, prefix: str, budget: int = 4_000, context_turns: int = 2
) -> str:
    """A validated record: its raw text turn by turn, findings highlighted; long texts and turns far from a
    finding left out (counted).

    Args:
        value: the parsed record (a ``Transcript``).
        findings: its findings, pointing into ``value.source``.
        prefix: the ids' prefix (the record's).
        budget: a turn's text longer than this keeps windows around its findings.
        context_turns: in a conversation of more than 12 turns, turns farther than this from a turn
            with a finding are left out.

    >>> from hermes_toolcall import parse_transcript
    >>> t = parse_transcript("<|im_start|>user\\nhi<|im_end|>\\n")
    >>> '<mark class="hl error" data-f="r1f0"' in record_body(t, [Finding(code="HT000", severity="error",
    ...     message="m", start=17, end=19)], prefix="r1")
    True
    """
    layout = _layout(value, findings, prefix)
    marks = _marks(findings, prefix)
    regions = _regions(layout)

    def marked_turn(t: _Turn) -> bool:
        return any(m.start <= t.end and m.end >= t.start for m in marks)

    turns = [t for t in layout.turns if t.role != "outside" or t.parts[0].shown.body.strip(_WS) or marked_turn(t)]
    hot = {i for i, t in enumerate(turns) if marked_turn(t)}
    keep = set(range(len(turns)))
    if len(turns) > 12:
        keep = {j for i in hot for j in range(i - context_turns, i + context_turns + 1)} or set(range(3))
    out: list[str] = []
    skipped = 0
    for i, t in enumerate(turns):
        if i not in keep:
            skipped += 1
            continue
        if skipped:
            out.append(f'<div class="gap">[… {skipped} turn(s) without findings not shown …]</div>')
            skipped = 0
        role = "outside any turn" if t.role == "outside" else t.role
        body = marked(value.source, t.start, t.end, regions=regions, marks=marks, budget=budget)
        out.append(
            f'<section class="turn role-{attr(t.role if t.role in _ROLES else "other")}">'
            f'<div class="role">{text(role)}</div><div class="src">{body}</div></section>'
        )
    if skipped:
        out.append(f'<div class="gap">[… {skipped} turn(s) without findings not shown …]</div>')
    return "".join(out)

