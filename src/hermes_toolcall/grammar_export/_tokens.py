"""Which tags a tokenizer has as single added tokens (llguidance writes those as token references)."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from .._jsonio import loads
from ..errors import DecodeError, UsageError

__all__ = ["token_tags"]


def _added_in_file(path: str | os.PathLike[str]) -> set[str]:
    try:
        with open(path, encoding="utf-8") as fh:
            data = loads(fh.read())
    except (OSError, DecodeError) as exc:
        raise UsageError(f"cannot read the tokenizer file {os.fspath(path)!r}: {exc}") from None
    added = data.get("added_tokens") if isinstance(data, dict) else None
    if not isinstance(added, list):
        raise UsageError(f"{os.fspath(path)!r} is not a tokenizer.json (no added_tokens list)")
    return {t["content"] for t in added if isinstance(t, dict) and isinstance(t.get("content"), str)}


def token_tags(tokenizer: Any) -> Callable[[str], bool]:
    """A predicate: is this tag one added token of ``tokenizer``?

    ``tokenizer`` is None (the family's tokenizers: every tag is a token), an ``llguidance.LLTokenizer``,
    a ``tokenizers.Tokenizer``, a transformers tokenizer, or the path of a ``tokenizer.json``.

    Raises:
        UsageError: an object of another kind, or a file that is not a tokenizer.
    """
    if tokenizer is None:
        return lambda tag: True
    if isinstance(tokenizer, (str, os.PathLike)):
        added = _added_in_file(tokenizer)
        return added.__contains__
    if hasattr(tokenizer, "is_special_token") and hasattr(tokenizer, "tokenize_str"):  # llguidance.LLTokenizer
        def single(tag: str) -> bool:
            ids = tokenizer.tokenize_str(tag, parse_special=True)
            return len(ids) == 1 and bool(tokenizer.is_special_token(ids[0]))

        return single
    if hasattr(tokenizer, "get_added_tokens_decoder"):  # tokenizers.Tokenizer, transformers tokenizers
        added = {getattr(t, "content", str(t)) for t in tokenizer.get_added_tokens_decoder().values()}
        return added.__contains__
    if hasattr(tokenizer, "get_added_vocab"):
        added = set(tokenizer.get_added_vocab())
        return added.__contains__
    raise UsageError(
        "tokenizer must be an llguidance.LLTokenizer, a tokenizers.Tokenizer, a transformers tokenizer or the path "
        f"of a tokenizer.json, got {type(tokenizer).__name__}"
    )
