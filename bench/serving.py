"""Serving benchmark: the same outputs through each server's own parser and through hermes-toolcall's adapter.

    $VENVS/vllm-0.33.0/bin/python bench/serving.py      # vLLM section (hermes, plugin), engine rows
    $VENVS/sglang-0.5.23/bin/python bench/serving.py    # SGLang section (hermes, qwen25, plugin)
    ... bench/serving.py --quick                         # 1 KB / 10 KB only
    ... bench/serving.py --budget 600                    # let slow parsers run longer before projecting
    ... bench/serving.py --only engine --only plugin     # only the rows (and --before pairs) whose label holds one
    ... bench/serving.py --pairs 9                       # then the goals' ratios from 9 alternated run pairs

(``VENVS`` is ``$HERMES_TOOLCALL_VENV_CACHE``, built by ``.ci/heavy-venvs.sh``; this checkout's ``src/``
is put first on ``sys.path``.) Every parser is driven the way its server's streaming loop drives it,
in one process, on the same 4-character deltas: vLLM through ``ChatStreamProcessor.step()`` (the
last delta carries the finish reason), SGLang through ``FunctionCallParser.parse_stream_chunk`` and
``parse_stream_end``. Workloads: one call whose arguments are 1 KB / 10 KB / 100 KB of
structure-dense JSON, and a 1 MB completion of many calls (µs per delta). The plugin rows stream
argument deltas (``HERMES_TOOLCALL_EAGER=1``, like for like: both servers' parsers stream
arguments); ``whole`` rows send each call when its block closes (the plugins' default). Every figure
is CPU time (``time.process_time``: this process's user + system time, so that other processes on a
shared machine do not count; ``--clock perf`` for wall time). A parser
whose projected time at the next size exceeds ``--budget`` seconds (from its growth so far) is not
run there; the table shows the projection instead. Each cell is the time spent inside the parser's
own methods (the figure the goals are about; it includes the clock's own cost per call, printed at
start), the same net of that cost (``net``: the calibrated clock cost times the clocked calls taken off),
then the whole loop's time including the server's own per-delta work (``loop``), best of ``--repeat``
runs. In vLLM's process the startup heap is frozen first, as ``vllm serve`` does once it has started
(``vllm.utils.gc_utils.freeze_gc_heap`` in its lifespan hook; ``--no-freeze`` leaves it to the collector).
vLLM's ``hf`` row is its unified response-template parser (``--tool-call-parser hf``) on transformers'
own Qwen3 response template (``qwen3_response_template``); its inside figure is its whole ``parse_delta``
(it has no separate tool parser), and it sends each call when its block closes, so the like-for-like
plugin row for it is ``whole calls``.

XML bodies (issue 29 item 8; rows labelled ``XML:``, ``--only XML``): one Qwen3-Coder call of 1 KB / 10 KB /
100 KB (``xml_call``: a path, an integer, code in a string value, a JSON array, typed by ``XML_TOOLS``) in
4-token deltas of the locally built tokenizer (``token_deltas``: its token ids go with the text, as vLLM's
engine-based ``qwen3_coder`` reads its tags by id), through vLLM's ``qwen3_coder`` (0.33: the same class as
``qwen3_xml``) or SGLang's ``qwen3_coder`` detector and the plugin's ``hermes_toolcall_qwen3_coder``, with
argument deltas (like for like: both peers stream arguments) and with whole calls; ``--pairs N`` adds the
alternated ratios at 10 KB and 100 KB (the goal: the plugin at least 10x faster than vLLM's ``qwen3_coder``);
``--before REV`` adds the engine alone on the XML call (``qwen3-coder``, ``XML_TOOLS``), this tree's against REV's
(no server needed; ``--only`` chooses among these pairs as among the rows).
"""

from __future__ import annotations

import argparse
import gc
import math
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

if sys.path and sys.path[0] == str(Path(__file__).resolve().parent):  # run as a script: bench/xml.py would
    sys.path.append(sys.path.pop(0))  # shadow the standard ``xml`` (transformers imports it); bench/ comes last
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from hermes_toolcall import _jsonio as jsonio
from hermes_toolcall._openai_chunks import OpenAIChunker
from hermes_toolcall.statemachine import StreamParser

DELTA = 4
SIZES = (1_000, 10_000, 100_000)
XML_PLUGIN = "hermes_toolcall_qwen3_coder"
TOOLS = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]


def arguments(size: int) -> str:
    """Structure-dense JSON arguments of about ``size`` characters."""
    items = []
    total = 12
    k = 0
    while total < size:
        item = {"k": k, "v": "lorem ipsum dolor sit amet"}
        items.append(item)
        total += len(jsonio.dumps_spaced(item)) + 2
        k += 1
    return jsonio.dumps_spaced({"items": items})


def one_call(size: int) -> str:
    return '<tool_call>\n{"name": "f", "arguments": ' + arguments(size) + "}\n</tool_call>"


def many_calls(size: int) -> str:
    parts = []
    total = 0
    n = 0
    while total < size:
        body = jsonio.dumps_spaced({"name": "f", "arguments": {"n": n, "q": "lorem ipsum dolor sit amet, consectetur"}})
        call = f"<tool_call>\n{body}\n</tool_call>\n"
        parts.append(call)
        total += len(call)
        n += 1
    return "".join(parts)


def deltas(text: str) -> list[str]:
    return [text[i : i + DELTA] for i in range(0, len(text), DELTA)]


# ---------------------------------------------------------------------------------------------- XML bodies

#: the XML rows' tool: a file write, its values typed by the schema (issue 29 item 8)
XML_TOOLS = [{"type": "function", "function": {"name": "write_file", "parameters": {"type": "object", "properties": {
    "path": {"type": "string"}, "content": {"type": "string"}, "mode": {"type": "integer"},
    "rows": {"type": "array"}}}}}]
_CODE_LINE = '    if x_{n} < limit and "<b>" in s:  # & check {n}\n        total += f(x_{n}, None)\n'


def xml_call(size: int) -> str:
    """One Qwen3-Coder call of about ``size`` characters: a path, a mode, 90 % code in a string value
    (with ``<``, ``&`` and quotes), 10 % a JSON array typed by the schema."""
    code: list[str] = []
    total = n = 0
    while total < size * 0.9:
        line = _CODE_LINE.format(n=n)
        code.append(line)
        total += len(line)
        n += 1
    rows = jsonio.dumps_spaced([{"k": k, "v": "lorem"} for k in range(max(1, size // 200))])
    params = (("path", "src/app.py"), ("mode", "420"), ("content", "".join(code)), ("rows", rows))
    body = "".join(f"<parameter={k}>\n{v}\n</parameter>\n" for k, v in params)
    return f"<tool_call>\n<function=write_file>\n{body}</function>\n</tool_call>"


def token_deltas(text: str, per: int = DELTA) -> list[tuple[str, list[int]]]:
    """``text`` as a server streams it: the locally built tokenizer's tokens (``integrations._tokenizer``),
    decoded one by one as vLLM's detokenizer does (``DecodeStream``), ``per`` tokens to a delta."""
    import tempfile

    from tokenizers.decoders import DecodeStream
    from transformers import AutoTokenizer

    from hermes_toolcall.integrations._tokenizer import build

    tok = AutoTokenizer.from_pretrained(build(tempfile.mkdtemp(prefix="hermes-toolcall-tok-")))
    ids = tok.encode(text, add_special_tokens=False)
    decoder = DecodeStream(skip_special_tokens=False)
    pieces = [(decoder.step(tok._tokenizer, i) or "", i) for i in ids]
    return [("".join(p for p, _ in pieces[n : n + per]), [i for _, i in pieces[n : n + per]])
            for n in range(0, len(pieces), per)]


Runner = Callable[[list[str]], int]  # feeds the deltas, returns the number of calls the client got
Row = TypeVar("Row", bound=tuple[Any, ...])  # a table row (label, runner) or a pair (label, baseline, parser)

#: the clock of every figure: CPU time of this process (``--clock perf``: wall time)
CLOCK: list[Callable[[], float]] = [time.process_time]
#: seconds spent inside the parser's own methods during the last run (the server's loop excluded),
#: and the number of clocked calls
INSIDE = [0.0]
CALLS = [0]
#: the clock's own cost per clocked call (two reads of ``CLOCK`` and the wrapper), measured on a no-op
#: method at start and printed, not taken off: on a loaded machine the measure moves as much as a fast
#: parser's call, so the inside figures keep it (it weighs on the fast rows, hermes-toolcall's, only)
OVERHEAD = [0.0]


def clocked(obj: object, *names: str) -> None:
    """Wrap the named methods of ``obj`` so that their time adds up in ``INSIDE``."""
    for name in names:
        method = getattr(obj, name, None)
        if method is None:
            continue

        def wrapper(
            *args: object, _method: Callable[..., object] = method, _clock: Callable[[], float] = CLOCK[0],
            **kwargs: object,
        ) -> object:
            start = _clock()
            try:
                return _method(*args, **kwargs)
            finally:
                INSIDE[0] += _clock() - start
                CALLS[0] += 1

        setattr(obj, name, wrapper)


def calibrate() -> None:
    """Measure ``OVERHEAD``: the smallest mean time ``clocked`` adds up around a method that does nothing."""

    class Nothing:
        def call(self, *args: object) -> None:
            return None

    probe = Nothing()
    clocked(probe, "call")
    best = math.inf
    for _ in range(5):
        INSIDE[0], CALLS[0] = 0.0, 0
        for _ in range(20_000):
            probe.call("abcd", None)
        best = min(best, INSIDE[0] / CALLS[0])
    OVERHEAD[0] = best


# ---------------------------------------------------------------------------------------------- engine


def engine(stream_arguments: bool, parser_class: Any = None, chunker_class: Any = None, xml: bool = False) -> Runner:
    """The engine alone: ``StreamParser`` + ``OpenAIChunker`` (or another revision's, ``--before``);
    ``xml``: on the XML rows' deltas of ``(text, token ids)``, ``qwen3-coder`` with ``XML_TOOLS``."""
    base = parser_class or StreamParser
    clockable = type("Clockable", (base,), {})  # an instance dict, so that ``clocked`` can wrap its methods
    chunker_cls = chunker_class or OpenAIChunker
    options: dict[str, Any] = {"dialect": "qwen3-coder", "tools": XML_TOOLS} if xml else {}

    def run(pieces: list[Any]) -> int:
        parser, chunker = clockable(stream_arguments=stream_arguments, **options), chunker_cls()
        clocked(parser, "feed", "close")
        for piece in pieces:
            chunker.feed(parser.feed(piece[0] if xml else piece))
        chunker.feed(parser.close())
        chunker.finish()
        return len(parser.result().tool_calls)  # type: ignore[union-attr]

    return run


# ---------------------------------------------------------------------------------------------- vLLM


def vllm_runner(name: str, eager: bool) -> Runner:
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest
    from vllm.entrypoints.openai.chat_completion.stream_processor import ChatStreamProcessor

    import hermes_toolcall.integrations.vllm as plugin

    cls, tokenizer = plugin._builtin_parser(name)
    prompt = tokenizer.encode("<|im_start|>assistant\n")

    def run(pieces: list[str]) -> int:
        os.environ["HERMES_TOOLCALL_EAGER"] = "1" if eager else ""
        messages = [{"role": "user", "content": "hi"}]
        request = ChatCompletionRequest(model="m", messages=messages, tools=TOOLS, stream=True)
        parser = cls(tokenizer, request.tools)
        request = parser.adjust_request(request)
        clocked(parser.tool_parser, "extract_tool_calls_streaming", "finish_streaming", "get_remaining_unstreamed_args")
        processor = ChatStreamProcessor(request, parser, enable_auto_tools=True, parser_cls=cls)
        ids: set[int] = set()
        last = len(pieces) - 1
        for n, piece in enumerate(pieces):
            step = processor.step(piece, [0], "stop" if n == last else None, prompt)
            if step.delta is not None:
                ids.update(tc.index for tc in step.delta.tool_calls)
        return len(ids)

    return run


def vllm_xml_runner(name: str, eager: bool) -> Runner:
    """vLLM's tool parser ``name`` on XML-body deltas of ``(text, token ids)``, the request declaring ``XML_TOOLS``."""
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest
    from vllm.entrypoints.openai.chat_completion.stream_processor import ChatStreamProcessor
    from vllm.parser import ParserManager

    import hermes_toolcall.integrations.vllm as plugin

    _, tokenizer = plugin._builtin_parser("hermes")  # the local tokenizer, as vLLM loads it
    cls = ParserManager.get_parser(tool_parser_name=name, enable_auto_tools=True)
    prompt = tokenizer.encode("<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n")

    def run(pieces: list[Any]) -> int:
        os.environ["HERMES_TOOLCALL_EAGER"] = "1" if eager else ""
        messages = [{"role": "user", "content": "hi"}]
        request = ChatCompletionRequest(model="m", messages=messages, tools=XML_TOOLS, stream=True)
        parser = cls(tokenizer, request.tools)
        request = parser.adjust_request(request)
        clocked(parser.tool_parser, "extract_tool_calls_streaming", "finish_streaming", "get_remaining_unstreamed_args")
        processor = ChatStreamProcessor(request, parser, enable_auto_tools=True, parser_cls=cls)
        ids: set[int] = set()
        last = len(pieces) - 1
        for n, (text, token_ids) in enumerate(pieces):
            step = processor.step(text, token_ids, "stop" if n == last else None, prompt)
            if step.delta is not None:
                ids.update(tc.index for tc in step.delta.tool_calls)
        return len(ids)

    return run


def qwen3_response_template() -> dict[str, object]:
    """transformers' own response template for the Qwen3 family, for vLLM's unified ``hf`` parser.

    transformers (5.20, in vLLM 0.33's venv) ships it as the fallback its server uses for tokenizers
    without ``response_template`` metadata (``transformers.cli.serving.utils._RESPONSE_TEMPLATE_FALLBACKS``,
    keyed by ``model_type``; ``qwen3`` among them); it is taken from there, not copied.
    """
    from transformers.cli.serving import utils

    for model_types, template in utils._RESPONSE_TEMPLATE_FALLBACKS.items():
        if "qwen3" in model_types:
            return dict(template)
    raise LookupError("transformers ships no Qwen3 response template")


def vllm_hf_runner() -> Runner:
    """vLLM's unified ``hf`` response-template parser (``--tool-call-parser hf``) on transformers' Qwen3 template."""
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest
    from vllm.entrypoints.openai.chat_completion.stream_processor import ChatStreamProcessor
    from vllm.parser import ParserManager

    import hermes_toolcall.integrations.vllm as plugin

    _, tokenizer = plugin._builtin_parser("hermes")
    tokenizer.response_template = qwen3_response_template()  # as a checkpoint's tokenizer_config.json would set it
    cls = ParserManager.get_parser(tool_parser_name="hf", enable_auto_tools=True, tokenizer=tokenizer)
    prompt = tokenizer.encode("<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n")

    def run(pieces: list[str]) -> int:
        messages = [{"role": "user", "content": "hi"}]
        request = ChatCompletionRequest(model="m", messages=messages, tools=TOOLS, stream=True)
        parser = cls(tokenizer, request.tools)
        request = parser.adjust_request(request)
        clocked(parser, "parse_delta", "set_prompt_token_ids")
        processor = ChatStreamProcessor(request, parser, enable_auto_tools=True, parser_cls=cls)
        ids: set[int] = set()
        last = len(pieces) - 1
        for n, piece in enumerate(pieces):
            step = processor.step(piece, [0], "stop" if n == last else None, prompt)
            if step.delta is not None:
                ids.update(tc.index for tc in step.delta.tool_calls)
        return len(ids)

    return run


# ---------------------------------------------------------------------------------------------- SGLang


def sglang_runner(name: str, eager: bool) -> Runner:
    from sglang.srt.entrypoints.openai.protocol import Tool
    from sglang.srt.function_call.function_call_parser import FunctionCallParser

    import hermes_toolcall.integrations.sglang  # noqa: F401  (registers hermes_toolcall)

    tools = [Tool(type="function", function=TOOLS[0]["function"])]

    def run(pieces: list[str]) -> int:
        os.environ["HERMES_TOOLCALL_EAGER"] = "1" if eager else ""
        parser = FunctionCallParser(tools, name)
        clocked(parser.detector, "parse_streaming_increment", "finish")
        ids: set[int] = set()
        for piece in pieces:
            ids.update(c.tool_index for c in parser.parse_stream_chunk(piece)[1])
        ids.update(c.tool_index for c in parser.parse_stream_end()[1])
        return len(ids)

    return run


def sglang_xml_runner(name: str, eager: bool) -> Runner:
    """SGLang's detector ``name`` on the text of XML-body deltas, the request declaring ``XML_TOOLS``."""
    from sglang.srt.entrypoints.openai.protocol import Tool
    from sglang.srt.function_call.function_call_parser import FunctionCallParser

    import hermes_toolcall.integrations.sglang  # noqa: F401  (registers hermes_toolcall_qwen3_coder)

    tools = [Tool(type="function", function=XML_TOOLS[0]["function"])]

    def run(pieces: list[Any]) -> int:
        os.environ["HERMES_TOOLCALL_EAGER"] = "1" if eager else ""
        parser = FunctionCallParser(tools, name)
        clocked(parser.detector, "parse_streaming_increment", "finish")
        ids: set[int] = set()
        for text, _ in pieces:
            ids.update(c.tool_index for c in parser.parse_stream_chunk(text)[1])
        ids.update(c.tool_index for c in parser.parse_stream_end()[1])
        return len(ids)

    return run


# ---------------------------------------------------------------------------------------------- driver


def timed(run: Runner, pieces: list[str], repeat: int) -> tuple[float, float, int, float]:
    """Best of ``repeat``: (total seconds through the server's loop, seconds inside the parser, calls,
    the inside seconds net of the clock's own cost: ``OVERHEAD`` per clocked call taken off)."""
    best = (math.inf, math.inf, math.inf)
    calls = 0
    for _ in range(repeat):
        gc.collect()
        INSIDE[0], CALLS[0] = 0.0, 0
        start = CLOCK[0]()
        calls = run(pieces)
        elapsed = CLOCK[0]() - start
        best = min(best, (INSIDE[0], elapsed, INSIDE[0] - OVERHEAD[0] * CALLS[0]))
    return best[1], best[0], calls, best[2]


def paired(
    label: str, pairs: list[tuple[str, Runner, Runner]], inputs: list[tuple[str, list[str]]], repeat: int
) -> None:
    """The goals' ratios on a noisy machine: runs of the two parsers alternated, one pair after the other,
    so both see the same conditions; per input the best of each (inside time) and the median of the
    per-pair ratios, with and without the clock's cost. Nothing is printed without pairs."""
    if not pairs:
        return
    print(f"\n{label} (alternated runs, {repeat} pairs per input)\n")
    print("| input | baseline | parser | ratio, best of each | ratio, median of pairs | median net of the clock |")
    print("|---|---|---|---|---|---|")
    for name, base, run in pairs:
        for size, pieces in inputs:
            if "`hermes`" in name and not size.startswith("100 KB"):
                continue  # quadratic: ≈ 20 minutes a run at 1 MB
            got: list[tuple[float, float, float, float]] = []
            for _ in range(repeat):
                _, b, _, b_net = timed(base, pieces, 1)
                _, r, _, r_net = timed(run, pieces, 1)
                got.append((b, r, b_net, r_net))
            best_b, best_r = min(g[0] for g in got), min(g[1] for g in got)
            ratios = sorted(g[0] / g[1] for g in got)
            nets = sorted(g[2] / g[3] for g in got)
            print(
                f"| {size}: {name} | {fmt(best_b)} | {fmt(best_r)} | {best_b / best_r:.1f}x "
                f"| {ratios[len(ratios) // 2]:.1f}x | {nets[len(nets) // 2]:.1f}x |",
                flush=True,
            )


def fmt(seconds: float) -> str:
    if seconds >= 1:
        return f"{seconds:.2f} s"
    return f"{seconds * 1e3:.2f} ms" if seconds >= 1e-3 else f"{seconds * 1e6:.0f} µs"


def print_table(
    rows: list[tuple[str, Runner]], inputs: list[tuple[str, list[Any]]], sizes: list[int], args: argparse.Namespace
) -> None:
    """One markdown row per parser: each input's time (projected past ``--budget``), best of ``--repeat``."""
    header = "| parser | " + " | ".join(label for label, _ in inputs) + " |"
    print(header)
    print("|" + "---|" * (len(inputs) + 1))
    for label, run in rows:
        cells = []
        previous: tuple[int, float] | None = None
        exponent = 1.0
        for (name, pieces), size in zip(inputs, sizes, strict=False):
            if previous is not None:
                projected = previous[1] * (size / previous[0]) ** exponent
                if projected > args.budget:
                    cells.append(f"≈ {fmt(projected)} (projected, x^{exponent:.1f})")
                    previous = (size, projected)
                    continue
            total, seconds, calls, net = timed(run, pieces, 1 if previous and previous[1] > 5 else args.repeat)
            if previous is not None and previous[1] > 0 and seconds > 0:
                exponent = max(1.0, math.log(seconds / previous[1]) / math.log(size / previous[0]))
            previous = (size, seconds)
            if name.startswith("1 MB"):
                per = seconds / len(pieces) * 1e6
                cells.append(f"{per:.1f} µs ({fmt(seconds)}; net {fmt(net)}; loop {fmt(total)}; {calls} calls)")
            else:
                more = "" if calls == 1 else f" ({calls} calls)"
                cells.append(f"{fmt(seconds)} (net {fmt(net)}; loop {fmt(total)})" + more)
        print(f"| {label} | " + " | ".join(cells) + " |", flush=True)


def chosen(rows: list[Row], only: list[str]) -> list[Row]:
    """The rows (or ``--before`` pairs) whose label holds one of ``only`` (``--only``); all without it.

    >>> [label for label, *_ in chosen([("engine, default", 1), ("XML engine, default", 2)], ["XML"])]
    ['XML engine, default']
    """
    if not only:
        return rows
    return [row for row in rows if any(part in row[0] for part in only)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="1 KB and 10 KB only, no 1 MB row")
    ap.add_argument("--budget", type=float, default=60.0, help="seconds a single run may take (projected)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only", action="append", default=[], help="run only the rows whose label holds this (repeatable)")
    ap.add_argument("--no-freeze", action="store_true", help="vLLM: leave the startup heap to the collector")
    ap.add_argument("--clock", choices=("process", "perf"), default="process", help="CPU time (default) or wall time")
    ap.add_argument("--pairs", type=int, default=0, help="also alternate hf / plugin (whole) runs N times (the goals)")
    ap.add_argument(
        "--before", metavar="REV", help="also the engine rows (XML too) of revision REV, alternated with this tree's"
    )
    args = ap.parse_args()
    sizes = SIZES[:2] if args.quick else SIZES
    CLOCK[0] = time.process_time if args.clock == "process" else time.perf_counter
    calibrate()
    cost = f"{OVERHEAD[0] * 1e9:.0f} ns per clocked call"
    print(f"clock: {args.clock} time; its overhead (kept in the inside figures): {cost}")
    xml_rows: list[tuple[str, Runner]] = []
    rows: list[tuple[str, Runner]] = [
        ("hermes-toolcall engine, default", engine(False)),
        ("hermes-toolcall engine, stream_arguments=True", engine(True)),
    ]
    try:
        import vllm  # noqa: F401

        rows += [
            ("vLLM `hermes` (built in)", vllm_runner("hermes", False)),
            ("vLLM `hf` (built in, transformers' Qwen3 response template; whole calls)", vllm_hf_runner()),
            ("vLLM + hermes_toolcall plugin, argument deltas", vllm_runner("hermes_toolcall", True)),
            ("vLLM + hermes_toolcall plugin, whole calls (default)", vllm_runner("hermes_toolcall", False)),
        ]
        xml_rows += [
            ("XML: vLLM `qwen3_coder` (built in)", vllm_xml_runner("qwen3_coder", False)),
            ("XML: vLLM + plugin, argument deltas", vllm_xml_runner(XML_PLUGIN, True)),
            ("XML: vLLM + plugin, whole calls", vllm_xml_runner(XML_PLUGIN, False)),
        ]
        if not args.no_freeze:
            from vllm.utils.gc_utils import freeze_gc_heap

            freeze_gc_heap()  # as `vllm serve` does once started (its lifespan hook): the startup heap is static
            print("vLLM: the startup heap is frozen as `vllm serve` freezes it (gc_utils.freeze_gc_heap)")
    except ImportError:
        pass
    try:
        import sglang.srt.function_call.function_call_parser  # noqa: F401

        rows += [
            ("SGLang `hermes` (built in)", sglang_runner("hermes", False)),
            ("SGLang `qwen25` (built in)", sglang_runner("qwen25", False)),
            ("SGLang + hermes_toolcall, argument deltas", sglang_runner("hermes_toolcall", True)),
            ("SGLang + hermes_toolcall, whole calls (default)", sglang_runner("hermes_toolcall", False)),
        ]
        xml_rows += [
            ("XML: SGLang `qwen3_coder` (built in)", sglang_xml_runner("qwen3_coder", False)),
            ("XML: SGLang + plugin, argument deltas", sglang_xml_runner(XML_PLUGIN, True)),
            ("XML: SGLang + plugin, whole calls", sglang_xml_runner(XML_PLUGIN, False)),
        ]
    except ImportError:
        pass
    rows, xml_rows = chosen(rows, args.only), chosen(xml_rows, args.only)
    inputs = [(f"{s // 1000} KB", deltas(one_call(s))) for s in sizes]
    if not args.quick:
        inputs.append(("1 MB, µs/delta", deltas(many_calls(1_000_000))))
    if rows:
        print_table(rows, inputs, [*sizes, 1_000_000], args)
    xml_inputs: list[tuple[str, list[Any]]] = []
    if xml_rows:
        print(f"\nXML bodies (issue 29): one Qwen3-Coder call (bench/serving.py xml_call), {DELTA}-token deltas\n")
        xml_inputs = [(f"{s // 1000} KB", token_deltas(xml_call(s))) for s in sizes]
        print_table(xml_rows, xml_inputs, list(sizes), args)
    if args.before:
        from stream import load_revision

        old = load_revision(args.before)
        before_after = chosen([
            (f"engine, {label}: after / before", engine(sa), engine(sa, old.StreamParser, old.OpenAIChunker))
            for label, sa in (("default", False), ("stream_arguments=True", True))
        ], args.only)
        title = f"This tree against {args.before} (ratio: this tree's time / the revision's)"
        paired(title, before_after, inputs, args.repeat)
        # the same for the XML call (qwen3-coder, XML_TOOLS), on its token deltas (the engine alone: no server)
        xml_before_after = chosen([
            (f"XML engine, {label}: after / before", engine(sa, xml=True),
             engine(sa, old.StreamParser, old.OpenAIChunker, xml=True))
            for label, sa in (("default", False), ("stream_arguments=True", True))
        ], args.only)
        if xml_before_after and not xml_inputs:
            xml_inputs = [(f"{s // 1000} KB", token_deltas(xml_call(s))) for s in sizes]
        paired(title + ", XML bodies", xml_before_after, xml_inputs, args.repeat)
    if args.pairs:
        goals = [(name, pieces) for name, pieces in inputs if name.startswith(("10 KB", "100 KB", "1 MB"))]
        pairs: list[tuple[str, Runner, Runner]] = []
        for name, base, run in (
            ("vLLM `hermes` / plugin, argument deltas", "vLLM `hermes`", "vLLM + hermes_toolcall plugin, arg"),
            ("vLLM `hf` / plugin, argument deltas", "vLLM `hf`", "vLLM + hermes_toolcall plugin, arg"),
            ("vLLM `hf` / plugin, whole calls", "vLLM `hf`", "vLLM + hermes_toolcall plugin, whole"),
            ("engine: `stream_arguments=True` / default", "hermes-toolcall engine, s", "hermes-toolcall engine, d"),
        ):
            found = [next((r for label, r in rows if label.startswith(prefix)), None) for prefix in (base, run)]
            if found[0] is not None and found[1] is not None:
                pairs.append((name, found[0], found[1]))
        paired("The goals' ratios", pairs, goals, args.pairs)
        xml_pairs: list[tuple[str, Runner, Runner]] = []
        for server in ("vLLM", "SGLang"):
            for mode in ("argument deltas", "whole calls"):
                base = next((r for label, r in xml_rows if label.startswith(f"XML: {server} `qwen3_coder`")), None)
                plug = next((r for label, r in xml_rows if label.startswith(f"XML: {server} + plugin")
                             and label.endswith(mode)), None)
                if base is not None and plug is not None:
                    xml_pairs.append((f"XML: {server} `qwen3_coder` / plugin, {mode}", base, plug))
        paired("The XML goal's ratios (issue 29: the plugin at least 10x faster than `qwen3_coder` at 100 KB)",
               xml_pairs, [(f"{s // 1000} KB", token_deltas(xml_call(s))) for s in sizes if s >= 10_000], args.pairs)


if __name__ == "__main__":
    main()
