"""Conformance adapters that score a server's own parsers (shared by the vLLM and SGLang modules)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .. import _jsonio as jsonio
from ..conformance import CallOut, Outcome, Request

__all__ = ["ServerScorer", "declared_names"]

#: ``(chunks, declared tool names) -> (content, reasoning, [(name, arguments JSON)])``
RunParser = Callable[[Sequence[str], list[str]], tuple[str | None, str | None, list[tuple[str, str]]]]


def declared_names(text: str) -> list[str]:
    """The tools a scored request declares: ``f`` and every name the completion calls (so that no
    parser is marked down for dropping undeclared calls; names read with ``parse_completion``).

    >>> declared_names('<tool_call>{"name": "g", "arguments": {}}</tool_call>')
    ['f', 'g']
    """
    from .._parse import parse_completion

    return sorted({"f"} | {c.name for c in parse_completion(text).tool_calls})


@dataclass(frozen=True, slots=True, kw_only=True)
class ServerScorer:
    """A streaming, completion-level conformance adapter around a server's parser loop.

    ``load_adapter`` reads ``adapter_name``, ``streaming``, ``levels`` and ``options`` from it.
    """

    adapter_name: str
    run_parser: RunParser
    streaming: bool = True
    levels: tuple[str, ...] = ("completion",)
    options: tuple[str, ...] = ()

    def __call__(self, request: Request) -> Outcome:
        """Score one request: stream its chunks through the parser, as the server would."""
        content, reasoning, calls = self.run_parser(request.chunks, declared_names(request.text))
        return Outcome(
            calls=tuple(CallOut(name=n, arguments=jsonio.loads_or_none(a)) for n, a in calls),
            content=content,
            reasoning=reasoning,
        )
