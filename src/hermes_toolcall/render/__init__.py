"""Render conversations into the exact prompt text of a dialect, byte-identical to its official template.

``render`` is the whole conversation; the pieces (``render_tool_call``, ``render_tool_calls``,
``render_tool_response``, ``render_tool_responses``, ``render_system_prompt``, omp's
``render_tool_catalog``/``render_inband_tool_prompt``/``render_thinking``) are public on their own.
``oracle`` holds the Jinja reference renderer (jinja2 needed).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..model import Message
from ..profiles import DialectProfile, get_profile
from .calls import call_json, render_tool_call, render_tool_calls
from .chat import render_chat, render_thinking
from .results import render_tool_response, render_tool_responses
from .system import (
    hermes_tool_line,
    omp_guide,
    python_type,
    render_inband_tool_prompt,
    render_system_prompt,
    render_tool_catalog,
)
from .values import normalize_messages, normalize_tools

__all__ = [
    "call_json",
    "hermes_tool_line",
    "omp_guide",
    "python_type",
    "render",
    "render_inband_tool_prompt",
    "render_system_prompt",
    "render_thinking",
    "render_tool_call",
    "render_tool_calls",
    "render_tool_catalog",
    "render_tool_response",
    "render_tool_responses",
]


def render(
    messages: Iterable[Mapping[str, Any] | Message],
    *,
    tools: Iterable[Mapping[str, Any]] | None = None,
    dialect: str | DialectProfile = "hermes",
    add_generation_prompt: bool = False,
    allow_injection: bool = False,
    **template_kwargs: Any,
) -> str:
    """Render a conversation as the dialect's prompt text.

    For the template-backed dialects (``hermes``, ``hermes-vllm``, ``qwen3``, ``qwen2.5``, ``qwq``)
    the result is byte-identical to the official template rendered the way transformers renders
    it, quirks included. ``omp`` follows oh-my-pi's renderTranscript plus its in-band tool prompt.

    Args:
        messages: OpenAI-shaped message dicts, or ``Message`` values.
        tools: OpenAI tool dicts (``{"type": "function", "function": {...}}``), or None.
        dialect: a dialect name or profile.
        add_generation_prompt: append the dialect's assistant header.
        allow_injection: render content that would change how the prompt parses (control tokens,
            closing tags inside results, reasoning or calls) instead of refusing it.
        **template_kwargs: special tokens and template options, as in transformers
            (``bos_token="<|begin_of_text|>"``, ``enable_thinking=False``).

    Returns:
        The prompt text.

    Raises:
        RenderError: the official template would crash on this input (the message names the
            message index), or content would inject structure (index and offset).
        UsageError: unknown dialect.

    >>> render([{"role": "user", "content": "Hi"}], dialect="qwen3", add_generation_prompt=True)
    '<|im_start|>user\\nHi<|im_end|>\\n<|im_start|>assistant\\n'
    """
    profile = get_profile(dialect)
    msgs = normalize_messages(messages)
    tool_list = normalize_tools(tools)
    return render_chat(profile, msgs, tool_list, add_generation_prompt=add_generation_prompt,
                       guard=not allow_injection, kwargs=template_kwargs)
