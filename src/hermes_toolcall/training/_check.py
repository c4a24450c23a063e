"""Train/serve skew: ``check_training_render``.

A model fine-tuned on ``render(messages)`` is served with ``render(messages[:i], add_generation_prompt=True)``
and writes turn ``i``. The training text is what it will see only when, for every assistant turn ``i``,

- the inference prompt is a prefix of the turn's training rendering (``render(messages[:i + 1])``):
  else ``prompt_not_prefix`` (HT700). Hermes ``tool_use`` after a tool result renders
  ``</tool_response>\\n<|im_end|>`` in training text but ``</tool_response><|im_end|>`` before the generation
  prompt; QwQ's prompt ends ``<think>\\n``, which a turn never starts with unless its content opens so (the
  template renders ``content`` only, not ``reasoning_content``);
- the rendering of the conversation up to turn ``i`` is a prefix of the whole rendering: else
  ``history_rewritten`` (HT701): a later turn changed the bytes of an earlier one (Qwen3 drops the
  reasoning of turns before the last query and gives only the last turn an empty think block).

With ``text`` (a rendering made elsewhere: LLaMA-Factory's, torchtune's, one's own), ``text_differs``
(HT702) when it is not the official bytes. Each finding has the absolute offset of the first
differing character in the whole training rendering (``TrainingReport.text``; for ``text_differs``, in both
texts), the message it falls in, and short excerpts of both sides.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from .._model import Message
from .._profiles import DialectProfile, get_profile
from ..errors import RenderError, UsageError
from ..render import Rendered, render
from ..tags import ASSISTANT

__all__ = ["FINDING_CODES", "FindingKind", "TrainingFinding", "TrainingReport", "check_training_render"]

FindingKind = Literal["prompt_not_prefix", "history_rewritten", "text_differs", "prompt_not_renderable"]
#: The diagnostic code of each finding kind.
FINDING_CODES: dict[FindingKind, str] = {
    "prompt_not_prefix": "HT700",
    "history_rewritten": "HT701",
    "text_differs": "HT702",
    "prompt_not_renderable": "HT704",
}
_EXCERPT = 40


@dataclass(frozen=True, slots=True, kw_only=True)
class TrainingFinding:
    """One train/serve difference.

    ``offset`` is where the two texts first differ, in the whole training rendering; ``message_index``
    the assistant turn concerned (``prompt_not_prefix``, ``prompt_not_renderable``) or the message
    whose text differs there; ``expected`` the training rendering from ``offset`` on (a few
    characters), ``found`` the other text there (the inference prompt, the earlier rendering, the
    given text).
    """

    kind: FindingKind
    code: str
    offset: int
    message_index: int | None
    message: str
    expected: str
    found: str


@dataclass(frozen=True, slots=True, kw_only=True)
class TrainingReport:
    """What ``check_training_render`` found: ``ok`` when nothing; ``text`` is the training rendering."""

    findings: tuple[TrainingFinding, ...]
    text: str
    dialect: str

    @property
    def ok(self) -> bool:
        """Whether no finding was made."""
        return not self.findings


def check_training_render(
    messages: Iterable[Mapping[str, Any] | Message],
    tools: Iterable[Mapping[str, Any]] | None = None,
    *,
    dialect: str | DialectProfile = "hermes",
    text: str | None = None,
    **template_kwargs: Any,
) -> TrainingReport:
    """Check that training on ``render(messages)`` teaches what serving the model will ask of it.

    Args:
        messages: the conversation (OpenAI-shaped dicts or ``Message`` values).
        tools: its tools.
        dialect: the dialect (its official template).
        text: a rendering of the conversation made elsewhere, compared with the official bytes.
        **template_kwargs: as for ``render`` (``bos_token``, ``enable_thinking``).

    Returns:
        A ``TrainingReport`` (module docstring for the kinds of finding).

    Raises:
        RenderError: the whole conversation cannot be rendered.
        UsageError: bad arguments (as ``render``).

    >>> r = check_training_render([{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello"},
    ...                            {"role": "user", "content": "And?"}, {"role": "assistant", "content": "Done"}],
    ...                           dialect="qwen3")
    >>> [(f.kind, f.offset, f.message_index) for f in r.findings]
    [('history_rewritten', 52, 1)]
    >>> r.findings[0].expected, r.findings[0].found
    ('Hello<|im_end|>\\n<|im_start|>user\\nAnd?<|i', '<think>\\n\\n</think>\\n\\nHello<|im_end|>\\n')
    """
    if text is not None and not isinstance(text, str):
        raise UsageError(f"text must be a string, got {type(text).__name__}")
    profile = get_profile(dialect)
    msgs = list(messages) if not isinstance(messages, (str, bytes, Mapping)) else messages
    tool_list = list(tools) if tools is not None and not isinstance(tools, (str, bytes, Mapping)) else tools
    whole = render(msgs, tools=tool_list, dialect=profile, return_spans=True, **template_kwargs)
    full = whole.text
    findings: list[TrainingFinding] = []
    seen: set[tuple[str, int]] = set()

    def add(kind: FindingKind, offset: int, index: int | None, message: str, expected: str, found: str) -> None:
        if (kind, offset) in seen:
            return
        seen.add((kind, offset))
        findings.append(TrainingFinding(kind=kind, code=FINDING_CODES[kind], offset=offset, message_index=index,
                                        message=f"{FINDING_CODES[kind]} {message}", expected=expected, found=found))

    assert isinstance(msgs, list)
    for i in range(1, len(msgs)):
        if _role(msgs[i]) != ASSISTANT:
            continue
        try:
            turn = render(msgs[: i + 1], tools=tool_list, dialect=profile, return_spans=True,
                          **template_kwargs)
            prompt = render(msgs[:i], tools=tool_list, dialect=profile,
                            add_generation_prompt=True, **template_kwargs)
        except RenderError as exc:
            at = _turn_start(whole, i)
            add("prompt_not_renderable", at, i, f"message {i}: the conversation before this turn cannot be rendered "
                f"as an inference prompt ({exc}), so this turn is trained on a prefix no server renders",
                _cut(full, at), "")
            continue
        common = _common(turn.text, full)
        if common < len(turn.text):
            index = _message_at(whole, common)
            add("history_rewritten", common, index,
                f"message {index}: rendered up to turn {i}, the conversation reads differently at offset {common} "
                "than in the whole rendering: a later turn rewrites this one, so turn "
                f"{i} is trained after a history that serving it shows differently", _cut(full, common),
                _cut(turn.text, common))
        d = _common(prompt, turn.text)
        if d < len(prompt):
            offset = d if d <= common else d - _turn_start(turn, i) + _turn_start(whole, i)
            add("prompt_not_prefix", offset, i,
                f"message {i}: the inference prompt (the conversation before it with the generation prompt) is not a "
                f"prefix of this turn's training rendering: they differ at offset {offset}, so the model is trained "
                "to continue a prompt it is never served", _cut(full, offset), _cut(prompt, d))
    if text is not None and text != full:
        d = _common(text, full)
        index = _message_at(whole, d) if d < len(full) else None
        add("text_differs", d, index, f"the text given differs from the official {profile.name} rendering at offset "
            f"{d}" + (f" (message {index})" if index is not None else ""), _cut(full, d), _cut(text, d))
    findings.sort(key=lambda f: (f.offset, f.kind))
    return TrainingReport(findings=tuple(findings), text=full, dialect=profile.name)


def _role(message: Any) -> Any:
    return message.get("role") if isinstance(message, Mapping) else getattr(message, "role", None)


def _common(a: str, b: str) -> int:
    """The length of the common prefix of ``a`` and ``b``."""
    n = min(len(a), len(b))
    if a[:n] == b[:n]:
        return n
    lo, hi = 0, n  # a[:lo] == b[:lo], a[:hi] != b[:hi]
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid
    return lo


def _cut(text: str, at: int) -> str:
    return text[at : at + _EXCERPT]


def _message_at(rendered: Rendered, offset: int) -> int | None:
    for s in rendered.spans:
        if s.start <= offset < s.end:
            return s.message_index
    return None


def _turn_start(rendered: Rendered, index: int) -> int:
    """Where message ``index``'s text starts (its header), or the end of the text."""
    spans: Sequence[Any] = rendered.spans
    return next((s.start for s in spans if s.message_index == index), len(rendered.text))
