"""Whole conversations: the message loop of each template family, driven by the dialect profile.

``tools_block`` picks the family (``hermes``: fixed system turn, results in ``tool`` turns glued to
the next turn; ``qwen``: system merged with the tools block, results folded into ``user`` turns;
``omp``: renderTranscript). Within a family every difference is a profile field.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import RenderError
from ..jsonio import dumps_compact, dumps_fast
from ..profiles import DialectProfile
from .calls import call_json
from .fastjson import spaced
from .injection import check_block, check_control_tokens, check_reasoning
from .results import content_text
from .system import render_system_prompt
from .values import MISSING, call_function, crash, get, jinja_str, reasoning_of, require_str

__all__ = ["render_chat"]

_PLAIN = ("user", "system")


class _Ctx:
    """Per-render state: the profile, the messages, and whether injection checks run."""

    __slots__ = ("dumps", "fast_calls", "guard", "messages", "profile", "template", "verbatim")

    def __init__(self, profile: DialectProfile, messages: list[dict[str, Any]], guard: bool) -> None:
        self.profile = profile
        self.messages = messages
        self.guard = guard
        self.template = profile.name
        self.verbatim = profile.string_arguments == "verbatim"
        self.fast_calls = profile.string_arguments != "decode"
        self.dumps = dumps_compact if profile.json_style == "compact" else spaced


def _role(m: Mapping[str, Any]) -> Any:
    return m.get("role", MISSING)


def _calls(ctx: _Ctx, m: Mapping[str, Any], index: int) -> list[str]:
    calls = m.get("tool_calls", MISSING)
    if calls is MISSING:
        return []
    if type(calls) is not list and not isinstance(calls, (list, tuple)):
        raise crash(ctx.template, "tool_calls is not a list", index=index, error="TypeError")
    out = []
    verbatim = ctx.verbatim
    fast = ctx.fast_calls
    dumps = ctx.dumps
    for k, call in enumerate(calls):
        if fast and type(call) is dict:  # the common shape, inlined (same result as call_json)
            fn = call.get("function")
            if type(fn) is not dict or not fn:
                fn = call
            name = fn.get("name")
            args = fn.get("arguments", MISSING)
            if type(name) is str and args is not MISSING:
                if verbatim and type(args) is str:
                    text = '{"name": "' + name + '", "arguments": ' + args + "}"
                    if ctx.guard:  # verbatim text: report offsets inside the arguments string
                        check_block("\n" + text + "\n", closer="</tool_call>", opener="<tool_call>",
                                    where=f"the arguments of tool call {k}", index=index, shift=len(text) - len(args))
                elif type(args) is dict:
                    text = '{"name": "' + name + '", "arguments": ' + dumps(args) + "}"
                    if ctx.guard and ('"' in name or "\\" in name):  # well-formed JSON unless the name breaks it
                        check_block("\n" + text + "\n", closer="</tool_call>", opener="<tool_call>",
                                    where=f"tool call {k}", index=index)
                else:
                    text = ""
                if text:
                    out.append("<tool_call>\n" + text + "\n</tool_call>")
                    continue
        text = call_json(call, dialect=ctx.profile, index=index)
        if ctx.guard:
            args = get(call_function(call), "arguments")
            if isinstance(args, str) and text.endswith(args + "}"):  # verbatim: report offsets inside the string
                check_block("\n" + text + "\n", closer="</tool_call>", opener="<tool_call>",
                            where=f"the arguments of tool call {k}", index=index, shift=len(text) - len(args))
            else:
                check_block("\n" + text + "\n", closer="</tool_call>", opener="<tool_call>",
                            where=f"tool call {k}", index=index)
        out.append("<tool_call>\n" + text + "\n</tool_call>")
    return out


def _result(ctx: _Ctx, m: Mapping[str, Any], index: int) -> str:
    content = m.get("content", MISSING)
    if type(content) is not str:
        content = content_text(content) if ctx.profile.tools_block == "omp" else jinja_str(content)
    if ctx.guard and ("<" in content or "\\" in content or content.count('"') % 2):
        check_block("\n" + content + "\n", closer="</tool_response>", opener="<tool_response>",
                    where="tool result", index=index)
    return "<tool_response>\n" + content + "\n</tool_response>"


def _plain(ctx: _Ctx, role: str, m: Mapping[str, Any], index: int) -> str:
    content = m.get("content", MISSING)
    if type(content) is not str:
        content = require_str(content, ctx.template, f"{role} content", index)
    return "<|im_start|>" + role + "\n" + content + "<|im_end|>\n"


_PROMPTS: dict[tuple[DialectProfile, str | None, str], str] = {}


def _system_prompt(ctx: _Ctx, tools: list[Mapping[str, Any]] | None, system: str | None) -> str:
    """``render_system_prompt``, memoised on the tools' JSON (the prompt is the same for every turn of a chat);
    with the guard on, the tools are checked for control tokens and ``</tools>`` here."""
    profile = ctx.profile
    if not tools:
        return render_system_prompt(tools, dialect=profile, system=system)
    try:
        key_json = dumps_fast(tools)
    except Exception:  # not JSON-serialisable: render without the cache
        if ctx.guard:
            check_control_tokens((), tools)
        return render_system_prompt(tools, dialect=profile, system=system)
    if ctx.guard and ("<|im_" in key_json or "</tools>" in key_json):
        check_control_tokens((), tools)  # raises with the tool index and offset
    if "null" in key_json:  # orjson writes NaN/Infinity as null too: the key would be ambiguous
        return render_system_prompt(tools, dialect=profile, system=system)
    key = (profile, system, key_json)
    prompt = _PROMPTS.get(key)
    if prompt is None:
        prompt = render_system_prompt(tools, dialect=profile, system=system)
        if len(_PROMPTS) >= 64:
            _PROMPTS.clear()
        _PROMPTS[key] = prompt
    return prompt


# --- hermes family ------------------------------------------------------------------------------


def _hermes(ctx: _Ctx, tools: list[Mapping[str, Any]] | None, bos: str) -> tuple[list[str], int]:
    out = [bos, _system_prompt(ctx, tools, None)]
    n = 2  # control tokens written by the renderer itself (the system turn's two)
    msgs = ctx.messages
    last = len(msgs) - 1
    roles = [m.get("role") for m in msgs]
    append = out.append
    for i, m in enumerate(msgs):
        role = roles[i]
        if role in _PLAIN or (role == "assistant" and "tool_calls" not in m):
            content = m.get("content")
            if type(content) is not str:
                content = require_str(m.get("content", MISSING), ctx.template, f"{role} content", i)
            append("<|im_start|>" + role + "\n" + content + "<|im_end|>\n")
            n += 2
        elif role == "assistant":
            append("<|im_start|>assistant")
            for call in _calls(ctx, m, i):
                append("\n" + call)
            append("<|im_end|>\n")
            n += 2
        elif role == "tool":
            if i > 0 and msgs[i - 1] and roles[i - 1] != "tool":
                append("<|im_start|>tool\n")
                n += 1
            append(_result(ctx, m, i))
            if i != last:
                append("\n")
                if roles[i + 1] != "tool":
                    append("<|im_end|>")
                    n += 1
            else:
                append("<|im_end|>")
                n += 1
    return out, n


# --- qwen family --------------------------------------------------------------------------------


def _last_query(msgs: list[dict[str, Any]], template: str) -> int:
    for i in range(len(msgs) - 1, -1, -1):
        m = msgs[i]
        if _role(m) == "user":
            content = m.get("content", MISSING)
            if not isinstance(content, str):
                raise crash(template, "user content is not a string (the template calls .startswith on it)",
                            index=i, error="UndefinedError" if content is MISSING else "TypeError")
            if not (content.startswith("<tool_response>") and content.endswith("</tool_response>")):
                return i
    return len(msgs) - 1


def _qwen3_assistant(ctx: _Ctx, m: Mapping[str, Any], i: int, last_query: int) -> tuple[str, str]:
    content = require_str(m.get("content", MISSING), ctx.template, "assistant content", i)
    reasoning = reasoning_of(m)
    if reasoning is MISSING:
        reasoning = ""
        if "</think>" in content:
            pieces = content.split("</think>")
            content = pieces[-1].lstrip("\n")
            reasoning = pieces[0].rstrip("\n").split("<think>")[-1].lstrip("\n")
    elif not isinstance(reasoning, str):
        raise crash(ctx.template, "reasoning is not a string", index=i, error="TypeError")
    if i > last_query and (i == len(ctx.messages) - 1 or reasoning):
        inner = reasoning.strip("\n")
        if ctx.guard:
            check_reasoning(inner, closer="</think>", index=i, shift=len(reasoning) - len(reasoning.lstrip("\n")))
        return "<|im_start|>assistant\n<think>\n" + inner + "\n</think>\n\n" + content.lstrip("\n"), content
    return "<|im_start|>assistant\n" + content, content


def _qwen(ctx: _Ctx, tools: list[Mapping[str, Any]] | None, enable_thinking: Any) -> tuple[list[str], int]:
    p = ctx.profile
    msgs = ctx.messages
    if not msgs:
        raise crash(ctx.template, "no messages (the template reads messages[0])")
    first = msgs[0]
    has_system = _role(first) == "system"
    out: list[str] = []
    if tools:
        system: str | None = None
        if has_system:
            raw = first.get("content", MISSING)
            # a template with no default system text concatenates (content + "\n\n"); the others print it
            system = (require_str(raw, ctx.template, "system content", 0) if p.default_system_with_tools is None
                      else jinja_str(raw))
        out.append(_system_prompt(ctx, tools, system))
    elif has_system:
        out.append(_plain(ctx, "system", first, 0))
    elif p.default_system is not None:
        out.append("<|im_start|>system\n" + p.default_system + "<|im_end|>\n")
    n = 2 if out else 0  # control tokens written by the renderer itself
    last_query = _last_query(msgs, ctx.template) if p.reasoning == "qwen3" else -1
    last = len(msgs) - 1
    roles = [m.get("role") for m in msgs]
    append = out.append
    guard = ctx.guard
    qwq = p.reasoning == "qwq"
    for i, m in enumerate(msgs):
        role = roles[i]
        if role == "user" or (role == "system" and i != 0):
            content = m.get("content")
            if type(content) is not str:
                content = require_str(m.get("content", MISSING), ctx.template, f"{role} content", i)
            append("<|im_start|>" + role + "\n" + content + "<|im_end|>\n")
            n += 2
        elif role == "assistant":
            n += 2
            has_calls = bool(m.get("tool_calls"))
            if p.reasoning == "qwen3":
                head, content = _qwen3_assistant(ctx, m, i, last_query)
                append(head)
                sep = bool(content)
            else:
                content = m.get("content", MISSING)
                if qwq and i != last:
                    if type(content) is not str:
                        content = require_str(content, ctx.template, "assistant content", i)
                    if "</think>" in content:
                        content = content.split("</think>")[-1]
                    content = content.lstrip("\n")
                if not has_calls:
                    if type(content) is not str:
                        content = require_str(content, ctx.template, "assistant content", i)
                    append("<|im_start|>assistant\n" + content + "<|im_end|>\n")
                    continue
                original = m.get("content", MISSING)
                append("<|im_start|>assistant")
                if original is not MISSING and original:
                    append("\n" + (content if type(content) is str else
                                   require_str(content, ctx.template, "assistant content", i)))
                sep = True
            if has_calls:
                for k, call in enumerate(_calls(ctx, m, i)):
                    append("\n" + call if (k > 0 or sep) else call)
            append("<|im_end|>\n")
        elif role == "tool":
            if i == 0 or roles[i - 1] != "tool":
                append("<|im_start|>user")
                n += 1
            content = m.get("content")
            if type(content) is str and not (guard and ("<" in content or "\\" in content or content.count('"') % 2)):
                append("\n<tool_response>\n" + content + "\n</tool_response>")  # the common case of _result
            else:
                append("\n" + _result(ctx, m, i))
            if i == last or roles[i + 1] != "tool":
                append("<|im_end|>\n")
                n += 1
    return out, n


# --- omp ----------------------------------------------------------------------------------------


def _unwrap(text: str) -> str:
    """omp's unwrap: balanced ``<think>…</think>`` segments trimmed, unwrapped and joined by ``\\n``."""
    body = text.strip(" \t\n\r\f\v")
    if not body.startswith("<think>"):
        return text
    segments: list[str] = []
    pos = 0
    while pos < len(body):
        if not body.startswith("<think>", pos):
            if body[pos] in " \t\n\r\f\v":
                pos += 1
                continue
            return text
        depth = 0
        j = pos
        while j < len(body):
            if body.startswith("<think>", j):
                depth += 1
                j += 7
            elif body.startswith("</think>", j):
                depth -= 1
                j += 8
                if depth == 0:
                    break
            else:
                j += 1
        if depth != 0:
            return text
        inner = body[pos + 7 : j - 8].strip(" \t\n\r\f\v")
        segments.append(_unwrap(inner))
        pos = j
    return "\n".join(segments)


def render_thinking(text: str) -> str:
    """omp's ``renderThinking``: ``""`` for empty text, else ``<think>\\n{unwrap(text)}\\n</think>``.

    >>> render_thinking(" <think> a </think>\\n<think>b<think>c</think></think> ")
    '<think>\\na\\nb<think>c</think>\\n</think>'
    """
    return "" if not text else "<think>\n" + _unwrap(text) + "\n</think>"


def _omp(ctx: _Ctx, tools: list[Mapping[str, Any]] | None) -> tuple[list[str], int]:
    msgs = ctx.messages
    out: list[str] = []
    start = 0
    if tools:
        first_role = _role(msgs[0]) if msgs else None
        if first_role in ("system", "developer"):
            out.append(_system_prompt(ctx, tools, content_text(msgs[0].get("content"))))
            start = 1
        else:
            out.append(_system_prompt(ctx, tools, None))
    n = 2 if out and out[0] else 0  # control tokens written by the renderer itself
    i = start
    while i < len(msgs):
        m = msgs[i]
        role = _role(m)
        if role == "tool":
            blocks = []
            while i < len(msgs) and _role(msgs[i]) == "tool":
                blocks.append(_result(ctx, msgs[i], i))
                i += 1
            out.append("<|im_start|>tool\n" + "\n".join(blocks) + "<|im_end|>\n")
            n += 2
            continue
        if role == "assistant":
            thinking = reasoning_of(m)
            rendered = render_thinking(jinja_str(thinking)) if thinking is not MISSING else ""
            if ctx.guard and rendered:
                check_reasoning(rendered[8:-9], closer="</think>", index=i)
            calls = "\n".join(_calls(ctx, m, i))
            body = rendered + content_text(m.get("content")) + calls
        else:
            body = content_text(m.get("content"))
            role = "system" if role == "developer" else jinja_str(role)
        out.append("<|im_start|>" + role + "\n" + body + "<|im_end|>\n")
        n += 2
        i += 1
    return out, n


def render_chat(profile: DialectProfile, messages: list[dict[str, Any]], tools: list[Mapping[str, Any]] | None, *,
                add_generation_prompt: bool, guard: bool, kwargs: Mapping[str, Any]) -> str:
    """Render normalised messages and tools with ``profile``'s rules (see ``render.render``)."""
    ctx = _Ctx(profile, messages, guard)
    if profile.tools_block == "hermes":
        bos_token = kwargs.get("bos_token")
        bos = jinja_str(bos_token) if profile.bos and bos_token is not None else ""
        out, n = _hermes(ctx, tools, bos)
        n += _control_tokens(bos)
    elif profile.tools_block == "qwen":
        out, n = _qwen(ctx, tools, kwargs.get("enable_thinking", MISSING))
    else:
        out, n = _omp(ctx, tools)
    if add_generation_prompt:
        if profile.generation_prompt_no_thinking is not None and kwargs.get("enable_thinking", MISSING) is False:
            out.append(profile.generation_prompt_no_thinking)
        else:
            out.append(profile.generation_prompt)
        n += 1
    text = "".join(out)
    if guard and _control_tokens(text) != n:
        # more control tokens than the renderer wrote: some content carries one; find it and say where
        check_control_tokens(messages, None)
        raise RenderError("the rendered prompt holds a control token that does not come from the renderer "
                          "(pass allow_injection=True to render it anyway)")
    return text


def _control_tokens(text: str) -> int:
    return text.count("<|im_start|>") + text.count("<|im_end|>")

