"""Where a completion starts: inside a reasoning block or not, as the generation prompt leaves it.

QwQ's generation prompt ends with ``<|im_start|>assistant\\n<think>\\n``: the model's output begins
*inside* ``<think>`` and contains only ``</think>``. ``generation_prompt_state`` reads a generation
prompt (the dialect's own, or the one the caller rendered) with the grammar engine and says which
reasoning block, if any, it leaves open; ``parse_completion(starts_in_reasoning=None)`` and
``StreamParser`` use it to pick their start state.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from ._model import Reasoning, ReasoningKind
from ._profiles import DialectProfile, get_profile
from .errors import UsageError
from .tags import IM_START

__all__ = ["GenerationPromptState", "generation_prompt_state", "start_reasoning_kind"]


@dataclass(frozen=True, slots=True, kw_only=True)
class GenerationPromptState:
    """How a generation prompt leaves the assistant turn the model continues.

    Attributes:
        prompt: the generation prompt text that was read.
        reasoning: the kind of the reasoning block the prompt leaves open (the completion starts
            inside it), or None when the completion starts outside any block.
    """

    prompt: str
    reasoning: ReasoningKind | None

    @property
    def starts_in_reasoning(self) -> bool:
        """True when the completion begins inside a reasoning block (pass it as ``starts_in_reasoning``)."""
        return self.reasoning is not None


def _open_kind(prompt: str, profile: DialectProfile) -> ReasoningKind | None:
    start = prompt.rfind(IM_START)
    return _open_kind_of_tail(prompt[start:] if start >= 0 else prompt, profile)


@lru_cache(maxsize=64)
def _open_kind_of_tail(prompt: str, profile: DialectProfile) -> ReasoningKind | None:
    """The kind left open by the last turn of ``prompt`` (which starts at that turn, if it has turns)."""
    from ._ids import sequential_ids
    from ._options import ParseOptions
    from ._parse import parse_completion_with, parse_transcript_with

    options = ParseOptions.make(dialect=profile, starts_in_reasoning=False, ids=sequential_ids())
    if prompt.startswith(IM_START):
        turns = parse_transcript_with(prompt, options).turns
        if not turns or turns[-1].role != "assistant" or turns[-1].end is not None:
            return None
        parts = turns[-1].parts
    else:
        parts = parse_completion_with(prompt, options).parts
    last = parts[-1] if parts else None
    if isinstance(last, Reasoning) and not last.closed:
        return last.kind
    return None


def generation_prompt_state(
    dialect: str | DialectProfile = "hermes", *, enable_thinking: bool | None = None, prompt: str | None = None
) -> GenerationPromptState:
    """Where a completion generated after the generation prompt starts.

    Args:
        dialect: a dialect name or profile.
        enable_thinking: the ``enable_thinking`` the prompt was rendered with: ``False`` selects the
            dialect's no-thinking generation prompt where it has one (Qwen3:
            ``<think>\\n\\n</think>\\n\\n``, the block is closed); None or True the usual one.
        prompt: the rendered prompt (or just its end) when it is not the dialect's own, e.g. a
            template that forces thinking open (Qwen3 ``*-Thinking-2507``, DeepSeek-R1 distills end
            the prompt with ``<think>\\n``). Its last assistant turn, left open, is read.

    Returns:
        The state: ``.starts_in_reasoning`` and ``.reasoning`` (the block's kind).

    Raises:
        UsageError: an unknown dialect, or a ``prompt`` that is not a ``str``.

    >>> generation_prompt_state("qwq").starts_in_reasoning, generation_prompt_state("qwen3").starts_in_reasoning
    (True, False)
    >>> generation_prompt_state("qwen3", prompt="<|im_start|>assistant\\n<think>\\n").reasoning
    'think'
    """
    profile = get_profile(dialect)
    if prompt is None:
        prompt = profile.generation_prompt
        if enable_thinking is False and profile.generation_prompt_no_thinking is not None:
            prompt = profile.generation_prompt_no_thinking
    elif not isinstance(prompt, str):
        raise UsageError(f"prompt must be a str, got {type(prompt).__name__}")
    return GenerationPromptState(prompt=prompt, reasoning=_open_kind(prompt, profile))


# (generation prompt, reasoning kinds) -> the kind that prompt leaves open: read once per profile shape (a
# parse per call would cost more than parsing a short completion)
_DEFAULT_KINDS: dict[tuple[str, tuple[ReasoningKind, ...]], ReasoningKind | None] = {}


def start_reasoning_kind(profile: DialectProfile, starts_in_reasoning: bool | None) -> ReasoningKind | None:
    """The reasoning kind a completion starts in (None: outside), for the option value given.

    None means "as the dialect's generation prompt leaves it"; True means inside the kind that
    prompt opens, else the dialect's first reasoning kind.

    Raises:
        UsageError: True for a dialect without reasoning kinds, or a value that is not a bool or None.

    >>> start_reasoning_kind(get_profile("qwq"), None), start_reasoning_kind(get_profile("qwen3"), True)
    ('think', 'think')
    """
    if starts_in_reasoning is False:
        return None
    if starts_in_reasoning is not None and starts_in_reasoning is not True:
        raise UsageError(f"starts_in_reasoning must be True, False or None, got {starts_in_reasoning!r}")
    key = (profile.generation_prompt, profile.reasoning_kinds)  # all the answer depends on; cheap to hash
    if key in _DEFAULT_KINDS:
        kind = _DEFAULT_KINDS[key]
    else:
        kind = _DEFAULT_KINDS[key] = _open_kind(profile.generation_prompt, profile) if profile.reasoning_kinds else None
    if starts_in_reasoning is None or kind is not None:
        return kind
    if not profile.reasoning_kinds:
        raise UsageError(f"dialect {profile.name!r} has no reasoning kinds: starts_in_reasoning=True is impossible")
    return profile.reasoning_kinds[0]
