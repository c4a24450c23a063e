"""Guessing the dialect of a transcript or completion from the marks each template leaves.

Each *signal* is an exact substring (``in``/``str.endswith``) or a compiled regular expression with
weights for the dialects it points to (negative weights point away). The dialect with the highest
score wins; ties go to the first of ``hermes``, ``qwen3``, ``qwen2.5``, ``qwq``, ``hermes-vllm``,
``omp``, ``qwen3.5``, ``qwen3-coder``, ``nemotron-3``, ``step-3.5``. Confidence grows with the winner's margin
over the runner-up and with the winner's score: ``min(1, s1 / 5) * (1 - exp(-(s1 - s2) / 2) / 2)``, clamped to
``[0.1, 0.99]``.

When no profile fits, the answer is ``unknown`` (not a profile name) with a low confidence, rather than the
closest wrong profile: with no evidence at all (confidence 0.1), or when marks of a template that is no profile
(Llama 3 headers, GLM's ``[gMASK]``, Granite's roles, Bielik's ``<|function_list|>``, MiMo's default system
prompt, …) weigh at least as much as the best profile's score (confidence at most 0.3; the evidence names
them, ``scores`` still ranks the profiles). The scan is linear in the text.
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
    TOOL_RESPONSE,
    TOOLS_OPEN,
    USER,
)

__all__ = ["UNKNOWN", "DialectGuess", "detect_dialect"]

#: The guess when no profile fits (not a dialect name).
UNKNOWN = "unknown"
_PREFERENCE = ("hermes", "qwen3", "qwen2.5", "qwq", "hermes-vllm", "omp", "qwen3.5", "qwen3-coder", "nemotron-3",
               "step-3.5")  # tie order
_HERMES = ("hermes", "hermes-vllm")
_QWEN = ("qwen3", "qwen2.5", "qwq")
_XML = ("qwen3-coder", "qwen3.5", "nemotron-3", "step-3.5")
_JSON = ("hermes", "hermes-vllm", "qwen3", "qwen2.5", "qwq", "omp")
_OPEN_THINK_PROMPT = ("qwen3.5", "nemotron-3", "step-3.5")  # generation prompts that end inside <think>
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
_JSON_BODY = re.compile(re.escape(CALL_OPEN) + r"[ \t\n\r]*\{")
_XML_BODY = re.compile(re.escape(CALL_OPEN) + r"[ \t\n\r]*<function=")
_XML_TOOLS = "You have access to the following functions:\n\n<tools>"
_CODER_TOOLS = "# Tools\n\nYou have access to the following tools:\n\n<tools>"
_STEP_TOOLS = "You have access to the following functions in JSONSchema format:\n\n<tools>"
_ONE_NEWLINE_AFTER_THINK = re.compile(re.escape(THINK_CLOSE) + r"\n[^\n<]")


@dataclass(frozen=True, slots=True, kw_only=True)
class DialectGuess:
    """The guessed dialect, how sure the guess is (0.1-0.99), and the evidence that was found.

    Attributes:
        dialect: a profile name from `hermes_toolcall._profiles.DIALECTS`, or ``unknown`` when no profile fits.
        confidence: 0.1 (no evidence) up to 0.99; at most 0.3 for ``unknown``.
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
    ("Qwen3-Coder tools prompt ('You have access to the following tools:')", _contains(_CODER_TOOLS),
     {"qwen3-coder": 6}),
    ("Qwen3-Coder default system prompt ('You are Qwen, a helpful AI assistant that can interact with a computer')",
     _contains("You are Qwen, a helpful AI assistant that can interact with a computer"), {"qwen3-coder": 3}),
    ("XML-body tools prompt ('You have access to the following functions:')", _contains(_XML_TOOLS),
     {"qwen3.5": 3, "nemotron-3": 3}),
    ("JSON tool lines after it (Qwen3.5)", _contains(_XML_TOOLS + "\n{"), {"qwen3.5": 3}),
    ("XML-like tool list after it (Nemotron)", _contains(_XML_TOOLS + "\n<function>"), {"nemotron-3": 3}),
    ("Step tools prompt ('... functions in JSONSchema format:')", _contains(_STEP_TOOLS), {"step-3.5": 6}),
    ("system text after the call-format reminder (Qwen3.5)",
     _matches(re.compile(r"</IMPORTANT>\n\n[^<]")), {"qwen3.5": 2}),
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
     lambda text: text.endswith(f"{IM_START}{ASSISTANT}\n{THINK_OPEN}\n"),
     {"qwq": 3, **_weights(_OPEN_THINK_PROMPT, 3)}),
    ("generation prompt without <think> (not QwQ)", lambda text: text.endswith(f"{IM_START}{ASSISTANT}\n"),
     {"qwq": -2, **_weights(_OPEN_THINK_PROMPT, -2)}),
    ("Qwen3 generation prompt with thinking disabled (empty <think> at the end)",
     lambda text: text.endswith(f"{IM_START}{ASSISTANT}\n{THINK_OPEN}\n\n{THINK_CLOSE}\n\n"),
     {"qwen3": 3, "qwen3.5": 3}),
    ("Nemotron generation prompt with thinking disabled ('<think></think>' at the end)",
     lambda text: text.endswith(f"{IM_START}{ASSISTANT}\n{THINK_OPEN}{THINK_CLOSE}"), {"nemotron-3": 4}),
    ("empty reasoning block '<think>\\n\\n</think>\\n\\n' (Qwen3)", _contains(f"{THINK_OPEN}\n\n{THINK_CLOSE}\n\n"),
     {"qwen3": 2, "qwen3.5": 2}),
    ("an assistant turn opens with <think>",
     lambda text: f"{IM_START}{ASSISTANT}\n{THINK_OPEN}" in text or text.lstrip(" \t\n\r").startswith(THINK_OPEN),
     {"qwen3": 1, "qwq": 1, "omp": 1, **_weights(_OPEN_THINK_PROMPT, 1)}),
    ("an assistant turn opens with an empty '<think></think>' (Nemotron)",
     _contains(f"{IM_START}{ASSISTANT}\n{THINK_OPEN}{THINK_CLOSE}"), {"nemotron-3": 4}),
    ("text glued to </think> with no separator (omp)", _matches(_THINK_GLUED), {"omp": 2}),
    ("'</think>' followed by a blank line (Qwen)", _contains(f"{THINK_CLOSE}\n\n"),
     {"qwen3": 1, "qwq": 1, "qwen3.5": 1}),
    ("'</think>' followed by one newline (Nemotron, Step)", _matches(_ONE_NEWLINE_AFTER_THINK),
     {"nemotron-3": 1, "step-3.5": 1}),
    ("an empty system turn (Nemotron)", _contains(f"{IM_START}{SYSTEM}\n{IM_END}"), {"nemotron-3": 2}),
    ("results in a 'tool' turn", _contains(f"{IM_START}{TOOL}\n"), {"hermes": 1, "hermes-vllm": 1, "omp": 1}),
    ("results in a 'tool_response' turn (Step)", _contains(f"{IM_START}{TOOL_RESPONSE}\n"), {"step-3.5": 6}),
    ("a result glued to its tags ('<tool_response>' then no newline, Step)",
     _matches(re.compile(re.escape(RESP_OPEN) + r"[^\n]")), {"step-3.5": 2}),
    ("an 'observation' turn (Step)", _contains(f"{IM_START}observation\n"), {"step-3.5": 3}),
    ("results folded into a 'user' turn", _contains(f"{IM_START}{USER}\n{RESP_OPEN}"),
     _weights((*_QWEN, "qwen3-coder", "nemotron-3"), 1)),
    ("XML call body ('<tool_call>' then '<function=')", _matches(_XML_BODY),
     {**_weights(_XML, 3), **_weights(_JSON, -3)}),
    ("JSON call body ('<tool_call>' then '{')", _matches(_JSON_BODY), {**_weights(_XML, -3)}),
    ("a newline after the last call before '<|im_end|>' (Nemotron)", _contains(f"{CALL_CLOSE}\n{IM_END}"),
     {"nemotron-3": 3}),
    ("calls glued to each other ('</tool_call><tool_call>', Step)", _contains(f"{CALL_CLOSE}{CALL_OPEN}"),
     {"step-3.5": 3}),
    ("'\\n\\n' between content and an XML call (Qwen3-Coder, Qwen3.5)",
     _matches(re.compile(r"[^\n>]\n\n" + re.escape(CALL_OPEN) + r"\n<function=")), {"qwen3-coder": 1, "qwen3.5": 1}),
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


_KNOWN_TOOL_PROMPTS: tuple[str, ...] = (
    "Here are the available tools: <tools> ", _QWEN_TOOLS, _OMP_TOOLS, _CODER_TOOLS, _XML_TOOLS, _STEP_TOOLS,
)
# marks of templates that are no profile: (description, test, weight)
_FOREIGN: tuple[tuple[str, Callable[[str], bool], int], ...] = (
    ("Llama 3 headers ('<|start_header_id|>')", _contains("<|start_header_id|>"), 6),
    ("GLM prefix or roles ('[gMASK]', '<|observation|>')",
     lambda text: "[gMASK]" in text or "<|observation|>" in text, 6),
    ("GLM call arguments ('<arg_key>')", _contains("<arg_key>"), 6),
    ("Granite roles ('<|start_of_role|>')", _contains("<|start_of_role|>"), 6),
    ("'<|system|>'/'<|user|>'/'<|assistant|>' role tokens (GLM, Apriel, Phi)",
     _matches(re.compile(r"<\|(?:system|user|assistant)\|>")), 6),
    ("Bielik tool markers ('<|function_list|>', '<|function_output|>')",
     lambda text: "<|function_list|>" in text or "<|function_output|>" in text, 6),
    ("MiMo default system prompt ('You are MiMo')", _contains("You are MiMo, an AI assistant developed by Xiaomi."), 6),
    ("Reka separators ('<sep>')", _contains("<sep>"), 4),
    ("Mistral instructions ('[INST]', '[TOOL_CALLS]')", lambda text: "[INST]" in text or "[TOOL_CALLS]" in text, 6),
    ("Gemma turns ('<start_of_turn>')", _contains("<start_of_turn>"), 6),
    ("harmony channels ('<|channel|>')", _contains("<|channel|>"), 6),
    ("DeepSeek or Kimi tool markers ('<｜tool▁calls▁begin｜>', '<|tool_calls_section_begin|>')",
     lambda text: "<｜tool▁calls▁begin｜>" in text or "<|tool_calls_section_begin|>" in text, 6),
    ("a tools catalogue in no known tools prompt",
     lambda text: TOOLS_OPEN in text and not any(marker in text for marker in _KNOWN_TOOL_PROMPTS), 4),
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
        A `DialectGuess`; ``unknown`` (`UNKNOWN`) with a low confidence when no profile fits (0.1 when nothing
        points anywhere).

    Raises:
        UsageError: ``text`` is not a str.

    >>> detect_dialect('<tool_call>\\n{"name":"read","arguments":{"path":"a.ts"}}\\n</tool_call>').dialect
    'omp'
    >>> guess = detect_dialect("hello")
    >>> guess.dialect, guess.confidence
    ('unknown', 0.1)
    >>> detect_dialect('<tool_call>\\n<function=ls>\\n</function>\\n</tool_call>').dialect
    'qwen3.5'
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
    foreign = 0
    for description, found, weight in _FOREIGN:
        if found(text):
            evidence.append(f"{description}: no profile writes it")
            foreign += weight
    ranked = sorted(scores, key=lambda name: (-scores[name], _rank(name)))
    ranking = tuple((name, scores[name]) for name in ranked)
    best, runner_up = ranked[0], ranked[1]
    if scores[best] <= 0 and not foreign:
        return DialectGuess(dialect=UNKNOWN, confidence=0.1, evidence=tuple(evidence), scores=ranking)
    if foreign >= scores[best]:
        confidence = min(0.3, _confidence(foreign, max(scores[best], 0)))
        return DialectGuess(dialect=UNKNOWN, confidence=confidence, evidence=tuple(evidence), scores=ranking)
    confidence = _confidence(scores[best], max(scores[runner_up], 0))
    return DialectGuess(dialect=best, confidence=confidence, evidence=tuple(evidence), scores=ranking)
