"""Where a completion starts: inside a reasoning block or not, as the generation prompt leaves it.

QwQ's generation prompt ends with ``<|im_start|>assistant\\n<think>\\n``: the model's output begins
*inside* ``<think>`` and contains only ``</think>``. ``generation_prompt_state`` reads a generation
prompt (the dialect's own, or the one the caller rendered) with the grammar engine and says which
reasoning block, if any, it leaves open. The parse options' default start state
(``parse_completion(starts_in_reasoning=None)``, ``StreamParser``) is ``_options.start_reasoning_kind``'s,
which reads the dialect's own fixed prompt without the parser (tests/test_options.py checks that the
two agree on every dialect).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from ._model import Reasoning, ReasoningKind
from ._profiles import DialectProfile, get_profile
from .errors import UsageError
from .tags import ASSISTANT, IM_START

__all__ = ["GenerationPromptState", "generation_prompt_state"]


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
        if not turns or turns[-1].role != ASSISTANT or turns[-1].end is not None:
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
