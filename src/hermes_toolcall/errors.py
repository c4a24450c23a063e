"""The one error tree of hermes-toolcall: everything the library raises is a `HermesError`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .model import Diagnostic

__all__ = [
    "ConformanceError",
    "DecodeError",
    "HermesError",
    "ParseError",
    "RenderError",
    "StreamError",
    "UsageError",
    "ValidationError",
]


class HermesError(Exception):
    """Root of every error hermes-toolcall raises.

    Third-party errors (lark, orjson, jsonschema, transitions, jinja2) are converted at the
    boundary with ``raise ... from exc``.
    """


class UsageError(HermesError, ValueError):
    """A caller passed an argument the library cannot use (unknown dialect, bad option value)."""


class DecodeError(HermesError, ValueError):
    """A JSON text could not be decoded.

    Args:
        message: what went wrong.
        position: character offset in the decoded text, or -1 when unknown.
    """

    def __init__(self, message: str, position: int = -1) -> None:
        super().__init__(message)
        self.message = message
        self.position = position


class _DiagnosticsError(HermesError):
    """An error that carries every error diagnostic found (strict mode)."""

    def __init__(self, message: str, diagnostics: Sequence[Diagnostic] = ()) -> None:
        super().__init__(message)
        self.message = message
        self.diagnostics: tuple[Diagnostic, ...] = tuple(diagnostics)

    def __str__(self) -> str:
        if not self.diagnostics:
            return self.message
        lines = [self.message]
        for d in self.diagnostics:
            lines.append(f"  {d.line}:{d.column}: {d.code} {d.message}")
        return "\n".join(lines)


class ParseError(_DiagnosticsError):
    """Strict parsing found errors; ``.diagnostics`` holds every error diagnostic."""


class StreamError(_DiagnosticsError):
    """Strict streaming found errors, or the stream was used out of order (feed after close)."""


class ValidationError(_DiagnosticsError):
    """Strict validation found errors; ``.diagnostics`` holds them."""


class RenderError(HermesError, ValueError):
    """A conversation cannot be rendered: the template would crash, or content would inject structure.

    Args:
        message: what went wrong, naming the message index and offset where known.
        message_index: index of the offending message, or None.
        offset: character offset inside the offending field, or None.
        field: which field of the message (or which tool) holds it (``content``, ``role``,
            ``tool_calls[0].function.name``, ``tools[1]``, ``bos_token`` …), or None.
    """

    def __init__(self, message: str, *, message_index: int | None = None, offset: int | None = None,
                 field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.message_index = message_index
        self.offset = offset
        self.field = field


class ConformanceError(HermesError):
    """The conformance runner could not load a case file or an adapter."""
