"""Message texts of the diagnostics this engine produces itself (not those of the JSON-body module).

Kept in one table so the wording stays aligned with the grammar engine's (``grammar/build.py``):
the agreement tests compare whole diagnostics, messages included.
"""

from __future__ import annotations

from .. import diagnostics
from ..model import Diagnostic, Span

__all__ = ["MESSAGES", "diagnostic", "message"]

#: code (or ``code:variant``) -> message template (``str.format`` fields named in the text).
MESSAGES: dict[str, str] = {
    "HT001": "<|im_start|> inside an open turn: the turn has no <|im_end|>",
    "HT002": "the last turn has no <|im_end|> (cut off?)",
    "HT003": "<|im_start|> is not followed by a role and a newline",
    "HT004": "unknown role {role!r}; its body is plain text",
    "HT005": "text outside any turn",
    "HT006": "the completion continues after <|im_end|> or contains <|im_start|>",
    "HT101": "<tool_call> has no </tool_call> before the end of its body",
    "HT111": "<{kind}> is not closed before the end of the body",
    "HT112": "<tool_response> has no </tool_response> before the end of its body",
    "HT113": "<tools> has no </tools> before the end of the system turn",
    "HT114": "<{tag}> block longer than max_block_chars ({limit}); cut here",
    "HT121": "stray {tag} with no opener (kept as text)",
    "HT122": "fabricated <tool_response> in an assistant body (kept as text)",
    "HT122:stop": "fabricated <tool_response> in an assistant body",
    "HT123": "parsing stopped at a fabricated <tool_response>",
    "HT124": "<tool_call> inside reasoning stays reasoning text",
    "no-call": "no call in the block",
}


def message(key: str, **fields: object) -> str:
    """The message text of an engine diagnostic (``key`` is a code or ``code:variant``).

    >>> message("HT121", tag="</think>")
    'stray </think> with no opener (kept as text)'
    """
    return MESSAGES[key].format(**fields)


def diagnostic(key: str, span: Span, *, strict: bool, **fields: object) -> Diagnostic:
    """An engine diagnostic with the catalogue severity for the mode.

    >>> diagnostic("HT124", Span(start=0, end=11, line=1, column=1), strict=True).severity
    'info'
    """
    code = key.partition(":")[0]
    return diagnostics.make(code, message(key, **fields), span, strict=strict)
