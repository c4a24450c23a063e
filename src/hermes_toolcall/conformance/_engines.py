"""Adapters for our two engines: the Lark grammar (whole text) and the streaming state machine.

Both return the OpenAI view of the parse (``Completion.to_openai()`` / ``Transcript.to_openai_messages()``,
with ``invalid_calls="drop"``: the corpus gives a block that gave no call no content)
plus the diagnostic codes, with deterministic call ids. The engines are the package's own modules,
imported plainly.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .._ids import sequential_ids
from .._model import Completion, Transcript
from .._parse import parse_completion, parse_transcript
from ..errors import HermesError, ParseError, StreamError
from ..statemachine import StreamParser
from ..tags import ASSISTANT
from ._adapter import CallOut, MessageOut, Outcome, Request

__all__ = [
    "EngineAdapter",
    "grammar",
    "grammar_parse",
    "machine",
    "machine_parse",
    "outcome_of",
]


def grammar_parse(text: str, *, level: str = "completion", **options: Any) -> Completion | Transcript:
    """Parse ``text`` with the grammar engine (``hermes_toolcall._parse``).

    Args:
        text: the input.
        level: ``completion`` or ``transcript``.
        **options: ``dialect``, ``strict``, ``calls_in_reasoning``, ``stop_at_fabricated_response``,
            ``max_block_chars``, ``ids`` (default: ``sequential_ids()``).

    Returns:
        The parse.

    Raises:
        ParseError: strict mode found errors.

    >>> grammar_parse("hi").parts[0].text
    'hi'
    """
    options.setdefault("ids", sequential_ids())
    fn = parse_transcript if level == "transcript" else parse_completion
    result: Completion | Transcript = fn(text, **options)
    return result


def machine_parse(chunks: Sequence[str], *, level: str = "completion", **options: Any) -> Completion | Transcript:
    """Feed ``chunks`` to the streaming engine (``hermes_toolcall.statemachine.StreamParser``) and fold.

    Args:
        chunks: the pieces of the input, in order.
        level: ``completion`` or ``transcript``.
        **options: as ``grammar_parse``.

    Returns:
        The folded result (``StreamParser.result()``).

    Raises:
        StreamError: strict mode found errors.

    >>> machine_parse(["h", "i"]).parts[0].text
    'hi'
    """
    options.setdefault("ids", sequential_ids())
    parser = StreamParser(level="transcript" if level == "transcript" else "completion", **options)
    for chunk in chunks:
        parser.feed(chunk)
    parser.close()
    result: Completion | Transcript = parser.result()
    return result


def _calls(tool_calls: Sequence[Mapping[str, Any]]) -> tuple[CallOut, ...]:
    from .. import _jsonio as jsonio

    out = []
    for call in tool_calls:
        function = call["function"]
        arguments = function["arguments"]
        out.append(CallOut(name=function["name"], arguments=jsonio.loads_or_none(arguments)))
    return tuple(out)


def outcome_of(result: Completion | Transcript) -> Outcome:
    """The adapter outcome of one of our parse results (the OpenAI view plus diagnostic codes).

    >>> from hermes_toolcall._model import Completion
    >>> outcome_of(Completion(parts=(), diagnostics=(), source="")).calls
    ()
    """
    codes = tuple(d.code for d in result.diagnostics)
    at = tuple((d.code, d.start, d.end, d.line, d.column) for d in result.diagnostics)
    if isinstance(result, Completion):
        message = result.to_openai(invalid_calls="drop")
        return Outcome(
            calls=_calls(message.get("tool_calls") or ()),
            content=message.get("content"),
            reasoning=message.get("reasoning_content"),
            diagnostics=codes,
            positions=at,
        )
    messages = []
    for m in result.to_openai_messages(invalid_calls="drop"):
        messages.append(
            MessageOut(
                role=m["role"],
                content=m.get("content"),
                reasoning=m.get("reasoning_content"),
                calls=_calls(m.get("tool_calls") or ()),
            )
        )
    calls = tuple(c for m in messages if m.role == ASSISTANT for c in m.calls)
    return Outcome(calls=calls, diagnostics=codes, messages=tuple(messages), positions=at)


@dataclass(frozen=True, slots=True, kw_only=True)
class EngineAdapter:
    """One of our engines as a conformance adapter (``kind`` is ``grammar`` or ``machine``)."""

    kind: str
    name: str
    streaming: bool
    levels: frozenset[str] = frozenset({"completion", "transcript"})

    def run(self, request: Request) -> Outcome:
        """Parse the request with the engine; a strict-mode rejection becomes ``Outcome(error=True)``.

        Raises:
            HermesError: any error other than the strict-mode rejection (a bug, reported by the runner).
        """
        options = dict(request.options)
        try:
            if self.kind == "grammar":
                result = grammar_parse(request.text, level=request.level, dialect=request.dialect, **options)
            else:
                result = machine_parse(request.chunks, level=request.level, dialect=request.dialect, **options)
        except (ParseError, StreamError) as exc:
            found = exc.diagnostics
            at = tuple((d.code, d.start, d.end, d.line, d.column) for d in found)
            return Outcome(error=True, diagnostics=tuple(d.code for d in found), positions=at)
        except HermesError:
            raise
        return outcome_of(result)


#: The grammar engine (whole text).
grammar = EngineAdapter(kind="grammar", name="grammar", streaming=False)
#: The streaming engine (fed the case's chunks, and one character at a time).
machine = EngineAdapter(kind="machine", name="machine", streaming=True)
