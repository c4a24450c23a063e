"""The message loop of the XML-body templates (Qwen3-Coder, Qwen3.5, Nemotron 3, Step 3.5), driven by the profile.

Every difference between the four is a profile field (docs/dialects.md): where the system text goes
(``system_with_tools``, ``system_separator``, ``system_turn``, ``default_system_with_tools``), how content is read
(``content_parts``, ``trim_content``, ``coerce_text``), which roles render (``other_roles``, ``later_system``,
``system_in_loop``), how reasoning is written (``reasoning``: ``none``, ``after-last-query``,
``history-truncated``; ``think_suffix``), how calls sit in a turn (``content_call_separator``,
``call_separator``, ``calls_suffix``) and how results are written (``result_role``, ``result_newlines``,
``result_separator``, ``orphan_result_header``).

With the guard on, every piece of the conversation written into the prompt is looked at as it is written: a text
holding a ``<`` that could start a tag (``_roundtrip.text_lt``) is left out of the pre-scan's count (the round
trip then parses its turns); an argument value holding a ``<``, a name or key outside the plain shape, or a
result whose edge newline the parse could take for the template's marks the render ``suspect`` (the whole prompt
is parsed back); and every argument value must read back as itself under its tool's schema
(``_xml.value_reads_back``), else ``RenderError`` names the value.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .._injection import check_block, check_reasoning
from .._model import FunctionCall
from .._profiles import DialectProfile
from .._template_values import MISSING, crash, get, jinja_str, reasoning_of, require_str, xml_value
from .._xmltypes import parameter_schema
from ..errors import RenderError
from ..tags import ASSISTANT, IM_END, IM_START, RESP_CLOSE, RESP_OPEN, SYSTEM, THINK_CLOSE, THINK_OPEN, TOOL, USER
from ._roundtrip import Written, text_lt
from ._writers import _Ctx, _known_roles, _place_tools, _role, _system_prompt
from ._xml import (
    ArgumentSchemas,
    plain_name,
    xml_arguments,
    xml_call,
)

__all__ = ["generation_prompt", "render_xml_family"]

_EMPTY_THINK = THINK_OPEN + THINK_CLOSE
# a name or key every reading of ``<function=NAME>``/``<parameter=KEY>`` gives back: not empty, no tag
# character, no control character or line break, no whitespace at either end
def _truthy(value: Any) -> bool:
    return value is not MISSING and bool(value)


class _State:
    """Per-render state of the XML loop: the profile's content reader (with Qwen3.5's image and video counters)
    and the tools' argument schemas for the value check."""

    __slots__ = ("ctx", "images", "profile", "schemas", "videos", "vision_ids")

    def __init__(self, ctx: _Ctx, tools: list[Mapping[str, Any]] | None, kwargs: Mapping[str, Any]) -> None:
        self.ctx = ctx
        self.profile = ctx.profile
        self.images = 0
        self.videos = 0
        self.vision_ids = _truthy(kwargs.get("add_vision_id", MISSING))
        self.schemas = ArgumentSchemas((ctx.types if ctx.types is not None else tools) if ctx.guard else None)

    def user(self, text: str, *, open_end: bool = False) -> str:
        """Conversation text written into the prompt: one with a ``<`` that could start a tag (``_roundtrip.text_lt``)
        is uncounted (``_Ctx.lt`` one lower), so the pre-scan's count differs from the prompt's and the round trip
        parses the turns of the messages that wrote such a text (the checking render notes ``lt`` per message).

        Every text is followed by a tag or a line end (the profiles' separators start with one or are empty before
        a call) except a content part, joined to the next (``open_end``: a partial tag at its end counts)."""
        if self.ctx.guard and "<" in text and text_lt(text, open_end=open_end) < 0:
            self.ctx.lt -= 1
        return text

    def content(self, value: Any, index: int | None, *, system: bool = False, count: bool = True) -> str:
        """The text of a content value as the template reads it (trimmed when the template trims)."""
        kind = self.profile.content_parts
        if kind == "vision":
            text = self._vision(value, index, system=system, count=count)
        elif kind == "value-or-text":
            text = self._value_or_text(value)
        else:
            text = value if type(value) is str else require_str(value, self.profile.name, "content", index)
        return text.strip() if self.profile.trim_content else text

    def _vision(self, value: Any, index: int | None, *, system: bool, count: bool) -> str:
        """Qwen3.5's ``render_content``: text parts, image and video placeholders."""
        if isinstance(value, str):
            return value
        if value is MISSING or value is None:
            return ""
        if isinstance(value, Mapping) or not isinstance(value, Iterable):
            raise crash(self.profile.name, "Unexpected content type.", index=index, error="TemplateError")
        out = []
        for item in value:
            try:
                image = "image" in item or "image_url" in item or get(item, "type") == "image"
                video = not image and ("video" in item or get(item, "type") == "video")
                text = not image and not video and "text" in item
            except TypeError as exc:
                raise crash(self.profile.name, f"a content item is a {type(item).__name__}", index=index,
                            error="TypeError") from exc
            if image or video:
                if system:
                    what = "images" if image else "videos"
                    raise crash(self.profile.name, f"System message cannot contain {what}.", index=index,
                                error="TemplateError")
                if count:
                    if image:
                        self.images += 1
                    else:
                        self.videos += 1
                if self.vision_ids:
                    out.append(f"Picture {self.images}: " if image else f"Video {self.videos}: ")
                out.append("<|vision_start|><|image_pad|><|vision_end|>" if image else
                           "<|vision_start|><|video_pad|><|vision_end|>")
            elif text:
                out.append(self.user(jinja_str(get(item, "text")), open_end=True))
            else:
                raise crash(self.profile.name, "Unexpected item type in content.", index=index, error="TemplateError")
        return "".join(out)

    def _value_or_text(self, value: Any) -> str:
        """Step's ``render_content``: a mapping's or a text part's ``value`` (else ``text``), ``<im_patch>``."""
        if value is None:
            return ""
        if isinstance(value, str):
            return value
        if isinstance(value, Mapping):
            return self.user(jinja_str(value["value"] if "value" in value else get(value, "text")), open_end=True)
        if not isinstance(value, Iterable):
            return ""
        out = []
        for item in value:
            kind = get(item, "type")
            if kind == "text":
                out.append(self.user(jinja_str(item["value"] if "value" in item else get(item, "text")),
                                     open_end=True))
            elif kind == "image":
                out.append("<im_patch>")
        return "".join(out)


def _system_text(st: _State, first: Mapping[str, Any] | None) -> str | None:
    """The system text the template merges into its system turn (None: none is written)."""
    p = st.profile
    if first is None:
        return "" if p.system_turn == "always" else None
    raw = first.get("content", MISSING)
    if p.content_parts == "none":
        if raw is MISSING and p.system_turn == "always":
            return None  # Nemotron: ``system_message`` is undefined, as if there were no system message
        return st.user(require_str(raw, p.name, "system content", 0))
    return st.user(st.content(raw, 0, system=True, count=False))


def _last_query(st: _State, start: int) -> int:
    """The index (into the messages) after which reasoning is written (``after-last-query``), or the last user
    message's (``history-truncated``: turns before it lose their reasoning)."""
    p = st.profile
    msgs = st.ctx.messages
    if p.reasoning == "history-truncated":
        return max((i for i in range(start, len(msgs)) if _role(msgs[i]) == USER), default=-1)
    for i in range(len(msgs) - 1, -1, -1):
        m = msgs[i]
        if _role(m) == USER:
            text = st.content(m.get("content", MISSING), i, count=False)
            if not (text.startswith(RESP_OPEN) and text.endswith(RESP_CLOSE)):
                return i
    if p.no_query == "error":
        raise crash(p.name, "No user query found in messages.", error="TemplateError")
    return len(msgs) - 1


def _check_value(st: _State, name: Any, key: Any, value: Any, index: int, prefix: str) -> str | None:
    """Refuse an argument value whose VALUE text could read back as another value (docs/dialects.md); the text
    (None: it has none, the render raises on it)."""
    written = key if isinstance(key, str) else jinja_str(key)  # the key the body is read back with
    try:
        text = xml_value(value)
    except (TypeError, ValueError, RecursionError):
        return None
    if st.schemas.reads_back(name, value, text, written):
        return text
    field = f"{prefix}arguments.{jinja_str(key)}"
    found, _ = parameter_schema(st.schemas.parameters(name), written)
    typed = "its schema" if found else "no schema (declare the parameter in tools= to type it)"
    raise RenderError(
        f"message {index} ({field}): the value {text[:40]!r} at offset 0 would not read back as this "
        f"{type(value).__name__} under {typed} (pass allow_injection=True to render it anyway)",
        message_index=index, field=field, offset=0)


def _calls(st: _State, m: Mapping[str, Any], index: int, piece: int) -> list[str]:
    """The call blocks of an assistant message (recorded and checked when the guard is on)."""
    ctx = st.ctx
    calls = m.get("tool_calls", MISSING)
    if not isinstance(calls, (list, tuple)):
        raise crash(ctx.template, "tool_calls is not a list", index=index, error="TypeError")
    out = []
    rec = ctx.rec
    for k, call in enumerate(calls):
        if isinstance(call, FunctionCall):
            call = {"function": {"name": call.name, "arguments": call.arguments}}
        fn = get(call, "function")
        prefix = f"tool_calls[{k}].function." if fn is not MISSING else f"tool_calls[{k}]."
        if fn is MISSING:
            fn = call
        name = get(fn, "name")
        args = get(fn, "arguments")
        if rec is not None:
            rec.items.append((piece, ("call", jinja_str(name), Written(args)), (index, prefix)))
        block, _ = xml_call(name, args, st.profile, index)
        if ctx.guard:
            if not plain_name(name):
                ctx.suspect = True
            for key, value in (xml_arguments(args, st.profile, index) or {}).items():
                if not plain_name(key):
                    ctx.suspect = True
                text = _check_value(st, name, key, value, index, prefix)
                if "<" in (value if isinstance(value, str) else text or ""):
                    ctx.suspect = True
        out.append(block)
    return out


def _assistant(st: _State, m: Mapping[str, Any], i: int, li: int, last: int, out: list[str],
               kwargs: Mapping[str, Any]) -> None:
    """Append one assistant turn."""
    p = st.profile
    has_calls = _truthy(m.get("tool_calls", MISSING))
    if p.reasoning == "history-truncated":
        _truncated(st, m, i, li, last, out, has_calls, kwargs)
        return
    if p.reasoning == "after-last-query":
        content = st.content(m.get("content", MISSING), i)
        reasoning = reasoning_of(m)
        if not isinstance(reasoning, str):
            reasoning = ""
            if THINK_CLOSE in content:
                pieces = content.split(THINK_CLOSE)
                reasoning = pieces[0].rstrip("\n").split(THINK_OPEN)[-1].lstrip("\n")
                content = pieces[-1].lstrip("\n")
        if p.trim_content:
            reasoning = reasoning.strip()
        st.user(content)
        if i > last:
            if st.ctx.guard:
                st.user(reasoning)
                check_reasoning(reasoning, closer=THINK_CLOSE, index=i)
            head = f"{IM_START}{ASSISTANT}\n{THINK_OPEN}\n" + reasoning + f"\n{THINK_CLOSE}" + p.think_suffix + content
            if st.ctx.rec is not None:  # a <think> block: the guard compares reasoning here
                st.ctx.rec.items.append((len(out), ("reasoning",), (i, "reasoning_content")))
        else:
            head = f"{IM_START}{ASSISTANT}\n" + content
    elif has_calls:  # no reasoning: content beside calls is trimmed, and written only when not blank
        raw = m.get("content", MISSING)
        content = st.user(raw.strip() if isinstance(raw, str) else "")
        head = f"{IM_START}{ASSISTANT}\n" + content
    else:
        raw = m.get("content", MISSING)
        content = raw if type(raw) is str else require_str(raw, p.name, "assistant content", i)
        out.append(f"{IM_START}{ASSISTANT}\n" + st.user(content) + f"{IM_END}\n")
        return
    out.append(head)
    if has_calls:
        blocks = _calls(st, m, i, len(out) - 1)
        if blocks and content.strip() and p.content_call_separator:
            out.append(p.content_call_separator)
        out.append(p.call_separator.join(blocks) + p.calls_suffix)
    out.append(f"{IM_END}\n")


def _truncated(st: _State, m: Mapping[str, Any], i: int, li: int, last: int, out: list[str], has_calls: bool,
               kwargs: Mapping[str, Any]) -> None:
    """Nemotron: reasoning in every turn, except that ``truncate_history_thinking`` (default on) cuts it from the
    turns before the last user message; ``<think></think>`` marks a turn without reasoning."""
    p = st.profile
    raw = m.get("content", MISSING)
    given = raw if _truthy(raw) else ""
    reasoning = reasoning_of(m)
    content: Any
    if isinstance(reasoning, str) and reasoning.strip():
        content = f"{THINK_OPEN}\n" + reasoning + f"\n{THINK_CLOSE}\n" + jinja_str(given)
        own = reasoning
    else:
        content = given
        own = None
        if isinstance(content, str) and THINK_OPEN not in content and THINK_CLOSE not in content:
            content = _EMPTY_THINK + content
    include = not (_truthy(kwargs.get("truncate_history_thinking", True)) and li < last)
    if include and own is not None and st.ctx.guard:
        st.user(own)
        check_reasoning(own, closer=THINK_CLOSE, index=i)
    if has_calls:
        out.append(f"{IM_START}{ASSISTANT}\n")
        sep = p.content_call_separator or ""
        if isinstance(content, str) and content.strip():
            if include:
                st.user(jinja_str(given))
                body = content.strip() + sep
            else:
                c = content
                if THINK_CLOSE in c:
                    c = c.split(THINK_CLOSE)[-1]
                elif THINK_OPEN in c:
                    c = c.split(THINK_OPEN)[0]
                body = _EMPTY_THINK + st.user(c.strip()) + sep
        else:
            body = _EMPTY_THINK
        out.append(body)
        blocks = _calls(st, m, i, len(out))
        out.append(p.call_separator.join(blocks) + p.calls_suffix)
        out.append(f"{IM_END}\n")
        return
    if include:
        st.user(jinja_str(given))
        text = jinja_str(content if _truthy(content) else "").strip()
        out.append(f"{IM_START}{ASSISTANT}\n" + text + f"{IM_END}\n")
        return
    c = jinja_str(content if _truthy(content) else "")
    if THINK_OPEN in c and THINK_CLOSE in c:
        c = _EMPTY_THINK + st.user(c.split(THINK_CLOSE)[-1])
    else:
        st.user(c)
    out.append(f"{IM_START}{ASSISTANT}\n" + c.strip() + f"{IM_END}\n")


#: the characters of a line end (``\n``, ``\r\n``, ``\r``): the parse takes one of any kind after ``<tool_response>``
#: and before ``</tool_response>``, so a result starting or ending with one is re-checked where no newline pads it
_LINE_END_CHARS = ("\n", "\r")


def _result(st: _State, m: Mapping[str, Any], i: int, piece: int) -> str:
    p = st.profile
    ctx = st.ctx
    raw = m.get("content", MISSING)
    content = (raw if type(raw) is str else jinja_str(raw)) if p.content_parts == "none" else st.content(raw, i)
    pad = "\n" if p.result_newlines else ""
    if ctx.guard:
        if "<" in content or "\\" in content or content.count('"') % 2:
            check_block(pad + content + pad, closer=RESP_CLOSE, opener=RESP_OPEN, where="tool result", index=i,
                        field="content", shift=len(pad))
        st.user(content)
        if not pad and (content.startswith(_LINE_END_CHARS) or content.endswith(_LINE_END_CHARS)):
            ctx.suspect = True  # no newline of the template's around it: the parse may strip the content's
    if ctx.rec is not None:
        ctx.rec.items.append((piece, ("result", content), (i, "content")))
    before = "\n" if p.result_separator == "before" else ""
    after = "\n" if p.result_separator == "after" else ""
    return before + RESP_OPEN + pad + content + pad + RESP_CLOSE + after


def _plain(st: _State, m: Mapping[str, Any], role: Any, i: int) -> str:
    p = st.profile
    raw = m.get("content", MISSING)
    if p.content_parts != "none":
        content = st.content(raw, i)
    elif p.coerce_text and role in (USER, SYSTEM):
        content = jinja_str(raw)
    else:
        content = raw if type(raw) is str else require_str(raw, p.name, f"{jinja_str(role)} content", i)
    name = role if type(role) is str else require_str(role, p.name, "role", i)
    return IM_START + name + "\n" + st.user(content) + f"{IM_END}\n"


def render_xml_family(ctx: _Ctx, tools: list[Mapping[str, Any]] | None, kwargs: Mapping[str, Any],
                      bos: str = "") -> tuple[list[str], int]:
    """The output pieces of an XML-family conversation (``bos``, the ``bos_token`` to write first, included) and
    the number of ``<`` the renderer itself wrote (the pieces that hold conversation text mark the render
    suspect as they are written)."""
    p = ctx.profile
    msgs = ctx.messages
    if not msgs:
        raise crash(ctx.template, "no messages (the template reads messages[0])")
    roles = [m.get("role") for m in msgs]
    if ctx.guard:
        _known_roles(roles, msgs)
    st = _State(ctx, tools, kwargs)
    first = msgs[0] if roles[0] == SYSTEM else None
    system = _system_text(st, first)
    out: list[str] = [bos] if bos else []
    rec = ctx.rec
    prompt_lt = -1
    if tools:
        prompt, prompt_lt = _system_prompt(ctx, tools, system)
        _place_tools(ctx, out, 0 if first is not None else None)
        out.append(prompt)
    elif system is not None:
        if rec is not None:
            rec.starts.append((0, 0 if first is not None else None))
        out.append(f"{IM_START}{SYSTEM}\n" + (system.strip() if p.trim_content else system) + f"{IM_END}\n")
    start = 1 if first is not None else 0
    loop_start = 0 if p.system_in_loop else start
    last = _last_query(st, loop_start) if p.reasoning != "none" else -1
    if p.reasoning == "history-truncated" and last >= 0:
        last -= loop_start
    for i in range(loop_start, len(msgs)):
        m = msgs[i]
        role = roles[i]
        li = i - loop_start
        if i == 0 and first is not None:  # the system message in the loop (Qwen3.5, Step): written above
            if p.content_parts == "vision":
                st.content(m.get("content", MISSING), i)  # counted as the template counts it
            continue
        if rec is not None:
            rec.starts.append((len(out), i))
            rec.written.append((len(out), ctx.lt))  # made the pre-scan's count below
        if role == ASSISTANT:
            _assistant(st, m, i, li, last, out, kwargs)
        elif role == TOOL:
            prev = msgs[i - 1] if li > 0 else None
            if p.orphan_result_header:
                header = prev is None or _role(prev) != TOOL
            else:
                header = prev is not None and bool(prev) and _role(prev) != TOOL
                if not prev:
                    ctx.suspect = True  # no turn is opened for this result: it lands outside any turn
            if header:
                out.append(IM_START + p.result_role + ("" if p.result_separator == "before" else "\n"))
            out.append(_result(st, m, i, len(out)))
            if i + 1 == len(msgs) or roles[i + 1] != TOOL:
                out.append(f"{IM_END}\n")
        elif role == USER or (role == SYSTEM and p.later_system != "error"):
            if role == SYSTEM and p.later_system == "observation" and get(m, "name") == "observation":
                role = "observation"
            out.append(_plain(st, m, role, i))
        elif role == SYSTEM:
            raise crash(ctx.template, "System message must be at the beginning.", index=i, error="TemplateError")
        elif p.other_roles == "plain":
            out.append(_plain(st, m, role, i))
        elif p.other_roles == "error":
            raise crash(ctx.template, "Unexpected message role.", index=i, error="TemplateError")
        elif rec is not None:
            rec.starts.pop()  # a dropped message writes nothing
    if tools and prompt_lt != prompt.count("<"):
        ctx.suspect = True  # the tools prompt did not parse back to its tools on its own
    if rec is None:
        return out, sum(piece.count("<") for piece in out)
    # the checkpoints as the other families note them: the pre-scan's count (the pieces' ``<`` and ``lt``) so far
    written = 0
    done = 0
    for k, (at, lt) in enumerate(rec.written):
        written += sum(piece.count("<") for piece in out[done:at])
        done = at
        rec.written[k] = (at, written + lt)
    return out, written + sum(piece.count("<") for piece in out[done:])


def generation_prompt(profile: DialectProfile, kwargs: Mapping[str, Any]) -> str:
    """The generation prompt ``add_generation_prompt`` appends, as ``enable_thinking`` selects it.

    >>> from hermes_toolcall import get_profile
    >>> generation_prompt(get_profile("nemotron-3"), {"enable_thinking": 0})
    '<|im_start|>assistant\\n<think></think>'
    >>> generation_prompt(get_profile("qwen3.5"), {"enable_thinking": 0})
    '<|im_start|>assistant\\n<think>\\n'
    """
    off = profile.generation_prompt_no_thinking
    if off is None:
        return profile.generation_prompt
    value = kwargs.get("enable_thinking", MISSING)
    if profile.thinking_switch == "falsy":
        return off if value is not MISSING and not value else profile.generation_prompt
    return off if value is False else profile.generation_prompt
