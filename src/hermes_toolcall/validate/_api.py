"""``validate(...)``: check a parsed completion, a parsed transcript, or OpenAI messages."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .. import _jsonio as jsonio
from .._locate import JsonPath
from .._model import Completion, Diagnostic, Message, Transcript
from .._profiles import DialectProfile, get_profile
from .._schema import ToolSet, load_tools
from .._sharegpt import SENDERS, senders
from ..errors import HermesError, UsageError, ValidationError
from . import _checks as checks
from ._build import Conversation, Finding, finding, from_completion, from_openai, from_sharegpt, from_transcript
from ._view import Where, value_where

__all__ = ["Selector", "ValidationReport", "validate", "validate_conversation", "validate_record"]


class Selector:
    """Which codes to report, ruff-style: ``select``/``ignore`` hold codes or prefixes (``HT3``, ``HT30``).

    A code is reported when it matches a select prefix (all codes when ``select`` is None) and no
    ignore prefix that is at least as long as the longest matching select prefix.

    >>> Selector(select=["HT3"], ignore=["HT304"]).allows("HT301"), Selector(ignore=["HT3"]).allows("HT304")
    (True, False)
    """

    __slots__ = ("_seen", "ignore", "select")

    def __init__(self, select: Iterable[str] | None = None, ignore: Iterable[str] | None = None) -> None:
        self.select = None if select is None else tuple(_code(s) for s in select)
        self.ignore = tuple(_code(s) for s in ignore or ())
        self._seen: dict[str, bool] = {}  # code -> verdict (asked once per record for HT504, per finding)

    def allows(self, code: str) -> bool:
        """Whether ``code`` is reported."""
        seen = self._seen.get(code)
        if seen is None:
            seen = self._seen[code] = self._allows(code)
        return seen

    def explicit(self, code: str) -> bool:
        """Whether a ``select`` prefix names ``code`` (the only way a dialect's quiet codes are reported)."""
        return self.select is not None and any(code.startswith(p) for p in self.select) and self.allows(code)

    def reports(self, code: str, dialect: str) -> bool:
        """Whether ``code`` is reported for a record of ``dialect``: ``allows``, and a code the dialect keeps
        quiet (``QUIET``: what its own template or reference prompt asks for) only when selected explicitly.

        >>> s = Selector()
        >>> s.reports("HT109", "hermes"), s.reports("HT109", "qwen3"), Selector(["HT1"]).reports("HT109", "hermes")
        (False, True, True)
        """
        if code in QUIET.get(dialect, ()):
            return self.explicit(code)
        return self.allows(code)

    def _allows(self, code: str) -> bool:
        if self.select is None:
            sel = 0
        else:
            matches = [len(p) for p in self.select if code.startswith(p)]
            if not matches:
                return False
            sel = max(matches)
        return not any(code.startswith(p) and len(p) >= sel for p in self.ignore)


QUIET: Mapping[str, frozenset[str]] = {
    # the Hermes 2 Pro reference prompt (NousResearch/Hermes-Function-Calling) prescribes
    # {"arguments": <args-dict>, "name": <function-name>}: arguments first is that dialect's own style
    "hermes": frozenset({"HT109"}),
    "hermes-vllm": frozenset({"HT109"}),
}
"""Style codes a dialect does not report by default, because its own template or reference prompt asks for
what they flag (``--select`` naming the code, or a prefix of it, reports them again). Qwen3's own empty
``<think>`` (HT514) is the instance-level case: ``OWN_EMPTY_THINK``."""

OWN_EMPTY_THINK = frozenset({"qwen3"})
"""Dialects whose template writes ``<think>\n\n</think>`` at the start of an assistant turn that has no
reasoning: that block is not reported as HT514 (``--select HT514`` reports it)."""


def detected_dialect(target: Any) -> str:
    """The dialect ``dialect="auto"`` gives ``target``: ``detect_dialect`` on its text (a str, a parsed result's
    source, or the strings of a record's or a message list's contents, joined by newlines).

    >>> detected_dialect({"messages": [{"role": "assistant", "content": "<think>\\nx\\n</think>\\n\\nHi"}]})
    'qwen3'
    """
    from .._detect import detect_dialect

    if isinstance(target, Completion | Transcript):
        text = target.source
    elif isinstance(target, str):
        text = target
    else:
        text = "\n".join(_strings(target, 0))
    return detect_dialect(text).dialect


def _strings(value: Any, depth: int) -> Iterator[str]:
    """The strings of a record's messages (contents, ShareGPT values, reasoning), for detection."""
    if depth > 4:
        return
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for key in ("messages", "conversations", "content", "value", "reasoning_content", "text"):
            if key in value:
                yield from _strings(value[key], depth + 1)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item.content if isinstance(item, Message) else item, depth + 1)


def _code(text: str) -> str:
    from .._diagnostics import CATALOGUE

    code = text.strip().upper()
    if not code.startswith("HT") or (code != "HT" and not code[2:].isdigit()):
        raise UsageError(f"not a diagnostic code or prefix: {text!r} (examples: HT3, HT302)")
    if not any(known.startswith(code) for known in CATALOGUE):
        raise UsageError(f"no diagnostic code is {code} or starts with it (see docs/diagnostics.md)")
    return code


@dataclass(frozen=True, slots=True, kw_only=True)
class ValidationReport:
    """The findings of one validation, in input order.

    ``locations[i]`` says where ``diagnostics[i]`` points: for a parsed text its span is into the
    source; for messages it is into the string at a JSON path (``Where.path``), or the whole value.
    """

    diagnostics: tuple[Diagnostic, ...]
    locations: tuple[Where, ...]
    subject: Any = field(default=None, compare=False, repr=False)
    """What ``validate`` checked (a ``Completion``, a ``Transcript`` or the messages), for the views; None
    for a record checked by ``validate_record`` or the dataset runner."""

    def __repr__(self) -> str:
        """A short line: how many findings, by severity and code."""
        if not self.diagnostics:
            return "<ValidationReport: no findings>"
        counts: dict[str, dict[str, int]] = {}
        for d in self.diagnostics:
            by_code = counts.setdefault(d.severity, {})
            by_code[d.code] = by_code.get(d.code, 0) + 1
        groups = []
        for severity in ("error", "warning", "info"):
            if severity in counts:
                n = sum(counts[severity].values())
                codes = ", ".join(f"{c} ×{k}" if k > 1 else c for c, k in sorted(counts[severity].items()))
                groups.append(f"{n} {severity}{'s' if n > 1 and severity != 'info' else ''} ({codes})")
        return f"<ValidationReport {len(self.diagnostics)} finding{'s' if len(self) > 1 else ''}: {', '.join(groups)}>"

    def _repr_html_(self) -> str:
        """The compact HTML view a notebook shows: what was checked, each finding highlighted where it points."""
        from .._diagnostics import CATALOGUE
        from ..html import validation_html

        names = {code: entry.name for code, entry in CATALOGUE.items()}
        return validation_html(self.diagnostics, self.locations, self.subject, names)

    def __rich__(self) -> Any:
        """A ``rich`` table of the findings for a terminal (``rich.print(report)``)."""
        from ..html import findings_table, json_path

        places = [None if w.path is None else json_path(("messages", *w.path)) for w in self.locations]
        return findings_table(self.diagnostics, title=repr(self), places=places)

    @property
    def errors(self) -> tuple[Diagnostic, ...]:
        """The diagnostics of severity ``error``."""
        return tuple(d for d in self.diagnostics if d.severity == "error")

    @property
    def ok(self) -> bool:
        """True when no error was found."""
        return not self.errors

    @property
    def codes(self) -> tuple[str, ...]:
        """The codes found, in order (with repeats)."""
        return tuple(d.code for d in self.diagnostics)

    def __len__(self) -> int:
        return len(self.diagnostics)


def _path_key(where: Where) -> tuple[Any, ...]:
    path = tuple((0, p, "") if isinstance(p, int) else (1, 0, p) for p in where.path or ())
    return (path, where.span.start)


def validate_conversation(
    conv: Conversation,
    *,
    tools: Sequence[Any] | None = None,
    dialect: str = "hermes",
    selector: Selector | None = None,
    check_formats: bool = False,
    round_trip: bool = True,
) -> ValidationReport:
    """Run every selected check on a conversation view (the common core of ``validate``).

    Args:
        conv: the view built by ``_build.from_completion``/``from_transcript``/``from_openai``/``from_sharegpt``.
        tools: OpenAI tool objects; default: the tools the view declares.
        dialect: the dialect whose role rules and round trip apply.
        selector: the codes to report (default: all).
        check_formats: check JSON-Schema ``format`` keywords.
        round_trip: run the render → parse round trip (HT504).

    Returns:
        The findings, in input order.

    >>> from hermes_toolcall.validate._build import from_openai
    >>> validate_conversation(from_openai([{"role": "robot", "content": "hi"}], dialect="hermes")).codes
    ('HT407',)
    """
    declared = tools if tools is not None else conv.tools
    profile = get_profile(dialect)
    return _report(conv, declared, conv.tools_path, conv.findings, None, profile, selector or Selector(),
                   check_formats, round_trip)


def _report(
    conv: Conversation,
    declared: Sequence[Any] | None,
    tools_path: JsonPath | None,
    findings: tuple[Finding, ...],
    toolset: ToolSet | None,
    profile: DialectProfile,
    selector: Selector,
    check_formats: bool,
    round_trip: bool,
) -> ValidationReport:
    """The checks of ``validate_conversation``, with the view's tools, their path and its findings given
    apart (a record's own, without building a second view) and ``toolset`` when already known."""
    if toolset is None:
        toolset = load_tools(declared)
    found: list[Finding] = list(findings)
    if declared is not None and toolset.problems:
        found.extend(checks.check_tool_problems(tools_path, toolset))
    found.extend(checks.check_calls(conv, toolset, check_names=declared is not None, formats=check_formats))
    if not conv.completion:
        found.extend(checks.check_conversation(conv, profile))
    found.extend(checks.check_security(conv))
    own_think = profile.name in OWN_EMPTY_THINK and not selector.explicit("HT514")
    found.extend(checks.check_reasoning(conv, own_empty_think=own_think))
    if round_trip and selector.allows("HT504"):
        found.extend(checks.check_round_trip(conv, profile))
    if not found:
        return _NOTHING  # most records: no sorting, no new report
    name = profile.name
    kept = sorted((f for f in found if selector.reports(f[0].code, name)), key=lambda f: _path_key(f[1]))
    return ValidationReport(diagnostics=tuple(d for d, _ in kept), locations=tuple(w for _, w in kept))


_NOTHING = ValidationReport(diagnostics=(), locations=())


def _plain(value: Any) -> Any:
    """A record as plain JSON data: any Mapping (a ``datasets`` LazyRow …) a dict, any tuple a list."""
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


_PLAIN_TYPES = frozenset({str, int, float, bool, type(None), dict, list})


def _foreign(value: Any) -> bool:
    if type(value) in _PLAIN_TYPES:  # the JSON types: the common case, without an ABC check
        return False
    return (isinstance(value, Mapping) and not isinstance(value, dict)) or isinstance(value, tuple)


def _needs_plain(record: Any) -> bool:
    """Whether a record holds Mappings that are not dicts (or tuples) where a JSON record has objects (lists).

    Checked at the record and on its message and tool items (a ``datasets`` row is a LazyRow holding plain
    lists and dicts); JSON records are not copied, so the check costs next to nothing on a JSONL file.
    """
    if not isinstance(record, dict):
        return _foreign(record)
    for key in ("messages", "conversations", "tools", "functions"):
        items = record.get(key)
        if _foreign(items) or (isinstance(items, list) and any(_foreign(i) for i in items)):
            return True
    return False


def _messages_key(record: Any) -> str | None:
    if isinstance(record, dict):
        for key in ("messages", "conversations"):
            if isinstance(record.get(key), list):
                return key
    return None


def _shape(items: list[Any]) -> str:
    """``openai`` (role/content items) or ``sharegpt`` (from/value items), by the first object item."""
    for item in items:
        if isinstance(item, dict):
            return "sharegpt" if "from" in item and "role" not in item else "openai"
    return "openai"


def _failed(exc: Exception) -> ValidationReport:
    """The report of a check that failed inside the validator: one HT604 finding (never a traceback)."""
    from .._diagnostics import make
    from ._view import value_where

    where = value_where(())
    what = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    d = make(
        "HT604",
        f"the validator failed on this input ({what[:200]}); it was not fully checked",
        where.span,
        strict=False,
        hint="please report this input to the hermes-toolcall issue tracker",
    )
    return ValidationReport(diagnostics=(d,), locations=(where,))


def validate_record(
    record: Any,
    *,
    tools: Sequence[Any] | None = None,
    dialect: str = "hermes",
    selector: Selector | None = None,
    check_formats: bool = False,
    round_trip: bool = True,
    sharegpt_roles: Mapping[str, str] | None = None,
) -> ValidationReport:
    """Validate one dataset record: ``{"messages", "tools"}`` (OpenAI; the legacy ``functions``,
    ``function_call`` and ``function`` messages are read as tools, calls and results) or
    ``{"conversations", "tools"}`` (ShareGPT, ``tools`` a JSON string or a list; LLaMA-Factory's
    ``function_call``/``observation`` senders are built in, ``sharegpt_roles`` maps others: ``{"bot":
    "assistant"}``). The items decide the shape (``role``/``content`` or ``from``/``value``) whichever key
    holds them; any ``Mapping`` is a record (a Hugging Face ``datasets`` row too). Shape problems are
    findings (HT602, HT603), not errors; a failure of the validator itself is an HT604 finding.

    >>> r = validate_record({"messages": [{"role": "user", "content": "hi"},
    ...     {"role": "assistant", "tool_calls": [{"id": "c1", "type": "function",
    ...      "function": {"name": "nope", "arguments": "{}"}}]}], "tools": []})
    >>> r.codes
    ('HT301',)
    """
    roles = tuple((sharegpt_roles or {}).items())
    if dialect == "auto":
        dialect = detected_dialect(record)
    return record_report(
        record, tools, dialect, selector or Selector(), check_formats, round_trip, decoded=False, sharegpt_roles=roles
    )


def record_report(
    record: Any,
    tools: Sequence[Any] | None,
    dialect: str,
    selector: Selector,
    check_formats: bool,
    round_trip: bool,
    *,
    decoded: bool,
    sharegpt_roles: tuple[tuple[str, str], ...] = (),
) -> ValidationReport:
    """``validate_record`` with its options in place (the runner's per-record call).

    ``decoded``: the record was just decoded from JSON text, so it holds only dicts and lists (no
    ``Mapping`` or tuple to copy into plain data first). ``sharegpt_roles``: more ShareGPT senders
    (``_sharegpt.parse_roles``).
    """
    try:
        return _validate_record(record, tools, dialect, selector, check_formats, round_trip, decoded, sharegpt_roles)
    except HermesError:
        raise
    except Exception as exc:  # RecursionError on absurd nesting, ValueError on huge numbers, …
        return _failed(exc)  # never hidden by select/ignore


_NOT_JSON = "not JSON"


@functools.lru_cache(maxsize=256)
def _tools_text(text: str) -> Any:
    """The tools a record writes as JSON text (ShareGPT), decoded once per distinct text.

    The value is shared by every record with that text: the checks only read it.
    """
    stripped = text.strip()
    value = jsonio.loads_or_none(text) if stripped else []
    if value is None and stripped != "null":
        return _NOT_JSON
    return value


@functools.lru_cache(maxsize=256)
def _text_toolset(text: str) -> ToolSet:
    """The ``ToolSet`` of the tools written as ``text`` (what ``load_tools`` gives for ``_tools_text(text)``)."""
    return load_tools(_tools_text(text))


def _record_tools(record: Any) -> list[Any] | None:
    """A record's ``tools`` as a list (or its JSON text read), else None."""
    value = record.get("tools") if isinstance(record, dict) else None
    if isinstance(value, str):
        value = _tools_text(value)
    return value if isinstance(value, list) else None


def _bad_tools(key: str, value: Any) -> Finding:
    """HT603 for a record's ``tools`` (or legacy ``functions``) that is not a list (nor its JSON text)."""
    what = "is not JSON" if value == _NOT_JSON else "is not a list"
    message = f"`{key}` {what}: it must be a list of tool objects (or its JSON text)"
    return finding("HT603", message, value_where((key,)))


def _validate_record(
    record: Any,
    tools: Sequence[Any] | None,
    dialect: str,
    selector: Selector,
    check_formats: bool,
    round_trip: bool,
    decoded: bool,
    sharegpt_roles: tuple[tuple[str, str], ...] = (),
) -> ValidationReport:
    if not decoded and _needs_plain(record):
        record = _plain(record)
    conv: Conversation
    findings: tuple[Finding, ...] | None = None  # the record's own findings (HT602, HT603), when any
    record_tools: Any = None
    toolset: ToolSet | None = None
    key = _messages_key(record)
    typing = tools if tools is not None else _record_tools(record)  # XML bodies' values are typed by them
    if key is not None and _shape(record[key]) == "openai":
        conv = from_openai(record[key], dialect=dialect, path=(key,), typing=typing)
    elif key is not None:
        roles = senders(sharegpt_roles) if sharegpt_roles else SENDERS
        conv = from_sharegpt(record[key], dialect=dialect, path=(key,), roles=roles, typing=typing)
    else:
        what = "a JSON object" if isinstance(record, dict) else f"a JSON {type(record).__name__}"
        findings = (finding("HT602", f"{what} with neither `messages` nor `conversations` list", value_where(())),)
        conv = Conversation(messages=())
    tools_key = "tools"
    if isinstance(record, dict) and "tools" not in record and "functions" in record:
        tools_key = "functions"  # the legacy declarations: bare function objects, read as tools
    if isinstance(record, dict) and tools_key in record:
        record_tools = record[tools_key]
        if isinstance(record_tools, str):
            text = record_tools
            record_tools = _tools_text(text)
            if tools is None and isinstance(record_tools, list):
                toolset = _text_toolset(text)
        if record_tools is not None and not isinstance(record_tools, list):
            findings = (*(findings or ()), _bad_tools(tools_key, record_tools))
            record_tools = None
    functions: Any = record.get("functions") if tools_key == "tools" and isinstance(record, dict) else None
    if isinstance(functions, str):  # the legacy functions as JSON text, beside tools
        functions = _tools_text(functions)
    if functions is not None and not isinstance(functions, list):  # never dropped silently (HT603)
        findings = (*(findings or ()), _bad_tools("functions", functions))
        functions = None
    both = functions is not None
    if both:  # tools and the legacy functions: both declare (problems located at the record then)
        record_tools = [*(record_tools or ()), *functions]
        toolset = None
    if record_tools is None and findings is None:
        declared = tools if tools is not None else conv.tools
        return _report(conv, declared, conv.tools_path, conv.findings, None, get_profile(dialect), selector,
                       check_formats, round_trip)
    # the record's tools (a list, or its JSON text) replace those of the view, and its findings come after
    own_tools = record_tools if record_tools is not None else conv.tools
    listed = not both and isinstance(record, dict) and isinstance(record.get(tools_key), list)
    tools_path: JsonPath | None = (tools_key,) if listed else None
    return _report(
        conv,
        tools if tools is not None else own_tools,
        tools_path,
        conv.findings + findings if findings else conv.findings,
        toolset,
        get_profile(dialect),
        selector,
        check_formats,
        round_trip,
    )


def _as_dict(m: Message) -> dict[str, Any]:
    """A ``Message`` value as the OpenAI message dict it stands for."""
    out: dict[str, Any] = {"role": m.role, "content": m.content}
    if m.reasoning is not None:
        out["reasoning_content"] = m.reasoning
    if m.tool_calls:
        out["tool_calls"] = [
            {
                "type": "function",
                "function": {"name": c.name, "arguments": c.arguments},
                **({"id": c.id} if c.id else {}),
            }
            for c in m.tool_calls
        ]
    if m.tool_call_id is not None:
        out["tool_call_id"] = m.tool_call_id
    if m.name is not None:
        out["name"] = m.name
    return out


def validate(
    target: Completion | Transcript | Sequence[Any],  # messages: OpenAI dicts or Message values
    *,
    tools: Sequence[Any] | None = None,
    dialect: str = "hermes",
    select: Iterable[str] | None = None,
    ignore: Iterable[str] | None = None,
    strict: bool = False,
    check_formats: bool = False,
    round_trip: bool = True,
) -> ValidationReport:
    """Validate a parsed completion, a parsed transcript, or OpenAI chat messages.

    Args:
        target: a ``Completion``, a ``Transcript`` (its parse diagnostics are included), or a list of
            OpenAI message dicts or ``Message`` values (assistant ``content`` holding wire text is parsed).
        tools: OpenAI tool objects; default: the transcript's ``<tools>`` blocks (no name check when
            there are none; a block that declares no usable tool, ``HT307``/``HT305``, still checks them).
        dialect: the dialect whose role rules, round trip and quiet style codes apply; ``"auto"``: the one
            ``detect_dialect`` finds in the target's text.
        select: codes or prefixes to report (default all); ``ignore``: codes or prefixes to drop.
        strict: raise ``ValidationError`` when an error is found.
        check_formats: also check JSON-Schema ``format`` keywords (email, date-time, …).
        round_trip: run the render → parse round trip of results that hold a ``<`` (HT504).

    Returns:
        The findings, in input order.

    Raises:
        ValidationError: ``strict`` and an error was found.
        UsageError: an unknown dialect, a bad code prefix, or a target of another type.

    >>> msgs = [{"role": "user", "content": "hi"}, {"role": "tool", "content": "42", "tool_call_id": "x"}]
    >>> validate(msgs).codes
    ('HT402',)
    """
    selector = Selector(select, ignore)
    subject: Any = target
    if dialect == "auto":
        dialect = detected_dialect(target)
    if isinstance(target, Completion):
        conv = from_completion(target)
    elif isinstance(target, Transcript):
        conv = from_transcript(target)
    elif isinstance(target, Sequence) and not isinstance(target, (str, bytes)):
        items = [_as_dict(m) if isinstance(m, Message) else m for m in target]
        subject = tuple(items)
        conv = from_openai(items, dialect=get_profile(dialect).name, typing=tools)
    else:
        raise UsageError(f"cannot validate a {type(target).__name__}: pass a Completion, a Transcript or messages")
    try:
        report = validate_conversation(
            conv, tools=tools, dialect=dialect, selector=selector, check_formats=check_formats, round_trip=round_trip
        )
    except HermesError:
        raise
    except Exception as exc:  # a failure of the validator itself: a finding, never a traceback
        report = _failed(exc)  # never hidden by select/ignore
    if strict and report.errors:
        raise ValidationError(f"{len(report.errors)} validation error(s)", report.errors)
    return dataclasses.replace(report, subject=subject)
