"""The public whole-text parse API: ``parse_transcript`` and ``parse_completion`` (grammar engine).

Both take the text and the option keywords (``_options.ParseKeywords``), build a ``ParseOptions`` and
run the grammar engine
(``hermes_toolcall.grammar``). Lenient mode (the default) never raises for any ``str``; strict mode
raises ``ParseError`` carrying every error diagnostic at the end of the parse.
"""

from __future__ import annotations

import gc
from collections.abc import Callable
from typing import Any, TypeVar, Unpack

from ._argcheck import check_text, check_type
from ._gcpause import PAUSE_AT
from ._model import Completion, Diagnostic, Transcript
from ._options import ParseKeywords, ParseOptions, options_of
from .errors import HermesError, ParseError, UsageError, internal_error
from .grammar import build_completion, build_transcript
from .tags import FUNCTION_OPEN

__all__ = [
    "parse_completion",
    "parse_completion_with",
    "parse_transcript",
    "parse_transcript_typed",
    "parse_transcript_with",
]


def _options(text: object, keywords: ParseKeywords) -> ParseOptions:
    """The options of a whole-text parse: ``dialect="auto"`` is detected from ``text``.

    A guard in front of ``options_of``: the options of keywords that carry no per-call object (no
    ``tools`` or tools policy, a dialect by name) are made once and found again by their values, and an
    ``ids`` factory by its identity (``_key``).
    """
    check_text("text", text)
    key = _key(keywords)
    if key is not None:
        made = (_MADE_IDS if "ids" in keywords else _MADE).get(key)
        if made is not None and made.ids is keywords.get("ids", made.ids):
            return made
    if keywords.get("dialect") == "auto":
        from ._detect import UNKNOWN, detect_dialect

        guessed = detect_dialect(str(text)).dialect
        # no profile fits: the default dialect's rules
        return options_of(None, {**keywords, "dialect": "hermes" if guessed == UNKNOWN else guessed})
    made = options_of(None, keywords)
    if key is not None:
        if "ids" not in keywords:
            if len(_MADE) < _MADE_MAX:
                _MADE[key] = made
        else:  # a factory per call (render's checks make one each time) must not keep the table full
            if len(_MADE_IDS) >= _MADE_IDS_MAX:
                del _MADE_IDS[next(iter(_MADE_IDS))]  # the oldest
            _MADE_IDS[key] = made
    return made


#: Options made for keyword values (``_key``): most calls repeat the same few, and making a
#: ``ParseOptions`` (checks, profile, reasoning start) costs more than parsing a short completion.
_MADE: dict[tuple[Any, ...], ParseOptions] = {}
_MADE_MAX = 256
#: The same for keywords with an ``ids`` factory (a dataset loop passes one factory to every call): the
#: last ``_MADE_IDS_MAX`` made, the oldest leaving first (some callers make a factory per call).
_MADE_IDS: dict[tuple[Any, ...], ParseOptions] = {}
_MADE_IDS_MAX = 32
_BY_VALUE = frozenset(
    {"dialect", "strict", "calls_in_reasoning", "stop_at_fabricated_response", "max_block_chars", "starts_in_reasoning"}
)
_EXACT = frozenset({str, bool, int, type(None)})


def _key(keywords: ParseKeywords) -> tuple[Any, ...] | None:
    """The ``_MADE`` key of ``keywords``, or None when one is not made by value (tools, a ``DialectProfile``,
    ``"auto"``, ``ids=None``). Each value's exact type is in the key: ``strict=1`` equals ``True`` as a key
    but must still be refused by ``options_of``. An ``ids`` factory is keyed by its identity, last (the
    options made hold it, so no other object takes its ``id`` while the entry lives; ``_options`` checks
    it is the same object too): a stateful factory is never shared by two calls that passed two factories.
    """
    key: list[tuple[str, object, object]] = []
    factory = None
    for name, value in keywords.items():
        if name == "ids" and value is not None:
            factory = ("ids", id(value), None)
            continue
        kind = value.__class__
        if name not in _BY_VALUE or kind not in _EXACT or value == "auto":
            return None
        key.append((name, value, kind))
    if factory is not None:
        key.append(factory)
    return tuple(key)


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
    paused = len(text) >= PAUSE_AT and gc.isenabled()  # see _gcpause.py: large inputs only
    if paused:
        gc.disable()
    try:
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
    finally:
        if paused:
            gc.enable()
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


def parse_transcript(text: str, **keywords: Unpack[ParseKeywords]) -> Transcript:
    """Parse a whole ChatML transcript (turns, gaps, parts, diagnostics).

    Args:
        text: the transcript.
        **keywords: the parse options (``ParseOptions.make`` says what each does): ``dialect`` (a
            name, a ``DialectProfile``, or ``"auto"``: ``_detect.detect_dialect``), ``strict`` (no
            recoveries; raise ``ParseError`` with every error diagnostic at the end),
            ``calls_in_reasoning``, ``stop_at_fabricated_response``, ``max_block_chars``, ``ids``,
            ``tools`` (a call to a name they do not declare gets validate's ``HT301``), ``undeclared``
            and ``coerce_arguments``. Not ``starts_in_reasoning``: a transcript holds its own prompt.

    Returns:
        The ``Transcript``; ``.to_openai_messages()`` gives the OpenAI view.

    Raises:
        ParseError: strict mode found errors.
        UsageError: bad option values (unknown dialect, non-positive ``max_block_chars``), an unknown
            option, or ``starts_in_reasoning``.

    >>> t = parse_transcript("<|im_start|>user\\nHi<|im_end|>\\n<|im_start|>assistant\\n")
    >>> [(turn.role, turn.closed) for turn in t.turns]
    [('user', True), ('assistant', False)]
    """
    if "starts_in_reasoning" in keywords:
        raise UsageError("starts_in_reasoning is for completions (a transcript holds its own prompt)")
    return parse_transcript_with(text, _options(text, {**keywords, "starts_in_reasoning": False}))


def parse_transcript_typed(text: str, **keywords: Unpack[ParseKeywords]) -> Transcript:
    """``parse_transcript``, an XML body's values typed by the transcript's own ``<tools>`` blocks when no
    ``tools`` are given (read by a first pass; docs/parsing.md §8.2): a stored transcript declares its tools.

    >>> tool = '{"name": "f", "parameters": {"properties": {"a": {"type": "string"}}}}'
    >>> text = (f"<|im_start|>system\\n<tools>\\n{tool}\\n</tools><|im_end|>\\n<|im_start|>assistant\\n"
    ...         "<tool_call>\\n<function=f>\\n<parameter=a>\\n5\\n</parameter>\\n</function>\\n</tool_call>")
    >>> [c.arguments for t in parse_transcript_typed(text, dialect="qwen3.5").turns for c in t.tool_calls]
    [{'a': '5'}]
    """
    result = parse_transcript(text, **keywords)
    if keywords.get("tools") is None and FUNCTION_OPEN in text:
        declared = list(result.tools)
        if declared:
            keywords["tools"] = declared  # this call's own copy of the keywords
            result = parse_transcript(text, **keywords)
    return result


def parse_completion(text: str, **keywords: Unpack[ParseKeywords]) -> Completion:
    """Parse what a model generated after ``<|im_start|>assistant\\n``.

    Args:
        text: the completion text.
        **keywords: the parse options (``ParseOptions.make`` says what each does): ``dialect`` (a
            name, a ``DialectProfile``, or ``"auto"``), ``strict``, ``calls_in_reasoning``,
            ``stop_at_fabricated_response``, ``max_block_chars``, ``ids``, ``starts_in_reasoning``
            (the generation prompt opened a reasoning block: QwQ's ends with ``<think>\n``; None,
            the default: as the dialect's generation prompt leaves it), ``tools``, ``undeclared`` and
            ``coerce_arguments``.

    Returns:
        The ``Completion``: ``.tool_calls``, ``.finish_reason``, ``.to_openai()``, ``.diagnostics``.

    Raises:
        ParseError: strict mode found errors.
        UsageError: bad option values, or an unknown option.

    >>> from hermes_toolcall._ids import sequential_ids
    >>> c = parse_completion('<tool_call>\\n{"name": "f", "arguments": {"a": 1}}\\n</tool_call>', ids=sequential_ids())
    >>> [(x.id, x.name, x.arguments) for x in c.tool_calls], c.finish_reason
    ([('call_0', 'f', {'a': 1})], 'tool_calls')
    >>> m = parse_completion("I'm\\nthinking</think>\\nHello", dialect="qwq").to_openai()
    >>> m["reasoning_content"], m["content"]
    ("I'm\\nthinking", 'Hello')
    """
    return parse_completion_with(text, _options(text, keywords))
