"""Dialect profiles: everything that differs between dialects, as data.

Code never branches on a dialect's name; it reads the profile's fields. ``render/`` uses the
rendering fields, both parsing engines the parsing fields.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args, get_origin, get_type_hints

from .errors import UsageError
from .tags import ASSISTANT, IM_START, THINK_CLOSE, THINK_OPEN, TOOL, TOOL_RESPONSE, USER, ReasoningKind

__all__ = ["BODY_KINDS", "DIALECTS", "CallBodyKind", "DialectProfile", "get_profile"]

#: what a ``<tool_call>`` block holds (``DialectProfile.body_kind``): the engines, the renderer and the grammar
#: export each handle every one of them, and a profile holds no other
CallBodyKind = Literal["json", "xml"]
BODY_KINDS: tuple[CallBodyKind, ...] = get_args(CallBodyKind)


@dataclass(frozen=True, slots=True, kw_only=True)
class DialectProfile:
    """What one dialect does. See ``docs/dialects.md`` for the table.

    Attributes:
        name: the dialect's name (``hermes``, ``hermes-vllm``, ``qwen3``, ``qwen2.5``, ``qwq``, ``omp``, and the
            XML-body ``qwen3-coder``, ``qwen3.5``, ``nemotron-3``, ``step-3.5``).
        template: file name of the official template in ``shared/conformance/templates`` (the
            rendering oracle), or None when the dialect has no Jinja template (omp).
        json_style: ``spaced`` (Python ``json.dumps`` defaults) or ``compact`` (``,``/``:``).
        string_arguments: ``verbatim`` (a string ``arguments`` is inserted as is) or ``encode``
            (always ``tojson``: string arguments are double-encoded) or ``decode`` (a JSON string
            ``arguments`` is decoded and rendered as the nested object: omp, and the XML-body dialects,
            whose templates raise on a string).
        result_role: the role of the turn that carries ``<tool_response>`` blocks (``tool_response``: Step).
        content_before_calls: ``dropped`` (the template drops assistant content when there are
            calls), ``kept``, ``kept-if-truthy``, ``kept-no-separator`` (omp, Step), or ``kept-trimmed``
            (written trimmed, only when not blank: Qwen3-Coder, Qwen3.5, Nemotron).
        reasoning: how reasoning is rendered: ``none``, ``qwen3`` (after the last query only),
            ``qwq`` (stripped from non-final turns), ``every-turn`` (omp), ``after-last-query`` (a
            ``<think>`` block in every assistant turn after the last query, empty ones too: Qwen3.5,
            Step), ``history-truncated`` (every turn; ``truncate_history_thinking`` cuts it before the
            last user message: Nemotron).
        tools_block: ``hermes`` (pseudo-JSON inside one prose line), ``qwen`` (one JSON per line),
            ``omp`` (``# Tools`` catalogue + format guide), ``xml-list`` (the XML-like
            ``<function><name>…`` list: Qwen3-Coder, Nemotron), ``json-list`` (``tojson`` lines followed
            by the XML call format: Qwen3.5, Step). It also picks the message loop (the last two: the
            XML family's, ``render/_xmlchat.py``).
        bos: whether the template writes ``bos_token`` first.
        generation_prompt: text appended by ``add_generation_prompt``.
        reasoning_kinds: reasoning tags the parsers recognise in assistant bodies.
        tools_none: what ``tools=None`` does: ``error`` (the template crashes), ``empty-block``
            (``<tools>  </tools>``), ``no-block`` (no tools prompt at all).
        tools_turn_suffix: text after the tools system turn's ``<|im_end|>`` (``\n``; vLLM: none).
        calls_turn: when an assistant message is rendered as a call turn: ``key`` (a ``tool_calls``
            key exists, even empty) or ``truthy`` (a non-empty ``tool_calls``).
        missing_arguments: a call without ``arguments``: ``stray-comma`` (``{"name": "f", }``),
            ``omit`` (``{"name": "f"}``), ``error`` (the template crashes), ``empty-object`` (omp).
        default_system: system text used when ``messages[0]`` is not a system message and no tools
            are given (None: no system turn).
        default_system_with_tools: system text placed before ``\n\n# Tools`` when ``messages[0]`` is
            not a system message (None: the tools prompt starts with ``# Tools``).
        generation_prompt_no_thinking: generation prompt when thinking is switched off (None:
            ``enable_thinking`` is ignored).
        body_kind: what a ``<tool_call>`` block holds: ``json`` (``{"name": …, "arguments": …}``) or
            ``xml`` (``<function=NAME>`` with one ``<parameter=KEY>`` per argument, chatml-family.md §2).
        think_suffix: what the template writes between ``</think>`` and the content (``\n\n`` in the
            Qwen templates, ``\n`` in Nemotron and Step, nothing in omp).
        thinking_switch: how ``enable_thinking`` selects ``generation_prompt_no_thinking``: ``is-false``
            (only the value ``False``, the Qwen templates' ``enable_thinking is false``) or ``falsy``
            (any false value, Nemotron's ``{% if enable_thinking %}``).
        content_call_separator: what the template writes between non-empty content and the first call
            block (``None``: content beside calls is dropped).
        call_separator: what the template writes between two call blocks of one turn.
        calls_suffix: what the template writes after the last call block of a turn, before ``<|im_end|>``.
        result_newlines: whether the template writes a newline after ``<tool_response>`` and one before
            ``</tool_response>`` (Step writes neither).
        result_separator: where the newline between the result blocks of one turn goes: ``before``
            each block (the header has none), ``after`` each block, ``between`` blocks only, or ``none``.
        orphan_result_header: whether a result that follows no message still opens a result turn
            (Step); the others write it with no header (outside any turn).
        tools_intro: the text between the system text (and its separator) and ``<tools>`` (XML family).
        tools_instructions: the text between ``\n</tools>`` and the end of the tools system turn
            (XML family: the call format the template teaches).
        catalogue_keys: the order of a tool's keys in the XML-like catalogue (``tools_block="xml-list"``):
            ``dict-order`` (Qwen3-Coder) or ``enum-first-required-last`` (Nemotron).
        system_with_tools: where the system text goes in the tools turn: ``before`` ``# Tools`` or
            ``after`` the instructions (Qwen3.5).
        system_separator: when ``\n\n`` separates the system text from the tools section: ``always``
            when there is a system message, or ``if-nonempty``.
        system_turn: ``if-any`` (a system turn only for a system message or tools) or ``always``
            (Nemotron writes an empty one).
        content_parts: how non-string content is read (XML family): ``none`` (the template concatenates
            it: a string is required), ``vision`` (Qwen3.5: text parts, image/video placeholders),
            ``value-or-text`` (Step: ``value``/``text`` of a mapping or of text parts, ``<im_patch>``).
        trim_content: the template trims every content (Qwen3.5).
        coerce_text: the template prints names, keys and user/system content with ``str()`` where the
            others concatenate (and crash on a non-string) (Nemotron).
        other_roles: messages of other roles (``developer`` …): ``plain`` turns, ``error`` (the template
            raises) or ``dropped``.
        later_system: a system message after the first: ``plain``, ``error``, or ``observation`` (a plain
            turn, role ``observation`` when its ``name`` is ``observation``: Step).
        system_in_loop: whether the template's message loop includes a leading system message (Qwen3.5,
            Step) or runs over the messages after it (Qwen3-Coder, Nemotron: a result right after the
            system message then opens no turn).
        no_query: what the template does when no user message is a query (``reasoning=
            "after-last-query"``): ``error`` (Qwen3.5 raises) or ``last`` (the last message counts).
    """

    name: str
    description: str
    template: str | None
    json_style: Literal["spaced", "compact"]
    string_arguments: Literal["verbatim", "encode", "decode"]
    result_role: Literal["tool", "user", "tool_response"]
    content_before_calls: Literal["dropped", "kept", "kept-if-truthy", "kept-no-separator", "kept-trimmed"]
    reasoning: Literal["none", "qwen3", "qwq", "every-turn", "after-last-query", "history-truncated"]
    tools_block: Literal["hermes", "qwen", "omp", "xml-list", "json-list"]
    bos: bool
    generation_prompt: str
    reasoning_kinds: tuple[ReasoningKind, ...] = ("think", "scratch_pad")
    tools_none: Literal["error", "empty-block", "no-block"] = "no-block"
    tools_turn_suffix: str = "\n"
    calls_turn: Literal["key", "truthy"] = "truthy"
    missing_arguments: Literal["stray-comma", "omit", "error", "empty-object"] = "error"
    default_system: str | None = None
    default_system_with_tools: str | None = None
    generation_prompt_no_thinking: str | None = None
    body_kind: CallBodyKind = "json"
    think_suffix: str = "\n\n"
    thinking_switch: Literal["is-false", "falsy"] = "is-false"
    content_call_separator: str | None = "\n"
    call_separator: str = "\n"
    calls_suffix: str = ""
    result_newlines: bool = True
    result_separator: Literal["before", "after", "between", "none"] = "before"
    orphan_result_header: bool = False
    tools_intro: str = ""
    tools_instructions: str = ""
    catalogue_keys: Literal["dict-order", "enum-first-required-last"] = "dict-order"
    system_with_tools: Literal["before", "after"] = "before"
    system_separator: Literal["always", "if-nonempty"] = "always"
    system_turn: Literal["if-any", "always"] = "if-any"
    content_parts: Literal["none", "vision", "value-or-text"] = "none"
    trim_content: bool = False
    coerce_text: bool = False
    other_roles: Literal["plain", "error", "dropped"] = "dropped"
    later_system: Literal["plain", "error", "observation"] = "plain"
    system_in_loop: bool = True
    no_query: Literal["error", "last"] = "last"

    def __post_init__(self) -> None:
        """Refuse a choice field holding a value nothing reads (``dataclasses.replace`` checks it too).

        Every field typed by a ``Literal`` (``body_kind``, ``reasoning``, ``tools_block`` …) and each entry of
        ``reasoning_kinds`` must be one of its declared values: the renderers and both engines look these up
        in tables, so an unknown one would otherwise fail deep inside them.

        Raises:
            UsageError: a field holds a value its type does not allow, e.g. ``body_kind`` not in ``BODY_KINDS``.
        """
        for field, allowed in _CHOICES.items():
            values = getattr(self, field)
            for value in values if field == "reasoning_kinds" else (values,):
                if value not in allowed:
                    what = "call body kind" if field == "body_kind" else field
                    raise UsageError(f"dialect {self.name!r}: unknown {what} {value!r} "
                                     f"(known: {', '.join(allowed)})")


def _choices() -> dict[str, tuple[str, ...]]:
    """Each ``DialectProfile`` field whose values are a closed set, with that set (read from the annotations)."""
    choices: dict[str, tuple[str, ...]] = {}
    for field, hint in get_type_hints(DialectProfile).items():
        if field == "reasoning_kinds":
            hint = get_args(hint)[0]
        if get_origin(hint) is Literal:
            choices[field] = get_args(hint)
    return choices


#: the closed-set fields of ``DialectProfile`` and their allowed values (checked by ``__post_init__``)
_CHOICES = _choices()


def _instructions(*, what: str, example_value: str, first_rule: str, rest: bool) -> str:
    """The call-format instructions the XML templates write after ``</tools>`` (chatml-family.md §2)."""
    rules = [first_rule, "Required parameters MUST be specified"]
    if rest:
        rules += ["You may provide optional reasoning for your function call in natural language BEFORE the "
                  "function call, but NOT after",
                  "If there is no function call available, answer the question like normal with your current "
                  "knowledge and do not tell the user about function calls"]
    return (f"\n\nIf you choose to call {what} ONLY reply in the following format with NO suffix:\n\n"
            "<tool_call>\n<function=example_function_name>\n<parameter=example_parameter_1>\nvalue_1\n"
            f"</parameter>\n<parameter=example_parameter_2>\n{example_value}\n</parameter>\n</function>\n"
            "</tool_call>\n\n<IMPORTANT>\nReminder:\n" + "".join(f"- {r}\n" for r in rules) + "</IMPORTANT>")


_MULTILINE = "This is the value for the second parameter\nthat can span\nmultiple lines"
_NESTED = ("Function calls MUST follow the specified format: an inner <function=...></function> block must be "
           "nested within <tool_call></tool_call> XML tags")
_FUNCTIONS = "# Tools\n\nYou have access to the following functions:\n\n"


_HERMES_TEMPLATE = "NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use.jinja"

DIALECTS: dict[str, DialectProfile] = {
    p.name: p
    for p in (
        DialectProfile(
            name="hermes",
            description="NousResearch Hermes 2 Pro / Hermes 3 `tool_use` template (byte-identical files).",
            template=_HERMES_TEMPLATE,
            json_style="spaced",
            string_arguments="verbatim",
            result_role=TOOL,
            content_before_calls="dropped",
            reasoning="none",
            tools_block="hermes",
            bos=True,
            generation_prompt=f"{IM_START}{ASSISTANT}\n",
            tools_none="error",
            calls_turn="key",
            missing_arguments="stray-comma",
            content_call_separator=None,
            result_separator="after",
        ),
        DialectProfile(
            name="hermes-vllm",
            description="vLLM's examples/tool_chat_template_hermes.jinja.",
            template="tool_chat_template_hermes.jinja",
            json_style="spaced",
            string_arguments="encode",
            result_role=TOOL,
            content_before_calls="dropped",
            reasoning="none",
            tools_block="hermes",
            bos=True,
            generation_prompt=f"{IM_START}{ASSISTANT}\n",
            tools_none="empty-block",
            tools_turn_suffix="",
            calls_turn="key",
            missing_arguments="omit",
            content_call_separator=None,
            result_separator="after",
        ),
        DialectProfile(
            name="qwen3",
            description="Qwen3 chat template (Qwen/Qwen3-0.6B).",
            template="Qwen-Qwen3-0.6B.jinja",
            json_style="spaced",
            string_arguments="verbatim",
            result_role=USER,
            content_before_calls="kept",
            reasoning="qwen3",
            tools_block="qwen",
            bos=False,
            generation_prompt=f"{IM_START}{ASSISTANT}\n",
            generation_prompt_no_thinking=f"{IM_START}{ASSISTANT}\n{THINK_OPEN}\n\n{THINK_CLOSE}\n\n",
        ),
        DialectProfile(
            name="qwen2.5",
            description="Qwen2.5 Instruct chat template (Qwen/Qwen2.5-7B-Instruct).",
            template="Qwen-Qwen2.5-7B-Instruct.jinja",
            json_style="spaced",
            string_arguments="encode",
            result_role=USER,
            content_before_calls="kept-if-truthy",
            reasoning="none",
            tools_block="qwen",
            bos=False,
            generation_prompt=f"{IM_START}{ASSISTANT}\n",
            default_system="You are Qwen, created by Alibaba Cloud. You are a helpful assistant.",
            default_system_with_tools="You are Qwen, created by Alibaba Cloud. You are a helpful assistant.",
        ),
        DialectProfile(
            name="qwq",
            description="QwQ-32B chat template (before llama.cpp's 2026-03-06 edit).",
            template="Qwen-QwQ-32B.jinja",
            json_style="spaced",
            string_arguments="encode",
            result_role=USER,
            content_before_calls="kept-if-truthy",
            reasoning="qwq",
            tools_block="qwen",
            bos=False,
            generation_prompt=f"{IM_START}{ASSISTANT}\n{THINK_OPEN}\n",
            default_system_with_tools="",
        ),
        DialectProfile(
            name="omp",
            description="oh-my-pi in-band `hermes` dialect (renderTranscript + in-band tool prompt).",
            template=None,
            json_style="compact",
            string_arguments="decode",
            result_role=TOOL,
            content_before_calls="kept-no-separator",
            reasoning="every-turn",
            tools_block="omp",
            bos=False,
            generation_prompt=f"{IM_START}{ASSISTANT}\n",
            missing_arguments="empty-object",
            think_suffix="",
            content_call_separator="",
            result_separator="between",
        ),
        DialectProfile(
            name="qwen3-coder",
            description="Qwen3-Coder chat template (XML bodies; Qwen3-Coder-30B-A3B / 480B-A35B, Qwen3-Coder-Next).",
            template="Qwen3-Coder.jinja",
            body_kind="xml",
            json_style="spaced",
            string_arguments="decode",
            result_role=USER,
            content_before_calls="kept-trimmed",
            reasoning="none",
            tools_block="xml-list",
            bos=False,
            generation_prompt=f"{IM_START}{ASSISTANT}\n",
            reasoning_kinds=("think",),
            missing_arguments="empty-object",
            default_system_with_tools="You are Qwen, a helpful AI assistant that can interact with a computer to "
            "solve tasks.",
            content_call_separator="\n\n",
            result_newlines=True,
            result_separator="after",
            tools_intro="# Tools\n\nYou have access to the following tools:\n\n",
            tools_instructions=_instructions(
                what="a tool", example_value="value_2", rest=True,
                first_rule="Function calls MUST follow the specified format: the tool calling block MUST begin "
                "with an opening <tool_call> tag and end with a closing </tool_call> tag."),
            other_roles="plain",
            system_in_loop=False,
        ),
        DialectProfile(
            name="qwen3.5",
            description="Qwen3.5 chat template (XML bodies; Qwen/Qwen3.5-4B, also Qwen3.6 / Qwen3.8).",
            template="Qwen3.5-4B.jinja",
            body_kind="xml",
            json_style="spaced",
            string_arguments="decode",
            result_role=USER,
            content_before_calls="kept-trimmed",
            reasoning="after-last-query",
            tools_block="json-list",
            bos=False,
            generation_prompt=f"{IM_START}{ASSISTANT}\n{THINK_OPEN}\n",
            generation_prompt_no_thinking=f"{IM_START}{ASSISTANT}\n{THINK_OPEN}\n\n{THINK_CLOSE}\n\n",
            reasoning_kinds=("think",),
            missing_arguments="empty-object",
            content_call_separator="\n\n",
            result_separator="before",
            tools_intro=_FUNCTIONS,
            tools_instructions=_instructions(what="a function", example_value=_MULTILINE, rest=True,
                                             first_rule=_NESTED),
            system_with_tools="after",
            system_separator="if-nonempty",
            content_parts="vision",
            trim_content=True,
            other_roles="error",
            later_system="error",
            no_query="error",
        ),
        DialectProfile(
            name="nemotron-3",
            description="NVIDIA Nemotron 3 Nano chat template (XML bodies; NVIDIA-Nemotron-3-Nano-30B-A3B-BF16).",
            template="NVIDIA-Nemotron-3-Nano-30B-A3B-BF16.jinja",
            body_kind="xml",
            json_style="spaced",
            string_arguments="decode",
            result_role=USER,
            content_before_calls="kept-trimmed",
            reasoning="history-truncated",
            tools_block="xml-list",
            bos=False,
            generation_prompt=f"{IM_START}{ASSISTANT}\n{THINK_OPEN}\n",
            generation_prompt_no_thinking=f"{IM_START}{ASSISTANT}\n{THINK_OPEN}{THINK_CLOSE}",
            reasoning_kinds=("think",),
            missing_arguments="empty-object",
            think_suffix="\n",
            thinking_switch="falsy",
            content_call_separator="\n",
            calls_suffix="\n",
            result_separator="after",
            tools_intro=_FUNCTIONS,
            tools_instructions=_instructions(what="a function", example_value=_MULTILINE, rest=True,
                                             first_rule=_NESTED),
            catalogue_keys="enum-first-required-last",
            system_separator="if-nonempty",
            system_turn="always",
            coerce_text=True,
            other_roles="plain",
            system_in_loop=False,
        ),
        DialectProfile(
            name="step-3.5",
            description="StepFun Step 3.5 Flash chat template (XML bodies; stepfun-ai/Step-3.5-Flash).",
            template="StepFun3.5-Flash.jinja",
            body_kind="xml",
            json_style="spaced",
            string_arguments="decode",
            result_role=TOOL_RESPONSE,
            content_before_calls="kept-no-separator",
            reasoning="after-last-query",
            tools_block="json-list",
            bos=True,
            generation_prompt=f"{IM_START}{ASSISTANT}\n{THINK_OPEN}\n",
            reasoning_kinds=("think",),
            missing_arguments="empty-object",
            think_suffix="\n",
            content_call_separator="",
            call_separator="",
            result_newlines=False,
            result_separator="none",
            orphan_result_header=True,
            tools_intro="# Tools\n\nYou have access to the following functions in JSONSchema format:\n\n",
            tools_instructions=_instructions(
                what="a function", example_value=_MULTILINE, rest=False,
                first_rule="Function calls MUST follow the specified format: an inner <function=...>\n...\n"
                "</function> block must be nested within <tool_call>\n...\n</tool_call> XML tags"),
            content_parts="value-or-text",
            later_system="observation",
        ),
    )
}


def get_profile(dialect: str | DialectProfile) -> DialectProfile:
    """The profile named ``dialect`` (a profile passes through).

    Raises:
        UsageError: unknown dialect name.

    >>> get_profile("qwen3").result_role
    'user'
    """
    if isinstance(dialect, DialectProfile):
        return dialect
    try:
        return DIALECTS[dialect]
    except (KeyError, TypeError):  # TypeError: an unhashable value
        names = ", ".join(sorted(DIALECTS))
        raise UsageError(f"unknown dialect {dialect!r} (known: {names})") from None
