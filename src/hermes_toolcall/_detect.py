"""Guessing the dialect of a transcript or completion from the marks each template leaves.

Each *signal* is an exact substring (``in``/``str.endswith``) or a compiled regular expression with
weights for the dialects it points to (negative weights point away). The dialect with the highest
score wins; ties go to the first of ``hermes``, ``qwen3``, ``qwen2.5``, ``qwq``, ``hermes-vllm``,
``omp``. Confidence grows with the winner's margin over the runner-up and with the winner's score:
``min(1, s1 / 5) * (1 - exp(-(s1 - s2) / 2) / 2)``, clamped to ``[0.1, 0.99]``; with no evidence at all
the guess is ``hermes`` with confidence 0.1. The scan is linear in the text.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass

from ._argcheck import check_text
from ._profiles import DIALECTS
from .errors import HermesError, internal_error
from .tags import (
    ASSISTANT,
    CALL_CLOSE,
    CALL_OPEN,
    IM_END,
    IM_START,
    RESP_CLOSE,
    RESP_OPEN,
    SCRATCH_OPEN,
    SYSTEM,
    THINK_CLOSE,
    THINK_OPEN,
    TOOL,
    USER,
)

__all__ = ["DialectGuess", "detect_dialect"]

_PREFERENCE = ("hermes", "qwen3", "qwen2.5", "qwq", "hermes-vllm", "omp")  # tie order
_HERMES = ("hermes", "hermes-vllm")
_QWEN = ("qwen3", "qwen2.5", "qwq")
_QWEN_TOOLS = (
    "# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
    "You are provided with function signatures within <tools></tools> XML tags:"
)
_OMP_TOOLS = (
    "# Tools\n\nYou may call one or more functions to assist with the user query.\n"
    "Tool calls are emitted as text"
)
_THINK_GLUED = re.compile(re.escape(THINK_CLOSE) + r"(?:[^ \t\n\r<]|<(?!" + re.escape(IM_END[1:]) + "))")
_COMPACT_CALL = re.compile(re.escape(CALL_OPEN) + r'[ \t\n\r]*\{"name":"')
_SPACED_CALL = re.compile(re.escape(CALL_OPEN) + r'[ \t\n\r]*\{"name": "')


@dataclass(frozen=True, slots=True, kw_only=True)
class DialectGuess:
    """The guessed dialect, how sure the guess is (0.1-0.99), and the evidence that was found.

    Attributes:
        dialect: a profile name from `hermes_toolcall._profiles.DIALECTS`.
        confidence: 0.1 (no evidence) up to 0.99.
        evidence: the signals found, in a fixed order, each as a short sentence.
        scores: every dialect's score, highest first.
    """

    dialect: str
    confidence: float
    evidence: tuple[str, ...]
    scores: tuple[tuple[str, int], ...] = ()


def _contains(marker: str) -> Callable[[str], bool]:
    return lambda text: marker in text


def _matches(pattern: re.Pattern[str]) -> Callable[[str], bool]:
    return lambda text: pattern.search(text) is not None


def _weights(names: tuple[str, ...], weight: int) -> dict[str, int]:
    return dict.fromkeys(names, weight)


_SIGNALS: tuple[tuple[str, Callable[[str], bool], dict[str, int]], ...] = (
    ("Hermes system prompt ('You are a function calling AI model.')",
     _contains("You are a function calling AI model."), _weights(_HERMES, 3)),
    ("Hermes tools line ('Here are the available tools: <tools> ')",
     _contains("Here are the available tools: <tools> "), _weights(_HERMES, 2)),
    ("Hermes tools system turn ends with a newline (Hugging Face template)",
     _contains("<args-dict>}\n</tool_call><|im_end|>\n"), {"hermes": 4}),
    ("a turn glued to the next one after </tool_call><|im_end|> (vLLM's Hermes template)",
     _contains(f"{CALL_CLOSE}{IM_END}{IM_START}"), {"hermes-vllm": 4}),
    ("Qwen tools prompt ('# Tools ... You are provided with function signatures')",
     _contains(_QWEN_TOOLS), _weights(_QWEN, 3)),
    ("omp in-band tool prompt ('Tool calls are emitted as text')", _contains(_OMP_TOOLS), {"omp": 6}),
    ("omp format guide", _contains("Emit each call as a `<tool_call>` block wrapping a single-line JSON object"),
     {"omp": 3}),
    ("Qwen2.5 default system prompt ('You are Qwen, created by Alibaba Cloud')",
     _contains("You are Qwen, created by Alibaba Cloud"), {"qwen2.5": 3}),
    ("Qwen tools system turn without a system message (Qwen3)", _contains(f"{IM_START}{SYSTEM}\n" + _QWEN_TOOLS),
     {"qwen3": 3}),
    ("QwQ system turn without a system message ('<|im_start|>system\\n\\n\\n# Tools')",
     _contains("<|im_start|>system\n\n\n# Tools"), {"qwq": 3}),
    ("QwQ generation prompt ('<|im_start|>assistant\\n<think>\\n' at the end)",
     lambda text: text.endswith(f"{IM_START}{ASSISTANT}\n{THINK_OPEN}\n"), {"qwq": 3}),
    ("generation prompt without <think> (not QwQ)", lambda text: text.endswith(f"{IM_START}{ASSISTANT}\n"),
     {"qwq": -2}),
    ("Qwen3 generation prompt with thinking disabled (empty <think> at the end)",
     lambda text: text.endswith(f"{IM_START}{ASSISTANT}\n{THINK_OPEN}\n\n{THINK_CLOSE}\n\n"), {"qwen3": 3}),
    ("empty reasoning block '<think>\\n\\n</think>\\n\\n' (Qwen3)", _contains(f"{THINK_OPEN}\n\n{THINK_CLOSE}\n\n"),
     {"qwen3": 2}),
    ("an assistant turn opens with <think>",
     lambda text: f"{IM_START}{ASSISTANT}\n{THINK_OPEN}" in text or text.lstrip(" \t\n\r").startswith(THINK_OPEN),
     {"qwen3": 1, "qwq": 1, "omp": 1}),
    ("text glued to </think> with no separator (omp)", _matches(_THINK_GLUED), {"omp": 2}),
    ("'</think>' followed by a blank line (Qwen)", _contains(f"{THINK_CLOSE}\n\n"), {"qwen3": 1, "qwq": 1}),
    ("results in a 'tool' turn", _contains(f"{IM_START}{TOOL}\n"), {"hermes": 1, "hermes-vllm": 1, "omp": 1}),
    ("results folded into a 'user' turn", _contains(f"{IM_START}{USER}\n{RESP_OPEN}"), _weights(_QWEN, 1)),
    ("tool turn glued to the next turn ('</tool_response>\\n<|im_end|><|im_start|>', Hermes)",
     _contains(f"{RESP_CLOSE}\n{IM_END}{IM_START}"), _weights(_HERMES, 2)),
    ("compact call JSON ('{\"name\":\"', omp)", _matches(_COMPACT_CALL), {"omp": 2}),
    ("spaced call JSON ('{\"name\": \"', Python json.dumps)", _matches(_SPACED_CALL),
     _weights((*_HERMES, *_QWEN), 1)),
    ("Llama-3 BOS token first (Hermes)", lambda text: text.startswith("<|begin_of_text|>"), _weights(_HERMES, 1)),
    ("double-encoded string arguments ('\"arguments\": \"{')", _contains('"arguments": "{'),
     {"hermes-vllm": 1, "qwen2.5": 1, "qwq": 1}),
    ("<scratch_pad> reasoning (Hermes 3)", _contains(SCRATCH_OPEN), _weights(_HERMES, 1)),
)


def _final_assistant_body(text: str) -> str | None:
    """The body of the last closed turn when it is an assistant turn (a trailing generation prompt skipped)."""
    end = text.rstrip(" \t\n\r")
    last = end.rfind(IM_START)
    if last >= 0 and IM_END not in end[last:]:  # an open turn (generation prompt) at the end
        end = end[:last].rstrip(" \t\n\r")
        last = end.rfind(IM_START)
    if last < 0 or not end.endswith(IM_END):
        return None
    header = f"{IM_START}{ASSISTANT}\n"
    if not end.startswith(header, last):
        return None
    return end[last + len(header) : len(end) - len(IM_END)]


def _rank(name: str) -> int:
    return _PREFERENCE.index(name) if name in _PREFERENCE else len(_PREFERENCE)


def _confidence(s1: int, s2: int) -> float:
    strength = min(1.0, s1 / 5)
    value = strength * (1 - math.exp(-(s1 - s2) / 2) / 2)
    return round(min(0.99, max(0.1, value)), 2)


def detect_dialect(text: str) -> DialectGuess:
    """Guess which dialect wrote ``text`` (a transcript or a completion); never raises on a str.

    Args:
        text: a ChatML transcript, a system prompt, or a completion.

    Returns:
        A `DialectGuess`; ``hermes`` with confidence 0.1 when nothing points anywhere.

    Raises:
        UsageError: ``text`` is not a str.

    >>> detect_dialect('<tool_call>\\n{"name":"read","arguments":{"path":"a.ts"}}\\n</tool_call>').dialect
    'omp'
    >>> detect_dialect("hello").confidence
    0.1
    """
    check_text("text", text)
    try:
        return _detect(text)
    except (HermesError, MemoryError):
        raise
    except Exception as exc:  # only HermesError escapes: anything else is a bug
        raise internal_error("detect_dialect", exc) from exc


def _detect(text: str) -> DialectGuess:
    scores = dict.fromkeys(DIALECTS, 0)
    evidence: list[str] = []
    for description, found, weights in _SIGNALS:
        if found(text):
            evidence.append(description)
            for name, weight in weights.items():
                if name in scores:
                    scores[name] += weight
    body = _final_assistant_body(text)
    if body is not None and _QWEN_TOOLS in text:
        if body.startswith(THINK_OPEN):
            evidence.append("the final assistant turn opens with <think> (Qwen3 renders one after the last query)")
            scores["qwen3"] = scores.get("qwen3", 0) + 2
        else:
            evidence.append("the final assistant turn has no <think> block (Qwen3 would render one)")
            scores["qwen3"] = scores.get("qwen3", 0) - 2
    ranked = sorted(scores, key=lambda name: (-scores[name], _rank(name)))
    ranking = tuple((name, scores[name]) for name in ranked)
    best, runner_up = ranked[0], ranked[1]
    if scores[best] <= 0:
        return DialectGuess(dialect="hermes", confidence=0.1, evidence=tuple(evidence), scores=ranking)
    confidence = _confidence(scores[best], max(scores[runner_up], 0))
    return DialectGuess(dialect=best, confidence=confidence, evidence=tuple(evidence), scores=ranking)
