"""The one error tree of hermes-toolcall: everything the library raises is a `HermesError`.

Errors are split by **fault**, each class carrying it as ``fault``; catch the three middle classes
to tell them apart (the CLI maps them to exit statuses):

| class | fault | raised when |
|---|---|---|
| `CallerError` | caller | the calling program misused the library: fix the code |
| - `UsageError` | caller | an argument of the wrong type or value (the message names it) |
| - `StreamStateError` | caller | a stream used out of order (``feed()`` after ``close()``, ...) |
| `InputError` | input | the data is bad, where the API raises instead of reporting diagnostics |
| - `ParseError` | input | strict parsing found error diagnostics (``.diagnostics``) |
| - `StreamError` | input | strict streaming found error diagnostics |
| - `ValidationError` | input | strict validation found errors |
| - `DecodeError` | input | a JSON text could not be decoded (``.position``) |
| - `RenderError` | input | a conversation cannot be rendered faithfully |
| - `ConformanceError` | input | a conformance case file or adapter cannot be loaded |
| `InternalError` | internal | a bug: any other exception inside a public call, converted |
| - `DriverError` | internal | the grammar's table driver rejected an input (the grammar is total) |
| - `TableGenError` | internal | build time: Lark's serialised parser is not in the form the generator reads |

Lenient parsing never raises `InputError` for any input string: bad input becomes diagnostics.
`InternalError` keeps the original exception as ``__cause__``; please report it with the input.
Names kept for compatibility: `StreamStateError` is also a `StreamError` and a `UsageError` (code
that caught `StreamError` for ``feed()`` after ``close()`` keeps working); `UsageError`, `DecodeError`
and `RenderError` are also ``ValueError``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar, Literal

if TYPE_CHECKING:
    from ._span import Diagnostic

__all__ = [
    "CallerError",
    "ConformanceError",
    "DecodeError",
    "DriverError",
    "Fault",
    "GrammarBug",
    "HermesError",
    "InputError",
    "InternalError",
    "MachineBug",
    "ParseError",
    "RenderError",
    "StreamError",
    "StreamStateError",
    "TableGenError",
    "UsageError",
    "ValidationError",
    "internal_error",
]

Fault = Literal["caller", "input", "internal"]


class HermesError(Exception):
    """Root of every error hermes-toolcall raises.

    Third-party errors (lark, orjson, jsonschema, transitions, jinja2) are converted at the
    boundary with ``raise ... from exc``. ``fault`` says whose fault it is (see the module table).
    """

    fault: ClassVar[Fault] = "input"


class CallerError(HermesError):
    """The calling program misused the library (fix the code, not the data)."""

    fault: ClassVar[Fault] = "caller"


class InputError(HermesError):
    """The data given to the library is bad (where the API raises rather than reporting diagnostics)."""

    fault: ClassVar[Fault] = "input"


class InternalError(HermesError):
    """A bug in hermes-toolcall: an unexpected exception inside a public call (``__cause__`` holds it).

    >>> str(InternalError("boom"))
    'boom'
    """

    fault: ClassVar[Fault] = "internal"


class DriverError(InternalError):
    """The grammar's table driver rejected the input: a bug, since the grammar is total (``grammar/_driver.py``).

    >>> DriverError("unexpected end of input").fault
    'internal'
    """


class GrammarBug(InternalError):
    """The grammar rejected an input, or its tables are stale: a bug, the grammar being total (``grammar/_parser.py``).

    >>> GrammarBug("grammar rejected the input").fault
    'internal'
    """


class MachineBug(InternalError):
    """The streaming parser fired a trigger the machine does not allow in its state (``statemachine/_table.py``).

    >>> MachineBug("trigger open_call is not allowed in state gap").fault
    'internal'
    """


class TableGenError(InternalError):
    """Lark's serialised parser is not in the form ``grammar/_tablegen.py`` reads (a build-time internal error).

    >>> issubclass(TableGenError, InternalError)
    True
    """


class UsageError(CallerError, ValueError):
    """A caller passed an argument the library cannot use (wrong type, unknown dialect, bad option value)."""


class DecodeError(InputError, ValueError):
    """A JSON text could not be decoded.

    Args:
        message: what went wrong.
        position: character offset in the decoded text, or -1 when unknown.
    """

    def __init__(self, message: str, position: int = -1) -> None:
        super().__init__(message)
        self.message = message
        self.position = position


class _DiagnosticsError(InputError):
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
    """Strict streaming found errors (``.diagnostics``); out-of-order use raises `StreamStateError`."""


class StreamStateError(StreamError, UsageError):
    """A stream was used out of order (``feed()`` after ``close()``, ``result()`` before ``close()``)."""

    fault: ClassVar[Fault] = "caller"


class ValidationError(_DiagnosticsError):
    """Strict validation found errors; ``.diagnostics`` holds them."""


class RenderError(InputError, ValueError):
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


class ConformanceError(InputError):
    """The conformance runner could not load a case file or an adapter."""


def internal_error(where: str, exc: BaseException) -> InternalError:
    """The `InternalError` for an unexpected exception ``exc`` inside the public call ``where``.

    >>> internal_error("parse_completion", RecursionError("deep")).args[0]
    'internal error in parse_completion: RecursionError: deep (a bug in hermes-toolcall: please report the input)'
    """
    try:
        detail = str(exc)
    except Exception:  # pragma: no cover - an exception whose message cannot be built
        detail = "?"
    return InternalError(
        f"internal error in {where}: {type(exc).__name__}: {detail} (a bug in hermes-toolcall: please report the input)"
    )
