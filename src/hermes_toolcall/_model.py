"""The data model shared by both engines: spans, diagnostics, parts, turns, transcripts, completions.

The results, ``Completion`` and ``Transcript``, are defined here with their conveniences (the OpenAI
view, the HTML views; ``to_request``); the values they are made of live below the layers those
conveniences use, in ``_span`` (spans, diagnostics) and ``_parts`` (parts, turns, messages), and are
re-exported here.

Every value is a frozen, slotted, keyword-only dataclass with structural equality, so tests compare
whole values. Spans are character offsets into the parsed text (``start`` inclusive, ``end``
exclusive) with the 1-based line and column of ``start``.

Positions on demand (issue 10): a part or turn does not store ``Span`` objects. It stores its
offsets as ints and a reference to where its line:column come from: the parse's line index of the
source (whole-text parses), or a ``Span`` given to its constructor (the stream engine, user code,
pickled or copied values). ``part.span`` (and ``Turn.header``/``Turn.end``) build the ``Span`` when
asked, equal to the one stored before. Equality, hashing, ``repr``, pickling and
``dataclasses.replace`` work on that public view: a value is equal to the value with the same
fields and the same spans, however they are stored. See docs/parsing.md, "Positions".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from . import _openai as view
from ._parts import (
    FunctionCall,
    InvalidToolCall,
    Message,
    Part,
    Reasoning,
    Text,
    ToolCall,
    ToolResponse,
    ToolsBlock,
    Turn,
    as_dict,
    public_fields,
)
from ._request import transcript_to_request
from ._span import Diagnostic, Severity, Span
from .html import notebook_html, short_repr, tree
from .tags import ReasoningKind

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
    "as_dict",
    "public_fields",
]

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

    def to_openai(self, *, invalid_calls: Literal["content", "drop"] = "content") -> dict[str, Any]:
        """The OpenAI assistant message: role, content, reasoning_content, tool_calls.

        ``invalid_calls``: the raw text of a call block that gave no call is ``content`` (the default, as
        vLLM and SGLang pass it through) or is left out (``drop``); docs/parsing.md §9.

        Raises:
            UsageError: ``invalid_calls`` is neither.
        """
        result: dict[str, Any] = view.completion_to_openai(self, invalid_calls=invalid_calls)
        return result

    def __repr__(self) -> str:
        """A short line: size, parts or turns, diagnostics by code (the fields: ``dataclasses.fields``)."""
        return short_repr(self)

    def _repr_html_(self) -> str:
        """The compact HTML view a notebook shows (``hermes_toolcall.html.notebook_html``)."""
        return notebook_html(self)

    def __rich__(self) -> Any:
        """A ``rich`` tree for a terminal (``rich.print(value)``)."""
        return tree(self)


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

    def to_messages(self, *, invalid_calls: Literal["content", "drop"] = "content") -> tuple[Message, ...]:
        """The conversation as span-free messages (the OpenAI view as values; ``invalid_calls`` as in
        ``Completion.to_openai``)."""
        result: tuple[Message, ...] = view.transcript_to_messages(self, invalid_calls=invalid_calls)
        return result

    def to_openai_messages(self, *, invalid_calls: Literal["content", "drop"] = "content") -> list[dict[str, Any]]:
        """The conversation as OpenAI chat messages (``invalid_calls`` as in ``Completion.to_openai``)."""
        result: list[dict[str, Any]] = view.transcript_to_openai(self, invalid_calls=invalid_calls)
        return result

    def to_request(self, *, dialect: str | None = None, tools: Sequence[Any] | None = None) -> dict[str, Any]:
        """The request ``{"messages", "tools"}`` that ``render`` turns into this transcript (its inverse).

        The catalogue turn the template wrote is taken out (the user's system text kept) and the Hermes
        description rewrite undone; ``dialect`` names the source dialect (default: detected from the
        catalogue turn); ``tools``, when given, are the tools the catalogue was written from (the XML-like
        catalogues of Qwen3-Coder and Nemotron do not read back exactly). See ``hermes_toolcall._request``.
        """
        return transcript_to_request(self, dialect=dialect, tools=tools)

    def __repr__(self) -> str:
        """A short line: size, parts or turns, diagnostics by code (the fields: ``dataclasses.fields``)."""
        return short_repr(self)

    def _repr_html_(self) -> str:
        """The compact HTML view a notebook shows (``hermes_toolcall.html.notebook_html``)."""
        return notebook_html(self)

    def __rich__(self) -> Any:
        """A ``rich`` tree for a terminal (``rich.print(value)``)."""
        return tree(self)
