"""The data model shared by both engines: spans, diagnostics, parts, turns, transcripts, completions.

Every value is a frozen, slotted, keyword-only dataclass with structural equality, so tests compare
whole values. Spans are character offsets into the parsed text (``start`` inclusive, ``end``
exclusive) with the 1-based line and column of ``start``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = [
    "Completion",
    "Diagnostic",
    "FunctionCall",
    "InvalidToolCall",
    "Message",
    "Part",
    "Reasoning",
    "ReasoningKind",
    "Severity",
    "Span",
    "Text",
    "ToolCall",
    "ToolResponse",
    "ToolsBlock",
    "Transcript",
    "Turn",
]

Severity = Literal["error", "warning", "info"]
ReasoningKind = Literal["think", "scratch_pad"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Span:
    """A half-open character range ``[start, end)`` of the input, with the line:column of ``start``.

    >>> Span(start=0, end=3, line=1, column=1).length
    3
    """

    start: int
    end: int
    line: int
    column: int

    @property
    def length(self) -> int:
        """Number of characters covered."""
        return self.end - self.start

    def text(self, source: str) -> str:
        """The covered slice of ``source``."""
        return source[self.start : self.end]


@dataclass(frozen=True, slots=True, kw_only=True)
class Diagnostic:
    """One finding: a stable code from the catalogue, a severity, a message, where, and a fix hint.

    The ``code`` values are listed in ``docs/diagnostics.md`` and never change meaning.
    """

    code: str
    severity: Severity
    message: str
    span: Span
    hint: str | None = None

    @property
    def start(self) -> int:
        return self.span.start

    @property
    def end(self) -> int:
        return self.span.end

    @property
    def line(self) -> int:
        return self.span.line

    @property
    def column(self) -> int:
        return self.span.column


@dataclass(frozen=True, slots=True, kw_only=True)
class Text:
    """Plain text (prose) inside a body, or between turns of a transcript."""

    text: str
    span: Span


@dataclass(frozen=True, slots=True, kw_only=True)
class Reasoning:
    """A reasoning segment: ``<think>…</think>`` or ``<scratch_pad>…</scratch_pad>``.

    ``text`` is the inner text, untouched. ``opened``/``closed`` say whether the segment starts with
    the opening tag and ends with the closing tag (a segment split by a call when
    ``calls_in_reasoning`` is on, or cut off by the end of the turn, lacks one of them).
    """

    kind: ReasoningKind
    text: str
    span: Span
    opened: bool = True
    closed: bool = True


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolCall:
    """A tool call decoded from one ``<tool_call>`` block.

    ``arguments`` is the decoded object; ``arguments_json`` is the OpenAI ``function.arguments``
    string (the raw source text of the arguments value when it was strict JSON, otherwise the
    canonical ``json.dumps(..., ensure_ascii=False)`` of the recovered object). ``index`` is the
    call's position among the valid calls of its completion or turn (the OpenAI delta index).
    ``raw`` is the whole block as written, tags included; several calls recovered from one block
    (an array of calls) share the block's raw text and span.
    """

    index: int
    id: str
    name: str
    arguments: dict[str, Any]
    arguments_json: str
    raw: str
    span: Span
    closed: bool = True

    def to_openai(self) -> dict[str, Any]:
        """The OpenAI ``tool_calls`` entry.

        >>> c = ToolCall(index=0, id="call_0", name="f", arguments={}, arguments_json="{}",
        ...              raw="", span=Span(start=0, end=0, line=1, column=1))
        >>> c.to_openai()
        {'id': 'call_0', 'type': 'function', 'function': {'name': 'f', 'arguments': '{}'}}
        """
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": self.arguments_json},
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class InvalidToolCall:
    """A ``<tool_call>`` block that gave no call: truncated, undecodable, nameless, or bad arguments.

    It is never listed in ``tool_calls``; its raw text is kept so nothing is lost. ``code`` is the
    diagnostic code that explains why; ``name`` is the tool name when it could still be read.
    """

    id: str
    raw: str
    span: Span
    code: str
    message: str
    name: str | None = None
    closed: bool = True


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolResponse:
    """A ``<tool_response>`` block. ``content`` is the inner text less one leading and one trailing
    newline; ``name`` is set when the body is a classic Hermes ``{"name": …, "content": …}`` object."""

    content: str
    raw: str
    span: Span
    name: str | None = None
    closed: bool = True


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolsBlock:
    """A ``<tools>…</tools>`` block of a system turn.

    ``tools`` holds the tool objects that could be read (one JSON object per line, a JSON array, or
    the Hermes template's pseudo-JSON lines); ``text`` is the inner text, untouched.
    """

    text: str
    tools: tuple[dict[str, Any], ...]
    span: Span
    closed: bool = True


Part = Text | Reasoning | ToolCall | InvalidToolCall | ToolResponse | ToolsBlock


def _view() -> Any:
    from . import _openai as view  # local import: the view module imports this one

    return view


@dataclass(frozen=True, slots=True, kw_only=True)
class Completion:
    """What a model generated after ``<|im_start|>assistant\\n``, parsed.

    ``end`` covers a closing ``<|im_end|>`` (and anything after it) when the text has one.
    ``stopped_at`` is the offset where parsing stopped at a fabricated ``<tool_response>``
    (``stop_at_fabricated_response``), else None.
    """

    parts: tuple[Part, ...]
    diagnostics: tuple[Diagnostic, ...]
    source: str = field(repr=False)
    end: Span | None = None
    stopped_at: int | None = None

    @property
    def tool_calls(self) -> tuple[ToolCall, ...]:
        """The valid calls, in order."""
        return tuple(p for p in self.parts if isinstance(p, ToolCall))

    @property
    def finish_reason(self) -> str:
        """``tool_calls`` when at least one valid call was made, else ``stop``."""
        return "tool_calls" if self.tool_calls else "stop"

    @property
    def errors(self) -> tuple[Diagnostic, ...]:
        """The diagnostics of severity ``error``."""
        return tuple(d for d in self.diagnostics if d.severity == "error")

    def to_openai(self) -> dict[str, Any]:
        """The OpenAI assistant message: role, content, reasoning_content, tool_calls."""
        result: dict[str, Any] = _view().completion_to_openai(self)
        return result


@dataclass(frozen=True, slots=True, kw_only=True)
class Turn:
    """One ChatML turn ``<|im_start|>{role}\\n{body}<|im_end|>``.

    ``header`` covers ``<|im_start|>role\\n``; ``end`` covers ``<|im_end|>`` or is None when the
    turn was not closed (ended by the next ``<|im_start|>``, or by the end of the input).
    """

    role: str
    parts: tuple[Part, ...]
    span: Span
    header: Span
    end: Span | None

    @property
    def closed(self) -> bool:
        return self.end is not None

    @property
    def tool_calls(self) -> tuple[ToolCall, ...]:
        return tuple(p for p in self.parts if isinstance(p, ToolCall))


@dataclass(frozen=True, slots=True, kw_only=True)
class Transcript:
    """A parsed ChatML transcript: turns in order, the text between them, and diagnostics.

    ``gaps`` holds the text outside any turn (normally the ``\\n`` after each ``<|im_end|>``); turns
    and gaps together tile the input.
    """

    turns: tuple[Turn, ...]
    gaps: tuple[Text, ...]
    diagnostics: tuple[Diagnostic, ...]
    source: str = field(repr=False)
    stopped_at: int | None = None

    @property
    def errors(self) -> tuple[Diagnostic, ...]:
        return tuple(d for d in self.diagnostics if d.severity == "error")

    @property
    def tools(self) -> tuple[dict[str, Any], ...]:
        """Every tool object found in ``<tools>`` blocks of system turns."""
        return tuple(t for turn in self.turns for p in turn.parts if isinstance(p, ToolsBlock) for t in p.tools)

    def to_messages(self) -> tuple[Message, ...]:
        """The conversation as span-free messages (the OpenAI view as values)."""
        result: tuple[Message, ...] = _view().transcript_to_messages(self)
        return result

    def to_openai_messages(self) -> list[dict[str, Any]]:
        """The conversation as OpenAI chat messages."""
        result: list[dict[str, Any]] = _view().transcript_to_openai(self)
        return result

    def to_request(self, *, dialect: str | None = None) -> dict[str, Any]:
        """The request ``{"messages", "tools"}`` that ``render`` turns into this transcript (its inverse).

        The catalogue turn the template wrote is taken out (the user's system text kept) and the Hermes
        description rewrite undone; ``dialect`` names the source dialect (default: detected from the
        catalogue turn). See ``hermes_toolcall._request``.
        """
        from ._request import transcript_to_request

        return transcript_to_request(self, dialect=dialect)


@dataclass(frozen=True, slots=True, kw_only=True)
class FunctionCall:
    """A call in a span-free message. ``arguments`` is kept as given: a dict, or a JSON string."""

    name: str
    arguments: dict[str, Any] | str
    id: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Message:
    """A span-free chat message: the OpenAI view as a value.

    ``reasoning`` is the OpenAI ``reasoning_content``; ``tool_call_id`` binds a tool result to its call.
    """

    role: str
    content: str | None = None
    reasoning: str | None = None
    tool_calls: tuple[FunctionCall, ...] = ()
    tool_call_id: str | None = None
    name: str | None = None
