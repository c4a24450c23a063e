"""Parse options shared by both engines, so that the two read the same knobs the same way."""

from __future__ import annotations

from dataclasses import dataclass

from .errors import UsageError
from .ids import IdFactory, openai_ids
from .profiles import DialectProfile, get_profile

__all__ = ["DEFAULT_MAX_BLOCK_CHARS", "ParseOptions"]

DEFAULT_MAX_BLOCK_CHARS = 16 * 1024 * 1024


@dataclass(frozen=True, slots=True, kw_only=True)
class ParseOptions:
    """Options of ``parse_completion``, ``parse_transcript`` and ``StreamParser``.

    Attributes:
        profile: the dialect profile.
        strict: no recoveries; every deviation from the spec is an error, raised at the end.
        calls_in_reasoning: a ``<tool_call>`` inside ``<think>``/``<scratch_pad>`` is a call.
        stop_at_fabricated_response: stop parsing at a ``<tool_response>`` in an assistant body.
        max_block_chars: largest block body (characters) before ``HT114 block-too-large``.
        ids: the call id factory (see ``hermes_toolcall.ids``).
    """

    profile: DialectProfile
    strict: bool = False
    calls_in_reasoning: bool = False
    stop_at_fabricated_response: bool = False
    max_block_chars: int = DEFAULT_MAX_BLOCK_CHARS
    ids: IdFactory = openai_ids

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
    ) -> ParseOptions:
        """Build options from keyword values, checking them.

        Raises:
            UsageError: an unknown dialect or a non-positive ``max_block_chars``.
        """
        if max_block_chars <= 0:
            raise UsageError("max_block_chars must be positive")
        return cls(
            profile=get_profile(dialect),
            strict=strict,
            calls_in_reasoning=calls_in_reasoning,
            stop_at_fabricated_response=stop_at_fabricated_response,
            max_block_chars=max_block_chars,
            ids=ids or openai_ids,
        )
