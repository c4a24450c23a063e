"""The pieces every template family writes, with the guard's pre-scan: calls, results, plain turns, the
memoised tools prompt, and the role check (``chat`` drives them per family).

With the guard on, each writer adds to ``_Ctx.suspect`` what the ``<`` count of ``_chat.render_chat`` cannot see
(a call name or arguments string outside the plain shape), and the checking render's ``Recorder`` gets what
was written (``_roundtrip.verify`` compares it with the parse).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from .._fastjson import spaced
from .._injection import check_block, check_control_tokens
from .._jsonio import dumps_compact, dumps_fast, loads, loads_shape_or_none
from .._profiles import DialectProfile
from .._system_prompt import system_prompt
from .._template_values import MISSING, call_function, crash, get, jinja_str, require_str, tool_name
from ..errors import DecodeError, RenderError
from ..tags import (
    ASSISTANT,
    CALL_CLOSE,
    CALL_OPEN,
    DEVELOPER,
    IM_END,
    IM_START,
    RESP_CLOSE,
    RESP_OPEN,
    SYSTEM,
    TOOL,
    TOOLS_CLOSE,
    USER,
)
from ._calls import call_json
from ._results import content_text
from ._roundtrip import Recorder, Written, text_lt, verify_prompt

__all__: list[str] = []  # internal to render/

_PLAIN = (USER, SYSTEM)
_KNOWN_ROLES = (SYSTEM, USER, ASSISTANT, TOOL, DEVELOPER)
_KNOWN_ROLE_SET = frozenset(_KNOWN_ROLES)
_NAME_PATTERN = re.compile(r"[A-Za-z0-9_.:-]{1,256}").fullmatch
  # with isidentifier(): a name JSON writes as is

_CUSTOM_ROLE = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,63}").fullmatch
_SKELETON = {"name": "f", "description": "d", "parameters": {"type": "object", "properties": {}}}


class _Ctx:
    """Per-render state: the profile, the messages, whether the guard runs, whether the pre-scan found
    something the round trip must look at (``suspect``), and the recorder of the checking render."""

    __slots__ = ("dumps", "fast_calls", "guard", "lt", "messages", "profile", "rec", "suspect", "template", "types",
                 "verbatim")

    def __init__(self, profile: DialectProfile, messages: list[dict[str, Any]], guard: bool,
                 rec: Recorder | None = None, *, types: list[Mapping[str, Any]] | None = None) -> None:
        self.profile = profile
        self.types = types  # tools typing XML-body values when not the rendered ones
        self.messages = messages
        self.guard = guard
        self.rec = rec
        self.suspect = False
        #: the ``<`` conversation texts wrote that start no tag (``_roundtrip.text_lt``): the pre-scan counts them
        #: as the renderer's own
        self.lt = 0
        self.template = profile.name
        self.verbatim = profile.string_arguments == "verbatim"
        self.fast_calls = profile.string_arguments != "decode"
        self.dumps = dumps_compact if profile.json_style == "compact" else spaced


def _text(ctx: _Ctx, text: str) -> str:
    """A conversation text written as it is: with the guard on, its ``<`` are counted as harmless when none can
    start a tag (``_roundtrip.text_lt``); else they stay uncounted and the round trip looks at its turn.

    The families that call this (hermes, qwen) write a tag or a line end right after every text: the closer of
    its block or turn, or the line before a call (``open_end=False``)."""
    if ctx.guard and "<" in text:
        harmless = text_lt(text, open_end=False)
        if harmless > 0:
            ctx.lt += harmless
    return text


def _role(m: Mapping[str, Any]) -> Any:
    return m.get("role", MISSING)


def _json_object_text(text: str) -> bool:
    """Whether ``text`` is the JSON text of an object (a verbatim arguments string that cannot break its call)."""
    try:
        return type(loads(text)) is dict
    except DecodeError:
        return False


def _calls(ctx: _Ctx, m: Mapping[str, Any], index: int, piece: int) -> list[str]:
    """The call blocks of an assistant message; with the guard on, a call the pre-scan cannot vouch for
    marks the render ``suspect``, and the checking render records each call (at output piece ``piece``)."""
    calls = m.get("tool_calls", MISSING)
    if calls is MISSING:
        return []
    if type(calls) is not list and not isinstance(calls, (list, tuple)):
        raise crash(ctx.template, "tool_calls is not a list", index=index, error="TypeError")
    out = []
    verbatim = ctx.verbatim
    fast = ctx.fast_calls
    dumps = ctx.dumps
    guard = ctx.guard
    rec = ctx.rec
    for k, call in enumerate(calls):
        if rec is not None:
            fn_ = call_function(call)
            prefix = f"tool_calls[{k}].function." if isinstance(get(call, "function"), Mapping) else f"tool_calls[{k}]."
            rec.items.append((piece, ("call", jinja_str(get(fn_, "name")), Written(get(fn_, "arguments"))),
                              (index, prefix)))
        if fast and type(call) is dict:  # the common shape, inlined (same result as call_json)
            fn = call.get("function")
            if type(fn) is not dict or not fn:
                fn = call
            name = fn.get("name")
            args = fn.get("arguments", MISSING)
            if type(name) is str and args is not MISSING:
                if verbatim and type(args) is str:
                    text = '{"name": "' + name + '", "arguments": ' + args + "}"
                    if guard and not ((name.isidentifier() or _NAME_PATTERN(name)) and _json_object_text(args)):
                        ctx.suspect = True
                elif type(args) is dict:
                    try:
                        dumped = dumps(args)
                    except (TypeError, ValueError, RecursionError) as exc:
                        raise _unprintable(exc, ctx.template, index) from exc
                    text = '{"name": "' + name + '", "arguments": ' + dumped + "}"
                    if guard and (not (name.isidentifier() or _NAME_PATTERN(name))
                                  or "NaN" in dumped or "Infinity" in dumped):
                        ctx.suspect = True
                else:
                    text = ""
                if text:
                    out.append(f"{CALL_OPEN}\n" + text + f"\n{CALL_CLOSE}")
                    continue
        text = call_json(call, dialect=ctx.profile, index=index)
        if guard and not ctx.suspect:
            fn = call_function(call)
            name = get(fn, "name")
            args = get(fn, "arguments")
            if not (isinstance(name, str) and (name.isidentifier() or _NAME_PATTERN(name))):
                ctx.suspect = True
            elif isinstance(args, str):
                ctx.suspect = not _json_object_text(args)
            elif args is not MISSING and (not isinstance(args, Mapping) or "NaN" in text or "Infinity" in text):
                ctx.suspect = True
        out.append(f"{CALL_OPEN}\n" + text + f"\n{CALL_CLOSE}")
    return out


def _unprintable(exc: Exception, template: str, index: int) -> RenderError:
    if isinstance(exc, RecursionError):
        return RenderError(f"message {index}: tool call arguments are nested too deeply to render",
                           message_index=index)
    return crash(template, f"tool call arguments are not JSON-serialisable ({exc})", index=index, error="TypeError")


def _result(ctx: _Ctx, m: Mapping[str, Any], index: int, piece: int) -> str:
    content = m.get("content", MISSING)
    if type(content) is not str:
        content = content_text(content) if ctx.profile.tools_block == "omp" else jinja_str(content)
    if ctx.guard and ("<" in content or "\\" in content or content.count('"') % 2):
        check_block("\n" + content + "\n", closer=RESP_CLOSE, opener=RESP_OPEN,
                    where="tool result", index=index, field="content")
        _text(ctx, content)
    if ctx.rec is not None:
        ctx.rec.items.append((piece, ("result", content), (index, "content")))
    return f"{RESP_OPEN}\n" + content + f"\n{RESP_CLOSE}"


def _plain(ctx: _Ctx, role: str, m: Mapping[str, Any], index: int) -> str:
    content = m.get("content", MISSING)
    if type(content) is not str:
        content = require_str(content, ctx.template, f"{role} content", index)
    return IM_START + role + "\n" + _text(ctx, content) + f"{IM_END}\n"


#: The tools prompt by (profile, system text, tools' JSON): the prompt, its ``<`` the pre-scan counts as
#: the renderer's (``_vouched``; None until a render with the guard asks: a render without it never vouches),
#: the profile and the key's JSON value (None until the first hit reads it). Keyed by the profile's ``id`` (a
#: profile's hash walks all its fields), the entry kept only for that very profile object.
_PROMPTS: dict[tuple[int, str | None, str], tuple[str, int | None, DialectProfile, Any]] = {}
#: ``_skeleton`` by profile ``id``, with the profile (the entry holds for that object only)
_SKELETONS: dict[int, tuple[DialectProfile, int]] = {}


def _skeleton(profile: DialectProfile) -> int:
    """How many ``<`` the tools system turn of ``profile`` holds when no tool or system text has one."""
    known = _SKELETONS.get(id(profile))
    if known is not None and known[0] is profile:
        return known[1]
    count = system_prompt([_SKELETON], profile, "s").count("<")
    if len(_SKELETONS) >= 64:
        _SKELETONS.clear()
    _SKELETONS[id(profile)] = profile, count
    return count


def _vouched(prompt: str, tools: list[Mapping[str, Any]] | None, profile: DialectProfile,
             plain_values: bool = False) -> int:
    """The ``<`` of a system prompt the pre-scan may count as the renderer's: all of them when the prompt on
    its own parses back to one system turn with exactly these tools (a turn parses the same wherever it
    stands: it ends at its own ``<|im_end|>``), else -1 (the full check then runs and says why).

    JSON tool lines (Qwen, Qwen3.5, Step, omp) cannot leave their strings, so a prompt without extra ``<``
    needs no parse; the Hermes catalogue writes names and descriptions raw into pseudo-JSON: it needs none when
    its values are plain (``_plain_catalogue``), else it is parsed; the XML-like list of Qwen3-Coder and Nemotron
    has as many tags as the tools have keys: it needs no parse when no value or system text holds a ``<``
    (``plain_values``: the caller saw the tools' JSON and the system text) and its keys and names are plain
    (``_plain_xml_list``), else it is parsed (once: the result is cached with the prompt)."""
    written = prompt.count("<")
    if profile.tools_block == "xml-list":
        if plain_values and _plain_xml_list(tools):
            return written
    elif written == (_skeleton(profile) if prompt else 0) and (
            profile.tools_block != "hermes" or _plain_catalogue(prompt, tools)):
        return written
    try:
        verify_prompt(prompt, tools, profile)
    except RenderError:
        return -1
    return written


#: How each line of the Hermes catalogue starts; the reader splits the catalogue at these (``_body.py``).
_HERMES_LINE = '{"type": "function", "function": {"name": "'
#: Brackets a Hermes catalogue may hold for its parameters to be vouched for: their nesting is then far
#: below the tolerant reader's depth bound (``_lenient_json.MAX_DEPTH``), so each reads back.
_BRACKETS = 100


def _plain_catalogue(prompt: str, tools: list[Mapping[str, Any]] | None) -> bool:
    """Whether a Hermes tools prompt without extra ``<`` reads back to its tools' names, told from the
    values: the reader splits the catalogue where a line starts (one start per tool: nothing else writes
    one), reads each name up to its closing quote (a name without ``"`` or an unprintable character), and
    each tool's parameters as JSON (written by ``json.dumps``: no NaN or Infinity, nesting bounded)."""
    listed = tools or ()
    if (prompt.count(_HERMES_LINE) != len(listed) or "NaN" in prompt or "Infinity" in prompt
            or prompt.count("{") + prompt.count("[") > _BRACKETS):
        return False
    for tool in listed:
        name = tool_name(tool)
        if type(name) is not str or '"' in name or not name.isprintable():
            return False
    return True


#: Keys the XML-like list writes as its own structure (``_xml_catalogue``'s reader and the ``<tools>`` block):
#: a schema key spelled so would be read as structure, not as the key
_XML_STRUCTURE = frozenset({"tools", "function", "parameters", "parameter"})
_XML_KEY = re.compile(r"[^<>/|\s][^<>]*").fullmatch


#: the keys the list writes its own way at each level (``_system_prompt._xml_tool``)
_FN_KEYS = frozenset({"type", "name", "description", "parameters"})
_PARAMS_KEYS = frozenset({"type", "properties", "required", "enum"})
_PROP_KEYS = frozenset({"name", "type", "description", "enum"})


def _xml_keys(spec: Any, handled: frozenset[str]) -> bool:
    """Whether every key of ``spec`` the list writes as ``<KEY>VALUE</KEY>`` (those not ``handled``) is read
    back as a key of its own: a string without ``<`` or ``>``, not starting with ``/`` or ``|`` (a closer or
    a control token), none of the list's structure names."""
    if type(spec) is not dict and not isinstance(spec, Mapping):
        return True  # written without keys (``_system_prompt._extra_keys`` writes nothing for it)
    if type(spec) is not dict:
        return False
    if handled.issuperset(spec):
        return True  # every key written by the list's own structure (one C-level pass)
    for key in spec:
        if key in handled:
            continue
        if type(key) is not str or key in _XML_STRUCTURE or not _XML_KEY(key):
            return False
    return True


def _plain_xml_list(tools: list[Mapping[str, Any]] | None) -> bool:
    """Whether the XML-like list of Qwen3-Coder and Nemotron (``_system_prompt._xml_tool``) reads back to its
    tools' names, told from the values, for tools whose JSON and system text hold no ``<`` (the caller's
    part): the reader (``_xml_catalogue.decode_xml_catalogue``) then finds each ``<TAG>`` where the renderer
    wrote it (a leaf ends at the first ``</TAG>`` followed by a line and a ``<``; no value holds one) provided
    every key written as a tag is plain (``_xml_keys``), and it reads each name as written provided the name
    is a string without a carriage return (the reader ends lines at one)."""
    for tool in tools or ():
        if type(tool) is not dict:
            return False
        fn = tool.get("function", MISSING)
        if fn is MISSING:
            fn = tool
        elif type(fn) is not dict:
            return False
        name = fn.get("name")
        if type(name) is not str or "\r" in name or not _xml_keys(fn, _FN_KEYS):
            return False
        params = fn.get("parameters")
        if type(params) is dict:
            if not _xml_keys(params, _PARAMS_KEYS):
                return False
            props = params.get("properties")
            if type(props) is dict and not all(_xml_keys(spec, _PROP_KEYS)
                                               for spec in props.values()):
                return False
    return True


def _system_prompt(ctx: _Ctx, tools: list[Mapping[str, Any]] | None, system: str | None) -> tuple[str, int]:
    """``render_system_prompt`` and the number of its ``<`` the pre-scan counts as written by the renderer,
    memoised on the tools' JSON (the prompt is the same for every turn of a chat); with the guard on, the
    tools are checked for control tokens and ``</tools>`` here."""
    profile = ctx.profile
    if ctx.rec is not None and (tools or profile.tools_block == "hermes"):
        ctx.rec.items.append((-1, ("tools", tuple(tool_name(t) for t in tools or ())), (None, "tools")))
    if not tools:
        prompt = system_prompt(tools, profile, system)
        return prompt, _vouched(prompt, tools, profile) if ctx.guard else 0
    try:
        key_json = dumps_fast(tools)
    except Exception:  # not JSON-serialisable: render without the cache
        if ctx.guard:
            check_control_tokens((), tools)
        prompt = system_prompt(tools, profile, system)
        return prompt, _vouched(prompt, tools, profile) if ctx.guard else 0
    if ctx.guard and ("<|im_" in key_json or TOOLS_CLOSE in key_json):
        check_control_tokens((), tools)  # raises with the tool index and offset
    if "null" in key_json:  # orjson writes NaN/Infinity as null too: the key would be ambiguous
        prompt = system_prompt(tools, profile, system)
        return prompt, _vouched(prompt, tools, profile) if ctx.guard else 0
    key = (id(profile), system, key_json)
    cached = _PROMPTS.get(key)
    if cached is not None and cached[2] is profile:
        # the key is orjson's text, which a UUID or an Enum member shares with its string (a tuple with a list):
        # a hit holds for tools equal to the key's JSON value (read back once, at the first hit)
        value = cached[3]
        if value is None:
            value = loads_shape_or_none(key_json)
            cached = cached[0], cached[1], profile, value
            _PROMPTS[key] = cached
        if value != tools:  # not the tools of the cached prompt: written afresh (raises where tojson does)
            prompt = system_prompt(tools, profile, system)
            return prompt, _vouched(prompt, tools, profile) if ctx.guard else 0
    plain = "<" not in key_json and (system is None or "<" not in system)
    if cached is None or cached[2] is not profile:
        prompt = system_prompt(tools, profile, system)
        cached = prompt, _vouched(prompt, tools, profile, plain) if ctx.guard else None, profile, None
        if len(_PROMPTS) >= 64:
            _PROMPTS.clear()
        _PROMPTS[key] = cached
    prompt, vouched, _, value = cached
    if vouched is None:  # first asked by a render without the guard: vouched now, once
        if not ctx.guard:
            return prompt, 0
        vouched = _vouched(prompt, tools, profile, plain)
        _PROMPTS[key] = prompt, vouched, profile, value
    return prompt, vouched


def _place_tools(ctx: _Ctx, out: list[str], index: int | None) -> None:
    """Give the tools item just recorded (piece -1) the piece index of the prompt about to be appended."""
    rec = ctx.rec
    if rec is not None:
        rec.starts.append((len(out), index))
        if rec.items and rec.items[-1][0] == -1:
            rec.items[-1] = (len(out), *rec.items[-1][1:])


def _lt(text: str) -> int:
    return text.count("<")


def _known_roles(roles: list[Any], messages: list[dict[str, Any]]) -> None:
    """The guard's role check: every role known (one C-level pass), else ``_check_roles``."""
    try:
        known = _KNOWN_ROLE_SET.issuperset(roles)
    except TypeError:  # an unhashable role
        known = False
    if not known:
        _check_roles(messages)


def _check_roles(messages: list[dict[str, Any]]) -> None:
    """Refuse a role that is not a string of the known roles or a plain custom name (docs/dialects.md)."""
    for i, m in enumerate(messages):
        role = m.get("role", MISSING)
        if type(role) is str and (role in _KNOWN_ROLES or _CUSTOM_ROLE(role)):
            continue
        if role is MISSING or not isinstance(role, str):
            what = "has no role" if role is MISSING else f"has a role that is a {type(role).__name__}"
            raise RenderError(f"message {i}: {what}, not a string (pass allow_injection=True to render it as "
                              "the template would)", message_index=i, field="role", offset=0)
        bad = re.search(r"[^A-Za-z0-9_-]", role)
        offset = bad.start() if bad else 0
        raise RenderError(
            f"message {i} (role): role {role[:40]!r} is neither a known role ({', '.join(_KNOWN_ROLES)}) nor a custom "
            f"role name (a letter, then up to 63 letters, digits, '_' or '-'); offset {offset} "
            "(pass allow_injection=True to render it anyway)", message_index=i, field="role", offset=offset)


