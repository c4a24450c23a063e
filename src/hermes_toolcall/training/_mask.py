"""Which characters of a rendered conversation a model is trained on: ``train_mask``.

A policy picks assistant messages; in each, the trained characters are its turn's body and its
``<|im_end|>``: every span of the message after its header up to and including its ``end_of_turn``
(content, reasoning, calls and the template's separators between them). ``include_reasoning=False``
leaves out the reasoning blocks and the separator that follows each (``\\n\\n`` after ``</think>``);
``include_end_of_turn=False`` leaves out ``<|im_end|>``. The header (``<|im_start|>assistant\\n``), the
newline after ``<|im_end|>``, every other role's text and the generation prompt are never trained.
"""

from __future__ import annotations

from typing import Literal

from ..errors import RenderError, UsageError
from ..render import Rendered, RenderedSpan
from ..tags import ASSISTANT

__all__ = ["POLICIES", "MaskPolicy", "train_mask"]

MaskPolicy = Literal["all_assistant", "last_assistant", "completion"]
#: The policies of ``train_mask``.
POLICIES: tuple[MaskPolicy, ...] = ("all_assistant", "last_assistant", "completion")


def train_mask(
    rendered: Rendered,
    policy: MaskPolicy = "all_assistant",
    *,
    include_end_of_turn: bool = True,
    include_reasoning: bool = True,
) -> tuple[tuple[int, int], ...]:
    """The trained character intervals of a rendered conversation, half-open, sorted and merged.

    Args:
        rendered: ``render(..., return_spans=True)``.
        policy: ``all_assistant`` (every assistant turn), ``last_assistant`` (the last assistant turn),
            ``completion`` (the final message when it is an assistant turn, from the end of the dialect's
            generation prompt on: what a model served with the conversation before it writes; nothing when
            the conversation does not end with an assistant turn, or ends with the generation prompt).
        include_end_of_turn: train ``<|im_end|>`` (the model learns to stop).
        include_reasoning: train the reasoning blocks (``<think>…</think>`` and the separator after).

    Returns:
        ``((start, end), …)``: offsets into ``rendered.text``.

    Raises:
        UsageError: an unknown policy, or ``rendered`` is not a ``Rendered``.
        RenderError: ``policy="completion"`` and the final turn does not start with the generation
            prompt (the model would be trained on text it never writes; ``check_training_render`` says
            where, HT700).

    >>> from hermes_toolcall import render
    >>> r = render([{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello"}],
    ...            dialect="qwen2.5", return_spans=True)
    >>> [r.text[s:e] for s, e in train_mask(r)]
    ['Hello<|im_end|>']
    """
    if not isinstance(rendered, Rendered):
        raise UsageError(f"train_mask needs render(..., return_spans=True), got {type(rendered).__name__}")
    if policy not in POLICIES:
        raise UsageError(f"unknown policy {policy!r} ({', '.join(POLICIES)})")
    turns = assistant_turns(rendered)
    if policy == "last_assistant":
        turns = turns[-1:]
    elif policy == "completion":
        final = [s.message_index for s in rendered.spans if s.message_index is not None]
        prompted = bool(rendered.spans) and rendered.spans[-1].kind == "generation_prompt"
        turns = [t for t in turns[-1:] if final and t[0].message_index == final[-1] and not prompted]
    out: list[tuple[int, int]] = []
    for spans in turns:
        start_at = 0
        if policy == "completion":
            start_at = _after_prompt(rendered, spans)
        for s in _trained(spans, include_end_of_turn=include_end_of_turn, include_reasoning=include_reasoning):
            start, end = max(s.start, start_at), s.end
            if end <= start:
                continue
            if out and out[-1][1] == start:
                out[-1] = (out[-1][0], end)
            else:
                out.append((start, end))
    return tuple(out)


def assistant_turns(rendered: Rendered) -> list[list[RenderedSpan]]:
    """The spans of each assistant message, in order (messages that wrote nothing left out)."""
    by_message: dict[int, list[RenderedSpan]] = {}
    for s in rendered.spans:
        if s.message_index is not None and s.role == ASSISTANT:
            by_message.setdefault(s.message_index, []).append(s)
    return [by_message[i] for i in sorted(by_message)]


def _trained(spans: list[RenderedSpan], *, include_end_of_turn: bool, include_reasoning: bool) -> list[RenderedSpan]:
    """The trained spans of one assistant message: after its header, up to its ``end_of_turn``."""
    out: list[RenderedSpan] = []
    in_body = False
    after_dropped = False
    for s in spans:
        if s.kind == "header":
            in_body = True
            continue
        if not in_body:
            continue
        if s.kind == "end_of_turn":
            if include_end_of_turn:
                out.append(s)
            break
        if s.kind == "reasoning" and not include_reasoning:
            after_dropped = True
            continue
        if s.kind == "separator" and after_dropped:
            continue
        after_dropped = False
        out.append(s)
    return out


def _after_prompt(rendered: Rendered, spans: list[RenderedSpan]) -> int:
    """Where the final turn's text goes past the generation prompt (its header start + the prompt)."""
    header = next((s for s in spans if s.kind == "header"), None)
    if header is None:
        return spans[0].start
    prompt = rendered.generation_prompt
    turn_end = spans[-1].end
    got = rendered.text[header.start : min(turn_end, header.start + len(prompt))]
    if got != prompt:
        k = next((k for k, (a, b) in enumerate(zip(got, prompt, strict=False)) if a != b), min(len(got), len(prompt)))
        raise RenderError(
            f"HT700 message {header.message_index}: the final turn does not start with the generation prompt "
            f"{prompt!r} (it differs at offset {header.start + k}): a model served with this conversation never "
            "writes this turn as rendered, so there is no completion to train (check_training_render; the policies "
            "all_assistant and last_assistant train the turn as rendered)",
            message_index=header.message_index, offset=header.start + k)
    return header.start + len(prompt)
