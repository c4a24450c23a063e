"""Example adapter: a re-implementation of the regex approach of vLLM's ``hermes_tool_parser.py``.

It is a worked example of wrapping another parser for ``hermes-toolcall conformance`` (see
``docs/conformance.md``), and a baseline: it shows which corpus cases a typical server parser fails.
The logic follows the description in ``shared/reference/field-failures.md`` §3: the regex
``<tool_call>(.*?)</tool_call>|<tool_call>(.*)`` (DOTALL), ``json.loads`` per match (a failing match
is dropped), content = the text before the first ``<tool_call>`` only; no reasoning, no diagnostics.

    hermes-toolcall conformance --adapter hermes_toolcall.conformance.examples._vllm_style_regex:adapter
"""

from __future__ import annotations

import re

from hermes_toolcall import _jsonio as jsonio
from hermes_toolcall.conformance import CallOut, Outcome, Request

_CALL = re.compile(r"<tool_call>(.*?)</tool_call>|<tool_call>(.*)", re.DOTALL)


def adapter(request: Request) -> Outcome:
    """Parse a completion the way the regex parser does (whole text; chunks are ignored)."""
    text = request.text
    if "<tool_call>" not in text:
        return Outcome(content=text)
    calls = []
    for match in _CALL.finditer(text):
        body = (match.group(1) if match.group(1) is not None else match.group(2)).strip()
        obj = jsonio.loads_or_none(body)
        if isinstance(obj, dict) and isinstance(obj.get("name"), str):
            calls.append(CallOut(name=obj["name"], arguments=obj.get("arguments", {})))
    content = text[: text.index("<tool_call>")]
    return Outcome(calls=tuple(calls), content=content or None)


adapter.adapter_name = "vllm-style regex"  # type: ignore[attr-defined]
adapter.streaming = False  # type: ignore[attr-defined]
adapter.levels = ("completion",)  # type: ignore[attr-defined]
adapter.options = ()  # type: ignore[attr-defined]  # no strict mode, no reasoning policy, no size limit
