"""Token labels from the trained characters: ``token_labels``.

The text is encoded by the tokenizer itself (``add_special_tokens=False``, as ``apply_chat_template``
does), and each token is labelled from its character offsets against ``train_mask``'s intervals. A
token whose characters are partly trained (it *straddles* a span boundary: a BPE merge across
``assistant\\n`` and the first content bytes, say) follows the ``straddle`` policy, and every call that
meets one warns (``TokenBoundaryWarning``, naming each such token and its offset):

- ``train`` (the default): the token is trained. This is what transformers'
  ``return_assistant_tokens_mask`` does (a token overlapping a ``{% generation %}`` block is in the
  mask), so the labels equal TRL's ``assistant_only_loss``.
- ``ignore``: the token is not trained (only tokens wholly inside the trained text are).

A token with no characters (an empty offset) is trained when it lies strictly inside a trained
interval, as in transformers.
"""

from __future__ import annotations

import importlib
import os
import warnings
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ..errors import UsageError
from ..render import Rendered
from ._mask import MaskPolicy, train_mask

__all__ = ["IGNORE_INDEX", "StraddlePolicy", "TokenBoundaryWarning", "TokenLabels", "encode", "load_tokenizer",
           "token_labels"]

#: The label of a token that is not trained (PyTorch's ``CrossEntropyLoss`` ignore index).
IGNORE_INDEX = -100
StraddlePolicy = Literal["train", "ignore"]
_SHOWN = 5


class TokenBoundaryWarning(UserWarning):
    """A token straddles the boundary of the trained text (part of it trained, part not)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class TokenLabels:
    """A rendered conversation as tokens with labels.

    ``input_ids`` are the tokenizer's own encoding of the text, ``labels`` the same ids where the token
    is trained and ``-100`` elsewhere, ``mask`` 1 where trained (transformers' ``assistant_masks``),
    ``offsets`` each token's character range in the text, ``straddling`` the indices of the tokens
    that were partly trained (labelled by the ``straddle`` policy).
    """

    input_ids: tuple[int, ...]
    labels: tuple[int, ...]
    mask: tuple[int, ...]
    offsets: tuple[tuple[int, int], ...]
    straddling: tuple[int, ...]

    def as_dict(self) -> dict[str, list[int]]:
        """``input_ids``, ``labels`` and ``attention_mask`` as lists (a row for ``datasets`` or a collator)."""
        return {"input_ids": list(self.input_ids), "labels": list(self.labels),
                "attention_mask": [1] * len(self.input_ids)}


def token_labels(
    rendered: Rendered,
    tokenizer: Any,
    policy: MaskPolicy = "all_assistant",
    *,
    include_end_of_turn: bool = True,
    include_reasoning: bool = True,
    straddle: StraddlePolicy = "train",
) -> TokenLabels:
    """Encode a rendered conversation and label the tokens ``train_mask`` trains.

    Args:
        rendered: ``render(..., return_spans=True)``.
        tokenizer: a transformers fast tokenizer, a ``tokenizers.Tokenizer``, or the path of a
            ``tokenizer.json`` (read with ``tokenizers``: the ``training`` extra).
        policy, include_end_of_turn, include_reasoning: as for ``train_mask``.
        straddle: ``train`` or ``ignore`` a token that is partly trained (module docstring).

    Returns:
        A ``TokenLabels``.

    Raises:
        UsageError: a tokenizer that gives no character offsets (a slow transformers tokenizer), a
            path without the ``training`` extra, an unknown ``straddle``.
        RenderError: as ``train_mask``.

    Warns:
        TokenBoundaryWarning: tokens straddle the trained text's boundaries (each named, with its offset).

    >>> from tokenizers import Tokenizer, models, pre_tokenizers
    >>> tok = Tokenizer(models.WordLevel({"<|im_start|>": 0, "<|im_end|>": 1, "user": 2, "assistant": 3,
    ...                                   "Hi": 4, "Hello": 5, "\\n": 6}, unk_token="<|im_end|>"))
    >>> tok.pre_tokenizer = pre_tokenizers.Split("\\n", "isolated")
    >>> _ = tok.add_special_tokens(["<|im_start|>", "<|im_end|>"])
    >>> from hermes_toolcall import render
    >>> r = render([{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello"}],
    ...            dialect="qwq", return_spans=True)
    >>> t = token_labels(r, tok)
    >>> t.input_ids, t.labels
    ((0, 2, 6, 4, 1, 6, 0, 3, 6, 5, 1, 6), (-100, -100, -100, -100, -100, -100, -100, -100, -100, 5, 1, -100))
    """
    if straddle not in ("train", "ignore"):
        raise UsageError(f"unknown straddle policy {straddle!r} (train, ignore)")
    intervals = train_mask(rendered, policy, include_end_of_turn=include_end_of_turn,
                           include_reasoning=include_reasoning)
    ids, offsets = encode(tokenizer, rendered.text)
    mask, straddling = label_tokens(offsets, intervals, straddle=straddle)
    if straddling:
        warnings.warn(TokenBoundaryWarning(_describe(rendered.text, ids, offsets, straddling, straddle, tokenizer)),
                      stacklevel=2)
    labels = tuple(i if m else IGNORE_INDEX for i, m in zip(ids, mask, strict=True))
    return TokenLabels(input_ids=tuple(ids), labels=labels, mask=tuple(mask), offsets=tuple(offsets),
                       straddling=tuple(straddling))


def label_tokens(offsets: Sequence[tuple[int, int]], intervals: Sequence[tuple[int, int]], *,
                 straddle: StraddlePolicy) -> tuple[list[int], list[int]]:
    """(1/0 per token, indices of the straddling tokens) for sorted, disjoint trained ``intervals``.

    >>> label_tokens([(0, 2), (2, 5), (5, 6)], [(3, 6)], straddle="train")
    ([0, 1, 1], [1])
    >>> label_tokens([(0, 2), (2, 5), (5, 6)], [(3, 6)], straddle="ignore")
    ([0, 0, 1], [1])
    """
    mask: list[int] = []
    straddling: list[int] = []
    ends = [e for _, e in intervals]
    n = len(intervals)
    for t, (start, end) in enumerate(offsets):
        k = bisect_right(ends, start)  # the first interval that ends after the token starts
        if start == end:  # no characters: trained strictly inside an interval
            mask.append(1 if k < n and intervals[k][0] < start else 0)
            continue
        covered = 0
        while k < n and intervals[k][0] < end:
            covered += min(end, intervals[k][1]) - max(start, intervals[k][0])
            k += 1
        if covered <= 0:
            mask.append(0)
        elif covered >= end - start:
            mask.append(1)
        else:
            straddling.append(t)
            mask.append(1 if straddle == "train" else 0)
    return mask, straddling


def encode(tokenizer: Any, text: str) -> tuple[list[int], list[tuple[int, int]]]:
    """The tokenizer's ids and character offsets for ``text`` (no special tokens added).

    Raises:
        UsageError: the tokenizer gives no offsets, or a path needs the ``training`` extra.
    """
    if isinstance(tokenizer, (str, os.PathLike)):
        tokenizer = load_tokenizer(tokenizer)
    if type(tokenizer).__module__.split(".")[0] == "tokenizers":
        encoding = tokenizer.encode(text, add_special_tokens=False)
        return list(encoding.ids), [tuple(o) for o in encoding.offsets]
    if not callable(tokenizer):
        raise UsageError(f"not a tokenizer: {type(tokenizer).__name__} (a transformers fast tokenizer, a "
                         "tokenizers.Tokenizer, or the path of a tokenizer.json)")
    if getattr(tokenizer, "is_fast", True) is False:
        raise UsageError(f"{type(tokenizer).__name__} is a slow tokenizer: it gives no character offsets, so tokens "
                         "cannot be labelled exactly; load the fast one (AutoTokenizer.from_pretrained(..., "
                         "use_fast=True)) or pass a tokenizers.Tokenizer")
    try:
        out = tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
    except NotImplementedError as exc:  # transformers' slow tokenizers
        raise UsageError(f"{type(tokenizer).__name__} gives no character offsets: {exc}") from exc
    ids = list(out["input_ids"])
    offsets = [tuple(o) for o in out["offset_mapping"]]
    if len(ids) != len(offsets) or (ids and isinstance(ids[0], list)):
        raise UsageError("the tokenizer returned a batch: token_labels encodes one text")
    return ids, offsets


def load_tokenizer(path: str | os.PathLike[str]) -> Any:
    """A ``tokenizers.Tokenizer`` read from a ``tokenizer.json`` (the ``training`` extra).

    Raises:
        UsageError: ``tokenizers`` is not installed, or the file cannot be read.
    """
    path = os.fspath(path)
    try:
        tokenizers = importlib.import_module("tokenizers")
    except ImportError as exc:
        raise UsageError("reading a tokenizer.json needs the `training` extra (tokenizers is not installed): "
                         "pip install 'hermes-toolcall[training]'") from exc
    try:
        return tokenizers.Tokenizer.from_file(path)
    except Exception as exc:  # tokenizers raises plain Exception for a missing or bad file
        raise UsageError(f"cannot read the tokenizer {path}: {exc}") from exc


def _describe(text: str, ids: Sequence[int], offsets: Sequence[tuple[int, int]], straddling: Sequence[int],
              straddle: StraddlePolicy, tokenizer: Any) -> str:
    shown = []
    for t in straddling[:_SHOWN]:
        start, end = offsets[t]
        shown.append(f"token {t} (id {ids[t]}, {text[start:end]!r}) at offset {start}")
    more = f" and {len(straddling) - _SHOWN} more" if len(straddling) > _SHOWN else ""
    action = "trained" if straddle == "train" else "not trained"
    return (f"HT703 {len(straddling)} token(s) straddle the boundary of the trained text, {action} "
            f"(straddle={straddle!r}): {'; '.join(shown)}{more}")
