"""The inverse of ``render``: a parsed transcript back to the request ``{"messages", "tools"}`` it renders from.

The tool catalogue a template wrote into a system turn is taken out again (the system text the user gave
is kept), and the Hermes templates' description rewrite (``name(args) - description`` followed by an
``Args:`` list) is undone. Each choice is checked by writing the catalogue again: when nothing
reproduces the turn exactly, the turn is kept as a system message and the descriptions as read.

This view sits below ``render``, whose guard parses (and the parser builds ``Transcript``, whose
``to_request`` this is): it writes catalogues with the unguarded writer (``_system_prompt``) and the guard's
local checks (``_injection``), and what the guard's parse would check, that the turn reads back as exactly
those tools, it reads from the parse the transcript already is.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence
from typing import Any

from . import _jsonio as jsonio
from ._injection import check_control_tokens, check_text
from ._openai import TranscriptView, body_text, transcript_to_openai
from ._parts import Reasoning, Text, ToolCall, ToolsBlock, Turn
from ._profiles import DIALECTS, DialectProfile, get_profile
from ._system_prompt import python_type, system_prompt
from ._template_values import MISSING, get, jinja_str, tool_name
from .errors import DecodeError, HermesError, RenderError
from .tags import (
    ASSISTANT,
    CALL_CLOSE,
    CALL_OPEN,
    DEVELOPER,
    IM_END,
    IM_START,
    SYSTEM,
    THINK_CLOSE,
    THINK_OPEN,
    TOOLS_CLOSE,
    TOOLS_OPEN,
)

__all__ = ["ends_with_generation_prompt", "original_description", "transcript_to_request"]


# a <tools> block in a system turn's text: up to its closer, or to the end of the text (docs/parsing.md §7)
_TOOLS_BLOCKS = re.compile(re.escape(TOOLS_OPEN) + r"[\s\S]*?(?:" + re.escape(TOOLS_CLOSE) + r"|\Z)")


def original_description(function: Mapping[str, Any]) -> str | None:
    """The description a Hermes template rewrote as ``name(a: int) - text\\n\\n    Args:…``, or None.

    >>> original_description({"name": "f", "description": "f(a: int) - Add.\\n\\n    Args:\\n        a(int): A",
    ...     "parameters": {"type": "object", "properties": {"a": {"type": "integer", "description": "A"}}}})
    'Add.'
    """
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


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class _View:
    """A transcript's turns as the request reads them (``TranscriptView``)."""

    turns: tuple[Turn, ...]
    source: str


def _reads_as(turn: Turn | None, tools: Sequence[Any]) -> bool:
    """Whether the parsed ``turn`` holds ``<tools>`` blocks listing exactly ``tools`` (by name, in order) and
    no call, result or broken call: what ``render.render_system_prompt``'s guard checks by parsing the
    prompt again (``_roundtrip.verify_prompt``)."""
    if turn is None or not any(isinstance(p, ToolsBlock) for p in turn.parts):
        return False
    names: list[Any] = []
    for p in turn.parts:
        if isinstance(p, ToolsBlock):
            names.extend(tool_name(t) for t in p.tools)
        elif not isinstance(p, (Text, Reasoning)):
            return False
    return names == [tool_name(t) for t in tools]


def _catalogue(
    content: str, tools: list[dict[str, Any]], dialects: Sequence[str], read: Turn | None
) -> tuple[str | None, list[Any]] | None:
    """(the user's system text or None, the tools) that make ``dialect`` write this catalogue turn (``read``:
    the turn as the transcript parsed it).

    A choice passes ``render.render_system_prompt``'s guard: its local checks run here, and its parse back
    (the turn holds exactly these tools) is the parse ``read`` already is.
    """
    if not _reads_as(read, tools):
        return None
    turn = f"{IM_START}{SYSTEM}\n" + content + IM_END
    seps = [i for i in range(len(content)) if content.startswith("\n\n", i)]
    before = [None] + [content[:i] for i in seps]
    after = [None] + [content[i + 2 :] for i in reversed(seps)]  # Qwen3.5 writes the system text last
    for dialect in dialects:
        profile = get_profile(dialect)
        listed = _undo(tools) if profile.tools_block == "hermes" else tools
        for system in after if profile.system_with_tools == "after" else before:
            try:
                check_control_tokens((), listed)
                if system is not None:
                    check_text(system, where=SYSTEM, index=None)
                written = system_prompt(listed, profile, system)
            except HermesError:
                break
            if written.startswith(turn):
                return system, listed
    return None


def ends_with_generation_prompt(transcript: TranscriptView, dialect: str | DialectProfile) -> bool:
    """Whether the transcript ends with the dialect's generation prompt (an open assistant turn holding
    nothing but what ``add_generation_prompt`` writes: QwQ's ``<think>\\n`` included).

    >>> from hermes_toolcall import parse_transcript
    >>> ends_with_generation_prompt(parse_transcript("<|im_start|>assistant\\n<think>\\n"), "qwq")
    True
    >>> ends_with_generation_prompt(parse_transcript("<|im_start|>assistant\\n<think>\\n"), "qwen3")
    False
    """
    if not transcript.turns:
        return False
    last = transcript.turns[-1]
    if last.role != ASSISTANT or last.end is not None:
        return False
    return transcript.source[last.span.start : last.span.end] == get_profile(dialect).generation_prompt


def _reasoning_as_text(transcript: TranscriptView) -> _View:
    """The transcript with every reasoning segment of an assistant turn read as the text it was written
    as (its tags included): for the templates that write ``content`` verbatim and never render
    ``reasoning_content``, reasoning markup in a turn came from the message's content."""
    source = transcript.source
    turns = []
    for turn in transcript.turns:
        if turn.role == ASSISTANT and any(isinstance(p, Reasoning) for p in turn.parts):
            parts = tuple(
                Text(text=source[p.span.start : p.span.end], span=p.span) if isinstance(p, Reasoning) else p
                for p in turn.parts
            )
            turn = dataclasses.replace(turn, parts=parts)
        turns.append(turn)
    return _View(turns=tuple(turns), source=source)


def _content_as_written(turn: Turn, profile: DialectProfile) -> str | None:
    """The ``content`` the dialect's template turns into this assistant turn's text, or None (the OpenAI
    view's content stands: text after the calls, which no template writes).

    The templates write the content, then the calls: ``qwen3``, ``qwen2.5`` and ``qwq`` with a newline
    between them when the content is not empty, ``omp`` with none, ``hermes`` and ``hermes-vllm`` not
    at all (the content is dropped). After a ``<think>`` block the Qwen3 template strips the content's
    leading newlines itself (the OpenAI view does the same); omp writes it as it is.
    """
    texts: list[str] = []
    reasoning_first = False
    calls = False
    for part in turn.parts:
        if isinstance(part, Text):
            if calls:
                if part.text.strip(" \t\n\r"):
                    return None
                continue
            texts.append(part.text)
        elif isinstance(part, Reasoning):
            if not texts and not calls:
                reasoning_first = True
        else:
            calls = True
    text = "".join(texts)
    sep = profile.content_call_separator  # what the template writes between content and the first call
    if reasoning_first and profile.reasoning == "qwen3":
        if calls and sep and text == profile.think_suffix + sep:  # content of newlines only: true, stripped to ""
            return "\n"
        text = text.lstrip("\n")
    elif reasoning_first and profile.reasoning == "after-last-query" and text.startswith(profile.think_suffix):
        text = text[len(profile.think_suffix) :]  # Qwen3.5, Step: exactly what the template writes after </think>
    if not calls:
        return text
    if sep is None:  # the content is dropped
        return "" if not text.strip(" \t\n\r") else None
    if text == "\n" and profile.reasoning == "qwq":
        return text  # a history content the template emptied ("\n", "r</think>"): "\n" writes this text again
    return text[: -len(sep)] if sep and text.endswith(sep) else text


def _empty_reasoning_first(turn: Turn) -> bool:
    """Whether the turn opens with a reasoning block that holds only newlines (``<think>\\n\\n</think>``: the
    Qwen3 template writes it for a ``reasoning_content`` that is true but empty once stripped of newlines)."""
    first = turn.parts[0] if turn.parts else None
    return isinstance(first, Reasoning) and first.closed and not first.text.strip("\n")


def _untrimmed(messages: list[dict[str, Any]]) -> None:
    """Qwen3.5 trims content before it splits reasoning off at ``</think>``: content that starts with whitespace
    came from that split, so it is given back as ``R</think>C`` (the template splits it the same way again)."""
    for m in messages:
        content = m.get("content")
        if m.get("role") != ASSISTANT or not isinstance(content, str) or content == content.lstrip():
            continue
        reasoning = m.pop("reasoning_content", None)
        m["content"] = (reasoning or "") + THINK_CLOSE + content


def _without_added_think(messages: list[dict[str, Any]]) -> None:
    """Nemotron writes an empty ``<think></think>`` before an assistant content that holds no reasoning markup:
    such a content is given back without it (the template adds it again, and another dialect gets the content)."""
    empty = THINK_OPEN + THINK_CLOSE
    for m in messages:
        content = m.get("content")
        if m.get("role") != ASSISTANT or not isinstance(content, str) or not content.startswith(empty):
            continue
        rest = content[len(empty) :]
        if THINK_OPEN not in rest and THINK_CLOSE not in rest:
            m["content"] = rest


def _written_as_string(call: ToolCall, k: int) -> bool:
    """Whether the ``arguments`` of ``call`` (the ``k``-th call of its block) were written as a JSON string."""
    raw = call.raw
    end = len(raw) - len(CALL_CLOSE) if call.closed and raw.endswith(CALL_CLOSE) else len(raw)
    try:
        body = jsonio.loads(raw[len(CALL_OPEN) : end].strip(" \t\n\r"))
    except DecodeError:
        return False
    if isinstance(body, list):
        body = body[k] if k < len(body) else None
    return isinstance(body, dict) and isinstance(body.get("arguments"), str)


def _object_arguments(transcript: TranscriptView, messages: list[dict[str, Any]]) -> None:
    """For the templates that always encode ``arguments`` (``tojson``): each call written with an object
    gets that object back (its JSON string would be encoded twice), one written with a string its string."""
    calls: list[tuple[ToolCall, int]] = []
    for turn in transcript.turns:
        starts: dict[int, int] = {}
        for p in turn.parts:
            if isinstance(p, ToolCall):
                k = starts.get(p.span.start, 0)
                starts[p.span.start] = k + 1
                calls.append((p, k))
    wanted = [tc for m in messages if m.get("role") == ASSISTANT for tc in m.get("tool_calls") or ()]
    for (call, k), tc in zip(calls, wanted, strict=False):
        if not _written_as_string(call, k):
            tc["function"] = {**tc["function"], "arguments": call.arguments}


def transcript_to_request(
    transcript: TranscriptView, *, dialect: str | None = None, tools: Sequence[Any] | None = None
) -> dict[str, Any]:
    """``{"messages": [...], "tools": [...]}``: what ``render`` turns into this transcript.

    With the source ``dialect`` known, the request is the inverse of its template: rendering it in that
    dialect gives the transcript back (``convert X -> X`` is the identity, docs/dialects.md): reasoning
    markup stays in ``content`` where the template wrote content verbatim and never renders
    ``reasoning_content`` (hermes, hermes-vllm, qwen2.5, qwq), a call written with an object gets the
    object back where the template encodes ``arguments`` (hermes-vllm, qwen2.5, qwq), and a final
    generation prompt is not a message (``ends_with_generation_prompt``). A catalogue turn that no
    dialect writes is taken apart: its ``<tools>`` blocks become ``tools``, and its other text stays a
    system message (none when it held only the blocks).

    Args:
        transcript: a parsed transcript.
        dialect: the dialect it was rendered in (default: whichever one reproduces its catalogue turn).
        tools: the tools its catalogue was written from, when known: they are the request's tools (instead of
            what the catalogue reads back as: the XML-like lists of Qwen3-Coder and Nemotron do not read back
            exactly) and must reproduce the catalogue turn.

    >>> from hermes_toolcall import parse_transcript, render
    >>> tools = [{"type": "function", "function": {"name": "now", "description": "Time.",
    ...     "parameters": {"type": "object", "properties": {}}}}]
    >>> text = render([{"role": "system", "content": "Be brief."}, {"role": "user", "content": "hi"}], tools=tools)
    >>> request = transcript_to_request(parse_transcript(text))
    >>> request["messages"], request["tools"][0]["function"]["description"]
    ([{'role': 'system', 'content': 'Be brief.'}, {'role': 'user', 'content': 'hi'}], 'Time.')
    """
    dialects = [get_profile(dialect).name] if dialect is not None else sorted(DIALECTS)
    profile = get_profile(dialect) if dialect is not None else None
    view: TranscriptView = transcript
    if profile is not None and ends_with_generation_prompt(transcript, profile):
        view = _View(turns=view.turns[:-1], source=view.source)
    # Nemotron writes reasoning markup in content as it is, and renders reasoning_content as the same markup
    if profile is not None and profile.reasoning in ("none", "qwq", "history-truncated"):
        view = _reasoning_as_text(view)
    messages = [dict(m) for m in transcript_to_openai(view)]
    if profile is not None:
        turns = [t for t in view.turns if t.role == ASSISTANT]
        said = [m for m in messages if m.get("role") == ASSISTANT]
        if len(turns) == len(said):
            for turn, m in zip(turns, said, strict=True):
                content = _content_as_written(turn, profile)
                if content is not None:
                    m["content"] = content
                if profile.reasoning == "qwen3" and not m.get("reasoning_content") and _empty_reasoning_first(turn):
                    m["reasoning_content"] = "\n"  # Qwen3 writes an empty block only for a true reasoning_content
        if profile.string_arguments == "encode":
            _object_arguments(view, messages)
        if profile.reasoning in ("qwen3", "after-last-query"):
            for m in messages:
                content = m.get("content")
                if (m.get("role") == ASSISTANT and m.get("reasoning_content") is None
                        and isinstance(content, str) and THINK_CLOSE in content):
                    # the template splits a content holding </think> into reasoning and content unless
                    # reasoning_content is a string: the turn's text was written verbatim, so it was one
                    m["reasoning_content"] = ""
        if profile.trim_content and profile.reasoning == "after-last-query":
            _untrimmed(messages)
        if profile.reasoning == "history-truncated":
            _without_added_think(messages)
    for m in messages:
        if m.get("role") == ASSISTANT and m.get("content") is None:
            m["content"] = ""  # beside calls, the templates wrote an empty content
    # a final empty open assistant turn (a generation prompt) is not in the OpenAI view: not a message
    read: list[dict[str, Any]] = []
    blocks = [list(p.tools) for t in transcript.turns for p in t.parts if isinstance(p, ToolsBlock)]
    for found in blocks:
        read.extend(found)
    listed: list[Any] = list(tools) if tools is not None else read
    if not blocks:
        return {"messages": messages, "tools": listed}
    for k, m in enumerate(messages):
        content = m.get("content")
        if m.get("role") in (SYSTEM, DEVELOPER) and isinstance(content, str) and TOOLS_OPEN in content:
            read_turn = next((t for t in transcript.turns if t.role == m.get("role")
                              and body_text(t, transcript.source) == content), None)
            match = _catalogue(content, listed, dialects, read_turn)
            if match is None:  # no dialect writes this turn: the blocks are the tools, the rest stays
                rest = _TOOLS_BLOCKS.sub("", content)
                if rest.strip(" \t\n\r"):
                    messages[k] = {**m, "content": rest}
                else:
                    del messages[k]
                break
            system, listed = match
            if system is None:
                del messages[k]
            else:
                messages[k] = {**m, "content": system}
            break
    return {"messages": messages, "tools": listed}
