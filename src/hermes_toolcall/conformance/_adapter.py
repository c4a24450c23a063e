"""The adapter protocol: how the runner talks to a parser (ours or anybody's).

An adapter receives a ``Request`` (the text, the chunks to feed when it streams, the level, the
dialect and the options) and returns an ``Outcome`` (content, reasoning, tool calls, and when it can
tell them, diagnostic codes and OpenAI messages). Any object with ``name``, ``streaming``,
``levels`` and ``run(request)`` is an adapter; a plain function ``request -> Outcome`` is wrapped
by ``FunctionAdapter``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from ..errors import ConformanceError

__all__ = ["Adapter", "CallOut", "FunctionAdapter", "MessageOut", "Outcome", "Request", "load_adapter"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Request:
    """What a parser is asked to read.

    Attributes:
        text: the whole input.
        chunks: the input cut into the pieces a streaming parser must be fed, in order (their
            concatenation is ``text``; ``(text,)`` when the case gives no chunking).
        level: ``completion`` (a model's output after ``<|im_start|>assistant\\n``) or ``transcript``.
        dialect: the dialect name (``hermes``, ``qwen3``, …).
        options: parse options: ``strict``, ``calls_in_reasoning``, ``stop_at_fabricated_response``,
            ``max_block_chars`` (absent keys take the parser's defaults).
    """

    text: str
    chunks: tuple[str, ...]
    level: str = "completion"
    dialect: str = "hermes"
    options: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True, kw_only=True)
class CallOut:
    """A tool call as a parser returned it: the name and the decoded arguments object."""

    name: str
    arguments: Any


@dataclass(frozen=True, slots=True, kw_only=True)
class MessageOut:
    """One OpenAI message of a transcript parse (ids and tool_call_id are not compared)."""

    role: str
    content: str | None = None
    reasoning: str | None = None
    calls: tuple[CallOut, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class Outcome:
    """What a parser returned.

    Attributes:
        calls: the valid tool calls in order (transcript level: over all assistant messages).
        content: the assistant ``content`` (completion level).
        reasoning: the ``reasoning_content`` (completion level).
        diagnostics: diagnostic codes (``HT…``) when the parser reports them, else None (not compared).
        error: the parse was rejected (strict mode).
        messages: the OpenAI messages (transcript level), or None when the parser cannot tell.
        positions: each diagnostic as ``(code, start, end, line, column)``, or None (not compared).
    """

    calls: tuple[CallOut, ...] = ()
    content: str | None = None
    reasoning: str | None = None
    diagnostics: tuple[str, ...] | None = None
    error: bool = False
    messages: tuple[MessageOut, ...] | None = None
    positions: tuple[tuple[str, int, int, int, int], ...] | None = None


@runtime_checkable
class Adapter(Protocol):
    """A parser under test.

    ``streaming`` adapters consume ``request.chunks`` (the runner also feeds them one character at
    a time); ``levels`` lists the levels the parser reads (cases of other levels are skipped). An
    adapter may also have an ``options`` attribute: the parse options it honours (cases that set
    another option are skipped); without it, every option is assumed supported.
    """

    @property
    def name(self) -> str:
        """A short name for reports."""
        ...

    @property
    def streaming(self) -> bool:
        """Whether the parser consumes ``request.chunks``."""
        ...

    @property
    def levels(self) -> frozenset[str]:
        """The levels the parser reads."""
        ...

    def run(self, request: Request) -> Outcome:
        """Parse ``request`` and report what was found."""
        ...


@dataclass(frozen=True, slots=True, kw_only=True)
class FunctionAdapter:
    """Wrap a function ``Request -> Outcome`` as an adapter.

    >>> a = FunctionAdapter(name="echo", fn=lambda r: Outcome(content=r.text))
    >>> a.run(Request(text="hi", chunks=("hi",))).content
    'hi'
    """

    name: str
    fn: Callable[[Request], Outcome]
    streaming: bool = False
    levels: frozenset[str] = frozenset({"completion"})
    options: frozenset[str] | None = None

    def run(self, request: Request) -> Outcome:
        """Call the wrapped function."""
        return self.fn(request)


def load_adapter(spec: str) -> Adapter:
    """Import an adapter named ``module:attribute``.

    The attribute is an adapter object, a zero-argument factory returning one (a class, say), or a
    plain function ``Request -> Outcome`` (wrapped; it may set ``adapter_name``, ``streaming``,
    ``levels`` and ``options`` attributes).

    Args:
        spec: ``package.module:name``.

    Returns:
        The adapter.

    Raises:
        ConformanceError: the spec is malformed, the module or attribute is missing.

    >>> load_adapter("hermes_toolcall.conformance._engines:grammar").name
    'grammar'
    """
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise ConformanceError(f"adapter {spec!r}: expected 'module:callable'")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ConformanceError(f"adapter {spec!r}: cannot import {module_name}: {exc}") from exc
    try:
        obj: Any = getattr(module, attr)
    except AttributeError as exc:
        raise ConformanceError(f"adapter {spec!r}: {module_name} has no attribute {attr!r}") from exc
    if isinstance(obj, Adapter) and not isinstance(obj, type):
        return obj
    if isinstance(obj, type) or getattr(obj, "adapter_factory", False):
        made = obj()
        if not isinstance(made, Adapter):
            raise ConformanceError(f"adapter {spec!r}: the factory did not return an adapter")
        return made
    if callable(obj):
        return FunctionAdapter(
            name=getattr(obj, "adapter_name", attr),
            fn=obj,
            streaming=bool(getattr(obj, "streaming", False)),
            levels=frozenset(getattr(obj, "levels", ("completion",))),
            options=frozenset(obj.options) if hasattr(obj, "options") else None,
        )
    raise ConformanceError(f"adapter {spec!r}: not an adapter, a factory or a function")
