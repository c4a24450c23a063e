"""The inverse of ``render``: a parsed transcript back to the request ``{"messages", "tools"}`` it renders from.

The tool catalogue a template wrote into a system turn is taken out again (the system text the user gave
is kept), and the Hermes templates' description rewrite (``name(args) - description`` followed by an
``Args:`` list) is undone. Each choice is checked by rendering the catalogue again: when nothing
reproduces the turn exactly, the turn is kept as a system message and the descriptions as read.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ._model import ToolsBlock, Transcript
from .tags import IM_END, IM_START, TOOLS_OPEN

__all__ = ["original_description", "transcript_to_request"]


def original_description(function: Mapping[str, Any]) -> str | None:
    """The description a Hermes template rewrote as ``name(a: int) - text\\n\\n    Args:…``, or None.

    >>> original_description({"name": "f", "description": "f(a: int) - Add.\\n\\n    Args:\\n        a(int): A",
    ...     "parameters": {"type": "object", "properties": {"a": {"type": "integer", "description": "A"}}}})
    'Add.'
    """
    from .errors import RenderError
    from .render._system import python_type
    from .render._values import MISSING, get, jinja_str

    name, text, params = function.get("name"), function.get("description"), function.get("parameters")
    if not isinstance(name, str) or not isinstance(text, str) or not isinstance(params, Mapping):
        return None
    props = params.get("properties")
    items = list(props.items()) if isinstance(props, Mapping) else []
    try:
        types = [python_type(spec) for _, spec in items]
    except RenderError:
        return None
    head = f"{name}(" + ", ".join(f"{k}: {t}" for (k, _), t in zip(items, types, strict=True)) + ") - "
    args = "".join(
        f"        {k}({t}): {jinja_str(get(spec, 'description')).strip()}"
        for (k, spec), t in zip(items, types, strict=True)
    )
    tail = "\n\n" + ("    Args:\n" + args if items else "")
    if get(function, "return") is not MISSING or not text.startswith(head) or not text.endswith(tail):
        return None
    if len(text) < len(head) + len(tail):
        return None
    return text[len(head) : len(text) - len(tail)]


def _undo(tools: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for tool in tools:
        fn = tool.get("function")
        original = original_description(fn) if isinstance(fn, Mapping) else None
        out.append({**tool, "function": {**fn, "description": original}} if original is not None and fn else tool)
    return out


def _catalogue(
    content: str, tools: list[dict[str, Any]], dialects: Sequence[str]
) -> tuple[str | None, list[Any]] | None:
    """(the user's system text or None, the tools) that make ``dialect`` write this catalogue turn."""
    from ._profiles import get_profile
    from .errors import HermesError
    from .render._system import render_system_prompt

    turn = f"{IM_START}system\n" + content + IM_END
    splits = [None] + [content[:i] for i in range(len(content)) if content.startswith("\n\n", i)]
    for dialect in dialects:
        listed = _undo(tools) if get_profile(dialect).tools_block == "hermes" else tools
        for system in splits:
            try:
                written = render_system_prompt(listed, dialect=dialect, system=system)
            except HermesError:
                break
            if written.startswith(turn):
                return system, listed
    return None


def transcript_to_request(transcript: Transcript, *, dialect: str | None = None) -> dict[str, Any]:
    """``{"messages": [...], "tools": [...]}``: what ``render`` turns into this transcript.

    Args:
        transcript: a parsed transcript.
        dialect: the dialect it was rendered in (default: whichever one reproduces its catalogue turn).

    >>> from hermes_toolcall import parse_transcript, render
    >>> tools = [{"type": "function", "function": {"name": "now", "description": "Time.",
    ...     "parameters": {"type": "object", "properties": {}}}}]
    >>> text = render([{"role": "system", "content": "Be brief."}, {"role": "user", "content": "hi"}], tools=tools)
    >>> request = transcript_to_request(parse_transcript(text))
    >>> request["messages"], request["tools"][0]["function"]["description"]
    ([{'role': 'system', 'content': 'Be brief.'}, {'role': 'user', 'content': 'hi'}], 'Time.')
    """
    from ._profiles import DIALECTS, get_profile

    dialects = [get_profile(dialect).name] if dialect is not None else sorted(DIALECTS)
    messages = [dict(m) for m in transcript.to_openai_messages()]
    for m in messages:
        if m.get("role") == "assistant" and m.get("content") is None:
            m["content"] = ""  # beside calls, the templates wrote an empty content
    # a final empty open assistant turn (a generation prompt) is not in the OpenAI view: not a message
    tools: list[dict[str, Any]] = []
    blocks = [list(p.tools) for t in transcript.turns for p in t.parts if isinstance(p, ToolsBlock)]
    for found in blocks:
        tools.extend(found)
    if not blocks:
        return {"messages": messages, "tools": tools}
    for k, m in enumerate(messages):
        content = m.get("content")
        if m.get("role") in ("system", "developer") and isinstance(content, str) and TOOLS_OPEN in content:
            match = _catalogue(content, tools, dialects)
            if match is None:
                break
            system, tools = match
            if system is None:
                del messages[k]
            else:
                messages[k] = {**m, "content": system}
            break
    return {"messages": messages, "tools": tools}
