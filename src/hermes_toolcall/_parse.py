"""The public whole-text parse API: ``parse_transcript`` and ``parse_completion`` (grammar engine).

Both take the text and keyword options, build a ``ParseOptions`` and run the Lark grammar engine
(``hermes_toolcall.grammar``). Lenient mode (the default) never raises for any ``str``; strict mode
raises ``ParseError`` carrying every error diagnostic at the end of the parse.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from ._argcheck import check_text, check_type
from ._gcpause import collector_paused
from ._ids import IdFactory
from ._model import Completion, Diagnostic, Transcript
from ._options import DEFAULT_MAX_BLOCK_CHARS, ParseOptions, Undeclared
from ._profiles import DialectProfile
from .errors import HermesError, ParseError, internal_error
from .grammar import build_completion, build_transcript

__all__ = ["parse_completion", "parse_completion_with", "parse_transcript", "parse_transcript_with"]


def _options(
    text: object,
    *,
    dialect: str | DialectProfile,
    strict: bool,
    calls_in_reasoning: bool,
    stop_at_fabricated_response: bool,
    max_block_chars: int,
    ids: IdFactory | None,
    starts_in_reasoning: bool | None = False,
    tools: Sequence[Any] | None = None,
    undeclared: Undeclared = "keep",
    coerce_arguments: bool = False,
) -> ParseOptions:
    check_text("text", text)
    if dialect == "auto":
        from ._detect import detect_dialect

        dialect = detect_dialect(str(text)).dialect
    return ParseOptions.make(
        dialect=dialect,
        strict=strict,
        calls_in_reasoning=calls_in_reasoning,
        stop_at_fabricated_response=stop_at_fabricated_response,
        max_block_chars=max_block_chars,
        ids=ids,
        starts_in_reasoning=starts_in_reasoning,
        tools=tools,
        undeclared=undeclared,
        coerce_arguments=coerce_arguments,
    )


def _raise_on_errors(what: str, diagnostics: tuple[Diagnostic, ...]) -> None:
    errors = tuple(d for d in diagnostics if d.severity == "error")
    if errors:
        raise ParseError(f"{what}: {len(errors)} error(s) in strict mode", errors)


_R = TypeVar("_R", Completion, Transcript)


def _run(
    what: str,
    text: str,
    options: ParseOptions,
    build: Callable[[str, ParseOptions], _R],
) -> _R:
    """One whole-text parse: argument checks, the grammar engine, the tools policy, strict mode.

    Only ``HermesError`` escapes: any other exception inside is a bug, raised as ``InternalError``.
    """
    check_text("text", text)
    check_type("options", options, ParseOptions, "a ParseOptions")
    try:
        with collector_paused(len(text)):
            result = build(text, options)
            if options.tools is not None:  # imported only when used
                from ._tools_policy import apply_to_completion, apply_to_transcript

                if isinstance(result, Transcript):
                    result = apply_to_transcript(result, options)
                else:
                    result = apply_to_completion(result, options)
    except (HermesError, MemoryError):
        raise
    except Exception as exc:  # only HermesError escapes: anything else is a bug
        raise internal_error(f"parse_{what}", exc) from exc
    if options.strict:
        _raise_on_errors(what, result.diagnostics)
    return result


def parse_transcript_with(text: str, options: ParseOptions) -> Transcript:
    """Parse a ChatML transcript with ready-made options (the engine entry used by agreement tests).

    Raises:
        ParseError: ``options.strict`` and errors were found.

    >>> t = parse_transcript_with("<|im_start|>user\\nhi<|im_end|>", ParseOptions.make())
    >>> t.turns[0].parts[0].text
    'hi'
    """
    return _run("transcript", text, options, build_transcript)


def parse_completion_with(text: str, options: ParseOptions) -> Completion:
    """Parse an assistant completion with ready-made options.

    Raises:
        ParseError: ``options.strict`` and errors were found.

    >>> parse_completion_with("Hello", ParseOptions.make()).finish_reason
    'stop'
    """
    return _run("completion", text, options, build_completion)


def parse_transcript(
    text: str,
    *,
    dialect: str | DialectProfile = "hermes",
    strict: bool = False,
    calls_in_reasoning: bool = False,
    stop_at_fabricated_response: bool = False,
    max_block_chars: int = DEFAULT_MAX_BLOCK_CHARS,
    ids: IdFactory | None = None,
    tools: Sequence[Any] | None = None,
    undeclared: Undeclared = "keep",
    coerce_arguments: bool = False,
) -> Transcript:
    """Parse a whole ChatML transcript (turns, gaps, parts, diagnostics).

    Args:
        text: the transcript.
        dialect: a dialect name, a ``DialectProfile``, or ``"auto"`` (``_detect.detect_dialect``).
        strict: no recoveries; raise ``ParseError`` with every error diagnostic at the end.
        calls_in_reasoning: a ``<tool_call>`` inside ``<think>``/``<scratch_pad>`` is a call.
        stop_at_fabricated_response: stop at a ``<tool_response>`` inside an assistant body.
        max_block_chars: largest block body before ``HT114``.
        ids: call id factory (default: random OpenAI-like ids).
        tools: the request's tools (OpenAI tool objects, or bare function objects): a call to a
            name they do not declare gets validate's ``HT301`` (an error: strict mode raises).
        undeclared: what becomes of such a call: ``keep`` (a call; default), ``text`` (the block's
            raw text stays, as content), ``drop`` (removed). Needs ``tools``.
        coerce_arguments: convert argument values whose JSON type differs from the tool's schema
            when the conversion is lossless (``"7"`` to 7 for an integer), each a named recovery
            (``HT210``–``HT214``) with the path and position. Needs ``tools``.

    Returns:
        The ``Transcript``; ``.to_openai_messages()`` gives the OpenAI view.

    Raises:
        ParseError: strict mode found errors.
        UsageError: bad option values (unknown dialect, non-positive ``max_block_chars``).

    >>> t = parse_transcript("<|im_start|>user\\nHi<|im_end|>\\n<|im_start|>assistant\\n")
    >>> [(turn.role, turn.closed) for turn in t.turns]
    [('user', True), ('assistant', False)]
    """
    options = _options(
        text,
        dialect=dialect,
        strict=strict,
        calls_in_reasoning=calls_in_reasoning,
        stop_at_fabricated_response=stop_at_fabricated_response,
        max_block_chars=max_block_chars,
        ids=ids,
        tools=tools,
        undeclared=undeclared,
        coerce_arguments=coerce_arguments,
    )
    return parse_transcript_with(text, options)


def parse_completion(
    text: str,
    *,
    dialect: str | DialectProfile = "hermes",
    strict: bool = False,
    calls_in_reasoning: bool = False,
    stop_at_fabricated_response: bool = False,
    max_block_chars: int = DEFAULT_MAX_BLOCK_CHARS,
    ids: IdFactory | None = None,
    starts_in_reasoning: bool | None = None,
    tools: Sequence[Any] | None = None,
    undeclared: Undeclared = "keep",
    coerce_arguments: bool = False,
) -> Completion:
    """Parse what a model generated after ``<|im_start|>assistant\\n``.

    Args:
        text: the completion text.
        dialect: a dialect name, a ``DialectProfile``, or ``"auto"``.
        strict: no recoveries; raise ``ParseError`` with every error diagnostic at the end.
        calls_in_reasoning: a ``<tool_call>`` inside reasoning is a call (default: reasoning text).
        stop_at_fabricated_response: stop at a fabricated ``<tool_response>`` (omp's abortOnFabricatedResult).
        max_block_chars: largest block body before ``HT114``.
        ids: call id factory (default: random OpenAI-like ids).
        starts_in_reasoning: the completion begins inside a reasoning block, because the
            generation prompt opened it (QwQ's ends with ``<think>\n``): the text up to the first
            ``</think>`` is reasoning, a completion that never closes it is all reasoning. None
            (default): as the dialect's generation prompt leaves it (true for ``qwq``; for a prompt
            of your own, ``generation_prompt_state(dialect, prompt=...)``).
        tools: the request's tools (OpenAI tool objects, or bare function objects): a call to a
            name they do not declare gets validate's ``HT301`` (an error: strict mode raises).
        undeclared: what becomes of such a call: ``keep`` (a call; default), ``text`` (the block's
            raw text stays, as content), ``drop`` (removed). Needs ``tools``.
        coerce_arguments: convert argument values whose JSON type differs from the tool's schema
            when the conversion is lossless (``"7"`` to 7 for an integer), each a named recovery
            (``HT210``–``HT214``) with the path and position. Needs ``tools``.

    Returns:
        The ``Completion``: ``.tool_calls``, ``.finish_reason``, ``.to_openai()``, ``.diagnostics``.

    Raises:
        ParseError: strict mode found errors.
        UsageError: bad option values.

    >>> from hermes_toolcall._ids import sequential_ids
    >>> c = parse_completion('<tool_call>\\n{"name": "f", "arguments": {"a": 1}}\\n</tool_call>', ids=sequential_ids())
    >>> [(x.id, x.name, x.arguments) for x in c.tool_calls], c.finish_reason
    ([('call_0', 'f', {'a': 1})], 'tool_calls')
    >>> m = parse_completion("I'm\\nthinking</think>\\nHello", dialect="qwq").to_openai()
    >>> m["reasoning_content"], m["content"]
    ("I'm\\nthinking", 'Hello')
    """
    options = _options(
        text,
        dialect=dialect,
        strict=strict,
        calls_in_reasoning=calls_in_reasoning,
        stop_at_fabricated_response=stop_at_fabricated_response,
        max_block_chars=max_block_chars,
        ids=ids,
        tools=tools,
        undeclared=undeclared,
        coerce_arguments=coerce_arguments,
        starts_in_reasoning=starts_in_reasoning,
    )
    return parse_completion_with(text, options)
