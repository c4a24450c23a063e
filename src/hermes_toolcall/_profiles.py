"""Dialect profiles: everything that differs between dialects, as data.

Code never branches on a dialect's name; it reads the profile's fields. ``render/`` uses the
rendering fields, both parsing engines the parsing fields.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .errors import UsageError
from .tags import ASSISTANT, IM_START, THINK_CLOSE, THINK_OPEN, TOOL, USER, ReasoningKind

__all__ = ["DIALECTS", "DialectProfile", "get_profile"]


@dataclass(frozen=True, slots=True, kw_only=True)
class DialectProfile:
    """What one dialect does. See ``docs/dialects.md`` for the table.

    Attributes:
        name: the dialect's name (``hermes``, ``hermes-vllm``, ``qwen3``, ``qwen2.5``, ``qwq``, ``omp``).
        template: file name of the official template in ``shared/conformance/templates`` (the
            rendering oracle), or None when the dialect has no Jinja template (omp).
        json_style: ``spaced`` (Python ``json.dumps`` defaults) or ``compact`` (``,``/``:``).
        string_arguments: ``verbatim`` (a string ``arguments`` is inserted as is) or ``encode``
            (always ``tojson``: string arguments are double-encoded) or ``decode`` (a JSON string
            ``arguments`` is decoded and rendered as the nested object, omp).
        result_role: the role of the turn that carries ``<tool_response>`` blocks.
        content_before_calls: ``dropped`` (the template drops assistant content when there are
            calls), ``kept``, ``kept-if-truthy``, or ``kept-no-separator`` (omp).
        reasoning: how reasoning is rendered: ``none``, ``qwen3`` (after the last query only),
            ``qwq`` (stripped from non-final turns), ``every-turn`` (omp).
        tools_block: ``hermes`` (pseudo-JSON inside one prose line), ``qwen`` (one JSON per line),
            ``omp`` (``# Tools`` catalogue + format guide).
        bos: whether the template writes ``bos_token`` first.
        generation_prompt: text appended by ``add_generation_prompt``.
        reasoning_kinds: reasoning tags the parsers recognise in assistant bodies.
        tools_none: what ``tools=None`` does: ``error`` (the template crashes), ``empty-block``
            (``<tools>  </tools>``), ``no-block`` (no tools prompt at all).
        tools_turn_suffix: text after the tools system turn's ``<|im_end|>`` (``\n``; vLLM: none).
        calls_turn: when an assistant message is rendered as a call turn: ``key`` (a ``tool_calls``
            key exists, even empty) or ``truthy`` (a non-empty ``tool_calls``).
        missing_arguments: a call without ``arguments``: ``stray-comma`` (``{"name": "f", }``),
            ``omit`` (``{"name": "f"}``), ``error`` (the template crashes), ``empty-object`` (omp).
        default_system: system text used when ``messages[0]`` is not a system message and no tools
            are given (None: no system turn).
        default_system_with_tools: system text placed before ``\n\n# Tools`` when ``messages[0]`` is
            not a system message (None: the tools prompt starts with ``# Tools``).
        generation_prompt_no_thinking: generation prompt when ``enable_thinking=False`` is passed
            (None: ``enable_thinking`` is ignored).
        body_kind: what a ``<tool_call>`` block holds: ``json`` (``{"name": …, "arguments": …}``) or
            ``xml`` (``<function=NAME>`` with one ``<parameter=KEY>`` per argument, chatml-family.md §2).
    """

    name: str
    description: str
    template: str | None
    json_style: Literal["spaced", "compact"]
    string_arguments: Literal["verbatim", "encode", "decode"]
    result_role: Literal["tool", "user"]
    content_before_calls: Literal["dropped", "kept", "kept-if-truthy", "kept-no-separator"]
    reasoning: Literal["none", "qwen3", "qwq", "every-turn"]
    tools_block: Literal["hermes", "qwen", "omp"]
    bos: bool
    generation_prompt: str
    reasoning_kinds: tuple[ReasoningKind, ...] = ("think", "scratch_pad")
    tools_none: Literal["error", "empty-block", "no-block"] = "no-block"
    tools_turn_suffix: str = "\n"
    calls_turn: Literal["key", "truthy"] = "truthy"
    missing_arguments: Literal["stray-comma", "omit", "error", "empty-object"] = "error"
    default_system: str | None = None
    default_system_with_tools: str | None = None
    generation_prompt_no_thinking: str | None = None
    body_kind: Literal["json", "xml"] = "json"


_HERMES_TEMPLATE = "NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use.jinja"

DIALECTS: dict[str, DialectProfile] = {
    p.name: p
    for p in (
        DialectProfile(
            name="hermes",
            description="NousResearch Hermes 2 Pro / Hermes 3 `tool_use` template (byte-identical files).",
            template=_HERMES_TEMPLATE,
            json_style="spaced",
            string_arguments="verbatim",
            result_role=TOOL,
            content_before_calls="dropped",
            reasoning="none",
            tools_block="hermes",
            bos=True,
            generation_prompt=f"{IM_START}{ASSISTANT}\n",
            tools_none="error",
            calls_turn="key",
            missing_arguments="stray-comma",
        ),
        DialectProfile(
            name="hermes-vllm",
            description="vLLM's examples/tool_chat_template_hermes.jinja.",
            template="tool_chat_template_hermes.jinja",
            json_style="spaced",
            string_arguments="encode",
            result_role=TOOL,
            content_before_calls="dropped",
            reasoning="none",
            tools_block="hermes",
            bos=True,
            generation_prompt=f"{IM_START}{ASSISTANT}\n",
            tools_none="empty-block",
            tools_turn_suffix="",
            calls_turn="key",
            missing_arguments="omit",
        ),
        DialectProfile(
            name="qwen3",
            description="Qwen3 chat template (Qwen/Qwen3-0.6B).",
            template="Qwen-Qwen3-0.6B.jinja",
            json_style="spaced",
            string_arguments="verbatim",
            result_role=USER,
            content_before_calls="kept",
            reasoning="qwen3",
            tools_block="qwen",
            bos=False,
            generation_prompt=f"{IM_START}{ASSISTANT}\n",
            generation_prompt_no_thinking=f"{IM_START}{ASSISTANT}\n{THINK_OPEN}\n\n{THINK_CLOSE}\n\n",
        ),
        DialectProfile(
            name="qwen2.5",
            description="Qwen2.5 Instruct chat template (Qwen/Qwen2.5-7B-Instruct).",
            template="Qwen-Qwen2.5-7B-Instruct.jinja",
            json_style="spaced",
            string_arguments="encode",
            result_role=USER,
            content_before_calls="kept-if-truthy",
            reasoning="none",
            tools_block="qwen",
            bos=False,
            generation_prompt=f"{IM_START}{ASSISTANT}\n",
            default_system="You are Qwen, created by Alibaba Cloud. You are a helpful assistant.",
            default_system_with_tools="You are Qwen, created by Alibaba Cloud. You are a helpful assistant.",
        ),
        DialectProfile(
            name="qwq",
            description="QwQ-32B chat template (before llama.cpp's 2026-03-06 edit).",
            template="Qwen-QwQ-32B.jinja",
            json_style="spaced",
            string_arguments="encode",
            result_role=USER,
            content_before_calls="kept-if-truthy",
            reasoning="qwq",
            tools_block="qwen",
            bos=False,
            generation_prompt=f"{IM_START}{ASSISTANT}\n{THINK_OPEN}\n",
            default_system_with_tools="",
        ),
        DialectProfile(
            name="omp",
            description="oh-my-pi in-band `hermes` dialect (renderTranscript + in-band tool prompt).",
            template=None,
            json_style="compact",
            string_arguments="decode",
            result_role=TOOL,
            content_before_calls="kept-no-separator",
            reasoning="every-turn",
            tools_block="omp",
            bos=False,
            generation_prompt=f"{IM_START}{ASSISTANT}\n",
            missing_arguments="empty-object",
        ),
    )
}


def get_profile(dialect: str | DialectProfile) -> DialectProfile:
    """The profile named ``dialect`` (a profile passes through).

    Raises:
        UsageError: unknown dialect name.

    >>> get_profile("qwen3").result_role
    'user'
    """
    if isinstance(dialect, DialectProfile):
        return dialect
    try:
        return DIALECTS[dialect]
    except (KeyError, TypeError):  # TypeError: an unhashable value
        names = ", ".join(sorted(DIALECTS))
        raise UsageError(f"unknown dialect {dialect!r} (known: {names})") from None
