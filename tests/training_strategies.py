"""Conversations a fine-tuning set holds: the generator of the training tests (spans, masks, transformers).

Unlike the render conformance generator (which aims at refusals and template crashes), most of these
render in every dialect: multi-turn, calls with object arguments, one or more results per call turn,
reasoning given as ``reasoning_content`` or inline ``<think>…</think>``, empty content, and text with
the whitespace and characters that move token boundaries (newlines at both ends, runs of spaces,
non-ASCII, emoji, quotes, braces, backslashes).
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

_SNIPPETS = ["\n", "\n\n", " ", "  ", "\t", "°C", "Zürich", "東京", "🙂", '"', "{", "}", "\\", "'", "ok", "a b",
             "assistant", "user", "im_end", "Let me check.", "think"]
_alphabet = st.characters(codec="utf-8", exclude_characters="<>|")  # markup letters come from the snippets only
text = st.lists(st.one_of(st.text(_alphabet, max_size=6), st.sampled_from(_SNIPPETS)), max_size=6).map("".join)
ident = st.from_regex(r"[a-z_][a-z0-9_]{0,8}", fullmatch=True)
scalar = st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6), text)
value = st.recursive(scalar, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                     st.dictionaries(ident, inner, max_size=3)), max_leaves=5)
arguments = st.dictionaries(ident, value, max_size=3)


@st.composite
def tools(draw: st.DrawFn) -> list[dict[str, Any]]:
    names = draw(st.lists(ident, min_size=1, max_size=3, unique=True))
    return [{"type": "function", "function": {
        "name": n, "description": draw(text.filter(str.strip)) or "d",
        "parameters": {"type": "object", "properties": {
            p: {"type": draw(st.sampled_from(["string", "integer", "boolean", "object"])), "description": "p"}
            for p in draw(st.lists(ident, max_size=2, unique=True))}}}} for n in names]


@st.composite
def assistant(draw: st.DrawFn, names: list[str], with_calls: bool) -> dict[str, Any]:
    m: dict[str, Any] = {"role": "assistant", "content": draw(st.one_of(text, st.just("")))}
    how = draw(st.sampled_from(["none", "none", "field", "inline"]))
    if how == "field":
        m["reasoning_content"] = draw(text)
    elif how == "inline":
        m["content"] = "<think>" + draw(text) + "</think>" + draw(st.sampled_from(["", "\n", "\n\n"])) + m["content"]
    if with_calls:
        m["tool_calls"] = [
            {"id": f"call_{k}", "type": "function", "function": {"name": draw(st.sampled_from(names)),
                                                                  "arguments": draw(arguments)}}
            for k in range(draw(st.integers(1, 3)))]
    return m


@st.composite
def conversations(draw: st.DrawFn) -> dict[str, Any]:
    """``{"messages", "tools", "kwargs"}``: one record of a tool-calling fine-tuning set."""
    tool_list = draw(tools())
    names = [t["function"]["name"] for t in tool_list]
    msgs: list[dict[str, Any]] = []
    if draw(st.booleans()):
        msgs.append({"role": "system", "content": draw(text)})
    for _ in range(draw(st.integers(1, 3))):
        msgs.append({"role": "user", "content": draw(text.filter(lambda s: s.strip() != ""))})
        for _ in range(draw(st.integers(0, 2))):
            a = draw(assistant(names, with_calls=True))
            msgs.append(a)
            for _ in a["tool_calls"]:
                msgs.append({"role": "tool", "tool_call_id": "call_0", "content": draw(text)})
        msgs.append(draw(assistant(names, with_calls=False)))
    if draw(st.integers(0, 4)) == 0:  # the conversation stops after a call turn and its results
        while msgs and msgs[-1]["role"] == "assistant" and len(msgs) > 2:
            msgs.pop()
    kwargs: dict[str, Any] = draw(st.fixed_dictionaries({}, optional={"enable_thinking": st.booleans()}))
    kwargs["bos_token"] = "<|begin_of_text|>"
    return {"messages": msgs, "tools": tool_list if draw(st.integers(0, 5)) else [], "kwargs": kwargs}
