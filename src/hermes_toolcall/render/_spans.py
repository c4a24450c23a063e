"""Where every character of a rendered prompt comes from: ``render(..., return_spans=True)``.

The spans are known by construction. The prompt is rendered once with the recorder of the round-trip
guard (``_roundtrip.Recorder``: where each message's text starts, and the message of each call and
result, in order), then parsed back with the dialect's rules, which is what the guard proves possible:
the parse must give exactly the turns, calls and results that were written (``roundtrip``'s
divergence check runs on every call here, so a prompt that would not parse back is refused, with or
without ``allow_injection``). The parse says what each character is (a turn header, a reasoning
block, a call, a result, ``<|im_end|>``, the text between turns); the recorder says which message
wrote it.

Kinds (a span never crosses a message boundary; consecutive content or separator characters of one
message are one span; each call and each result is its own span):

- ``header``: ``<|im_start|>role\\n`` (without its newline when the template writes none).
- ``content``: a message's own text, and the template's prose around it (the tools prompt of a
  system turn is content of that turn).
- ``reasoning``: a ``<think>…</think>`` (or ``<scratch_pad>``) block of an assistant turn, tags
  included, as the template wrote it (Qwen3's empty ``<think>\\n\\n</think>`` too).
- ``tool_call``: one ``<tool_call>…</tool_call>`` block.
- ``tool_result``: one ``<tool_response>…</tool_response>`` block.
- ``end_of_turn``: ``<|im_end|>``.
- ``generation_prompt``: what ``add_generation_prompt`` appended (``message_index`` None).
- ``separator``: text outside every turn (the ``bos_token``, the newline after ``<|im_end|>``), and
  the whitespace a template writes between the pieces of a turn (``\\n`` between calls, ``\\n\\n``
  after ``</think>``). In an assistant turn, whitespace next to a call or reasoning block is the
  template's unless the message's own content holds it there (the content string, as given or with
  the template's strip, is found in the text with only whitespace around it). Content that is only
  whitespace cannot be told from the template's whitespace beside it: it is taken as content where its
  string stands, even where the template stripped it (Qwen3 after ``</think>``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from .._ids import sequential_ids
from .._model import InvalidToolCall, Reasoning, ToolCall, ToolResponse, Transcript
from .._profiles import DialectProfile
from ..errors import RenderError
from ..tags import ASSISTANT, THINK_CLOSE
from ._chat import recorded_render, render_chat
from ._results import content_text
from ._roundtrip import Recorder, _divergence, verify

__all__ = ["SPAN_KINDS", "Rendered", "RenderedSpan", "SpanKind", "render_spans"]

SpanKind = Literal[
    "header", "content", "reasoning", "tool_call", "tool_result", "end_of_turn", "generation_prompt", "separator"
]
#: Every span kind, in the order the docs list them.
SPAN_KINDS: tuple[SpanKind, ...] = (
    "header", "content", "reasoning", "tool_call", "tool_result", "end_of_turn", "generation_prompt", "separator"
)
_MERGED = frozenset({"content", "separator"})
_WS = re.compile(r"\s*\Z")


@dataclass(frozen=True, slots=True, kw_only=True)
class RenderedSpan:
    """One piece of a rendered prompt: the half-open character range ``[start, end)``, what it is
    (``kind``), the message it comes from (``message_index``, None for text no message wrote: the
    generation prompt, a template's own system turn, the ``bos_token``) and that message's ``role``
    (the turn's role when no message wrote it; None outside every turn).

    >>> RenderedSpan(start=0, end=10, kind="end_of_turn", role="user", message_index=0).length
    10
    """

    start: int
    end: int
    kind: SpanKind
    role: str | None
    message_index: int | None

    @property
    def length(self) -> int:
        """Number of characters covered."""
        return self.end - self.start

    def text(self, source: str) -> str:
        """The covered slice of ``source`` (the ``Rendered.text``)."""
        return source[self.start : self.end]


@dataclass(frozen=True, slots=True, kw_only=True)
class Rendered:
    """A rendered prompt with its spans: ``render(..., return_spans=True)``.

    ``text`` is exactly what ``render`` returns with the same arguments; ``spans`` partition it (in
    order, contiguous, none empty). ``generation_prompt`` is what ``add_generation_prompt=True`` appends
    for these options (whether or not it was appended), ``dialect`` the dialect's name.

    >>> from hermes_toolcall import render
    >>> r = render([{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello"}],
    ...            dialect="qwen2.5", return_spans=True)
    >>> for s in r.spans[4:9]:
    ...     print(s.kind, s.message_index, repr(s.text(r.text)))
    header 0 '<|im_start|>user\\n'
    content 0 'Hi'
    end_of_turn 0 '<|im_end|>'
    separator 0 '\\n'
    header 1 '<|im_start|>assistant\\n'
    """

    text: str
    spans: tuple[RenderedSpan, ...]
    generation_prompt: str
    dialect: str

    def __str__(self) -> str:
        return self.text

    def of_message(self, index: int) -> tuple[RenderedSpan, ...]:
        """The spans message ``index`` wrote, in order."""
        return tuple(s for s in self.spans if s.message_index == index)


# ---- building ------------------------------------------------------------------------------------------------


def render_spans(profile: DialectProfile, messages: list[dict[str, Any]], tools: list[Mapping[str, Any]] | None, *,
                 add_generation_prompt: bool, guard: bool, kwargs: Mapping[str, Any],
                 types: list[Mapping[str, Any]] | None = None) -> Rendered:
    """Render normalised messages with the recorder, parse the prompt back and build its spans.

    Raises:
        RenderError: the prompt would not parse back to this conversation (with ``guard``, the
            round-trip guard's own error; without, spans cannot be given for it).
    """
    if guard:  # the same refusals as render, raised by the same checks
        render_chat(profile, messages, tools, add_generation_prompt=add_generation_prompt, guard=True, kwargs=kwargs,
                    types=types)
    text, pieces, rec, bos, prompt = recorded_render(profile, messages, tools,
                                                     add_generation_prompt=add_generation_prompt, guard=guard,
                                                     kwargs=kwargs)
    from .._parse import parse_transcript  # local import: parse imports the grammar engine

    transcript = parse_transcript(text, dialect=profile, max_block_chars=len(text) + 1, ids=sequential_ids())
    found = _divergence(text, pieces, rec, bos, transcript)
    if found is not None:
        if guard:
            verify(text, pieces, rec, profile=profile, bos=bos, messages=messages, tools=tools,
                   types=types if types is not None else tools)
        raise RenderError(
            f"the prompt does not parse back to this conversation (from offset {found[0]}), so its spans are "
            "not known: return_spans=True needs a prompt that round-trips, even with allow_injection=True",
            offset=found[0])
    base = len(text) - len(prompt) if add_generation_prompt else len(text)
    skeleton = _skeleton(text, transcript, base)
    spans = _attribute(text, skeleton, pieces, rec, messages, profile)
    if add_generation_prompt and prompt:
        spans.append(RenderedSpan(start=base, end=len(text), kind="generation_prompt", role=ASSISTANT,
                                  message_index=None))
    return Rendered(text=text, spans=tuple(spans), generation_prompt=prompt, dialect=profile.name)


# (start, end, kind, turn role or None, whether the span is a call/result matched to a recorded item)
_Piece = tuple[int, int, SpanKind, str | None, bool]


def _skeleton(text: str, transcript: Transcript, base: int) -> list[_Piece]:
    """What each character of ``text[:base]`` is, from the parse (messages not yet known)."""
    out: list[_Piece] = []
    events: list[tuple[int, int, Any]] = [(g.span.start, g.span.end, None) for g in transcript.gaps]
    events += [(t.span.start, t.span.end, t) for t in transcript.turns]
    events.sort(key=lambda e: e[0])
    for start, end, turn in events:
        if start >= base:
            break
        if turn is None:
            out.append((start, min(end, base), "separator", None, False))
            continue
        role = turn.role
        header = turn.header
        out.append((start, min(header.end, base), "header", role, False))
        pos = header.end
        for part in turn.parts:
            s, e = part.span.start, part.span.end
            if s >= base:
                break
            if s > pos:
                out.append((pos, s, "content", role, False))
            e = min(e, base)
            if isinstance(part, (ToolCall, InvalidToolCall)):
                out.append((s, e, "tool_call", role, True))
            elif isinstance(part, ToolResponse):
                out.append((s, e, "tool_result", role, True))
            elif isinstance(part, Reasoning) and role == ASSISTANT:
                out.append((s, e, "reasoning", role, False))
            elif role != ASSISTANT and not text[s:e].strip() and _between_results(turn, part):
                out.append((s, e, "separator", role, False))
            else:
                out.append((s, e, "content", role, False))
            pos = e
        end_span = turn.end
        body_end = end_span.start if end_span is not None else turn.span.end
        if pos < min(body_end, base):
            out.append((pos, min(body_end, base), "content", role, False))
        if end_span is not None and end_span.start < base:
            out.append((end_span.start, min(end_span.end, base), "end_of_turn", role, False))
    return [p for p in out if p[1] > p[0]]


def _between_results(turn: Any, part: Any) -> bool:
    """Whether a whitespace part of a turn that holds results stands next to a result (the template's)."""
    parts = turn.parts
    k = parts.index(part)
    near = [parts[j] for j in (k - 1, k + 1) if 0 <= j < len(parts)]
    return any(isinstance(p, ToolResponse) for p in near)


def _attribute(text: str, skeleton: list[_Piece], pieces: Sequence[str], rec: Recorder,
               messages: Sequence[Mapping[str, Any]], profile: DialectProfile) -> list[RenderedSpan]:
    """Give each piece its message (the recorder's starts and items), split the assistant texts into
    content and separators, and merge neighbours of one kind and message."""
    offsets = [0]
    for piece in pieces:
        offsets.append(offsets[-1] + len(piece))
    items = [origin[0] for _, item, origin in rec.items if item[0] in ("call", "result", "invalid call")]
    with_items = set(items)
    groups: list[tuple[int, list[int | None]]] = []  # (offset, messages starting there, in order)
    for at_piece, index in sorted(rec.starts, key=lambda s: offsets[s[0]]):
        at = offsets[at_piece]
        if groups and groups[-1][0] == at:
            groups[-1][1].append(index)
        else:
            groups.append((at, [index]))
    cuts = sorted({at for at, _ in groups})
    out: list[RenderedSpan] = []
    current: int | None = None
    g = 0
    k = 0
    for start, end, kind, role, is_item in _split(skeleton, cuts):
        while g < len(groups) and groups[g][0] <= start:
            members = groups[g][1]
            current = next((m for m in members if m in with_items), members[-1])
            g += 1
        if is_item:
            if k >= len(items):
                raise RenderError(f"the prompt holds more calls and results than were written (at offset {start})",
                                  offset=start)
            current = items[k]
            k += 1
        index = current
        message = messages[index] if index is not None and 0 <= index < len(messages) else None
        owner = message.get("role") if message is not None else role
        owner = owner if isinstance(owner, str) else role
        if kind == "content" and role == ASSISTANT and message is not None:
            for s, e, what in _content_or_separator(text, start, end, message, profile):
                _add(out, s, e, what, owner, index)
        else:
            _add(out, start, end, kind, owner, index)
    return out


def _split(skeleton: list[_Piece], cuts: list[int]) -> list[_Piece]:
    """The skeleton with every piece that a message start falls inside cut there."""
    out: list[_Piece] = []
    c = 0
    for start, end, kind, role, is_item in skeleton:
        while c < len(cuts) and cuts[c] <= start:
            c += 1
        s = start
        j = c
        while j < len(cuts) and cuts[j] < end:
            out.append((s, cuts[j], kind, role, is_item))
            s = cuts[j]
            j += 1
        out.append((s, end, kind, role, is_item))
    return out


def _add(out: list[RenderedSpan], start: int, end: int, kind: SpanKind, role: str | None, index: int | None) -> None:
    if end <= start:
        return
    if out:
        last = out[-1]
        if last.end == start and last.kind == kind and kind in _MERGED and last.message_index == index \
                and last.role == role:
            out[-1] = RenderedSpan(start=last.start, end=end, kind=kind, role=role, message_index=index)
            return
    out.append(RenderedSpan(start=start, end=end, kind=kind, role=role, message_index=index))


def _candidates(message: Mapping[str, Any], profile: DialectProfile) -> list[str]:
    """The forms a message's content can take in an assistant turn (as given, or stripped as templates do),
    longest first."""
    raw = message.get("content")
    if raw is None:
        return []
    content = raw if isinstance(raw, str) else content_text(raw) if profile.tools_block == "omp" else str(raw)
    if THINK_CLOSE in content:
        content = content.split(THINK_CLOSE)[-1]
    forms = {content, content.lstrip("\n"), content.strip("\n"), content.strip(), content.lstrip(), content.rstrip()}
    return sorted((f for f in forms if f), key=len, reverse=True)


def _content_or_separator(text: str, start: int, end: int, message: Mapping[str, Any],
                          profile: DialectProfile) -> list[tuple[int, int, SpanKind]]:
    """An assistant text piece as (separator, content, separator): the content found with only
    whitespace around it, else all content (all separator when it is only whitespace)."""
    piece = text[start:end]
    for form in _candidates(message, profile):
        at = piece.find(form)
        while at >= 0:
            if _WS.match(piece, 0, at) and _WS.match(piece, at + len(form)):
                return [(start, start + at, "separator"), (start + at, start + at + len(form), "content"),
                        (start + at + len(form), end, "separator")]
            at = piece.find(form, at + 1)
    if not piece.strip():
        return [(start, end, "separator")]
    return [(start, end, "content")]
