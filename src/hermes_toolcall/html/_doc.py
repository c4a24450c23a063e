"""What the renderers read: how a part shows itself (`Shown`), a finding to show (`Finding`), and the shapes
of the parsed values they walk (protocols, so that this package imports none of the model's modules:
the model's classes call it for their ``_repr_html_``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol, cast

__all__ = [
    "CompletionLike",
    "DiagnosticLike",
    "Finding",
    "PartLike",
    "Shown",
    "SpanLike",
    "TranscriptLike",
    "TurnLike",
    "split",
]

PartKind = Literal["text", "reasoning", "call", "invalid", "result", "tools"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Shown:
    """How one part of a parse shows itself in a view (``part._shown()``).

    ``title`` is a short label (``get_weather``, ``think``); ``body`` the text shown under it (prose,
    reasoning, pretty-printed arguments, the result's content); ``call_id`` a call's id; ``name`` the
    tool a call or result names; ``detail`` a line under the title (why a call is invalid, "not closed").
    """

    kind: PartKind
    title: str
    body: str
    call_id: str | None = None
    name: str | None = None
    detail: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Finding:
    """A diagnostic to show: what it says, how its place is written, and where it points.

    ``start``/``end`` are offsets into the text shown (a parsed source, or the string at ``path`` of a
    JSON record); ``whole`` says it points at the whole value at ``path`` rather than into a string;
    ``placed`` is False when the renderer has no place to point at (the finding is listed, unmarked).
    """

    code: str
    severity: str
    message: str
    hint: str | None = None
    name: str = ""
    where: str = ""
    start: int = 0
    end: int = 0
    path: tuple[str | int, ...] | None = None
    whole: bool = False
    placed: bool = True


class SpanLike(Protocol):
    @property
    def start(self) -> int: ...
    @property
    def end(self) -> int: ...
    @property
    def line(self) -> int: ...
    @property
    def column(self) -> int: ...


class PartLike(Protocol):
    @property
    def span(self) -> SpanLike: ...
    def _shown(self) -> Shown: ...


class TurnLike(Protocol):
    @property
    def role(self) -> str: ...
    @property
    def parts(self) -> Sequence[PartLike]: ...
    @property
    def span(self) -> SpanLike: ...
    @property
    def header(self) -> SpanLike: ...
    @property
    def end(self) -> SpanLike | None: ...


class DiagnosticLike(Protocol):
    @property
    def code(self) -> str: ...
    @property
    def severity(self) -> str: ...
    @property
    def message(self) -> str: ...
    @property
    def hint(self) -> str | None: ...
    @property
    def span(self) -> SpanLike: ...


class TranscriptLike(Protocol):
    @property
    def turns(self) -> Sequence[TurnLike]: ...
    @property
    def gaps(self) -> Sequence[PartLike]: ...
    @property
    def diagnostics(self) -> Sequence[DiagnosticLike]: ...
    @property
    def source(self) -> str: ...


class CompletionLike(Protocol):
    @property
    def parts(self) -> Sequence[PartLike]: ...
    @property
    def diagnostics(self) -> Sequence[DiagnosticLike]: ...
    @property
    def source(self) -> str: ...
    @property
    def end(self) -> SpanLike | None: ...


def split(value: TranscriptLike | CompletionLike) -> tuple[TranscriptLike | None, CompletionLike]:
    """``(transcript, None-or-same)``: the value as a transcript when it has turns, else None, and as a
    completion (only read when the first is None)."""
    if hasattr(value, "turns"):
        return cast(TranscriptLike, value), cast(CompletionLike, value)
    return None, value
