"""The leading reasoning of an output, split off by the engine for a server's reasoning phase.

Servers (vLLM's ``Parser.parse_delta``) run a reasoning parser first and hand the rest of the output
to the tool parser once the reasoning parser confirms that reasoning ended. ``LeadingReasoning``
feeds the output to a ``StreamParser`` until the leading reasoning block (opened by the output, or
already open in the prompt) is closed, or the output turned out not to start with reasoning; then
it hands over the raw rest of the output, unparsed, so the tool parser reads every character
exactly once. Reasoning text follows ``Completion.to_openai()`` (one leading and one trailing
newline of the block dropped), and the newlines right after the closing tag are not content
(``to_openai`` drops them too), so the hand-over waits for the first other character.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .._events import Event, ReasoningEnd, ReasoningStart, TextDelta, ToolCallEnd, ToolCallStart
from .._model import ReasoningKind
from .._openai_chunks import OpenAIChunker
from ..statemachine import State, StreamParser
from ..tags import IM_START
from ._session import Policy, stream_parser

__all__ = ["LeadingReasoning", "Split", "prompt_opens_reasoning"]

_WS = " \t\n\r"
_TEXT_STATES = (State.ASSISTANT, State.REASONING)


def prompt_opens_reasoning(prompt: str, kinds: tuple[ReasoningKind, ...] = ("think", "scratch_pad")) -> bool | None:
    """Whether a rendered prompt leaves a reasoning block open for the model (read after the last turn header).

    Returns:
        True: the generation prompt opened reasoning (QwQ, Qwen3 thinking forced open); False: it
        opened and closed it (Qwen3 ``enable_thinking=False``); None: it has no reasoning tag.

    >>> prompt_opens_reasoning("<|im_start|>user\\nhi<|im_end|>\\n<|im_start|>assistant\\n<think>\\n")
    True
    >>> prompt_opens_reasoning("<|im_start|>assistant\\n<think>\\n\\n</think>\\n\\n")
    False
    >>> prompt_opens_reasoning("<|im_start|>assistant\\n") is None
    True
    """
    tail = prompt[prompt.rfind(IM_START) + 1 :] if IM_START in prompt else prompt
    state: bool | None = None
    best = -1
    for kind in kinds:
        opened, closed = tail.rfind(f"<{kind}>"), tail.rfind(f"</{kind}>")
        at = max(opened, closed)
        if at > best:
            best, state = at, opened > closed
    return state


@dataclass(frozen=True, slots=True, kw_only=True)
class Split:
    """What one fed delta gave: reasoning text, and the raw rest of the output once reasoning ended."""

    reasoning: str = ""
    content: str | None = None  # None until the hand-over


@dataclass(slots=True)
class LeadingReasoning:
    """Feed the output; ``ended`` once the leading reasoning is over (``Split.content`` is the hand-over).

    Args:
        dialect: the dialect name.
        starts_in_reasoning: the prompt left a reasoning block open.

    >>> r = LeadingReasoning("qwen3")
    >>> r.feed("<think>\\nhm\\n</think>\\n\\n")
    Split(reasoning='hm', content=None)
    >>> r.feed("Hi <tool")
    Split(reasoning='', content='Hi <tool')
    """

    dialect: str
    starts_in_reasoning: bool = False
    ended: bool = field(init=False, default=False)
    _parser: StreamParser = field(init=False)
    _chunker: OpenAIChunker = field(init=False)
    _raw: list[str] = field(init=False, default_factory=list)
    _kind: ReasoningKind | None = field(init=False, default=None)
    _closed_at: int = field(init=False, default=-1)  # raw offset after the leading block's closing tag

    def __post_init__(self) -> None:
        self._parser = stream_parser(Policy(dialect=self.dialect, starts_in_reasoning=self.starts_in_reasoning))
        self._chunker = OpenAIChunker()
        self._chunker.start()
        if self.starts_in_reasoning:
            self._kind = self._parser.options.profile.reasoning_kinds[0]

    def feed(self, text: str) -> Split:
        """Feed the next delta (after the hand-over, feed the tool parser instead)."""
        if self.ended:
            return Split(content=text)
        self._raw.append(text)
        events = self._parser.feed(text)
        return self._split(events, final=False)

    def close(self) -> Split:
        """End of the output while still in the reasoning phase: the rest of the reasoning, and any text."""
        if self.ended:
            return Split()
        return self._split(self._parser.close(), final=True)

    def _split(self, events: list[Event], *, final: bool) -> Split:
        hand_over = False
        lead: list[Event] = []  # the events of the leading block (the rest belongs to the tool parser)
        for e in events:
            if self._closed_at >= 0 or hand_over:
                break
            if isinstance(e, ReasoningStart) and self._kind is None and e.opened:
                self._kind = e.kind
            elif isinstance(e, ReasoningEnd) and e.closed:
                raw = "".join(self._raw)
                self._raw = [raw]
                closer = f"</{e.kind}>"
                self._closed_at = raw.find(closer) + len(closer)
            elif isinstance(e, TextDelta) and self._kind is None and e.text.strip(_WS):
                hand_over = True  # the output does not start with reasoning
                break
            elif isinstance(e, (ToolCallStart, ToolCallEnd)) and self._kind is None:
                hand_over = True
                break
            lead.append(e)
        reasoning = [c["choices"][0]["delta"].get("reasoning_content") or "" for c in self._chunker.feed(lead)]
        if self._kind is None and self._parser.state not in _TEXT_STATES:
            hand_over = True  # a call (or another block) opened first
        if self._closed_at >= 0:
            raw = "".join(self._raw)
            self._raw = [raw]
            rest = raw[self._closed_at :].lstrip("\n")
            if rest or final:
                self.ended = True
                return Split(reasoning="".join(reasoning), content=rest)
        elif hand_over or (final and self._kind is None):
            self.ended = True
            return Split(reasoning="".join(reasoning), content="".join(self._raw))
        return Split(reasoning="".join(reasoning))
