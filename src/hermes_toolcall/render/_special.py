"""Special tokens that must never appear in rendered content (``render(special_tokens=…)``), and the
``bos_token`` check.

A tokenizer turns a special token written as text into the control token itself (``<|endoftext|>`` ends
the document, ``<|eot_id|>`` the turn), so a conversation holding one is refused like the ChatML control
tokens. The list comes from the caller, from a plain JSON list or a text file (one token a line), or from
a Hugging Face ``tokenizer_config.json`` / ``tokenizer.json``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from .._jsonio import loads
from .._model import FunctionCall
from ..errors import DecodeError, RenderError, UsageError
from ..tags import IM_END, IM_START

__all__ = ["check_bos", "check_special_tokens", "load_special_tokens", "special_tokens_from"]

_CONTROL = (IM_START, IM_END)
_NAMED = ("bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token")


def _token(value: Any) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping) and isinstance(value.get("content"), str):
        return str(value["content"])
    return None


def special_tokens_from(value: Any) -> tuple[str, ...]:
    """The special tokens of a JSON value: a list of strings, or a tokenizer config.

    From a ``tokenizer_config.json``: the named tokens (``bos_token``, ``eos_token``, …),
    ``additional_special_tokens`` and the ``added_tokens_decoder`` entries marked ``special``; from a
    ``tokenizer.json``: the ``added_tokens`` marked ``special``. Empty strings are dropped.

    Raises:
        UsageError: the value is neither.

    >>> special_tokens_from({"eos_token": "<|im_end|>", "added_tokens_decoder": {
    ...     "151643": {"content": "<|endoftext|>", "special": True}, "151657": {"content": "<tool_call>"}}})
    ('<|im_end|>', '<|endoftext|>')
    """
    found: list[str] = []
    if isinstance(value, list):
        for k, item in enumerate(value):
            token = _token(item)
            if token is None:
                raise UsageError(f"special tokens: item {k} is not a string")
            found.append(token)
    elif isinstance(value, Mapping):
        for key in _NAMED:
            token = _token(value.get(key))
            if token is not None:
                found.append(token)
        for item in value.get("additional_special_tokens") or ():
            token = _token(item)
            if token is not None:
                found.append(token)
        decoder = value.get("added_tokens_decoder")
        entries = list(decoder.values()) if isinstance(decoder, Mapping) else []
        added = value.get("added_tokens")
        entries += list(added) if isinstance(added, list) else []
        for entry in entries:
            if isinstance(entry, Mapping) and entry.get("special") is True:
                token = _token(entry)
                if token is not None:
                    found.append(token)
        if not found:
            raise UsageError("special tokens: the JSON object is not a tokenizer config (no bos_token, eos_token, "
                             "additional_special_tokens, added_tokens_decoder or added_tokens)")
    else:
        raise UsageError(f"special tokens: expected a list or a tokenizer config object, got {type(value).__name__}")
    return tuple(dict.fromkeys(t for t in found if t))


def load_special_tokens(path: str | Path) -> tuple[str, ...]:
    """Special tokens from a file: a JSON list, a tokenizer config JSON, or plain text (one token a line).

    Raises:
        UsageError: the file cannot be read or holds no usable list.

    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "tokens.txt"
    >>> _ = path.write_text("<|endoftext|>\\n<|eot_id|>\\n", encoding="utf-8")
    >>> load_special_tokens(path)
    ('<|endoftext|>', '<|eot_id|>')
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path}: cannot read the special tokens: {exc}") from exc
    stripped = text.strip()
    if stripped.startswith(("[", "{")):
        try:
            return special_tokens_from(loads(stripped))
        except DecodeError as exc:
            raise UsageError(f"{path}: not JSON: {exc}") from exc
        except UsageError as exc:
            raise UsageError(f"{path}: {exc}") from exc
    return tuple(dict.fromkeys(line.strip("\r") for line in text.split("\n") if line.strip()))


def normalize_special_tokens(tokens: Iterable[str] | None) -> tuple[str, ...]:
    """The caller's ``special_tokens`` as a tuple of non-empty strings.

    Raises:
        UsageError: not an iterable of strings.
    """
    if tokens is None:
        return ()
    if isinstance(tokens, (str, bytes)) or not isinstance(tokens, Iterable):
        raise UsageError(f"special_tokens must be a list of strings, got {type(tokens).__name__}")
    out = []
    for k, token in enumerate(tokens):
        if not isinstance(token, str):
            raise UsageError(f"special_tokens: item {k} is a {type(token).__name__}, not a string")
        if token:
            out.append(token)
    return tuple(out)


@lru_cache(maxsize=32)
def _pattern(tokens: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile("|".join(re.escape(t) for t in sorted(tokens, key=len, reverse=True)))


def _strings(value: Any, path: str) -> Iterable[tuple[str, str]]:
    """Every string inside a message or tool value, with its path (iterative: no recursion limit)."""
    stack: list[tuple[Any, str]] = [(value, path)]
    seen: set[int] = set()
    while stack:
        item, where = stack.pop()
        if isinstance(item, str):
            yield where, item
        elif isinstance(item, FunctionCall):
            stack.append(({"name": item.name, "arguments": item.arguments}, where))
        elif isinstance(item, Mapping):
            if id(item) in seen:
                continue
            seen.add(id(item))
            for key, sub in reversed(list(item.items())):
                if isinstance(key, str):
                    yield (f"{where}.{key}" if where else key) + "(key)", key
                stack.append((sub, f"{where}.{key}" if where else str(key)))
        elif isinstance(item, (list, tuple)):
            if id(item) in seen:
                continue
            seen.add(id(item))
            for k in range(len(item) - 1, -1, -1):
                stack.append((item[k], f"{where}[{k}]"))


def check_special_tokens(tokens: tuple[str, ...], messages: Sequence[Mapping[str, Any]],
                         tools: Sequence[Mapping[str, Any]] | None) -> None:
    """Refuse any of ``tokens`` anywhere in the messages or the tools (rendered or not).

    Raises:
        RenderError: naming the message (None for a tool), the field and the offset.

    >>> check_special_tokens(("<|eot_id|>",), [{"role": "user", "content": "hi"}], None)
    """
    if not tokens:
        return
    pattern = _pattern(tokens)
    for index, message in enumerate(messages):
        for field, text in _strings(message, ""):
            match = pattern.search(text)
            if match:
                field = field.removesuffix("(key)")
                raise RenderError(
                    f"message {index} ({field}): special token {match.group()!r} at offset {match.start()} "
                    "(pass allow_injection=True to render it anyway)",
                    message_index=index, offset=match.start(), field=field)
    for k, tool in enumerate(tools or ()):
        for field, text in _strings(tool, f"tools[{k}]"):
            match = pattern.search(text)
            if match:
                field = field.removesuffix("(key)")
                raise RenderError(f"{field}: special token {match.group()!r} at offset {match.start()} "
                                  "(pass allow_injection=True to render it anyway)",
                                  offset=match.start(), field=field)


def check_bos(bos: Any, tokens: tuple[str, ...]) -> None:
    """Refuse a ``bos_token`` that holds a ChatML control token, or a special token other than itself.

    Raises:
        RenderError: with ``field="bos_token"`` and the offset.

    >>> check_bos("<|begin_of_text|>", ("<|begin_of_text|>", "<|eot_id|>"))
    """
    if not isinstance(bos, str) or not bos:
        return
    for token in _CONTROL:
        at = bos.find(token)
        if at >= 0:
            raise RenderError(f"bos_token: control token {token!r} at offset {at} would start or end a turn "
                              "(pass allow_injection=True to render it anyway)", offset=at, field="bos_token")
    if tokens and bos not in tokens:
        match = _pattern(tokens).search(bos)
        if match:
            raise RenderError(f"bos_token: special token {match.group()!r} at offset {match.start()} "
                              "(pass allow_injection=True to render it anyway)", offset=match.start(),
                              field="bos_token")
