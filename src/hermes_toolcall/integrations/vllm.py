"""vLLM plugin: a ``ToolParser`` and a ``ReasoningParser`` on hermes-toolcall's streaming engine.

    vllm serve MODEL --enable-auto-tool-choice \\
        --tool-parser-plugin hermes_toolcall.integrations.vllm --tool-call-parser hermes_toolcall \\
        --reasoning-parser-plugin hermes_toolcall.integrations.vllm --reasoning-parser hermes_toolcall

Importing this module registers ``hermes_toolcall`` (dialect from ``HERMES_TOOLCALL_DIALECT``,
default ``hermes``) and ``hermes_toolcall_<dialect>`` for every dialect with vLLM's
``ToolParserManager`` and ``ReasoningParserManager``. Both parsers are delta-fed
(``engine_based_streaming``): one engine per request, ``finish_streaming()`` closes it.

Behaviour (docs/integrations.md): calls are sent whole when their block closes (a truncated call is
never sent, its text never becomes a call), or, with ``HERMES_TOOLCALL_EAGER=1``, announced at
their name with argument deltas; ``prev_tool_call_arr`` / ``streamed_args_for_tool`` always hold
exactly what was sent, so vLLM's end-of-stream "remaining arguments" is empty. ``tool_choice``
``none`` gives the output as content; ``required`` / a named tool are parsed from the model's own
format (``supports_required_and_named = False``). The reasoning parser reads the prompt's token ids
to tell whether the generation prompt opened ``<think>`` (QwQ, Qwen3 thinking).

Requires the ``vllm`` extra (``pip install 'hermes-toolcall[vllm]'``, vLLM 0.33).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any

from . import require

require("vllm", "vllm")

from vllm.entrypoints.generate.base.protocol import (  # noqa: E402
    DeltaFunctionCall,
    DeltaMessage,
    DeltaToolCall,
    ExtractedToolCallInformation,
    FunctionCall,
    ToolCall,
)
from vllm.reasoning.abs_reasoning_parsers import ReasoningParser, ReasoningParserManager  # noqa: E402
from vllm.tool_parsers.abstract_tool_parser import ToolParser, ToolParserManager  # noqa: E402

from .._profiles import DIALECTS  # noqa: E402
from .._prompt_state import generation_prompt_state  # noqa: E402
from ..errors import StreamStateError, UsageError  # noqa: E402
from ..tags import ASSISTANT, IM_START, USER  # noqa: E402
from . import _config as config  # noqa: E402
from ._leading import LeadingReasoning, prompt_opens_reasoning  # noqa: E402
from ._models import builder, fields_set, plain, state_parts  # noqa: E402
from ._scoring import ServerScorer  # noqa: E402
from ._session import NO_STEP, Bookkeeping, Piece, Policy, Session, Step, complete, tool_objects  # noqa: E402

__all__ = ["HermesReasoningParser", "HermesToolParser", "policy_of", "run_vllm_parser", "score_builtin", "score_plugin"]

NAME = "hermes_toolcall"


def _tool_choice(request: Any) -> str:
    choice = getattr(request, "tool_choice", None)
    if choice is None:
        return "auto"
    if isinstance(choice, str):
        return choice
    function = getattr(choice, "function", None)  # ChatCompletionNamedToolChoiceParam
    name = getattr(function, "name", None) or getattr(choice, "name", None)  # Responses' ToolChoiceFunction
    return name if isinstance(name, str) else "auto"


def policy_of(request: Any, *, dialect: str, tools: Sequence[Any] | None = None) -> Policy:
    """The engine policy of a vLLM request (its tools, ``tool_choice``), for the tool phase.

    The request's tools are the parse-time tools (a named ``tool_choice`` declares only that
    tool); a call to another name follows ``HERMES_TOOLCALL_UNDECLARED`` (default ``text``: its
    block stays in the content, never sent as a call). The tool phase never starts inside
    reasoning: the reasoning parser took the prompt-opened block, or there is none (then the
    markup is content).

    >>> policy_of(None, dialect="qwen3").tool_choice
    'auto'
    """
    choice = _tool_choice(request)
    declared = tool_objects(getattr(request, "tools", None) or tools, choice)
    return Policy(
        dialect=dialect,
        tools=declared,
        undeclared=config.undeclared(),
        tool_choice=choice,
        reasoning_as_content=True,
        eager=config.eager(),
    )


_MESSAGE = builder(DeltaMessage)
_TOOL_CALL = builder(DeltaToolCall)
_FUNCTION = builder(DeltaFunctionCall)


def _piece_builder() -> Callable[[int, str], DeltaMessage]:
    """The ``DeltaMessage`` of one more argument piece of call ``index`` (most deltas with argument
    deltas): the three models ``_delta_message`` builds, in one function (a third of the cost).

    Each class's instances share one fields-set (``_models.fields_set``).
    """
    classes = (DeltaFunctionCall, DeltaToolCall, DeltaMessage)
    if not all(plain(cls) for cls in classes):  # pragma: no cover - vLLM 0.33's models are plain
        return lambda index, arguments: _general_message("", "", ((index, None, None, arguments),))
    (nf, df, ff, ef, pf, xf), (nt, dt, ft, et, pt, xt), (nm, dm, fm, em, pm, xm) = map(state_parts, classes)
    keys_f, keys_t, keys_m = map(fields_set, classes)  # the dicts below give every field
    new_f, new_t, new_m = DeltaFunctionCall, DeltaToolCall, DeltaMessage

    def build(index: int, arguments: str) -> DeltaMessage:
        f = nf(new_f)
        df(f, {"name": None, "arguments": arguments})
        ff(f, keys_f)
        ef(f, {} if xf else None)
        pf(f, None)
        t = nt(new_t)
        dt(t, {"id": None, "type": None, "index": index, "function": f})
        ft(t, keys_t)
        et(t, {} if xt else None)
        pt(t, None)
        m: DeltaMessage = nm(new_m)
        dm(m, {"role": None, "content": None, "reasoning": None, "tool_calls": [t]})
        fm(m, keys_m)
        em(m, {} if xm else None)
        pm(m, None)
        return m

    return build


def _delta_message(step: Step) -> DeltaMessage | None:
    """The ``DeltaMessage`` of one step (None when it holds nothing); pydantic's validation of three
    nested models per delta would cost more than the parse, and the values are well-typed by construction."""
    content, reasoning, pieces = step
    if not (content or reasoning):
        if not pieces:
            return None
        if len(pieces) == 1 and pieces[0][1] is None:  # one more argument piece: most deltas of a long call
            return _PIECE(pieces[0][0], pieces[0][3])
    return _general_message(content, reasoning, pieces)


def _general_message(content: str, reasoning: str, pieces: tuple[Piece, ...]) -> DeltaMessage:
    calls = [
        _TOOL_CALL(
            {
                "id": call_id,
                "type": "function" if call_id is not None else None,
                "index": index,
                "function": _FUNCTION({"name": name, "arguments": arguments}),
            }
        )
        for index, call_id, name, arguments in pieces
    ]
    message = _MESSAGE(
        {"role": None, "content": content or None, "reasoning": reasoning or None, "tool_calls": calls}
    )
    return message


_PIECE = _piece_builder()


class HermesToolParser(Bookkeeping, ToolParser):  # type: ignore[misc]
    """vLLM ``ToolParser`` for the Hermes format: one ``Session`` per request, fed deltas.

    The serving layer creates one per request (``Parser.__init__``) and sets
    ``skip_reasoning_parsing`` when no reasoning parser is configured. Either way the reasoning
    this parser sees (after the reasoning phase) is content, verbatim: a non-streaming response
    cannot carry reasoning from a tool parser, and both paths give the same message.
    """

    engine_based_streaming = True
    supports_required_and_named = False  # the model writes <tool_call> blocks for every tool_choice
    # required / named tool_choice: vLLM constrains the output with xgrammar's builtin Hermes
    # structural tag (VLLM_ENFORCE_STRICT_TOOL_CALLING, on by default), which this parser reads;
    # the per-dialect names take their body kind's (STRUCTURAL_TAG_MODEL)
    structural_tag_model = "hermes"
    dialect: str | None = None  # None: HERMES_TOOLCALL_DIALECT

    def __init__(self, tokenizer: Any, tools: list[Any] | None = None) -> None:
        super().__init__(tokenizer, tools)
        self.skip_reasoning_parsing = False
        self._session: Session | None = None

    def _dialect(self) -> str:
        return self.dialect or config.dialect()

    def _policy(self, request: Any) -> Policy:
        return policy_of(request, dialect=self._dialect(), tools=self.tools)

    def adjust_request(self, request: Any) -> Any:
        """Keep special tokens in the text when tools are in play (some tokenizers mark ``<tool_call>`` special)."""
        request = super().adjust_request(request)
        if request.tools and request.tool_choice != "none":
            request.skip_special_tokens = False
        return request

    def get_structural_tag(self, request: Any, *, reasoning: bool = False, strict_level: Any = None) -> Any:
        """The structural tag vLLM constrains a request's calls with (``required``, a named tool, strict tools).

        JSON bodies: xgrammar's built-in ``hermes`` tag (vLLM's own). XML bodies: the dialect's own tag,
        ``grammar_export.xgrammar_structural_tag`` (xgrammar's built-in ``qwen_3_coder`` rejects what the
        templates write: a call without arguments, ``True``/``None`` values, one newline after ``</think>``,
        prose before a required call; tests/integrations/inside/check_xgrammar.py); its argument schemas
        are always enforced (``strict_level`` changes nothing). A dialect whose prompt always opens
        reasoning (Step 3.5) has no tag without it: vLLM asks for none (its reasoning gate starts the
        grammar after the block), so it gets the built-in one.
        """
        kwargs = {} if strict_level is None else {"strict_level": strict_level}
        if DIALECTS[self._dialect()].body_kind != "xml":
            return super().get_structural_tag(request, reasoning=reasoning, **kwargs)
        from vllm import envs
        from xgrammar import StructuralTag

        from ..grammar_export import xgrammar_structural_tag

        if not envs.VLLM_ENFORCE_STRICT_TOOL_CALLING or not request.tools:
            return None
        choice = request.tool_choice
        if choice is not None and not isinstance(choice, str):
            choice = {"type": "function", "function": {"name": _tool_choice(request)}}
        try:
            tag = xgrammar_structural_tag(
                [t.model_dump(exclude_none=True) if hasattr(t, "model_dump") else t for t in request.tools],
                dialect=self._dialect(),
                tool_choice=choice or "auto",
                parallel_tool_calls=getattr(request, "parallel_tool_calls", None) is not False,
                reasoning=reasoning,
            )
        except UsageError:  # reasoning=False where the prompt always opens reasoning
            return super().get_structural_tag(request, reasoning=reasoning, **kwargs)
        return StructuralTag.model_validate(tag)

    def extract_tool_calls(self, model_output: str, request: Any) -> ExtractedToolCallInformation:
        """Non-streaming: the calls and content of the whole output (the same engine, in one piece)."""
        result = complete(model_output, self._policy(request))
        calls = [ToolCall(id=c.id, function=FunctionCall(name=c.name, arguments=c.arguments)) for c in result.calls]
        return ExtractedToolCallInformation(tools_called=bool(calls), tool_calls=calls, content=result.content)

    def extract_tool_calls_streaming(
        self,
        previous_text: str,
        current_text: str,
        delta_text: str,
        previous_token_ids: Sequence[int],
        current_token_ids: Sequence[int],
        delta_token_ids: Sequence[int],
        request: Any,
    ) -> DeltaMessage | None:
        """Streaming: feed ``delta_text`` (engine-based: the serving layer passes only the new text)."""
        session = self._session
        if session is None:
            session = self._session = Session(self._policy(request))
        try:
            step = session.step(delta_text)
        except StreamStateError:  # after finish_streaming(): the stream is over, nothing more is sent
            return None
        if step is NO_STEP:  # most deltas: nothing sent, no call ended (the bookkeeping is unchanged)
            return None
        pieces = step[2]
        if len(pieces) == 1 and pieces[0][1] is None and not step[0] and not step[1]:
            # one more argument piece: when no call ended since the last booking (``Bookkeeping._current``,
            # inline) ``_book`` would write nothing, and the message is the fused builder's
            calls, done = session.calls, self._booked
            if done >= len(calls) or calls[done].valid is None:
                piece = pieces[0]
                return _PIECE(piece[0], piece[3])
        return self._sent(step)

    def finish_streaming(self) -> DeltaMessage | None:
        """End of the stream: flush the engine's held-back text; an unfinished call is not sent.

        ``prev_tool_call_arr`` / ``streamed_args_for_tool`` hold exactly what was sent (see ``Bookkeeping``).
        """
        if self._session is None or self._session.closed:
            return None
        return self._sent(self._session.finish())

    def _sent(self, step: Step) -> DeltaMessage | None:
        assert self._session is not None
        self._book(self._session, step[2], final=self._session.closed)
        return _delta_message(step)


class HermesReasoningParser(ReasoningParser):  # type: ignore[misc]
    """vLLM ``ReasoningParser``: the leading ``<think>`` / ``<scratch_pad>`` block, by the same engine.

    ``set_prompt_token_ids`` reads whether the generation prompt opened reasoning; the stream is
    fed to the engine until the leading block closes (or the output does not start with one), then
    the raw rest is handed to the tool parser (``has_engine_confirmed_reasoning_end``).
    """

    engine_based_streaming = True
    dialect: str | None = None

    def __init__(self, tokenizer: Any, *args: Any, **kwargs: Any) -> None:
        super().__init__(tokenizer, *args, **kwargs)
        self._opens: bool | None = None
        self._split: LeadingReasoning | None = None
        self._kinds = DIALECTS[self._dialect()].reasoning_kinds

    def _dialect(self) -> str:
        return self.dialect or config.dialect()

    @property
    def reasoning_start_str(self) -> str | None:
        return f"<{self._kinds[0]}>"

    @property
    def reasoning_end_str(self) -> str | None:
        return f"</{self._kinds[0]}>"

    def _text(self, ids: Sequence[int]) -> str:
        text: str = self.model_tokenizer.decode(list(ids), skip_special_tokens=False)
        return text

    def set_prompt_token_ids(self, prompt_token_ids: Sequence[int]) -> None:
        """Read whether the rendered prompt left a reasoning block open (``generation_prompt_state``)."""
        state = generation_prompt_state(self._dialect(), prompt=self._text(prompt_token_ids))
        self._opens = state.starts_in_reasoning

    def is_reasoning_end(self, input_ids: Sequence[int]) -> bool:
        """Whether the last reasoning block of ``input_ids`` (after the last turn header) is closed."""
        return prompt_opens_reasoning(self._text(input_ids), self._kinds) is False

    def extract_content_ids(self, input_ids: list[int]) -> list[int]:
        """The ids after the last closing reasoning tag (all of them when there is none)."""
        vocab = self.vocab
        ends = {vocab[f"</{k}>"] for k in self._kinds if f"</{k}>" in vocab}
        for i in range(len(input_ids) - 1, -1, -1):
            if input_ids[i] in ends:
                return input_ids[i + 1 :]
        return input_ids

    def _splitter(self) -> LeadingReasoning:
        if self._split is None:
            self._split = LeadingReasoning(self._dialect(), starts_in_reasoning=bool(self._opens))
        return self._split

    def extract_reasoning(self, model_output: str, request: Any) -> tuple[str | None, str | None]:
        """Non-streaming: (reasoning, the rest of the output), as the stream splits them."""
        split = LeadingReasoning(self._dialect(), starts_in_reasoning=bool(self._opens))
        first, last = split.feed(model_output), split.close()
        reasoning = first.reasoning + last.reasoning
        content = first.content if first.content is not None else last.content
        return reasoning or None, content or None

    def extract_reasoning_streaming(
        self,
        previous_text: str,
        current_text: str,
        delta_text: str,
        previous_token_ids: Sequence[int],
        current_token_ids: Sequence[int],
        delta_token_ids: Sequence[int],
    ) -> DeltaMessage | None:
        """Streaming: the reasoning of ``delta_text``; at the hand-over, the rest as content."""
        split = self._splitter().feed(delta_text)
        if not split.reasoning and split.content is None:
            return None
        return DeltaMessage(reasoning=split.reasoning or None, content=split.content)

    def has_engine_confirmed_reasoning_end(self) -> bool:
        """Whether the leading reasoning is over (the rest went out as content)."""
        return self._split is not None and self._split.ended

    def finish_streaming(self) -> DeltaMessage | None:
        """End of the stream inside the reasoning phase: the held-back reasoning (and any text)."""
        if self._split is None or self._split.ended:
            return None
        split = self._split.close()
        if not split.reasoning and not split.content:
            return None
        return DeltaMessage(reasoning=split.reasoning or None, content=split.content or None)


#: the structural tag model of each call body kind, which vLLM applies for ``required`` / a named
#: ``tool_choice``: the JSON body's ``hermes``; for the XML body ``qwen_3_coder`` (what vLLM's own
#: ``qwen3_coder`` asks for) only selects the tools, ``get_structural_tag`` builds the dialect's own tag
STRUCTURAL_TAG_MODEL = {"json": "hermes", "xml": "qwen_3_coder"}


def _register() -> None:
    ToolParserManager.register_module(NAME, module=HermesToolParser)
    ReasoningParserManager.register_module(NAME, module=HermesReasoningParser)
    for dialect in DIALECTS:
        suffix = dialect.replace("-", "_").replace(".", "")
        attrs = {"dialect": dialect, "__module__": __name__}
        tool = type(
            f"HermesToolParser_{suffix}",
            (HermesToolParser,),
            {**attrs, "structural_tag_model": STRUCTURAL_TAG_MODEL[DIALECTS[dialect].body_kind]},
        )
        reasoning = type(f"HermesReasoningParser_{suffix}", (HermesReasoningParser,), attrs)
        ToolParserManager.register_module(f"{NAME}_{suffix}", module=tool)
        ReasoningParserManager.register_module(f"{NAME}_{suffix}", module=reasoning)


_register()


# ---------------------------------------------------------------------------------------------- scoring

_BUILTIN: dict[str, Any] = {}


def _builtin_parser(name: str) -> tuple[Any, Any]:
    """vLLM's own parser class ``name`` composed as the server does, with the local tokenizer (cached)."""
    if name not in _BUILTIN:
        import tempfile

        from vllm.parser import ParserManager
        from vllm.tokenizers import get_tokenizer

        from ._tokenizer import build

        tokenizer = get_tokenizer(build(tempfile.mkdtemp(prefix="hermes-toolcall-tok-")))
        _BUILTIN[name] = (ParserManager.get_parser(tool_parser_name=name, enable_auto_tools=True), tokenizer)
    cls, tokenizer = _BUILTIN[name]
    return cls, tokenizer


def run_vllm_parser(
    name: str, chunks: Sequence[str], names: Sequence[str] = ("f",), undeclared: str = "keep"
) -> tuple[str | None, str | None, list[tuple[str, str]]]:
    """Stream ``chunks`` through vLLM's ``ChatStreamProcessor`` with tool parser ``name``: (content, reasoning, calls).

    Each chunk is one delta (its token ids from the local tokenizer); the last carries ``finish_reason``.
    The request declares ``names``; the plugin's undeclared policy is ``undeclared`` (``keep`` for scoring).
    """
    saved = os.environ.get("HERMES_TOOLCALL_UNDECLARED")
    os.environ["HERMES_TOOLCALL_UNDECLARED"] = undeclared
    try:
        return _run_vllm(name, chunks, names)
    finally:
        if saved is None:
            del os.environ["HERMES_TOOLCALL_UNDECLARED"]
        else:
            os.environ["HERMES_TOOLCALL_UNDECLARED"] = saved


def _run_vllm(
    name: str, chunks: Sequence[str], names: Sequence[str]
) -> tuple[str | None, str | None, list[tuple[str, str]]]:
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest
    from vllm.entrypoints.openai.chat_completion.stream_processor import ChatStreamProcessor

    cls, tokenizer = _builtin_parser(name)
    tools = [{"type": "function", "function": {"name": n, "parameters": {"type": "object"}}} for n in names]
    request = ChatCompletionRequest(model="m", messages=[{"role": USER, "content": "hi"}], tools=tools, stream=True)
    processor = ChatStreamProcessor(request, cls(tokenizer, request.tools), enable_auto_tools=True, parser_cls=cls)
    content: list[str] = []
    reasoning: list[str] = []
    calls: dict[int, list[str]] = {}
    prompt = tokenizer.encode(f"{IM_START}{ASSISTANT}\n")
    pieces = [c for c in chunks if c] or [""]
    for n, chunk in enumerate(pieces):
        step = processor.step(chunk, tokenizer.encode(chunk), "stop" if n == len(pieces) - 1 else None, prompt)
        delta = step.delta
        if delta is None:
            continue
        content.append(delta.content or "")
        reasoning.append(delta.reasoning or "")
        for tc in delta.tool_calls:
            entry = calls.setdefault(tc.index, ["", ""])
            if tc.function is not None:
                entry[0] += tc.function.name or ""
                entry[1] += tc.function.arguments or ""
    return "".join(content) or None, "".join(reasoning) or None, [(n, a) for n, a in calls.values()]


def _scorer(name: str) -> ServerScorer:
    def run(chunks: Sequence[str], tools: list[str]) -> tuple[str | None, str | None, list[tuple[str, str]]]:
        return run_vllm_parser(name, chunks, tools)

    return ServerScorer(adapter_name=f"vllm {name}", run_parser=run)


#: Conformance adapter: vLLM's own ``hermes`` tool parser, streamed through ``ChatStreamProcessor``
#: (``hermes-toolcall conformance --adapter hermes_toolcall.integrations.vllm:score_builtin``).
score_builtin = _scorer("hermes")
#: Conformance adapter: this plugin through the same path (``…integrations.vllm:score_plugin``).
score_plugin = _scorer(NAME)
