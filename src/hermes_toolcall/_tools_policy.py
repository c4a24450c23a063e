"""Tools-aware parsing (``tools=``, ``undeclared=``, ``coerce_arguments=``): the policy on finished calls.

Both engines apply it to the calls of each finished block, the same function deciding: the grammar
engine as a post-step over the parts of each body (``apply_to_completion`` / ``apply_to_transcript``),
the stream when the block ends (``ToolPolicy.stream_block``), before any event of the block leaves the parser.
The rules (docs/parsing.md §11):

- A call whose name is not declared gets validate's ``HT301`` (span: its block; an error, so strict
  mode raises). ``undeclared="keep"``: it stays a call. ``"drop"``: it is removed. ``"text"``: a block
  whose calls are all undeclared becomes text again (its raw text joins the neighbouring text, or,
  inside reasoning with ``calls_in_reasoning``, becomes a reasoning segment); in a block that also
  holds declared calls, the undeclared ones are dropped (the raw text belongs to the declared ones).
- ``ToolCall.index`` counts the calls kept; ids do not change.
- ``coerce_arguments``: each kept call of a declared tool with a schema goes through ``coerce``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from . import _diagnostics as diagnostics
from ._coerce import coerce_call
from ._construct import new_reasoning, new_text
from ._diagnostics import message
from ._events import (
    ArgumentsDelta,
    DiagnosticEvent,
    Event,
    ToolCallEnd,
    new_arguments_delta,
    new_diagnostic_event,
    new_reasoning_delta,
    new_reasoning_end,
    new_reasoning_start,
    new_text_delta,
    new_tool_call_end,
)
from ._model import (
    Completion,
    Diagnostic,
    Part,
    Reasoning,
    ReasoningKind,
    Span,
    Text,
    ToolCall,
    Transcript,
)
from ._options import ParseOptions, Undeclared
from ._schema import ToolSet

__all__ = ["BlockVerdict", "ToolPolicy", "apply_to_completion", "apply_to_transcript", "judge_block"]


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolPolicy:
    """The declared tools and what to do with calls: read from ``ParseOptions``."""

    tools: ToolSet
    undeclared: Undeclared
    coerce: bool
    strict: bool

    @classmethod
    def of(cls, options: ParseOptions) -> ToolPolicy | None:
        """The policy of ``options``, or None when no ``tools=`` were given."""
        if options.tools is None:
            return None
        return cls(
            tools=options.tools, undeclared=options.undeclared, coerce=options.coerce_arguments, strict=options.strict
        )

    def stream_block(
        self,
        parts: list[Part],
        events: list[Event],
        diags: list[Diagnostic],
        *,
        first_index: int,
        streamed: str | None,
        reasoning: ReasoningKind | None,
    ) -> tuple[list[Part], list[Event], list[Diagnostic], str | None]:
        """The parts, events and diagnostics of a finished call block after the policy, before they leave the parser.

        Args:
            parts, events, diags: what ``_blocks.finish_call`` made of the block.
            first_index: the index of the block's first kept call (calls kept so far in the body).
            streamed: the argument text already streamed for the call announced early, if one was.
            reasoning: the reasoning kind when the block is inside reasoning, else None.

        Returns:
            ``(parts, events, diagnostics, text)``: ``text`` is the block's raw text when it becomes
            body text (the caller joins it to the text run; ``events`` then ends with its delta).
        """
        if len(parts) == 1:  # the usual block: one call of a declared tool, at its index, nothing to coerce
            call = parts[0]
            if isinstance(call, ToolCall) and call.index == first_index:
                spec = self.tools.tools.get(call.name)
                if spec is not None and not (self.coerce and spec.schema is not None):
                    return parts, events, diags, None  # what judge_block would keep, unchanged
        calls = [p for p in parts if isinstance(p, ToolCall)]
        if not calls:
            return parts, events, diags, None
        verdict = judge_block(self, calls, first_index)
        head = [e for e in events if isinstance(e, DiagnosticEvent)]
        head += [new_diagnostic_event(d) for d in verdict.diagnostics]
        out_diags = [*diags, *verdict.diagnostics]
        block = calls[0]
        if verdict.as_text:
            if reasoning is None:
                return [], [*head, new_text_delta(block.raw)], out_diags, block.raw
            part = new_reasoning(reasoning, block.raw, block._start, block._end, block._pos, False, False)
            tail: list[Event] = [
                new_reasoning_start(reasoning, False),
                new_reasoning_delta(reasoning, block.raw),
                new_reasoning_end(reasoning, False, part),
            ]
            return [part], head + tail, out_diags, None
        final = {c.id: c for c in verdict.calls}
        first = calls[0].id
        rest: list[Event] = []
        for e in events:
            if isinstance(e, DiagnosticEvent) or getattr(e, "id", None) in verdict.dropped:
                continue
            if isinstance(e, ArgumentsDelta):  # the deltas sent at the block's end: of the final arguments
                call = final[e.id]
                sent = streamed if streamed is not None and e.id == first else ""
                if call.arguments_json.startswith(sent) and len(call.arguments_json) > len(sent):
                    rest.append(new_arguments_delta(e.ordinal, e.id, call.arguments_json[len(sent) :]))
            elif isinstance(e, ToolCallEnd) and e.call is not None:
                rest.append(new_tool_call_end(e.ordinal, e.id, final[e.id], None))
            else:
                rest.append(e)
        kept: list[Part] = list(verdict.calls)
        return kept, head + rest, out_diags, None

    def announces(self, name: str) -> bool:
        """Whether a stream may announce a call of ``name`` before its block ends (it will be kept as a call)."""
        return self.undeclared == "keep" or name in self.tools.tools


@dataclass(frozen=True, slots=True, kw_only=True)
class BlockVerdict:
    """What becomes of the calls of one block: the calls kept (re-indexed, coerced), the diagnostics."""

    calls: tuple[ToolCall, ...]
    as_text: bool
    diagnostics: tuple[Diagnostic, ...]
    dropped: frozenset[str]


def judge_block(policy: ToolPolicy, calls: Sequence[ToolCall], first_index: int) -> BlockVerdict:
    """Apply the policy to the calls of one block; ``first_index`` is the index its first kept call gets.

    >>> from hermes_toolcall import parse_completion
    >>> calls = parse_completion('<tool_call>{"name": "g", "arguments": {}}</tool_call>').tool_calls
    >>> policy = ToolPolicy.of(ParseOptions.make(tools=[{"name": "f"}], undeclared="text"))
    >>> v = judge_block(policy, calls, 0)
    >>> v.as_text, v.calls, v.diagnostics[0].message
    (True, (), "tool 'g' is not declared (declared: f); the block is kept as text")
    """
    specs = policy.tools.tools
    undeclared = [c for c in calls if c.name not in specs]
    as_text = policy.undeclared == "text" and len(undeclared) == len(calls) > 0
    known = ", ".join(sorted(specs)) or "none"
    key = {"keep": "HT301", "drop": "HT301:drop", "text": "HT301:text" if as_text else "HT301:drop"}[policy.undeclared]
    kept: list[ToolCall] = []
    diags: list[Diagnostic] = []
    dropped: set[str] = set()
    for call in calls:
        spec = specs.get(call.name)
        if spec is None:
            text = message(key, name=call.name, known=known)
            diags.append(diagnostics.make("HT301", text, call.span, strict=policy.strict))
            if policy.undeclared != "keep":
                dropped.add(call.id)
                continue
        index = first_index + len(kept)
        if call.index != index:
            call = dataclasses.replace(call, index=index)
        if policy.coerce and spec is not None and spec.schema is not None:
            call, found = coerce_call(call, spec.schema, strict=policy.strict)
            diags += found
        kept.append(call)
    return BlockVerdict(calls=tuple(kept), as_text=as_text, diagnostics=tuple(diags), dropped=frozenset(dropped))


# ---------------------------------------------------------------------- grammar engine: a post-step


def _joined(a: Text, b: Text) -> Text:
    pos = a._pos  # the line index both come from, or a's eager span (its line:column start the joined text)
    if pos.__class__ is Span:
        pos = Span(start=a._start, end=b._end, line=pos.line, column=pos.column)
    return new_text(a.text + b.text, a._start, b._end, pos)


def _apply_parts(
    policy: ToolPolicy, parts: Sequence[Part], kind: ReasoningKind | None, out_diags: list[Diagnostic]
) -> tuple[Part, ...]:
    """The parts of one body after the policy. ``kind``: the reasoning block the body starts in, if any."""
    out: list[Part] = []
    kept = 0
    i, n = 0, len(parts)
    while i < n:
        part = parts[i]
        if isinstance(part, Reasoning):
            kind = None if part.closed else part.kind
        elif isinstance(part, Text):
            kind = None
        if not isinstance(part, ToolCall):
            if isinstance(part, Text) and out and isinstance(out[-1], Text) and out[-1].span.end == part.span.start:
                out[-1] = _joined(out[-1], part)
            else:
                out.append(part)
            i += 1
            continue
        j = i + 1
        while j < n and isinstance(parts[j], ToolCall) and parts[j].span == part.span:
            j += 1
        calls = [p for p in parts[i:j] if isinstance(p, ToolCall)]
        verdict = judge_block(policy, calls, kept)
        out_diags += verdict.diagnostics
        kept += len(verdict.calls)
        if verdict.as_text:
            if kind is not None:
                out.append(new_reasoning(kind, part.raw, part._start, part._end, part._pos, False, False))
            else:
                text = new_text(part.raw, part._start, part._end, part._pos)
                if out and isinstance(out[-1], Text) and out[-1].span.end == part.span.start:
                    out[-1] = _joined(out[-1], text)
                else:
                    out.append(text)
        else:
            out += verdict.calls
        i = j
    return tuple(out)


def _sorted(old: Sequence[Diagnostic], new: Sequence[Diagnostic]) -> tuple[Diagnostic, ...]:
    return tuple(sorted((*old, *new), key=lambda d: d.span.start)) if new else tuple(old)


def _touches(parts: Sequence[Part]) -> bool:
    return any(isinstance(p, ToolCall) for p in parts)


def apply_to_completion(result: Completion, options: ParseOptions) -> Completion:
    """The completion after the tools policy of ``options`` (unchanged without ``tools=``).

    >>> from hermes_toolcall.grammar._build import build_completion
    >>> options = ParseOptions.make(tools=[{"name": "f"}], undeclared="drop")
    >>> c = apply_to_completion(build_completion('a<tool_call>{"name": "g", "arguments": {}}</tool_call>', options),
    ...                         options)
    >>> [type(p).__name__ for p in c.parts], [d.code for d in c.diagnostics]
    (['Text'], ['HT301'])
    """
    policy = ToolPolicy.of(options)
    if policy is None or not _touches(result.parts):
        return result
    diags: list[Diagnostic] = []
    start = options.reasoning_at_start if options.calls_in_reasoning else None
    parts = _apply_parts(policy, result.parts, start, diags)
    return dataclasses.replace(result, parts=parts, diagnostics=_sorted(result.diagnostics, diags))


def apply_to_transcript(result: Transcript, options: ParseOptions) -> Transcript:
    """The transcript after the tools policy of ``options``, turn by turn."""
    policy = ToolPolicy.of(options)
    if policy is None or not any(_touches(t.parts) for t in result.turns):
        return result
    diags: list[Diagnostic] = []
    turns = tuple(
        dataclasses.replace(t, parts=_apply_parts(policy, t.parts, None, diags)) if _touches(t.parts) else t
        for t in result.turns
    )
    return dataclasses.replace(result, turns=turns, diagnostics=_sorted(result.diagnostics, diags))


# ---------------------------------------------------------------------- streaming engine: at the block's end
