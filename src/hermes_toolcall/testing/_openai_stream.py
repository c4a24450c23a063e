"""Accumulate OpenAI ``chat.completion.chunk`` dicts into the final message, the way clients do.

``accumulate_chunks`` follows openai-python's ``accumulate_delta`` (strings concatenate, ``index`` and
``type`` are replaced, lists of objects merge by ``index``), so a server whose chunks send an ``id``
or a ``name`` twice shows the duplication users see (``web_searchweb_search``).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["accumulate_chunks", "accumulate_delta"]


def accumulate_delta(acc: dict[str, Any], delta: Mapping[str, Any]) -> dict[str, Any]:
    """Merge one delta into the accumulated message (openai-python semantics).

    Raises:
        AssertionError: a list entry without an integer ``index`` (the client would crash).

    >>> accumulate_delta({"content": "Hel"}, {"content": "lo"})
    {'content': 'Hello'}
    """
    for key, value in delta.items():
        if key not in acc or acc[key] is None:
            acc[key] = copy.deepcopy(value)
            continue
        have = acc[key]
        if key in ("index", "type"):
            acc[key] = value
        elif isinstance(have, str) and isinstance(value, str):
            acc[key] = have + value
        elif isinstance(have, dict) and isinstance(value, dict):
            acc[key] = accumulate_delta(have, value)
        elif isinstance(have, list) and isinstance(value, list):
            for entry in value:
                if not isinstance(entry, dict) or not isinstance(entry.get("index"), int):
                    raise AssertionError(f"list delta entry without an integer index: {entry!r}")
                position = entry["index"]
                if position < len(have):
                    have[position] = accumulate_delta(have[position], entry)
                else:
                    have.insert(position, copy.deepcopy(entry))
        elif value is not None:
            acc[key] = value
    return acc


def accumulate_chunks(chunks: Iterable[Mapping[str, Any]]) -> tuple[dict[str, Any], str | None]:
    """The message and ``finish_reason`` of a stream of ``chat.completion.chunk`` dicts (choice 0).

    Returns:
        ``(message, finish_reason)``; ``message`` has the accumulated ``role``, ``content``,
        ``reasoning_content`` and ``tool_calls`` (each without its ``index``) as sent.

    >>> chunks = [{"choices": [{"index": 0, "delta": {"role": "assistant"}, "finish_reason": None}]},
    ...           {"choices": [{"index": 0, "delta": {"content": "Hi"}, "finish_reason": "stop"}]}]
    >>> accumulate_chunks(chunks)
    ({'role': 'assistant', 'content': 'Hi'}, 'stop')
    """
    message: dict[str, Any] = {}
    finish: str | None = None
    for chunk in chunks:
        for choice in chunk.get("choices", ()):
            if choice.get("index", 0) != 0:
                continue
            accumulate_delta(message, choice.get("delta") or {})
            finish = choice.get("finish_reason") or finish
    for call in message.get("tool_calls") or ():
        call.pop("index", None)
    return message, finish
