"""The tools system turn with the injection guard: ``_system_prompt`` writes it (below ``render``, the request
view reads catalogues back with it), and the prompt must parse back to exactly its tools."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .._injection import check_control_tokens, check_text
from .._profiles import DialectProfile, get_profile
from .._system_prompt import system_prompt
from .._template_values import normalize_tools

__all__ = ["render_system_prompt"]


def render_system_prompt(
    tools: Sequence[Mapping[str, Any]] | None,
    *,
    dialect: str | DialectProfile = "hermes",
    system: str | None = None,
    allow_injection: bool = False,
) -> str:
    """The tools system turn exactly as the dialect's template writes it (``""`` when it writes none).

    For ``hermes``/``hermes-vllm`` this is the fixed system turn (``system`` is ignored: the
    templates render system messages as separate turns); for the Qwen dialects the system turn
    with ``system`` merged before ``# Tools`` (or the dialect's default system text); for ``omp``
    the in-band prompt as a system turn, appended to ``system`` after a blank line.

    Unless ``allow_injection``, the prompt must parse back to one system turn holding exactly these
    tools (``_roundtrip.verify_prompt``): control tokens and ``</tools>`` in the tools or ``system`` are refused.

    Raises:
        RenderError: the template cannot render these tools, or the prompt would not parse back to them.

    >>> prompt = render_system_prompt([{"type": "function", "function": {"name": "f"}}], dialect="qwen3")
    >>> print(prompt[:125])
    <|im_start|>system
    # Tools
    <BLANKLINE>
    You may call one or more functions to assist with the user query.
    <BLANKLINE>
    You are provided with function
    >>> prompt.splitlines()[7]
    '{"type": "function", "function": {"name": "f"}}'
    """
    profile = get_profile(dialect)
    listed = normalize_tools(tools)
    if allow_injection:
        return system_prompt(listed, profile, system)
    from ._roundtrip import verify_prompt  # local import: roundtrip imports the parser

    check_control_tokens((), listed)
    if system is not None:
        check_text(system, where="system", index=None)
    prompt = system_prompt(listed, profile, system)
    verify_prompt(prompt, listed if listed or profile.tools_block == "hermes" else None, profile)
    return prompt
