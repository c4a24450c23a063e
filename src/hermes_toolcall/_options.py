"""Parse options shared by both engines, so that the two read the same knobs the same way.

The options are declared once, as the keywords of ``ParseOptions.make`` (names, types, defaults, and
their documentation there). ``ParseKeywords`` is the same list as a ``TypedDict``: every entry point that
takes the options as keywords (``parse_completion``, ``parse_transcript``, ``StreamParser``) takes
``**keywords: Unpack[ParseKeywords]`` and hands them to ``options_of``; ``tests/test_options.py`` checks
that ``make``'s signature and ``ParseKeywords`` agree, and that the serving ``Policy`` and the CLI flags
name the same options with the same defaults.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypedDict

from ._argcheck import check_bool, check_int, check_type
from ._ids import IdFactory, openai_ids
from ._model import ReasoningKind
from ._profiles import DialectProfile, get_profile
from .errors import UsageError
from .tags import ASSISTANT, CLOSE, IM_END, IM_START, OPEN

if TYPE_CHECKING:
    from ._schema import ToolSet

__all__ = [
    "DEFAULT_MAX_BLOCK_CHARS",
    "OPTION_NAMES",
    "UNDECLARED",
    "ParseKeywords",
    "ParseOptions",
    "Undeclared",
    "options_of",
    "prompt_open_kind",
    "start_reasoning_kind",
]

Undeclared = Literal["keep", "text", "drop"]
#: what ``undeclared=`` may say becomes of a call to a tool that ``tools=`` does not declare
UNDECLARED: tuple[Undeclared, ...] = ("keep", "text", "drop")

DEFAULT_MAX_BLOCK_CHARS = 16 * 1024 * 1024


class ParseKeywords(TypedDict, total=False):
    """The parse options as keywords: exactly the parameters of ``ParseOptions.make`` (see it for what
    each means and its default)."""

    dialect: str | DialectProfile
    strict: bool
    calls_in_reasoning: bool
    stop_at_fabricated_response: bool
    max_block_chars: int
    ids: IdFactory | None
    starts_in_reasoning: bool | None
    tools: Sequence[Any] | None
    undeclared: Undeclared
    coerce_arguments: bool


#: The names of the parse options, in their declared order.
OPTION_NAMES: tuple[str, ...] = tuple(ParseKeywords.__annotations__)


@dataclass(frozen=True, slots=True, kw_only=True)
class ParseOptions:
    """Options of ``parse_completion``, ``parse_transcript`` and ``StreamParser``.

    Attributes:
        profile: the dialect profile.
        strict: no recoveries; every deviation from the spec is an error, raised at the end.
        calls_in_reasoning: a ``<tool_call>`` inside ``<think>``/``<scratch_pad>`` is a call.
        stop_at_fabricated_response: stop parsing at a ``<tool_response>`` in an assistant body.
        max_block_chars: largest block body (characters) before ``HT114 block-too-large``.
        ids: the call id factory (see ``hermes_toolcall._ids``).
        reasoning_at_start: completion level: the completion begins inside a reasoning block of
            this kind (the generation prompt opened it; see ``prompt_state``), or None. Transcripts
            ignore it (their prompt is part of the input).
        tools: the declared tools (``tools=`` read by ``_schema.load_tools``), or None: no
            tools policy (``tools_policy``).
        undeclared: what becomes of a call to an undeclared tool: ``keep`` (a call, with
            ``HT301``), ``text`` (the block's raw text stays as content), ``drop``.
        coerce_arguments: convert argument values to the schema's type when lossless (``coerce``).
    """

    profile: DialectProfile
    strict: bool = False
    calls_in_reasoning: bool = False
    stop_at_fabricated_response: bool = False
    max_block_chars: int = DEFAULT_MAX_BLOCK_CHARS
    ids: IdFactory = openai_ids
    reasoning_at_start: ReasoningKind | None = None
    tools: ToolSet | None = None
    undeclared: Undeclared = "keep"
    coerce_arguments: bool = False

    @classmethod
    def make(
        cls,
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
    ) -> ParseOptions:
        """Build options from keyword values, checking them.

        ``starts_in_reasoning``: None = as the dialect's generation prompt leaves it
        (``_prompt_state.generation_prompt_state``: true for ``qwq``), True = inside the reasoning
        kind that prompt opens (else the dialect's first kind), False = outside.

        ``tools``: OpenAI tool objects (or bare function objects); ``undeclared`` other than
        ``keep`` and ``coerce_arguments`` need them.

        Raises:
            UsageError: an unknown dialect, a non-positive ``max_block_chars``,
                ``starts_in_reasoning=True`` for a dialect without reasoning kinds, ``tools`` that is
                not a list, an unknown ``undeclared``, or ``undeclared``/``coerce_arguments``
                without ``tools``.

        >>> ParseOptions.make(dialect="qwq").reasoning_at_start
        'think'
        """
        for flag, value in (
            ("strict", strict),
            ("calls_in_reasoning", calls_in_reasoning),
            ("stop_at_fabricated_response", stop_at_fabricated_response),
        ):
            check_bool(flag, value)
        check_int("max_block_chars", max_block_chars)
        if max_block_chars <= 0:
            raise UsageError("max_block_chars must be positive")
        if ids is not None and not callable(ids):
            raise UsageError(f"ids must be a callable id factory, got {type(ids).__name__}")
        profile = get_profile(dialect)
        toolset = _tool_set(tools, undeclared, coerce_arguments)
        return cls(
            profile=profile,
            strict=strict,
            calls_in_reasoning=calls_in_reasoning,
            stop_at_fabricated_response=stop_at_fabricated_response,
            max_block_chars=max_block_chars,
            ids=ids or openai_ids,
            reasoning_at_start=start_reasoning_kind(profile, starts_in_reasoning),
            tools=toolset,
            undeclared=undeclared,
            coerce_arguments=coerce_arguments,
        )


def _tool_set(tools: Sequence[Any] | None, undeclared: str, coerce_arguments: bool) -> ToolSet | None:
    if undeclared not in UNDECLARED:
        raise UsageError(f"undeclared must be one of {', '.join(UNDECLARED)}, got {undeclared!r}")
    if tools is None:
        if undeclared != "keep" or coerce_arguments:
            what = "coerce_arguments" if coerce_arguments else f"undeclared={undeclared!r}"
            raise UsageError(f"{what} needs tools= (the declared tools)")
        return None
    if isinstance(tools, str | bytes | dict) or not isinstance(tools, Sequence):
        raise UsageError(f"tools must be a list of tool objects, got {type(tools).__name__}")
    from ._schema import load_tools

    return load_tools(tools)


def options_of(options: ParseOptions | None, keywords: ParseKeywords) -> ParseOptions:
    """The options of an entry point called with ``options=`` or with option keywords (not both).

    Raises:
        UsageError: ``options`` together with option keywords, a keyword that is not an option, a
            bad option value, or ``options`` that is not a ``ParseOptions``.

    >>> options_of(None, {"strict": True}).strict
    True
    >>> options_of(ParseOptions.make(), {"strict": True})
    Traceback (most recent call last):
    ...
    hermes_toolcall.errors.UsageError: pass either options= or option keywords, not both (got options= and strict)
    """
    unknown = sorted(set(keywords) - set(OPTION_NAMES))
    if unknown:
        raise UsageError(f"unknown option {unknown[0]!r} (the options: {', '.join(OPTION_NAMES)})")
    if options is None:
        return ParseOptions.make(**keywords)
    check_type("options", options, ParseOptions, "a ParseOptions")
    if keywords:
        got = ", ".join(sorted(keywords))
        raise UsageError(f"pass either options= or option keywords, not both (got options= and {got})")
    return options


def prompt_open_kind(prompt: str, kinds: tuple[ReasoningKind, ...]) -> ReasoningKind | None:
    """The reasoning block a dialect's own generation prompt leaves open, read by its tags: the last
    turn must be an open assistant turn whose body has an opener of an enabled kind with no closer after
    it (``_prompt_state.generation_prompt_state`` reads any prompt with the parser; they agree on every
    dialect's prompts, tests/test_options.py).

    >>> prompt_open_kind("<|im_start|>assistant\\n<think>\\n", ("think",))
    'think'
    >>> prompt_open_kind("<think>\\n</think>", ("think",))
    """
    body = prompt
    start = prompt.rfind(IM_START)
    if start >= 0:
        role, newline, body = prompt[start + len(IM_START) :].partition("\n")
        if not newline or role != ASSISTANT or IM_END in body:
            return None
    found: ReasoningKind | None = None
    at = -1
    for kind in kinds:
        opener = body.rfind(OPEN[kind])
        if opener > at and body.find(CLOSE[kind], opener) < 0:
            found, at = kind, opener
    return found


def start_reasoning_kind(profile: DialectProfile, starts_in_reasoning: bool | None) -> ReasoningKind | None:
    """The reasoning kind a completion starts in (None: outside), for the option value given.

    None means "as the dialect's generation prompt leaves it"; True means inside the kind that
    prompt opens, else the dialect's first reasoning kind.

    Raises:
        UsageError: True for a dialect without reasoning kinds, or a value that is not a bool or None.

    >>> start_reasoning_kind(get_profile("qwq"), None), start_reasoning_kind(get_profile("qwen3"), True)
    ('think', 'think')
    """
    if starts_in_reasoning is False:
        return None
    if starts_in_reasoning is not None and starts_in_reasoning is not True:
        raise UsageError(f"starts_in_reasoning must be True, False or None, got {starts_in_reasoning!r}")
    kind = prompt_open_kind(profile.generation_prompt, profile.reasoning_kinds)
    if starts_in_reasoning is None or kind is not None:
        return kind
    if not profile.reasoning_kinds:
        raise UsageError(f"dialect {profile.name!r} has no reasoning kinds: starts_in_reasoning=True is impossible")
    return profile.reasoning_kinds[0]
