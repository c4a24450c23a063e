"""Whole conversations: the message loop of each template family, driven by the dialect profile.

``tools_block`` picks the family (``hermes``: fixed system turn, results in ``tool`` turns glued to
the next turn; ``qwen``: system merged with the tools block, results folded into ``user`` turns;
``omp``: renderTranscript). Within a family every difference is a profile field. The pieces and the
guard's pre-scan are in ``writers``; the round trip in ``roundtrip``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._injection import check_reasoning, check_text
from .._profiles import DialectProfile
from .._template_values import MISSING, crash, jinja_str, reasoning_of, require_str
from ..tags import (
    ASSISTANT,
    DEVELOPER,
    IM_END,
    IM_START,
    RESP_CLOSE,
    RESP_OPEN,
    SYSTEM,
    THINK_CLOSE,
    THINK_OPEN,
    TOOL,
    USER,
)
from ._results import content_text
from ._roundtrip import Recorder, changed, reasoning_is_structure, verify
from ._writers import (
    _PLAIN,
    _calls,
    _Ctx,
    _known_roles,
    _lt,
    _place_tools,
    _plain,
    _result,
    _role,
    _system_prompt,
    _text,
)
from ._xmlchat import generation_prompt, render_xml_family

__all__ = ["check_round_trip", "prescan", "recorded_render", "render_chat", "render_thinking"]

# --- hermes family ------------------------------------------------------------------------------


def _hermes(ctx: _Ctx, tools: list[Mapping[str, Any]] | None, bos: str) -> tuple[list[str], int]:
    msgs = ctx.messages
    roles = [m.get("role") for m in msgs]
    if ctx.guard:
        _known_roles(roles, msgs)
    out = [bos]
    prompt, n = _system_prompt(ctx, tools, None)  # n: ``<`` written by the renderer
    n += _lt(bos)
    _place_tools(ctx, out, None)
    out.append(prompt)
    last = len(msgs) - 1
    append = out.append
    rec = ctx.rec
    guard = ctx.guard
    for i, m in enumerate(msgs):
        if rec is not None:
            rec.starts.append((len(out), i))
            rec.written.append((len(out), n + ctx.lt))
        role = roles[i]
        if role in _PLAIN or (role == ASSISTANT and "tool_calls" not in m):
            content = m.get("content")
            if type(content) is not str:
                content = require_str(m.get("content", MISSING), ctx.template, f"{role} content", i)
            if guard and "<" in content:
                _text(ctx, content)
            append(IM_START + role + "\n" + content + f"{IM_END}\n")
            n += 2
        elif role == ASSISTANT:
            append(f"{IM_START}{ASSISTANT}")
            calls = _calls(ctx, m, i, len(out) - 1)
            for call in calls:
                append("\n" + call)
            append(f"{IM_END}\n")
            n += 2 + 2 * len(calls)
        elif role == TOOL:
            if i > 0 and msgs[i - 1] and roles[i - 1] != TOOL:
                append(f"{IM_START}{TOOL}\n")
                n += 1
            elif i == 0 or not msgs[i - 1]:
                ctx.suspect = True  # the template opens no turn for this result: it lands outside any turn
            append(_result(ctx, m, i, len(out)))
            n += 2
            if i != last:
                append("\n")
                if roles[i + 1] != TOOL:
                    append(IM_END)
                    n += 1
            else:
                append(IM_END)
                n += 1
    return out, n


# --- qwen family --------------------------------------------------------------------------------


def _last_query(msgs: list[dict[str, Any]], template: str) -> int:
    for i in range(len(msgs) - 1, -1, -1):
        m = msgs[i]
        if _role(m) == USER:
            content = m.get("content", MISSING)
            if not isinstance(content, str):
                raise crash(template, "user content is not a string (the template calls .startswith on it)",
                            index=i, error="UndefinedError" if content is MISSING else "TypeError")
            if not (content.startswith(RESP_OPEN) and content.endswith(RESP_CLOSE)):
                return i
    return len(msgs) - 1


def _qwen3_assistant(ctx: _Ctx, m: Mapping[str, Any], i: int, last_query: int) -> tuple[str, str, int]:
    content = require_str(m.get("content", MISSING), ctx.template, "assistant content", i)
    reasoning = reasoning_of(m)
    if reasoning is MISSING:
        reasoning = ""
        if THINK_CLOSE in content:
            pieces = content.split(THINK_CLOSE)
            content = pieces[-1].lstrip("\n")
            reasoning = pieces[0].rstrip("\n").split(THINK_OPEN)[-1].lstrip("\n")
    elif not isinstance(reasoning, str):
        raise crash(ctx.template, "reasoning is not a string", index=i, error="TypeError")
    if i > last_query and (i == len(ctx.messages) - 1 or reasoning):
        inner = reasoning.strip("\n")
        if ctx.guard:
            check_reasoning(inner, closer=THINK_CLOSE, index=i, shift=len(reasoning) - len(reasoning.lstrip("\n")))
            _text(ctx, inner)
            _text(ctx, content)
        head = f"{IM_START}{ASSISTANT}\n{THINK_OPEN}\n"
        return head + inner + f"\n{THINK_CLOSE}\n\n" + content.lstrip("\n"), content, 3
    if ctx.guard:
        _text(ctx, content)
    return f"{IM_START}{ASSISTANT}\n" + content, content, 1


def _qwen(ctx: _Ctx, tools: list[Mapping[str, Any]] | None, enable_thinking: Any) -> tuple[list[str], int]:
    p = ctx.profile
    msgs = ctx.messages
    if not msgs:
        raise crash(ctx.template, "no messages (the template reads messages[0])")
    roles = [m.get("role") for m in msgs]
    if ctx.guard:
        _known_roles(roles, msgs)
    first = msgs[0]
    has_system = _role(first) == SYSTEM
    out: list[str] = []
    rec = ctx.rec
    n = 0  # ``<`` written by the renderer itself
    if tools:
        system: str | None = None
        if has_system:
            raw = first.get("content", MISSING)
            # a template with no default system text concatenates (content + "\n\n"); the others print it
            system = (require_str(raw, ctx.template, "system content", 0) if p.default_system_with_tools is None
                      else jinja_str(raw))
        prompt, n = _system_prompt(ctx, tools, system)
        _place_tools(ctx, out, 0 if has_system else None)
        out.append(prompt)
    elif has_system:
        if rec is not None:
            rec.starts.append((0, 0))
        out.append(_plain(ctx, SYSTEM, first, 0))
        n = 2
    elif p.default_system is not None:
        out.append(f"{IM_START}{SYSTEM}\n" + p.default_system + f"{IM_END}\n")
        n = 2
    last_query = _last_query(msgs, ctx.template) if p.reasoning == "qwen3" else -1
    last = len(msgs) - 1
    append = out.append
    guard = ctx.guard
    qwq = p.reasoning == "qwq"
    for i, m in enumerate(msgs):
        if rec is not None:
            rec.written.append((len(out), n + ctx.lt))
            if i or not has_system:
                rec.starts.append((len(out), i))
        role = roles[i]
        if role == USER or (role == SYSTEM and i != 0):
            content = m.get("content")
            if type(content) is not str:
                content = require_str(m.get("content", MISSING), ctx.template, f"{role} content", i)
            if guard and "<" in content:
                _text(ctx, content)
            append(IM_START + role + "\n" + content + f"{IM_END}\n")
            n += 2
        elif role == ASSISTANT:
            n += 1
            has_calls = bool(m.get("tool_calls"))
            if p.reasoning == "qwen3":
                head, content, written = _qwen3_assistant(ctx, m, i, last_query)
                if rec is not None and written == 3:  # a <think> block: the guard compares reasoning here
                    rec.items.append((len(out), ("reasoning",), (i, "reasoning_content")))
                append(head)
                n += written
                sep = bool(content)
            else:
                content = m.get("content", MISSING)
                if qwq and i != last:
                    if type(content) is not str:
                        content = require_str(content, ctx.template, "assistant content", i)
                    if THINK_CLOSE in content:
                        content = content.split(THINK_CLOSE)[-1]
                    content = content.lstrip("\n")
                if not has_calls:
                    if type(content) is not str:
                        content = require_str(content, ctx.template, "assistant content", i)
                    if guard and "<" in content:
                        _text(ctx, content)
                    append(f"{IM_START}{ASSISTANT}\n" + content + f"{IM_END}\n")
                    n += 1
                    continue
                original = m.get("content", MISSING)
                append(f"{IM_START}{ASSISTANT}")
                n += 1
                if original is not MISSING and original:
                    text = content if type(content) is str else require_str(content, ctx.template,
                                                                             "assistant content", i)
                    if guard and "<" in text:
                        _text(ctx, text)
                    append("\n" + text)
                sep = True
            if has_calls:
                calls = _calls(ctx, m, i, len(out) - 1)
                for k, call in enumerate(calls):
                    append("\n" + call if (k > 0 or sep) else call)
                n += 2 * len(calls)
            append(f"{IM_END}\n")
        elif role == TOOL:
            if i == 0 or roles[i - 1] != TOOL:
                append(f"{IM_START}{USER}")
                n += 1
            content = m.get("content")
            if type(content) is str and rec is None and not (
                    guard and ("<" in content or "\\" in content or content.count('"') % 2)):
                append(f"\n{RESP_OPEN}\n" + content + f"\n{RESP_CLOSE}")  # the common case of _result
            else:
                append("\n" + _result(ctx, m, i, len(out)))
            n += 2
            if i == last or roles[i + 1] != TOOL:
                append(f"{IM_END}\n")
                n += 1
    return out, n


# --- omp ----------------------------------------------------------------------------------------


def _unwrap(text: str) -> str:
    """omp's unwrap: balanced ``<think>…</think>`` segments trimmed, unwrapped and joined by ``\\n``."""
    body = text.strip(" \t\n\r\f\v")
    if not body.startswith(THINK_OPEN):
        return text
    segments: list[str] = []
    pos = 0
    while pos < len(body):
        if not body.startswith(THINK_OPEN, pos):
            if body[pos] in " \t\n\r\f\v":
                pos += 1
                continue
            return text
        depth = 0
        j = pos
        while j < len(body):
            if body.startswith(THINK_OPEN, j):
                depth += 1
                j += len(THINK_OPEN)
            elif body.startswith(THINK_CLOSE, j):
                depth -= 1
                j += len(THINK_CLOSE)
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


def render_thinking(text: str, *, allow_injection: bool = False) -> str:
    """omp's ``renderThinking``: ``""`` for empty text, else ``<think>\\n{unwrap(text)}\\n</think>``.

    Unless ``allow_injection``, a control token or a ``</think>`` left inside the block is refused.

    Raises:
        RenderError: with ``field="reasoning_content"`` and the offset in ``text``.

    >>> render_thinking(" <think> a </think>\\n<think>b</think> ")
    '<think>\\na\\nb\\n</think>'
    >>> render_thinking("<think>b<think>c</think></think>", allow_injection=True)  # a closer left inside
    '<think>\\nb<think>c</think>\\n</think>'
    """
    if not text:
        return ""
    inner = _unwrap(text)
    if not allow_injection:
        check_text(text, where="reasoning_content", index=None)
        if THINK_CLOSE in inner:
            check_reasoning(text, closer=THINK_CLOSE, index=None)
    return f"{THINK_OPEN}\n" + inner + f"\n{THINK_CLOSE}"


def _omp(ctx: _Ctx, tools: list[Mapping[str, Any]] | None) -> tuple[list[str], int]:
    msgs = ctx.messages
    if ctx.guard:
        _known_roles([m.get("role") for m in msgs], msgs)
    out: list[str] = []
    rec = ctx.rec
    start = 0
    n = 0  # ``<`` written by the renderer itself
    if tools:
        first_role = _role(msgs[0]) if msgs else None
        if first_role in (SYSTEM, DEVELOPER):
            prompt, n = _system_prompt(ctx, tools, content_text(msgs[0].get("content")))
            _place_tools(ctx, out, 0)
            start = 1
        else:
            prompt, n = _system_prompt(ctx, tools, None)
            _place_tools(ctx, out, None)
        out.append(prompt)
    i = start
    while i < len(msgs):
        m = msgs[i]
        role = _role(m)
        if rec is not None:
            rec.starts.append((len(out), i))
            rec.written.append((len(out), n))
        if role == TOOL:
            blocks: list[str] = []
            while i < len(msgs) and _role(msgs[i]) == TOOL:
                if rec is not None and blocks:
                    rec.starts.append((len(out), i))  # inside the same piece: located by field search
                blocks.append(_result(ctx, msgs[i], i, len(out)))
                i += 1
            out.append(f"{IM_START}{TOOL}\n" + "\n".join(blocks) + f"{IM_END}\n")
            n += 2 + 2 * len(blocks)
            continue
        if role == ASSISTANT:
            thinking = reasoning_of(m)
            rendered = render_thinking(jinja_str(thinking), allow_injection=True) if thinking is not MISSING else ""
            if rendered:
                n += 2
                if rec is not None:
                    rec.items.append((len(out), ("reasoning",), (i, "reasoning_content")))
                if ctx.guard:
                    check_reasoning(rendered[len(THINK_OPEN) + 1 : -len(THINK_CLOSE) - 1], closer=THINK_CLOSE, index=i)
            calls = _calls(ctx, m, i, len(out))
            n += 2 * len(calls)
            body = rendered + content_text(m.get("content")) + "\n".join(calls)
        else:
            body = content_text(m.get("content"))
            role = SYSTEM if role == DEVELOPER else jinja_str(role)
        out.append(IM_START + role + "\n" + body + f"{IM_END}\n")
        n += 2
        i += 1
    return out, n


def _render(ctx: _Ctx, tools: list[Mapping[str, Any]] | None, add_generation_prompt: bool,
            kwargs: Mapping[str, Any]) -> tuple[list[str], int, str]:
    """The output pieces, the number of ``<`` the renderer itself wrote, and the bos token written."""
    profile = ctx.profile
    bos = ""
    if profile.tools_block == "hermes":
        bos_token = kwargs.get("bos_token")
        bos = jinja_str(bos_token) if profile.bos and bos_token is not None else ""
        out, n = _hermes(ctx, tools, bos)
    elif profile.tools_block == "qwen":
        out, n = _qwen(ctx, tools, kwargs.get("enable_thinking", MISSING))
    elif profile.tools_block == "omp":
        out, n = _omp(ctx, tools)
    else:
        bos_token = kwargs.get("bos_token")
        bos = jinja_str(bos_token) if profile.bos and bos_token is not None else ""
        out, n = render_xml_family(ctx, tools, kwargs, bos)
    if add_generation_prompt:
        prompt = generation_prompt(profile, kwargs)
        # Qwen3's closed empty <think>, Qwen3.5's open one: a reasoning block where reasoning is structure
        if ctx.rec is not None and ctx.rec.reasoning and THINK_OPEN in prompt:
            ctx.rec.items.append((len(out), ("reasoning",), (None, "generation prompt")))
        out.append(prompt)
        n += _lt(prompt)
    return out, n + ctx.lt, bos


def render_chat(profile: DialectProfile, messages: list[dict[str, Any]], tools: list[Mapping[str, Any]] | None, *,
                add_generation_prompt: bool, guard: bool, kwargs: Mapping[str, Any],
                types: list[Mapping[str, Any]] | None = None) -> str:
    """Render normalised messages and tools with ``profile``'s rules (see ``render.render``).

    With ``guard`` on, roles are checked, and when the pre-scan finds anything that could change how the
    prompt parses (a ``<`` the renderer did not write, a name or arguments string outside the plain shape,
    a custom role), the prompt is rendered again with a recorder and parsed back (``_roundtrip.verify``).
    """
    ctx = _Ctx(profile, messages, guard, types=types)
    out, n, _ = _render(ctx, tools, add_generation_prompt, kwargs)
    text = "".join(out)
    if guard and (ctx.suspect or _lt(text) != n):
        check_round_trip(profile, messages, tools, add_generation_prompt=add_generation_prompt, kwargs=kwargs,
                         changed_only=True, types=types)
    return text


def check_round_trip(profile: DialectProfile, messages: list[dict[str, Any]], tools: list[Mapping[str, Any]] | None,
                     *, add_generation_prompt: bool, kwargs: Mapping[str, Any], changed_only: bool = False,
                     types: list[Mapping[str, Any]] | None = None) -> None:
    """Render with a recorder and parse the prompt back (the full check, whatever the pre-scan says).

    With ``changed_only`` only the turns holding a ``<`` the renderer did not write are parsed back
    (``_roundtrip.verify``), unless a call is outside the plain shape (then all of them).

    Raises:
        RenderError: the prompt would not parse back to this conversation.
    """
    rec = Recorder(reasoning_is_structure(profile))
    ctx = _Ctx(profile, messages, True, rec, types=types)
    out, n, bos = _render(ctx, tools, add_generation_prompt, kwargs)
    ranges = changed(out, rec, n) if changed_only and not ctx.suspect else None
    verify("".join(out), out, rec, profile=profile, bos=bos, messages=messages, tools=tools, changed=ranges,
           types=types if types is not None else tools)


def recorded_render(profile: DialectProfile, messages: list[dict[str, Any]], tools: list[Mapping[str, Any]] | None,
                    *, add_generation_prompt: bool, guard: bool,
                    kwargs: Mapping[str, Any]) -> tuple[str, list[str], Recorder, str, str]:
    """The prompt rendered with a recorder (the hook of ``render(..., return_spans=True)``, see ``spans``):
    the text, its output pieces, the recorder, the ``bos_token`` written and the generation prompt of
    these options (appended only with ``add_generation_prompt``)."""
    rec = Recorder(reasoning_is_structure(profile))
    ctx = _Ctx(profile, messages, guard, rec)
    out, _, bos = _render(ctx, tools, add_generation_prompt, kwargs)
    if add_generation_prompt:
        prompt = out[-1]  # the generation prompt is the last piece
    else:  # rendered once more with it, without the guard, to know it
        prompt = _render(_Ctx(profile, messages, False), tools, True, kwargs)[0][-1]
    return "".join(out), out, rec, bos, prompt


def prescan(profile: DialectProfile, messages: list[dict[str, Any]], tools: list[Mapping[str, Any]] | None, *,
            add_generation_prompt: bool, kwargs: Mapping[str, Any]) -> tuple[str, int, bool]:
    """The prompt, the number of ``<`` the renderer itself wrote into it, and whether the pre-scan found
    something to check (the tests prove the pre-scan sound with it)."""
    ctx = _Ctx(profile, messages, True)
    out, n, _ = _render(ctx, tools, add_generation_prompt, kwargs)
    return "".join(out), n, ctx.suspect
