"""A JSON dataset record (OpenAI ``messages`` or ShareGPT ``conversations``) as HTML, its findings highlighted.

Each message is a turn; each string the validator reads (content, reasoning, a ShareGPT value, a call's
name and arguments, ``tool_call_id``) is a field whose text is the decoded string, so a finding that
points into a string (a JSON path and a span of the string) is highlighted on exactly that slice. A
finding that points at a whole value (an arguments object, a message, the tools) outlines the nearest
element shown for it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .. import _jsonio as jsonio
from .._sharegpt import CALL, SENDERS
from ..tags import ASSISTANT, SYSTEM, TOOL, USER
from ._doc import Finding
from ._escape import attr, text
from ._marked import Mark, marked

__all__ = ["json_path", "json_record_body", "raw_body"]

Path = tuple[str | int, ...]
_ROLES = frozenset({SYSTEM, USER, ASSISTANT, TOOL})
#: the OpenAI roles shown as another: ``function``, the legacy result of a ``function_call`` (as the validator
#: reads it)
_OPENAI_ROLES = {"function": TOOL}


def json_path(path: Path) -> str:
    """A JSON path as written in messages: ``messages[3].tool_calls[0].function.arguments``.

    >>> json_path(("messages", 3, "content"))
    'messages[3].content'
    """
    out = ""
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out


@dataclass(slots=True)
class _Field:
    label: str
    path: Path | None  # None: shown only (no finding points at it)
    value: Any  # a string (marked), or any JSON value (pretty-printed)
    marks: list[Mark] = field(default_factory=list)
    flags: list[int] = field(default_factory=list)


@dataclass(slots=True)
class _Message:
    role: str  # as written: an OpenAI role, or a ShareGPT sender
    shown: str  # the role it is shown as (``_shown_role``)
    path: Path
    fields: list[_Field]
    flags: list[int] = field(default_factory=list)


def _fields(m: Any, path: Path) -> list[_Field]:
    if not isinstance(m, dict):
        return [_Field(label="message", path=path, value=m)]
    out: list[_Field] = []
    seen = {"role", "from"}
    for key in ("content", "value", "reasoning_content", "reasoning", "thinking"):
        if key not in m:
            continue
        seen.add(key)
        v = m[key]
        if isinstance(v, list):
            for k, item in enumerate(v):
                if isinstance(item, dict) and isinstance(item.get("text"), str):
                    out.append(_Field(label=f"{key}[{k}]", path=(*path, key, k, "text"), value=item["text"]))
                else:
                    out.append(_Field(label=f"{key}[{k}]", path=(*path, key, k), value=item))
        elif v is not None:
            out.append(_Field(label=key, path=(*path, key), value=v))
    calls = m.get("tool_calls")
    if isinstance(calls, list):
        seen.add("tool_calls")
        for j, call in enumerate(calls):
            cpath: Path = (*path, "tool_calls", j)
            fn = call.get("function") if isinstance(call, dict) else None
            if not isinstance(fn, dict):
                out.append(_Field(label=f"tool_calls[{j}]", path=cpath, value=call))
                continue
            ident = call.get("id")
            label = f"call {ident}" if isinstance(ident, str) else f"tool_calls[{j}]"
            out.append(_Field(label=f"{label} · name", path=(*cpath, "function", "name"), value=fn.get("name")))
            out.append(_Field(label=f"{label} · arguments", path=(*cpath, "function", "arguments"),
                              value=fn.get("arguments")))
    legacy = m.get("function_call")
    if isinstance(legacy, dict):
        seen.add("function_call")
        out.append(_Field(label="function_call · name", path=(*path, "function_call", "name"),
                          value=legacy.get("name")))
        out.append(_Field(label="function_call · arguments", path=(*path, "function_call", "arguments"),
                          value=legacy.get("arguments")))
    for key in ("tool_call_id", "name"):
        if key in m:
            seen.add(key)
            out.append(_Field(label=key, path=(*path, key), value=m[key]))
    rest = {k: v for k, v in m.items() if k not in seen}
    if rest:
        out.append(_Field(label="other fields", path=None, value=rest))
    return out


def _role(m: Any) -> tuple[str, str]:
    """The message's role as written (``?``: none) and the role it is shown as (``_shown_role``)."""
    if isinstance(m, dict):
        role = m.get("role")
        if isinstance(role, str):
            return role, _shown_role(role, sharegpt=False)
        sender = m.get("from")
        if isinstance(sender, str):
            return sender, _shown_role(sender, sharegpt=True)
    return "?", "other"


def _shown_role(role: str, *, sharegpt: bool) -> str:
    """The role a message is shown as: a ShareGPT sender as the validator reads it (``_sharegpt.SENDERS``; a
    ``function_call`` turn is the assistant's), an OpenAI role as itself (``function``: the legacy result of a
    ``function_call``, a tool's); anything else ``other``.

    >>> _shown_role("function_response", sharegpt=True), _shown_role("function_call", sharegpt=True)
    ('tool', 'assistant')
    >>> _shown_role("function", sharegpt=False), _shown_role("function", sharegpt=True)
    ('tool', 'other')
    """
    if sharegpt:
        read = SENDERS.get(role)
        return ASSISTANT if read == CALL else read or "other"
    role = _OPENAI_ROLES.get(role, role)
    return role if role in _ROLES else "other"


def _value_html(f: _Field, budget: int) -> str:
    if isinstance(f.value, str):
        return f'<div class="body">{marked(f.value, 0, len(f.value), marks=f.marks, budget=budget)}</div>'
    shown = jsonio.dumps_pretty(f.value)
    if len(shown) > budget:
        shown_html = text(shown[:budget]) + f'<span class="gap">[… {len(shown) - budget:,} more characters …]</span>'
    else:
        shown_html = text(shown)
    return f'<div class="json">{shown_html}</div>'


def _flag(ks: Sequence[int], prefix: str) -> str:
    if not ks:
        return ""
    return f' data-f="{attr(" ".join(f"{prefix}f{k}" for k in ks))}"'


def json_record_body(
    data: Any, findings: Sequence[Finding], *, prefix: str, budget: int = 4_000, context_turns: int = 2
) -> str:
    """A JSON record turn by turn, its findings highlighted (see the module).

    Args:
        data: the decoded record.
        findings: its findings; ``path`` says where each points (``whole``: at the whole value).
        prefix: the ids' prefix (the record's).
        budget: a string longer than this keeps windows around its findings.
        context_turns: in a conversation of more than 12 messages, messages farther than this from one
            with a finding are left out (and counted).

    >>> html = json_record_body({"messages": [{"role": "user", "content": "<hi>"}]},
    ...     [Finding(code="HT000", severity="error", message="m", path=("messages", 0, "content"), start=1, end=3)],
    ...     prefix="r1")
    >>> '&lt;<mark class="hl error" data-f="r1f0"' in html
    True
    """
    key = next((k for k in ("messages", "conversations") if isinstance(data, dict) and isinstance(data.get(k), list)),
               None)
    messages: list[_Message] = []
    if key is not None:
        for i, m in enumerate(data[key]):
            role, shown = _role(m)
            messages.append(_Message(role=role, shown=shown, path=(key, i), fields=_fields(m, (key, i))))
    tools = data.get("tools") if isinstance(data, dict) else None
    tools_flags: list[int] = []
    root_flags: list[int] = []
    strings = {f.path: f for msg in messages for f in msg.fields if f.path is not None}
    by_message = {msg.path: msg for msg in messages}
    for k, fd in enumerate(findings):
        path = fd.path
        if not fd.placed or path is None:
            root_flags.append(k)
            continue
        target = strings.get(path)
        if target is not None and isinstance(target.value, str) and not fd.whole:
            label = f"{fd.code} {fd.severity} {fd.where}: {fd.message}"
            target.marks.append(Mark(start=fd.start, end=fd.end, ident=f"{prefix}f{k}", severity=fd.severity,
                                     label=label))
            continue
        for n in range(len(path), -1, -1):
            head = path[:n]
            if head in strings:
                strings[head].flags.append(k)
                break
            if head in by_message:
                by_message[head].flags.append(k)
                break
            if head == ("tools",):
                tools_flags.append(k)
                break
        else:
            root_flags.append(k)
    out: list[str] = []
    if root_flags:
        whole = '<span class="muted">the whole record</span>'
        out.append(f'<div class="part flag"{_flag(root_flags, prefix)}>{whole}</div>')
    if key is None:
        out.append(f'<div class="json">{text(jsonio.dumps_pretty(data)[:budget])}</div>')
    if tools is not None:
        names = []
        if isinstance(tools, list):
            for t in tools:
                fn = t.get("function", t) if isinstance(t, dict) else None
                name = fn.get("name") if isinstance(fn, dict) else None
                names.append(name if isinstance(name, str) else "?")
        summary = ", ".join(names) if names else ("(a JSON string)" if isinstance(tools, str) else "")
        shown = jsonio.dumps_pretty(tools) if not isinstance(tools, str) else tools
        flag = " flag" if tools_flags else ""
        out.append(
            f'<details class="part tools{flag}"{_flag(tools_flags, prefix)}><summary><span class="kind">tools</span>'
            f"{text(summary)}</summary><div class=\"json\">{text(shown[:budget])}</div></details>"
        )
    hot = {i for i, msg in enumerate(messages) if msg.flags or any(f.marks or f.flags for f in msg.fields)}
    keep = set(range(len(messages)))
    if len(messages) > 12:
        keep = {j for i in hot for j in range(i - context_turns, i + context_turns + 1)} or set(range(3))
    skipped = 0
    for i, msg in enumerate(messages):
        if i not in keep:
            skipped += 1
            continue
        if skipped:
            out.append(f'<div class="gap">[… {skipped} message(s) without findings not shown …]</div>')
            skipped = 0
        parts = []
        for f in msg.fields:
            flag = " flag" if f.flags else ""
            parts.append(
                f'<div class="part field{flag}"{_flag(f.flags, prefix)}><div class="label">{text(f.label)}</div>'
                f"{_value_html(f, budget)}</div>"
            )
        flag = " flag" if msg.flags else ""
        out.append(
            f'<section class="turn role-{msg.shown}{flag}"{_flag(msg.flags, prefix)}>'
            f'<div class="role">{text(msg.role)} <span class="muted">{text(json_path(msg.path))}</span></div>'
            f'{"".join(parts)}</section>'
        )
    if skipped:
        out.append(f'<div class="gap">[… {skipped} message(s) without findings not shown …]</div>')
    return "".join(out)


def raw_body(raw: str, findings: Sequence[Finding], *, prefix: str, budget: int = 4_000) -> str:
    """A record shown as its raw text (one that could not be read: not JSON, not UTF-8), findings at their
    offsets into it.

    >>> raw_body('{"a": ', [Finding(code="HT601", severity="error", message="m", start=6, end=6)], prefix="r")[-60:]
    'data-f="rf0" title="HT601 error : m"></mark></div></section>'
    """
    marks = [
        Mark(start=f.start, end=f.end, ident=f"{prefix}f{k}", severity=f.severity,
             label=f"{f.code} {f.severity} {f.where}: {f.message}")
        for k, f in enumerate(findings)
        if f.placed
    ]
    body = marked(raw, 0, len(raw), marks=marks, budget=budget)
    return f'<section class="turn role-other"><div class="role">raw record</div><div class="src">{body}</div></section>'
