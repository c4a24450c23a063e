"""SGLang plugin: a ``BaseFormatDetector`` on hermes-toolcall's streaming engine.

    python -m hermes_toolcall.integrations.sglang_launch --model-path MODEL --tool-call-parser hermes_toolcall

SGLang has no plugin flag for tool parsers: ``register()`` adds ``hermes_toolcall`` (dialect from
``HERMES_TOOLCALL_DIALECT``, default ``hermes``) and ``hermes_toolcall_<dialect>`` to
``FunctionCallParser.ToolCallParserEnum``; the launcher (``integrations.sglang_launch``) calls it
and then starts ``sglang.launch_server``'s server. When hermes-toolcall is pip-installed in the
server's environment, SGLang's general-plugin entry point (``sglang.srt.plugins``) calls
``register()`` too. One detector per request (SGLang makes one ``FunctionCallParser`` per choice),
fed deltas; ``finish()`` closes the engine. Calls are sent whole when their block closes, or with
``HERMES_TOOLCALL_EAGER=1`` announced at their name with argument deltas; the detector's
``prev_tool_call_arr`` / ``streamed_args_for_tool`` hold exactly what was sent, so SGLang's
end-of-stream "unstreamed arguments" check sends nothing. Reasoning the detector sees is content,
verbatim (SGLang's reasoning parser runs before it).

Requires the ``sglang`` extra (``pip install 'hermes-toolcall[sglang]'``, SGLang 0.5.23).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from . import require

require("sglang.srt.function_call.base_format_detector", "sglang")

from sglang.srt.function_call.base_format_detector import BaseFormatDetector  # noqa: E402
from sglang.srt.function_call.core_types import StreamingParseResult, StructureInfo, ToolCallItem  # noqa: E402
from sglang.srt.function_call.function_call_parser import FunctionCallParser  # noqa: E402

from .._profiles import DIALECTS  # noqa: E402
from ..errors import UsageError  # noqa: E402
from ..render import render_tool_call  # noqa: E402
from ..tags import CALL_CLOSE, CALL_OPEN  # noqa: E402
from . import _config as config  # noqa: E402
from ._models import builder  # noqa: E402
from ._scoring import ServerScorer  # noqa: E402
from ._session import NO_STEP, Bookkeeping, Policy, Result, Session, Step, complete, tool_objects  # noqa: E402

__all__ = [
    "HermesDetector",
    "register",
    "run_sglang_parser",
    "score_builtin",
    "score_plugin",
    "score_qwen25",
    "structure_of",
]

NAME = "hermes_toolcall"
# the per-delta results, built without pydantic's validation (integrations.models)
_RESULT = builder(StreamingParseResult)
_ITEM = builder(ToolCallItem)


def structure_of(name: str, dialect: str) -> StructureInfo:
    """The constrained-generation frame of a call to ``name``: the dialect's own rendering around ``arguments``.

    >>> structure_of("f", "hermes").begin
    '<tool_call>\\n{"name": "f", "arguments": '
    """
    text = render_tool_call({"name": name, "arguments": {}}, dialect=dialect)
    at = text.rindex("{}")
    return StructureInfo(begin=text[:at], end=text[at + 2 :], trigger=CALL_OPEN)


class HermesDetector(Bookkeeping, BaseFormatDetector):  # type: ignore[misc]
    """SGLang detector for the Hermes format (every dialect), one engine per request."""

    dialect: str | None = None  # None: HERMES_TOOLCALL_DIALECT

    def __init__(self) -> None:
        super().__init__()
        self.bot_token = CALL_OPEN
        self.eot_token = CALL_CLOSE
        self._session: Session | None = None
        self._last: tuple[str, Any, Result] | None = None

    def _dialect(self) -> str:
        return self.dialect or config.dialect()

    def _policy(self, tools: Any, *, eager: bool) -> Policy:
        return Policy(
            dialect=self._dialect(),
            tools=tool_objects(tools),
            undeclared=config.undeclared(),
            reasoning_as_content=True,
            eager=eager,
        )

    @classmethod
    def parses_without_tools(cls) -> bool:
        """Calls are read even when the request declares no tools (their text never leaks into content)."""
        return True

    def has_tool_call(self, text: str) -> bool:
        """Whether parsing changes the text: a call, or markup the stream would not show as content.

        SGLang's non-streaming path consults the detector only when this is true, so it must be
        true whenever the streamed content would differ from the raw text (a truncated call, a
        control token), or the two paths would disagree. The parse is kept for ``detect_and_parse``.
        """
        result = self._complete(text, None)  # SGLang passes no tools here: no name is checked
        return bool(result.calls) or result.content != text

    def _complete(self, text: str, tools: Any) -> Result:
        if self._last is None or self._last[0] != text or self._last[1] is not tools:
            self._last = (text, tools, complete(text, self._policy(tools, eager=False)))
        return self._last[2]

    def detect_and_parse(self, text: str, tools: Any) -> StreamingParseResult:
        """Non-streaming: the valid calls (``tool_index`` is the call's ordinal) and the content."""
        result = self._complete(text, tools)
        calls = [ToolCallItem(tool_index=c.index, name=c.name, parameters=c.arguments) for c in result.calls]
        return StreamingParseResult(normal_text=result.content or "", calls=calls)

    def parse_streaming_increment(self, new_text: str, tools: Any) -> StreamingParseResult:
        """Streaming: feed the new text (SGLang passes only the delta)."""
        session = self._session
        if session is None:
            session = self._session = Session(self._policy(tools, eager=config.eager()))
        elif session.closed:
            return StreamingParseResult()
        step = session.step(new_text)
        if step is NO_STEP:  # most deltas: nothing sent, no call ended (the bookkeeping is unchanged)
            return _RESULT({"normal_text": "", "calls": []})
        pieces = step[2]
        if len(pieces) == 1 and pieces[0][1] is None and not step[0]:
            # one more argument piece: when no call ended since the last booking (``Bookkeeping._current``,
            # inline) ``_book`` would write nothing; the result is ``_sent``'s
            calls, done = session.calls, self._booked
            if done >= len(calls) or calls[done].valid is None:
                piece = pieces[0]
                item = _ITEM({"tool_index": piece[0], "name": None, "parameters": piece[3]})
                result: StreamingParseResult = _RESULT({"normal_text": "", "calls": [item]})
                return result
        return self._sent(step)

    def finish(self, tools: Any) -> StreamingParseResult:
        """End of the stream: the held-back text; an unfinished call is not sent."""
        if self._session is None or self._session.closed:
            return StreamingParseResult()
        return self._sent(self._session.finish())

    def _sent(self, step: Step) -> StreamingParseResult:
        assert self._session is not None
        content, _, pieces = step
        self._book(self._session, pieces, final=self._session.closed)
        calls = [_ITEM({"tool_index": i, "name": n, "parameters": a}) for i, _, n, a in pieces]
        result: StreamingParseResult = _RESULT({"normal_text": content, "calls": calls})
        return result

    def structure_info(self) -> Any:
        """The frame of a call for SGLang's structural tags (``<tool_call>`` triggers it).

        Raises:
            UsageError: an XML-body dialect (its arguments are no JSON value between a begin and an
                end; SGLang takes the dialect's own tag instead, ``get_structural_tag``).
        """
        dialect = self._dialect()
        if DIALECTS[dialect].body_kind != "json":
            raise UsageError(f"dialect {dialect!r}: an XML call body has no JSON frame; use its structural tag")
        return lambda name: structure_of(name, dialect)

    def get_structural_tag(
        self,
        tools: Any = None,
        tool_choice: Any = "auto",
        thinking_mode: bool = False,
        parallel_tool_calls: bool = True,
        **_: Any,  # message_start (serving_chat): the tag covers the whole completion anyway
    ) -> Any:
        """An XML-body dialect's own structural tag (``grammar_export.xgrammar_structural_tag``; xgrammar's
        built-in ``qwen_3_coder`` rejects what the templates write, check_xgrammar.py); None for JSON bodies
        (SGLang then frames each call with ``structure_info``). ``thinking_mode`` is the export's ``reasoning``."""
        if DIALECTS[self._dialect()].body_kind != "xml":
            return None
        from xgrammar import StructuralTag

        from ..grammar_export import xgrammar_structural_tag

        function = getattr(tool_choice, "function", None)  # a ToolChoice naming one tool
        if function is not None:
            tool_choice = {"type": "function", "function": {"name": function.name}}
        try:
            tag = xgrammar_structural_tag(
                [t.model_dump(exclude_none=True) for t in tools or ()],
                dialect=self._dialect(),
                tool_choice=tool_choice or "auto",
                parallel_tool_calls=parallel_tool_calls,
                reasoning=thinking_mode,
            )
        except UsageError:  # no reasoning where the prompt always opens it (Step 3.5): the built-in tag
            return super().get_structural_tag(tools, tool_choice, thinking_mode, parallel_tool_calls)
        return StructuralTag.model_validate(tag)

    def get_structural_tag_name(self) -> str | None:
        """xgrammar's built-in tag of an XML-body dialect, ``qwen_3_coder`` (SGLang's own detector's): the
        fallback of ``get_structural_tag``; None for JSON bodies."""
        return "qwen_3_coder" if DIALECTS[self._dialect()].body_kind == "xml" else None


def register() -> None:
    """Add ``hermes_toolcall`` and ``hermes_toolcall_<dialect>`` to SGLang's parser table (idempotent).

    >>> register(); "hermes_toolcall" in FunctionCallParser.ToolCallParserEnum
    True
    """
    table = FunctionCallParser.ToolCallParserEnum
    table[NAME] = HermesDetector
    for dialect in DIALECTS:
        suffix = dialect.replace("-", "_").replace(".", "")
        table[f"{NAME}_{suffix}"] = type(
            f"HermesDetector_{suffix}", (HermesDetector,), {"dialect": dialect, "__module__": __name__}
        )


register()


# ---------------------------------------------------------------------------------------------- scoring


def run_sglang_parser(
    name: str, chunks: Any, names: Sequence[str] = ("f",), undeclared: str = "keep"
) -> tuple[str | None, list[tuple[str, str]]]:
    """Stream ``chunks`` through ``FunctionCallParser(tools, name)`` as SGLang's server does: (content, calls).

    The request declares ``names``; SGLang's own detectors drop calls to other names, the plugin
    follows ``undeclared`` (``keep`` for scoring).
    """
    from sglang.srt.entrypoints.openai.protocol import Tool

    tools = [Tool(type="function", function={"name": n, "parameters": {"type": "object"}}) for n in names]
    saved = os.environ.get("HERMES_TOOLCALL_UNDECLARED")
    os.environ["HERMES_TOOLCALL_UNDECLARED"] = undeclared
    try:
        parser = FunctionCallParser(tools, name)
        content: list[str] = []
        calls: dict[int, list[str]] = {}
        results = [parser.parse_stream_chunk(c) for c in chunks] + [parser.parse_stream_end()]
    finally:
        if saved is None:
            del os.environ["HERMES_TOOLCALL_UNDECLARED"]
        else:
            os.environ["HERMES_TOOLCALL_UNDECLARED"] = saved
    for text, items in results:
        content.append(text or "")
        for item in items:
            entry = calls.setdefault(item.tool_index, ["", ""])
            entry[0] += item.name or ""
            entry[1] += item.parameters or ""
    return "".join(content) or None, [(n, a) for n, a in calls.values()]


def _scorer(name: str) -> ServerScorer:
    def run(chunks: Sequence[str], tools: list[str]) -> tuple[str | None, str | None, list[tuple[str, str]]]:
        content, calls = run_sglang_parser(name, chunks, tools)
        return content, None, calls

    return ServerScorer(adapter_name=f"sglang {name}", run_parser=run)


#: Conformance adapters: SGLang's own ``hermes`` and ``qwen25`` detectors, and this plugin, streamed
#: through ``FunctionCallParser``
#: (``hermes-toolcall conformance --adapter hermes_toolcall.integrations.sglang:score_builtin``).
score_builtin = _scorer("hermes")
score_qwen25 = _scorer("qwen25")
score_plugin = _scorer(NAME)
