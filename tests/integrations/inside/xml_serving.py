"""The XML-body serving table: each case through the servers' own XML parsers and through the plugins.

    PYTHONPATH=src $VENVS/vllm-0.33.0/bin/python tests/integrations/inside/xml_serving.py --write
    PYTHONPATH=src $VENVS/sglang-0.5.23/bin/python tests/integrations/inside/xml_serving.py --write

Cases: the peers' public XML-body tests (tests/data/peers/xml_bodies.json) and the malformations of
issue 29 item 4 (``MALFORMED``), all in ``qwen3-coder`` with the case's tools declared (schema-typed
values). Each parser gets the completion the way its server feeds it: vLLM through
``ChatStreamProcessor.step()`` in 4-token deltas (the locally built tokenizer, decoded with
``DecodeStream``; the last delta carries the finish reason) and ``Parser.parse()`` for the whole text;
SGLang through ``FunctionCallParser.parse_stream_chunk`` / ``parse_stream_end`` on the same text deltas
and ``has_tool_call`` + ``parse_non_stream``. ``--write`` records this venv's columns in
tests/data/peers/xml_serving.json (``scripts/gen_docs.py`` renders the table in docs/integrations.md);
check_vllm.py and check_sglang.py recompute every recorded cell with the real classes.

A verdict is ``right`` (the calls, arguments compared as JSON, and the content as the case asserts),
``calls`` (other calls), ``content`` (right calls, other content) or ``error`` (the parser raised). The
expectation of a peer case is the peer's own assertion where the project agrees, else the project's
reading (``expect``, with the project's content); of a malformation, the project's reading
(``parse_completion`` with the tools), the content compared stripped; but for a pending case (``PENDING``) the
call the case asks for. Calls to names the request did not declare are kept (``HERMES_TOOLCALL_UNDECLARED=keep``,
as the peers' tests expect them; SGLang's own detectors drop them).
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[3]
PEERS = ROOT / "tests" / "data" / "peers" / "xml_bodies.json"
TABLE = ROOT / "tests" / "data" / "peers" / "xml_serving.json"
DIALECT = "qwen3-coder"
TOKENS_PER_DELTA = 4
_EXPANSIONS = {"@SPACES@": " " * 100_000}

#: the parsers of each venv: (column, server, registered name)
VLLM_PARSERS = (
    ("vllm:qwen3_coder", "vllm", "qwen3_coder"),
    ("vllm:qwen3_xml", "vllm", "qwen3_xml"),
    ("vllm:hermes_toolcall_qwen3_coder", "vllm", "hermes_toolcall_qwen3_coder"),
)
SGLANG_PARSERS = (
    ("sglang:qwen3_coder", "sglang", "qwen3_coder"),
    ("sglang:hermes_toolcall_qwen3_coder", "sglang", "hermes_toolcall_qwen3_coder"),
)
PLUGINS = frozenset(c for c, _, n in VLLM_PARSERS + SGLANG_PARSERS if n.startswith("hermes_toolcall"))

#: cases whose right reading the plugins do not give yet (the table marks them pending); empty since main reads
#: bare ``<function=…>`` calls (HT234, e5a1810) and complete calls ending unclosed reasoning (HT242, 544489b)
PENDING: frozenset[str] = frozenset()

_BOOK = {"type": "function", "function": {"name": "book", "parameters": {"type": "object", "properties": {
    "room": {"type": "string"}, "hours": {"type": "integer"}}}}}
_RUN = {"type": "function", "function": {"name": "run", "parameters": {"type": "object", "properties": {
    "code": {"type": "string"}, "timeout": {"type": ["integer", "null"]}, "opts": {"type": "object"}}}}}
_TOOLS = [_BOOK, _RUN]


def _call(name: str, *params: tuple[str, str], close_function: bool = True, close_call: bool = True) -> str:
    body = "".join(f"<parameter={k}>\n{v}\n</parameter>\n" for k, v in params)
    text = f"<tool_call>\n<function={name}>\n{body}"
    return text + ("</function>\n" if close_function else "") + ("</tool_call>" if close_call else "")


#: issue 29 item 4: (id, completion); the right reading is the project's (docs/diagnostics.md names each code)
MALFORMED: tuple[tuple[str, str], ...] = (
    ("malformed/parameter-unclosed (HT230)",
     "<tool_call>\n<function=book>\n<parameter=room>\nB12\n<parameter=hours>\n2\n</parameter>\n</function>\n"
     "</tool_call>"),
    ("malformed/closer-drifted </parameter2> (HT231)",
     "<tool_call>\n<function=book>\n<parameter=room>\nB12\n</parameter2>\n</function>\n</tool_call>"),
    ("malformed/function-name-without-> (HT232)",
     "<tool_call>\n<function=book\n<parameter=room>\nB12\n</parameter>\n</function>\n</tool_call>"),
    ("malformed/parameter-key-without-> (HT232)",
     "<tool_call>\n<function=book>\n<parameter=room\nB12\n</parameter>\n<parameter=hours>\n2\n</parameter>\n"
     "</function>\n</tool_call>"),
    ("malformed/function-unclosed (HT233)", _call("book", ("room", "B12"), close_function=False)),
    ("malformed/bare-function", "<function=book>\n<parameter=room>\nB12\n</parameter>\n</function>"),
    ("malformed/prose-mentions-<function=", "Write <function=NAME> then <parameter=KEY> lines; that is all."),
    ("malformed/literal-</parameter>-in-code (HT243)",
     _call("run", ("code", 'print("</parameter>")\nx = 1'), ("timeout", "5"))),
    ("malformed/literal-</function>-in-code (HT243)",
     _call("run", ("code", 's = "</function>"\nprint(s)'))),
    ("malformed/closer-repeated (HT235)",
     "<tool_call>\n<function=book>\n<parameter=room>\nB12\n</parameter>\n</parameter>\n</function>\n</tool_call>"),
    ("malformed/&-<->-verbatim", _call("run", ("code", "if a < b && c > d:\n    x = '&amp;'"))),
    ("malformed/cut-off-call", _call("book", ("room", "B12"), close_function=False, close_call=False)),
    ("malformed/second-call-cut-off",
     _call("book", ("room", "B12")) + "\n<tool_call>\n<function=run>\n<parameter=code>\nprint(1)"),
    ("malformed/several-functions-in-one-block (HT237)",
     "<tool_call>\n<function=book>\n<parameter=room>\nA1\n</parameter>\n</function>\n<function=book>\n"
     "<parameter=room>\nB2\n</parameter>\n</function>\n</tool_call>"),
    ("malformed/stray-text-in-function (HT236)",
     "<tool_call>\n<function=book>\nLet me think.\n<parameter=room>\nB12\n</parameter>\n</function>\n</tool_call>"),
    ("malformed/python-literals (HT240)",
     _call("run", ("code", "pass"), ("timeout", "None"), ("opts", "{'recursive': True, 'depth': 2}"))),
    ("malformed/untyped-value (HT239)", _call("book", ("room", "B12"), ("hours", "two"))),
    ("malformed/two-calls-one-delta",
     _call("book", ("room", "A1")) + "\n" + _call("book", ("room", "B2"))),
    ("malformed/call-in-unclosed-reasoning",
     "<think>\nI will book it.\n" + _call("book", ("room", "B12"))),
)


@dataclass(frozen=True)
class Case:
    id: str
    text: str
    tools: list[dict[str, Any]]
    calls: list[dict[str, Any]] | None  # expected calls (name, arguments as JSON values); None: not checked
    names_only: bool
    content: Any  # expected content (see check)
    check: str  # exact | strip | contains | contains-all | startswith | normal (stripped when calls, None == "") | any


def _expand(value: Any) -> Any:
    if isinstance(value, str):
        for key, text in _EXPANSIONS.items():
            value = value.replace(key, text)
        return value
    if isinstance(value, list):
        return [_expand(v) for v in value]
    if isinstance(value, dict):
        return {k: _expand(v) for k, v in value.items()}
    return value


def _reading(text: str, tools: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], str | None]:
    """The project's reading as a tool parser reports it (common.oracle without a reasoning parser): the valid
    calls, and the content: the text with reasoning blocks verbatim, blocks that gave no call left out."""
    from hermes_toolcall import parse_completion
    from hermes_toolcall._model import Reasoning, Text, ToolCall

    completion = parse_completion(text, dialect=DIALECT, tools=tools or None)
    content = "".join(
        p.text if isinstance(p, Text) else p.span.text(text) if isinstance(p, Reasoning) and p.opened else ""
        for p in completion.parts
    )
    calls = [{"name": p.name, "arguments": p.arguments} for p in completion.parts if isinstance(p, ToolCall)]
    return calls, content or None


def cases() -> list[Case]:
    """The peers' cases, then the malformations."""
    out = []
    for raw in json.loads(PEERS.read_text(encoding="utf-8"))["cases"]:
        case = _expand(raw)
        peer, tools = case["peer"], case["tools"] or []
        ours_calls, ours_content = _reading(case["input"], tools)
        if case["ours"] == "agree":
            calls = peer["calls"] if peer["calls"] is not None else ours_calls
            checked = peer["content"] is not None or peer["content_check"] == "exact"
            out.append(Case(case["id"], case["input"], tools, calls, peer["arguments_check"] == "name-only",
                            peer["content"] if checked else ours_content,
                            peer["content_check"] if checked else "normal"))
        else:
            out.append(Case(case["id"], case["input"], tools, case["expect"]["calls"], False, ours_content, "normal"))
    for case_id, text in MALFORMED:
        calls, content = _reading(text, _TOOLS)
        check = "normal"
        if case_id in PENDING:  # the reading asked for, not today's: the call, content unchecked
            calls, check = [{"name": "book", "arguments": {"room": "B12"}}], "any"
        out.append(Case(case_id, text, _TOOLS, calls, False, content, check))
    return out


def _normal(content: str | None, has_calls: bool) -> str | None:
    content = content or None
    if has_calls and content is not None:
        content = content.strip(" \t\n\r") or None
    return content


def _content_ok(got: str | None, case: Case, has_calls: bool) -> bool:
    text, want = got or "", case.content
    if case.check == "any":
        return True
    if case.check == "normal":
        return _normal(got, has_calls) == _normal(want, has_calls)
    if case.check == "exact":
        return text == (want or "")
    if case.check == "strip":
        return text.strip() == (want or "").strip()
    if case.check == "contains":
        return str(want) in text
    if case.check == "contains-all":
        return all(w in text for w in want)
    assert case.check == "startswith", case.check
    return text.startswith(str(want))


def verdict(case: Case, content: str | None, calls: list[tuple[str, str]]) -> str:
    """``right``, ``calls`` or ``content`` for what a parser gave (arguments compared as JSON values)."""
    if case.calls is not None:
        if case.names_only:
            if [n for n, _ in calls] != [c["name"] for c in case.calls]:
                return "calls"
        else:
            try:
                got = [{"name": n, "arguments": json.loads(a) if a else {}} for n, a in calls]
            except ValueError:
                return "calls"
            if got != case.calls:
                return "calls"
    return "right" if _content_ok(content, case, bool(calls)) else "content"


Got = tuple[str | None, list[tuple[str, str]]]


def plugin_reads_as_the_engine(case: Case, got: Got) -> bool:
    """Whether a plugin's (content, calls) is the engine's reading of the case (``parse_completion``, the calls
    and the content as a tool parser reports them; arguments compared as text, exactly)."""
    calls, content = _reading(case.text, case.tools)
    expected = [(c["name"], c["arguments"]) for c in calls]
    try:
        parsed = [(n, json.loads(a)) for n, a in got[1]]
    except ValueError:
        return False
    return parsed == expected and _normal(got[0], bool(calls)) == _normal(content, bool(calls))


# ---------------------------------------------------------------------------------------------- the servers

_TOKENIZER: list[Any] = []


def tokenizer() -> Any:
    """The locally built tokenizer (``integrations._tokenizer``), as a ``transformers`` fast tokenizer."""
    if not _TOKENIZER:
        import tempfile

        from transformers import AutoTokenizer

        from hermes_toolcall.integrations._tokenizer import build

        _TOKENIZER.append(AutoTokenizer.from_pretrained(build(tempfile.mkdtemp(prefix="hermes-toolcall-tok-"))))
    return _TOKENIZER[0]


def token_deltas(text: str, per: int = TOKENS_PER_DELTA) -> list[tuple[str, list[int]]]:
    """``text`` as a server streams it: its tokens decoded one by one (``DecodeStream``), ``per`` to a delta."""
    from tokenizers.decoders import DecodeStream

    tok = tokenizer()
    ids = tok.encode(text, add_special_tokens=False)
    decoder = DecodeStream(skip_special_tokens=False)
    pieces = [(decoder.step(tok._tokenizer, i) or "", i) for i in ids]
    groups = [pieces[n : n + per] for n in range(0, len(pieces), per)] or [[]]
    return [("".join(p for p, _ in g), [i for _, i in g]) for g in groups]


def _accumulate(calls: dict[int, list[str]], index: int, name: str | None, arguments: str | None) -> None:
    entry = calls.setdefault(index, ["", ""])
    entry[0] += name or ""
    entry[1] += arguments or ""


def vllm_stream(name: str, case: Case, deltas: list[tuple[str, list[int]]] | None = None) -> Got:
    """``case`` streamed through vLLM's ``ChatStreamProcessor`` with tool parser ``name``."""
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest
    from vllm.entrypoints.openai.chat_completion.stream_processor import ChatStreamProcessor
    from vllm.parser import ParserManager

    import hermes_toolcall.integrations.vllm  # noqa: F401  (registers the plugin's names)

    tok = tokenizer()
    cls = ParserManager.get_parser(tool_parser_name=name, enable_auto_tools=True)
    request = ChatCompletionRequest(model="m", messages=[{"role": "user", "content": "hi"}], tools=case.tools or None,
                                    stream=True)
    parser = cls(tok, request.tools)
    request = parser.adjust_request(request)
    processor = ChatStreamProcessor(request, parser, enable_auto_tools=True, parser_cls=cls)
    prompt = tok.encode("<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n", add_special_tokens=False)
    deltas = token_deltas(case.text) if deltas is None else deltas
    content: list[str] = []
    calls: dict[int, list[str]] = {}
    for n, (text, ids) in enumerate(deltas):
        delta = processor.step(text, ids, "stop" if n == len(deltas) - 1 else None, prompt).delta
        if delta is None:
            continue
        content.append(delta.content or "")
        for tc in delta.tool_calls:
            if tc.function is not None:
                _accumulate(calls, tc.index, tc.function.name, tc.function.arguments)
    return "".join(content) or None, [(n, a) for n, a in calls.values()]


def vllm_whole(name: str, case: Case) -> Got:
    """``case`` through vLLM's non-streaming ``Parser.parse()`` with tool parser ``name``."""
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest
    from vllm.parser import ParserManager

    import hermes_toolcall.integrations.vllm  # noqa: F401

    tok = tokenizer()
    cls = ParserManager.get_parser(tool_parser_name=name, enable_auto_tools=True)
    request = ChatCompletionRequest(model="m", messages=[{"role": "user", "content": "hi"}], tools=case.tools or None)
    parser = cls(tok, request.tools)
    parser.set_prompt_token_ids(tok.encode("<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n",
                                           add_special_tokens=False))
    _, content, calls = parser.parse(case.text, request, enable_auto_tools=True)
    return content, [(c.name, c.arguments) for c in calls or ()]


def _sglang_parser(name: str, case: Case) -> Any:
    from sglang.srt.entrypoints.openai.protocol import Tool
    from sglang.srt.function_call.function_call_parser import FunctionCallParser

    import hermes_toolcall.integrations.sglang  # noqa: F401  (registers the plugin's names)

    return FunctionCallParser([Tool(**t) for t in case.tools], name)


def sglang_stream(name: str, case: Case, deltas: list[str] | None = None) -> Got:
    """``case`` through SGLang's ``FunctionCallParser`` streaming calls, the last delta flushed."""
    parser = _sglang_parser(name, case)
    pieces = [t for t, _ in token_deltas(case.text)] if deltas is None else deltas
    content: list[str] = []
    calls: dict[int, list[str]] = {}
    results = [parser.parse_stream_chunk(p) for p in pieces] + [parser.parse_stream_end()]
    for text, items in results:
        content.append(text or "")
        for item in items:
            _accumulate(calls, item.tool_index, item.name, item.parameters)
    return "".join(content) or None, [(n, a) for n, a in calls.values()]


def sglang_whole(name: str, case: Case) -> Got:
    """``case`` through SGLang's non-streaming path (``has_tool_call`` then ``parse_non_stream``)."""
    parser = _sglang_parser(name, case)
    if not parser.has_tool_call(case.text):
        return case.text, []
    text, calls = parser.parse_non_stream(case.text)
    return text, [(c.name, c.parameters) for c in calls]


def run(column: str, case: Case) -> dict[str, str]:
    """The column's cell for ``case``: the stream's and the whole text's verdicts."""
    server, name = column.split(":")
    stream, whole = (vllm_stream, vllm_whole) if server == "vllm" else (sglang_stream, sglang_whole)
    cell = {}
    for mode, fn in (("stream", stream), ("whole", whole)):
        try:
            content, calls = fn(name, case)
        except Exception as exc:  # a peer's crash is a finding, recorded
            cell[mode] = f"error: {type(exc).__name__}"
            continue
        cell[mode] = verdict(case, content, calls)
    return cell


def columns() -> tuple[tuple[str, str, str], ...]:
    """The parsers of this venv."""
    try:
        import vllm  # noqa: F401

        return VLLM_PARSERS
    except ImportError:
        return SGLANG_PARSERS


def main() -> None:
    os.environ["HERMES_TOOLCALL_EAGER"] = ""  # the plugins' default: calls sent whole
    os.environ["HERMES_TOOLCALL_UNDECLARED"] = "keep"  # the peers' tests expect calls to undeclared names
    table = json.loads(TABLE.read_text(encoding="utf-8")) if TABLE.exists() else {}
    table.setdefault("about", "Written by tests/integrations/inside/xml_serving.py --write; checked by "
                     "check_vllm.py / check_sglang.py; rendered by scripts/gen_docs.py into docs/integrations.md.")
    table.setdefault("versions", {})
    table.setdefault("cases", {})
    mine = columns()
    if mine is VLLM_PARSERS:
        import vllm

        table["versions"]["vllm"] = vllm.__version__
    else:
        import sglang

        table["versions"]["sglang"] = sglang.__version__
    rows = {}
    for case in cases():  # rows of cases no longer listed go
        row = rows[case.id] = table["cases"].get(case.id, {})
        for column, _, _ in mine:
            row[column] = run(column, case)
            print(case.id, column, row[column], file=sys.stderr, flush=True)
    table["cases"] = rows
    table["pending"] = sorted(PENDING)
    if "--write" in sys.argv:
        TABLE.write_text(json.dumps(table, indent=1, ensure_ascii=False, sort_keys=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
