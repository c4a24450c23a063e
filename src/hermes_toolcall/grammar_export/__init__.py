"""Constrained decoding: each dialect's tool-call grammar for xgrammar, llguidance and outlines-core.

The three exports describe one language, built once (``_build``) from the dialect's own bytes, read
off its renderer (``_shape``): the separators, tags, reasoning opener and suffix and the call body. A
completion is an optional reasoning block, then calls alone, content then calls (where the template
renders content beside calls), or content alone (where the choice allows no call). Each call is a
declared tool's block whose arguments satisfy its ``parameters`` schema. See ``docs/constrained.md``
for what each engine enforces and the limits measured against the real libraries.

The exports are plain text and dicts; only ``outlines_regex`` (outlines-core's JSON-Schema compiler)
and an llguidance ``tokenizer`` need the ``grammar`` extra (``pip install 'hermes-toolcall[grammar]'``).
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from types import ModuleType
from typing import Any

from .._jsonio import dumps_compact
from .._profiles import DialectProfile
from ..errors import UsageError
from ._build import build, request
from ._ir import Json
from ._lark import to_lark
from ._regex import anchored, strings_avoiding, typed
from ._tokens import token_tags
from ._xgrammar import to_structural_tag

__all__ = ["llguidance_grammar", "outlines_regex", "xgrammar_structural_tag"]


def _require(module: str, what: str) -> ModuleType:
    """Import ``module``, or raise a ``UsageError`` naming the ``grammar`` extra."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise UsageError(
            f"{what} needs the `grammar` extra ({module} is not installed): pip install 'hermes-toolcall[grammar]'"
        ) from exc


def llguidance_grammar(
    tools: Sequence[Any],
    *,
    dialect: str | DialectProfile = "hermes",
    tool_choice: Any = "auto",
    parallel_tool_calls: bool = True,
    reasoning: bool | None = None,
    tokenizer: Any = None,
) -> str:
    """The llguidance grammar (Lark with inline ``%json``) of the dialect's completions for this request.

    Args:
        tools: OpenAI tool objects (``{"type": "function", "function": {"name", "parameters"}}``) or
            bare function objects.
        dialect: a dialect name or profile.
        tool_choice: ``"auto"`` (content, calls, or content then calls), ``"required"`` (at least one
            call), ``"none"`` (no call), or ``{"type": "function", "function": {"name": N}}`` (exactly
            one call, to N).
        parallel_tool_calls: False allows at most one call.
        reasoning: True: the completion carries a reasoning block (it opens it, unless the dialect's
            generation prompt did); False: it has none (the prompt rendered with
            ``enable_thinking=False`` where the dialect has one); None: as the dialect's generation
            prompt leaves it (``generation_prompt_state``).
        tokenizer: where tags are added tokens (``<tool_call>``) the grammar writes token references;
            a tag this tokenizer lacks is written as text. None: every tag is a token, as in the
            family's tokenizers. An ``llguidance.LLTokenizer``, ``tokenizers.Tokenizer``,
            transformers tokenizer or ``tokenizer.json`` path.

    Returns:
        The grammar text, for ``llguidance.LLMatcher`` or vLLM's ``structured_outputs={"grammar": …}``.

    Raises:
        UsageError: an unknown dialect or choice, malformed tools, a tool name the dialect cannot write, a
            reasoning state the dialect cannot be in, an unusable tokenizer.

    >>> g = llguidance_grammar([{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}],
    ...                        dialect="qwen3", tool_choice="required")
    >>> '<tool_call> T' in g and '%json' in g
    True
    """
    req = request(tools, dialect=dialect, tool_choice=tool_choice, parallel_tool_calls=parallel_tool_calls,
                  reasoning=reasoning)
    return to_lark(build(req), is_token=token_tags(tokenizer))


def xgrammar_structural_tag(
    tools: Sequence[Any],
    *,
    dialect: str | DialectProfile = "hermes",
    tool_choice: Any = "auto",
    parallel_tool_calls: bool = True,
    reasoning: bool | None = None,
    tokenizer: Any = None,
) -> dict[str, Any]:
    """The xgrammar structural tag of the dialect's completions for this request.

    Arguments as ``llguidance_grammar``; ``tokenizer`` is checked but changes nothing: xgrammar matches
    a tag's text against every token's decoded bytes, added tokens included.

    Returns:
        ``{"type": "structural_tag", "format": {…}}``: vLLM's ``structured_outputs.structural_tag`` (as
        JSON text) or ``response_format``, SGLang's ``response_format``, or
        ``xgrammar.GrammarCompiler.compile_structural_tag``.

    Raises:
        UsageError: as ``llguidance_grammar``.

    >>> st = xgrammar_structural_tag([{"name": "f", "parameters": {"type": "object"}}], tool_choice="none")
    >>> st["format"]["type"]
    'any_text'
    """
    req = request(tools, dialect=dialect, tool_choice=tool_choice, parallel_tool_calls=parallel_tool_calls,
                  reasoning=reasoning)
    token_tags(tokenizer)
    return to_structural_tag(build(req))


def outlines_regex(
    tools: Sequence[Any],
    *,
    dialect: str | DialectProfile = "hermes",
    tool_choice: Any = "auto",
    parallel_tool_calls: bool = True,
    reasoning: bool | None = None,
    tokenizer: Any = None,
) -> str:
    """The outlines-core regular expression of the dialect's completions for this request.

    Arguments as ``llguidance_grammar``; ``tokenizer`` is checked but changes nothing (a regex matches
    text; ``outlines_core.Index`` maps it onto the vocabulary). The arguments' JSON comes from
    outlines-core's own ``build_regex_from_schema``, with its limits (docs/constrained.md).

    Returns:
        The regex, for ``outlines_core.Index(regex, vocabulary)`` or vLLM's ``structured_outputs={"regex": …}``.

    Raises:
        UsageError: as ``llguidance_grammar``; the ``grammar`` extra is missing; outlines-core cannot
            compile a tool's schema (the message names the tool).

    >>> rx = outlines_regex([{"name": "f", "parameters": {"type": "object", "properties": {}}}],
    ...                     dialect="qwen3", tool_choice={"type": "function", "function": {"name": "f"}})
    >>> import re; bool(re.fullmatch(rx, '<tool_call>\\n{"name": "f", "arguments": {}}\\n</tool_call>'))
    True
    """
    req = request(tools, dialect=dialect, tool_choice=tool_choice, parallel_tool_calls=parallel_tool_calls,
                  reasoning=reasoning)
    token_tags(tokenizer)
    compiler = _require("outlines_core.json_schema", "outlines_regex")

    def json_regex(node: Json) -> str:
        spaced = any(ch.isspace() for ch in node.item_sep + node.key_sep)
        whitespace = "[ ]?" if spaced else ""
        try:
            regex = str(compiler.build_regex_from_schema(dumps_compact(typed(node.value)), whitespace))
        except ValueError as exc:
            raise UsageError(f"outlines-core cannot compile the schema {node.schema[:200]}: {exc}") from None
        if not node.excludes:
            return regex
        string = str(compiler.build_regex_from_schema('{"type": "string"}', whitespace))
        return strings_avoiding(regex, string, node.excludes)

    return anchored(build(req), json_regex=json_regex)  # _regex says why it ends with ``$``

