"""The terminal counterparts of the HTML views: a short ``repr`` line and a ``rich`` tree.

Everything from the input goes through ``sanitize`` first (a transcript's escape sequences must not
reach the terminal), and through ``rich.text.Text`` (never parsed as rich markup).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .._excerpt import sanitize
from ..tags import USER
from ._doc import CompletionLike, DiagnosticLike, PartLike, TranscriptLike, split

__all__ = ["findings_table", "short_repr", "tree"]

_MAX_ITEMS = 12
_STYLE = {"error": "bold red", "warning": "yellow", "info": "cyan"}


def _clip(value: str, limit: int = 60) -> str:
    value = sanitize(value)
    return value if len(value) <= limit else value[: limit - 1] + "…"


def _parts_line(parts: Sequence[PartLike]) -> str:
    kinds: dict[str, int] = {}
    for p in parts:
        k = p._shown().kind
        if k == "text" and not p._shown().body.strip():
            continue
        kinds[k] = kinds.get(k, 0) + 1
    words = {"call": "call", "result": "result", "invalid": "invalid call", "reasoning": "reasoning",
             "tools": "tools", "text": "text"}
    return ", ".join(f"{n} {words[k]}" + ("s" if n > 1 and k in ("call", "result") else "") for k, n in kinds.items())


def _diagnostics_line(diagnostics: Sequence[DiagnosticLike]) -> str:
    if not diagnostics:
        return "no diagnostics"
    codes = [f"{d.code} {d.severity}" for d in diagnostics[:3]]
    more = f", … {len(diagnostics) - 3} more" if len(diagnostics) > 3 else ""
    word = "diagnostic" if len(diagnostics) == 1 else "diagnostics"
    return f"{len(diagnostics)} {word}: " + ", ".join(codes) + more


def short_repr(value: TranscriptLike | CompletionLike) -> str:
    """One line: the kind, the size, what the parts or turns are, the diagnostics by code.

    >>> from hermes_toolcall import parse_completion
    >>> short_repr(parse_completion('Hi <tool_call>{"name": "f", "arguments": {}}</tool_call>'))
    '<Completion 56 chars: text, call f · no diagnostics>'
    """
    transcript, completion = split(value)
    if transcript is not None:
        turns = []
        for t in transcript.turns[:_MAX_ITEMS]:
            inner = _parts_line(t.parts)
            turns.append(sanitize(t.role) + (f" ({inner})" if inner and t.role != USER else ""))
        n = len(transcript.turns)
        if n > _MAX_ITEMS:
            turns.append(f"… {n - _MAX_ITEMS} more")
        what = f"{n} turn{'s' if n != 1 else ''}: " + ", ".join(turns)
        return f"<Transcript {len(value.source):,} chars, {what} · {_diagnostics_line(value.diagnostics)}>"
    items = []
    for p in completion.parts[:_MAX_ITEMS]:
        s = p._shown()
        if s.kind == "text" and not s.body.strip():
            continue
        code = (s.detail or "").split(":", 1)[0]
        items.append({"call": f"call {_clip(s.title, 40)}", "invalid": f"invalid call ({code})",
                      "reasoning": s.title, "result": "result", "tools": "tools", "text": "text"}[s.kind])
    if len(completion.parts) > _MAX_ITEMS:
        items.append(f"… {len(completion.parts) - _MAX_ITEMS} more")
    body = ", ".join(items) or "empty"
    return f"<Completion {len(value.source):,} chars: {body} · {_diagnostics_line(value.diagnostics)}>"


def tree(value: TranscriptLike | CompletionLike) -> Any:
    """A ``rich`` tree of a parse: turns by role, each part on a line (calls with their arguments), then the
    diagnostics with their place (what ``rich.print(value)`` shows).

    >>> from hermes_toolcall import parse_transcript
    >>> [str(node.label) for node in tree(parse_transcript("<|im_start|>user\\nhi<|im_end|>\\n")).children]
    ['user']
    """
    from rich.text import Text
    from rich.tree import Tree

    def part_line(p: PartLike) -> Text | None:
        s = p._shown()
        if s.kind == "text":
            if not s.body.strip():
                return None
            return Text(_clip(s.body.strip(), 100))
        if s.kind == "call":
            line = Text("call ", style="dim")
            line.append(_clip(s.title, 60), style="bold green")
            line.append(" " + _clip(" ".join(s.body.split()), 80))
            if s.call_id:
                line.append(f"  ({_clip(s.call_id, 40)})", style="dim")
            return line
        if s.kind == "invalid":
            return Text(f"invalid call {_clip(s.title, 40)}: {_clip(s.detail or '', 80)}", style="red")
        if s.kind == "result":
            return Text("result ", style="dim") + Text(_clip(" ".join(s.body.split()), 100))
        if s.kind == "reasoning":
            return Text(f"{s.title} ({len(s.body):,} chars)", style="dim italic")
        return Text(f"tools: {_clip(s.title, 100)}", style="magenta")

    root = Tree(Text(short_repr(value)))
    transcript, completion = split(value)
    if transcript is not None:
        for t in transcript.turns:
            branch = root.add(Text(sanitize(t.role), style="bold"))
            for p in t.parts:
                line = part_line(p)
                if line is not None:
                    branch.add(line)
    else:
        for p in completion.parts:
            line = part_line(p)
            if line is not None:
                root.add(line)
    if value.diagnostics:
        diags = root.add(Text("diagnostics", style="bold"))
        for d in value.diagnostics:
            line = Text(f"{d.span.line}:{d.span.column} ")
            line.append(f"{d.code} {d.severity}", style=_STYLE.get(d.severity, ""))
            line.append(": " + _clip(d.message, 120))
            diags.add(line)
    return root


def findings_table(
    diagnostics: Sequence[DiagnosticLike], *, title: str, places: Sequence[str | None] | None = None
) -> Any:
    """A ``rich`` table of findings: place (``places[i]``, else the line:column), code, severity, message.

    >>> from hermes_toolcall import parse_completion
    >>> findings_table(parse_completion("<tool_call>{").diagnostics, title="t").row_count
    1
    """
    from rich.table import Table
    from rich.text import Text

    table = Table(title=Text(sanitize(title)), title_justify="left")
    for name in ("where", "code", "severity", "message"):
        table.add_column(name)
    for k, d in enumerate(diagnostics):
        place = places[k] if places is not None and k < len(places) else None
        table.add_row(
            Text(sanitize(place) if place is not None else f"{d.span.line}:{d.span.column}"),
            Text(d.code),
            Text(d.severity, style=_STYLE.get(d.severity, "")),
            Text(_clip(d.message, 160)),
        )
    return table
