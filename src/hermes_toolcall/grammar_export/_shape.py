"""The bytes of a dialect's completion, read off its own renderer: never a second table.

A grammar for a dialect needs the literal bytes around the calls: what comes before the first call,
between calls and after the last one, where content sits, the reasoning block's opener and the
suffix after its closer, and the call block's head and tail. ``render`` already writes each
dialect byte for byte as its official template does, so ``completion_shape`` renders a few probe
turns (sentinel content, reasoning and calls to sentinel tools) and reads those bytes between the
sentinels. A profile change (a new dialect, a template fix) changes the grammar with it.

The completion is the assistant turn's text after the generation prompt, up to ``<|im_end|>``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

from .._jsonio import dumps_compact
from .._model import ReasoningKind
from .._profiles import DialectProfile
from .._prompt_state import generation_prompt_state
from ..errors import InternalError, RenderError, UsageError
from ..render import render, render_tool_call
from ..tags import ASSISTANT, CALL_CLOSE, CALL_OPEN, CLOSE, FUNCTION_CLOSE, IM_END, IM_START, OPEN, USER

__all__ = ["BodyShape", "CompletionShape", "Frames", "XmlShape", "body_shape", "check_name", "completion_shape",
           "xml_shape"]

_HEADER = f"{IM_START}{ASSISTANT}\n"
_CONTENT = "Cq0x"  # sentinels: no template trims, escapes or splits these
_REASONING = "Rq0x"
_NAMES = ("fq1x", "fq2x")
_PROBE_TOOLS = [{"type": "function", "function": {"name": n, "description": "d",
                                                   "parameters": {"type": "object", "properties": {}}}} for n in _NAMES]


@dataclass(frozen=True, slots=True, kw_only=True)
class Frames:
    """The literal text around content and calls in one reasoning state.

    Attributes:
        calls_lead: before the first call of a turn without content.
        content_lead: before the content of a turn with content and calls; None when the template
            drops content from a turn with calls (Hermes ``tool_use``).
        content_sep: between that content and the first call (None with ``content_lead``).
        between: between two calls.
        calls_tail: after the last call.
        text_lead: before the content of a turn without calls.
        text_tail: after that content.
        empty: a turn with neither content nor calls (Nemotron trims its reasoning block's newline then).
    """

    calls_lead: str
    content_lead: str | None
    content_sep: str | None
    between: str
    calls_tail: str
    text_lead: str
    text_tail: str
    empty: str


@dataclass(frozen=True, slots=True, kw_only=True)
class CompletionShape:
    """Everything literal in a completion of one dialect in one reasoning state.

    Attributes:
        dialect: the profile's name.
        reasoning: whether the completion carries a reasoning block.
        kind: that block's kind (None without reasoning).
        opener: the text before the reasoning text (the block's opener when the completion opens it,
            ``""`` when the generation prompt already did).
        closer: the block's closer.
        newlines_after_closer: the template renders no reasoning, so it fixes no suffix: any run of
            newlines may follow the closer before ``frames``.
        frames: the literal text around content and calls (after the closer, with reasoning).
        starts_in_reasoning: the completion begins inside the block (for ``parse_completion``).
    """

    dialect: str
    reasoning: bool
    kind: ReasoningKind | None
    opener: str
    closer: str
    newlines_after_closer: bool
    frames: Frames
    starts_in_reasoning: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class BodyShape:
    """A call block's literal bytes around the name and the arguments.

    Attributes:
        kind: ``json`` (``{"name": …, "arguments": {…}}``) or ``xml`` (``<function=…>`` parameters).
        head: the block up to the name (``<tool_call>\\n{"name": "``).
        mid: between the name and the arguments object (``", "arguments": ``); for XML, after the name.
        tail: after the arguments (``}\\n</tool_call>``).
        item_sep: the JSON writer's separator between items (``, `` or ``,``).
        key_sep: the JSON writer's separator between a key and its value (``: `` or ``:``).
    """

    kind: Literal["json", "xml"]
    head: str
    mid: str
    tail: str
    item_sep: str
    key_sep: str


def _turn(profile: DialectProfile, *, content: str, reasoning: str | None, calls: int) -> str:
    """The assistant turn's text after its header, up to ``<|im_end|>``."""
    msg: dict[str, Any] = {"role": ASSISTANT, "content": content}
    if reasoning is not None:
        msg["reasoning_content"] = reasoning
    if calls:
        msg["tool_calls"] = [
            {"id": f"c{i}", "type": "function", "function": {"name": _NAMES[i], "arguments": {}}} for i in range(calls)
        ]
    text = render([{"role": USER, "content": "U"}, msg], tools=_PROBE_TOOLS, dialect=profile)
    start = text.rindex(_HEADER) + len(_HEADER)
    end = text.find(IM_END, start)
    return text[start:] if end < 0 else text[start:end]


def _bug(profile: DialectProfile, what: str) -> InternalError:
    return InternalError(f"cannot read the {profile.name} completion's bytes off its renderer: {what}")


def _frames(profile: DialectProfile, reasoning: bool, prompt_tail: str) -> tuple[Frames, str | None]:
    """The frames, and (with reasoning) the text before the reasoning text; None for that text when
    the template renders no reasoning (then the frames are its turn's bytes without any)."""
    r = _REASONING if reasoning else None
    if reasoning and _REASONING not in _turn(profile, content="", reasoning=r, calls=2):
        return _frames(profile, False, "")[0], None
    closer = CLOSE[_kind_of(profile)] if reasoning else ""
    pre: str | None = None

    def completion(content: str, calls: int) -> str:
        nonlocal pre
        raw = _turn(profile, content=content, reasoning=r, calls=calls)
        if not raw.startswith(prompt_tail):
            raise _bug(profile, f"the turn {raw!r} does not continue the generation prompt's {prompt_tail!r}")
        text = raw[len(prompt_tail):]
        if not reasoning:
            return text
        at = text.find(_REASONING)
        end = text.find(closer, at)
        if at < 0 or end < 0 or (pre is not None and text[:at] != pre):
            raise _bug(profile, f"the reasoning probe is not where expected in {text!r}")
        pre = text[:at]
        return text[end + len(closer):]

    calls_only = completion("", 2)
    with_content = completion(_CONTENT, 2)
    text_only = completion(_CONTENT, 0)
    empty = completion("", 0)
    first = calls_only.find(CALL_OPEN)
    end1 = calls_only.find(CALL_CLOSE, first) + len(CALL_CLOSE)
    second = calls_only.find(CALL_OPEN, end1)
    end2 = calls_only.find(CALL_CLOSE, second) + len(CALL_CLOSE)
    if min(first, second) < 0 or min(end1, end2) < len(CALL_CLOSE):
        raise _bug(profile, f"no two call blocks in {calls_only!r}")
    content_lead = content_sep = None
    if _CONTENT in with_content:
        at = with_content.index(_CONTENT)
        content_lead = with_content[:at]
        content_sep = with_content[at + len(_CONTENT) : with_content.index(CALL_OPEN, at)]
    at = text_only.find(_CONTENT)
    if at < 0:
        raise _bug(profile, f"a turn without calls drops its content: {text_only!r}")
    frames = Frames(
        calls_lead=calls_only[:first],
        content_lead=content_lead,
        content_sep=content_sep,
        between=calls_only[end1:second],
        calls_tail=calls_only[end2:],
        text_lead=text_only[:at],
        text_tail=text_only[at + len(_CONTENT):],
        empty=empty,
    )
    return frames, pre


def _kind_of(profile: DialectProfile) -> ReasoningKind:
    state = generation_prompt_state(profile)
    if state.reasoning is not None:
        return state.reasoning
    if not profile.reasoning_kinds:
        raise UsageError(f"dialect {profile.name!r} has no reasoning block: reasoning=True is impossible")
    return profile.reasoning_kinds[0]


def _prompt_tail(prompt: str, profile: DialectProfile) -> str:
    if not prompt.startswith(_HEADER):
        raise _bug(profile, f"the generation prompt {prompt!r} is not an assistant header")
    return prompt[len(_HEADER):]


@lru_cache(maxsize=64)
def completion_shape(profile: DialectProfile, reasoning: bool | None) -> CompletionShape:
    """The literal bytes of the dialect's completions in one reasoning state.

    ``reasoning`` True: the completion carries a reasoning block, after the dialect's usual generation
    prompt (which may have opened it: QwQ). False: it carries none, after the prompt rendered with
    ``enable_thinking=False`` where the dialect has one (Qwen3). None: True when that usual prompt
    leaves a block open (``generation_prompt_state``), else False.

    Raises:
        UsageError: reasoning=True for a dialect without reasoning blocks, or reasoning=False where the
            dialect's prompt always opens one (QwQ ignores ``enable_thinking``).
    """
    state = generation_prompt_state(profile)
    opens = state.starts_in_reasoning
    if reasoning is None:
        reasoning = opens
    if reasoning:
        kind = _kind_of(profile)
        frames, pre = _frames(profile, True, _prompt_tail(profile.generation_prompt, profile))
        fixed = pre is not None
        opener = pre if pre is not None else ("" if opens else OPEN[kind])
        return CompletionShape(
            dialect=profile.name,
            reasoning=True,
            kind=kind,
            opener=opener,
            closer=CLOSE[kind],
            newlines_after_closer=not fixed,
            frames=frames,
            starts_in_reasoning=opens,
        )
    if profile.generation_prompt_no_thinking is not None:
        prompt = profile.generation_prompt_no_thinking
    elif opens:
        raise UsageError(
            f"dialect {profile.name!r}: its generation prompt always opens a reasoning block "
            f"({profile.generation_prompt!r}), so reasoning=False is impossible"
        )
    else:
        prompt = profile.generation_prompt
    if generation_prompt_state(profile, prompt=prompt).starts_in_reasoning:
        raise _bug(profile, f"the no-thinking prompt {prompt!r} leaves a reasoning block open")
    frames, _ = _frames(profile, False, _prompt_tail(prompt, profile))
    return CompletionShape(
        dialect=profile.name,
        reasoning=False,
        kind=None,
        opener="",
        closer="",
        newlines_after_closer=False,
        frames=frames,
        starts_in_reasoning=False,
    )


@lru_cache(maxsize=64)
def body_shape(profile: DialectProfile) -> BodyShape:
    """The call block's literal bytes, read off ``render_tool_call`` with sentinel calls."""
    kind = profile.body_kind
    name = _NAMES[0]
    empty = render_tool_call({"name": name, "arguments": {}}, dialect=profile)
    if not (empty.startswith(CALL_OPEN) and empty.endswith(CALL_CLOSE)) or empty.count(name) != 1:
        raise _bug(profile, f"the call block {empty!r} is not one <tool_call> block naming the call once")
    head, rest = empty.split(name)
    if kind == "xml":
        return BodyShape(kind="xml", head=head, mid=rest, tail="", item_sep="", key_sep="")
    at = rest.find("{}")
    if at < 0:
        raise _bug(profile, f"no empty arguments object in {empty!r}")
    two = render_tool_call({"name": name, "arguments": {"a": 0, "b": 0}}, dialect=profile)
    inner = two[len(head) + len(name) + at : len(two) - (len(rest) - at - 2)]
    # inner is the arguments object as the dialect writes it: {"a"<key_sep>0<item_sep>"b"<key_sep>0}
    key_sep = inner[len('{"a"') : inner.index("0")]
    item_sep = inner[inner.index("0") + 1 : inner.index('"b"')]
    if inner != '{"a"' + key_sep + "0" + item_sep + '"b"' + key_sep + "0}":
        raise _bug(profile, f"cannot read the JSON separators off {two!r}")
    return BodyShape(kind="json", head=head, mid=rest[:at], tail=rest[at + 2 :], item_sep=item_sep, key_sep=key_sep)


def check_name(name: str, profile: DialectProfile) -> None:
    """Refuse a tool name the dialect cannot write so that it reads back (the renderer's own guard).

    Raises:
        UsageError: the name would not parse back as itself.
    """
    try:
        render_tool_call({"name": name, "arguments": {}}, dialect=profile)
    except RenderError as exc:
        raise UsageError(f"tool name {name!r} cannot be written in dialect {profile.name!r}: {exc}") from None


@dataclass(frozen=True, slots=True, kw_only=True)
class XmlShape:
    """An XML call block's literal bytes, and how its values are written.

    Attributes:
        head: the block up to the name (``<tool_call>\n<function=``); ``name_end`` after it (``>\n``).
        param_head: a parameter's opener up to its key (``<parameter=``); ``key_end`` after the key.
        value_end: after a value (``\n</parameter>\n``); ``tail``: after the parameters.
        true, false, null: how the template writes those values (``True``, ``False``, ``None``).
        item_sep, key_sep: the separators of a container value (``tojson``).
    """

    profile: DialectProfile
    head: str
    name_end: str
    param_head: str
    key_end: str
    value_end: str
    tail: str
    true: str
    false: str
    null: str
    item_sep: str
    key_sep: str

    def written(self, value: Any) -> str:
        """How the template writes ``value`` as a parameter's value."""
        return _written(self.profile, dumps_compact(value))

    def writable(self, key: str) -> bool:
        """Whether a parameter named ``key`` reads back as itself (the renderer's guard)."""
        try:
            render_tool_call({"name": _NAMES[0], "arguments": {key: "x"}}, dialect=self.profile)
        except RenderError:
            return False
        return True


_VALUE = "Vq0x"


def _split_value(profile: DialectProfile, value: Any) -> tuple[str, str, str]:
    """The block of a one-parameter call, cut around the value: (before, value text, after)."""
    text = render_tool_call({"name": _NAMES[0], "arguments": {"k": value}}, dialect=profile, allow_injection=True)
    probe = render_tool_call({"name": _NAMES[0], "arguments": {"k": _VALUE}}, dialect=profile, allow_injection=True)
    before, after = probe.split(_VALUE)
    if not (text.startswith(before) and text.endswith(after)):
        raise _bug(profile, f"the value is not where the probe put it in {text!r}")
    return before, text[len(before) : len(text) - len(after)], after


@lru_cache(maxsize=1024)
def _written(profile: DialectProfile, value_json: str) -> str:
    from .._jsonio import loads

    return _split_value(profile, loads(value_json))[1]


@lru_cache(maxsize=64)
def xml_shape(profile: DialectProfile) -> XmlShape:
    """The XML block's bytes, read off ``render_tool_call`` with sentinel calls."""
    name = _NAMES[0]
    empty = render_tool_call({"name": name, "arguments": {}}, dialect=profile)
    head, rest = empty.split(name)
    before, _, after = _split_value(profile, _VALUE)
    # before = head + name + name_end + param_head + "k" + key_end; after = value_end + tail
    opener = before[len(head) + len(name):]  # name_end + param_head + "k" + key_end
    at = opener.rindex("k")
    # the empty call is head + name + name_end + tail (from </function>); the one-parameter call has the
    # parameter in between
    cut = rest.find(FUNCTION_CLOSE)
    name_end, tail = rest[:cut], rest[cut:]
    param_head, key_end = opener[len(name_end):at], opener[at + 1:]
    if cut < 0 or not opener.startswith(name_end) or not after.endswith(tail):
        raise _bug(profile, f"cannot read the XML block's frame off {empty!r} and {before + after!r}")
    value_end = after[: len(after) - len(tail)]
    inner = _split_value(profile, {"a": [0, 0]})[1]
    key_sep = inner[len('{"a"') : inner.index("[")]
    item_sep = inner[inner.index("0") + 1 : inner.rindex("0")]
    return XmlShape(profile=profile, head=head, name_end=name_end, param_head=param_head, key_end=key_end,
                    value_end=value_end, tail=tail, true=_written(profile, "true"), false=_written(profile, "false"),
                    null=_written(profile, "null"), item_sep=item_sep, key_sep=key_sep)
