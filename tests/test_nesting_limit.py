"""The library's own nesting limit (issue 30, item 7): the same results whatever the recursion limit.

With ``sys.setrecursionlimit(100000)`` (common in servers) a 100,000-deep arguments object (600 KB, far
under ``max_block_chars``) killed the process in both engines (Python's ``json`` recursed in C until
the stack overflowed). Every decoder now stops at ``jsonio.MAX_NESTING`` (512) levels before any
recursive decoder sees the text, so deep input is a clean ``HT103`` and the results are the same at
the default and at a raised limit. Each run is a subprocess: a segfault must fail the test, not
kill the test session.
"""

from __future__ import annotations

import functools
import json
import subprocess
import sys

import pytest

import hermes_toolcall as ht
from hermes_toolcall import _jsonio as jsonio
from hermes_toolcall.errors import DecodeError

# Runs every entry point on deep inputs and prints a JSON summary (argv[1]: the recursion limit, or 0).
_SCRIPT = r"""
import json, sys
if int(sys.argv[1]):
    sys.setrecursionlimit(int(sys.argv[1]))
import hermes_toolcall as ht
from hermes_toolcall import OpenAIChunker
from hermes_toolcall.statemachine import StreamParser

def nest(n, leaf="1"):
    return '{"a": ' * n + leaf + "}" * n

def summary(result):
    parts = result.parts if hasattr(result, "parts") else [p for t in result.turns for p in t.parts]
    return [[type(p).__name__ for p in parts], [[d.code, d.span.start, d.message] for d in result.diagnostics]]

n = 100_000
cases = {
    "json 100k": '{"name": "f", "arguments": ' + nest(n) + "}",
    "list 100k": '{"name": "f", "arguments": {"x": ' + "[" * n + "]" * n + "}}",
    "python 100k": "{'name': 'f', 'arguments': " + nest(n).replace('"', "'") + "}",
    "stringified 100k": '{"name": "f", "arguments": ' + json.dumps(nest(n)) + "}",
    "array 100k": '[{"name": "f", "arguments": ' + nest(n) + "}]",
    "strict json 511 (512 levels)": '{"name": "f", "arguments": ' + nest(511) + "}",
    "strict json 512 (513 levels)": '{"name": "f", "arguments": ' + nest(512) + "}",
    "duplicate keys 400": '{"name": "f", "arguments": ' + nest(400) + ', "extra": 1}',
    "python 300": "{'name': 'f', 'arguments': " + nest(300).replace('"', "'") + "}",
}
out = {}
for name, body in cases.items():
    text = "<tool_call>" + body + "</tool_call>"
    whole = ht.parse_completion(text, ids=ht.sequential_ids())
    p = StreamParser(stream_arguments=True, ids=ht.sequential_ids())
    events = p.feed(text) + p.close()
    assert p.result() == whole, name
    chunker = OpenAIChunker()
    chunker.feed(events)
    chunker.finish()
    for strict in (True, False):
        try:
            ht.parse_completion(text, strict=strict)
        except ht.ParseError:
            assert strict
    report = ht.validate(whole)
    out[name] = summary(whole) + [sorted({d.code for d in report.diagnostics})]
deep = nest(n)
transcript = (
    "<|im_start|>system\n<tools>\n" + deep + "\n</tools><|im_end|>\n<|im_start|>tool\n<tool_response>\n"
    + '{"name": "f", "content": ' + deep + "}\n</tool_response><|im_end|>\n"
)
t = ht.parse_transcript(transcript)
out["transcript 100k"] = summary(t) + [sorted({d.code for d in ht.validate(t).diagnostics})]
call = {"id": "c", "type": "function", "function": {"name": "f", "arguments": deep}}
messages = [{"role": "user", "content": "x"}, {"role": "assistant", "content": "", "tool_calls": [call]}]
try:
    ht.render(messages, dialect="qwen3")
    out["render 100k"] = "rendered"
except ht.HermesError as exc:
    out["render 100k"] = type(exc).__name__
value = 1
for _ in range(n):
    value = {"a": value}
call = {"id": "c", "type": "function", "function": {"name": "f", "arguments": value}}
messages = [{"role": "user", "content": "x"}, {"role": "assistant", "content": "", "tool_calls": [call]}]
try:
    ht.render(messages, dialect="hermes-vllm", tools=[])
    out["render python 100k"] = "rendered"
except ht.HermesError as exc:
    out["render python 100k"] = str(exc)
out["validate python 100k"] = [d.code for d in ht.validate(ht.messages_from_openai(messages)).diagnostics]
print(json.dumps(out))
"""


@functools.cache
def _run(limit: int) -> dict[str, object]:
    run = subprocess.run([sys.executable, "-c", _SCRIPT, str(limit)], capture_output=True, text=True, check=False)
    assert run.returncode == 0, f"exit {run.returncode} at recursion limit {limit or 'default'}: {run.stderr[-2000:]}"
    out: dict[str, object] = json.loads(run.stdout)
    return out


def test_deep_bodies_under_a_raised_recursion_limit_are_a_clean_ht103() -> None:
    """Issue 30 item 7: a 100,000-deep body under ``setrecursionlimit(100000)`` was a segfault."""
    raised = _run(100_000)
    for name in ("json 100k", "list 100k", "python 100k", "array 100k", "strict json 512 (513 levels)", "python 300"):
        parts, diagnostics, _ = raised[name]  # type: ignore[misc]
        assert parts == ["InvalidToolCall"], name
        assert [d[0] for d in diagnostics] == ["HT103"], name
        assert "nesting deeper than" in diagnostics[0][2], name
    assert raised["strict json 511 (512 levels)"][0] == ["ToolCall"]  # type: ignore[index]
    assert raised["duplicate keys 400"][0] == ["ToolCall"]  # type: ignore[index]
    assert raised["stringified 100k"][0] == ["InvalidToolCall"]  # type: ignore[index]
    assert raised["render 100k"] == "RenderError"
    assert "nested deeper than 512 levels" in raised["render python 100k"]  # type: ignore[operator]


def test_results_do_not_depend_on_the_recursion_limit() -> None:
    assert _run(100_000) == _run(0)


@pytest.mark.parametrize("opener", ["[", '{"a": '])
def test_every_decoder_stops_at_max_nesting(opener: str) -> None:
    closer = "]" if opener == "[" else "}"
    ok = opener * jsonio.MAX_NESTING + "1" + closer * jsonio.MAX_NESTING
    deep = opener + ok + closer
    for decode in (jsonio.loads, jsonio.loads_pairs):
        decode(ok)
        with pytest.raises(DecodeError, match="nested deeper than 512 levels") as info:
            decode(deep)
        assert info.value.position == len(opener) * jsonio.MAX_NESTING
    assert jsonio.loads_shape_or_none(ok) is not None
    assert jsonio.loads_shape_or_none(deep) is None
    assert jsonio.loads_or_none(deep) is None


def test_brackets_inside_strings_do_not_count() -> None:
    text = json.dumps({"code": "{[" * 5000, "nested": [[[1]]]})
    assert jsonio.loads(text)["nested"] == [[[1]]]
    call = ht.parse_completion('<tool_call>{"name": "f", "arguments": ' + text + "}</tool_call>")
    assert [type(p).__name__ for p in call.parts] == ["ToolCall"]
