"""Shared by the checks that run inside the vLLM / SGLang venvs: inputs, the oracle, chunkings, accumulation.

The inputs are the conformance corpus's completion cases plus the edge cases of issue 14 and the XML-body
outputs of issue 29 item 8 (``XML_EDGE``: each XML-body dialect, the tools' schemas declared). The
oracle is ``parse_completion`` read the way a server reports it (docs/integrations.md): reasoning
after the leading block, and all reasoning when the server has no reasoning parser, stays in the
content verbatim; invalid calls are not sent.
"""

from __future__ import annotations

import dataclasses
import itertools
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hermes_toolcall import parse_completion
from hermes_toolcall._model import Reasoning, Text, ToolCall
from hermes_toolcall.conformance._cases import load_cases

ROOT = Path(__file__).resolve().parents[3]
WS = " \t\n\r"
BIG = "x" * 100_000


@dataclass(frozen=True)
class Input:
    id: str
    text: str
    dialect: str = "hermes"
    opens: bool = False  # the prompt opened <think>
    tools: tuple[str, ...] = ("get_weather", "search")
    schemas: tuple[tuple[str, Any], ...] = ()  # (tool name, its parameters schema); others: {"type": "object"}


EDGE = [
    Input("prose-around-calls", 'Let me check. <tool_call>\n{"name": "get_weather", "arguments": '
          '{"city": "Paris"}}\n</tool_call>\nAnd then I will answer.'),
    Input("end-tag-in-string", '<tool_call>\n{"name": "search", "arguments": {"q": "a </tool_call> b"}}\n'
          "</tool_call>"),
    Input("truncated-second-call", '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n'
          '</tool_call>\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Ro'),
    Input("qwq-reasoning-open", "I'm\nthinking about it\n</think>\n\nHello <tool_call>\n"
          '{"name": "search", "arguments": {"q": "x"}}\n</tool_call>', dialect="qwq", opens=True),
    Input("qwen3-think", '<think>\nplan\n</think>\n\n<tool_call>\n{"name": "search", "arguments": {}}\n</tool_call>',
          dialect="qwen3"),
    Input("undeclared-tool", '<tool_call>\n{"name": "rm_rf", "arguments": {"path": "/"}}\n</tool_call>'),
    Input("big-arguments", '<tool_call>\n{"name": "search", "arguments": {"q": "' + BIG + '"}}\n</tool_call>'),
    Input("two-calls", '<tool_call>\n{"name": "a", "arguments": {"x": 1}}\n</tool_call>\n<tool_call>\n'
          '{"name": "b", "arguments": {"y": [1, 2, {"z": "w"}]}}\n</tool_call>'),
    Input("unclosed-reasoning", "<think>\nstill thinking, cut off", dialect="qwen3"),
    Input("plain-text", "Just an answer, no calls. </tool_call> stray"),
    Input("think-in-middle", 'A <think>x</think> B <tool_call>{"name": "a", "arguments": {}}</tool_call>'),
    Input("python-literal", "<tool_call>{'name': 'a', 'arguments': {'k': True}}</tool_call>"),
]


_BOOK = {"type": "object", "properties": {
    "room": {"type": "string"}, "hours": {"type": "integer"}, "urgent": {"type": "boolean"},
    "rate": {"type": "number"}, "opts": {"type": "object"}, "tags": {"type": "array"},
    "note": {"type": ["string", "null"]}, "code": {"type": "string"}}}
_XML_TOOLS = ("book", "search")
_XML_SCHEMAS = (("book", _BOOK),)


def _xml_call(name: str, *params: tuple[str, str], close: bool = True) -> str:
    body = "".join(f"<parameter={k}>\n{v}\n</parameter>\n" for k, v in params)
    return f"<tool_call>\n<function={name}>\n{body}" + ("</function>\n</tool_call>" if close else "")


def _xml_edge(dialect: str) -> list[Input]:
    """XML-body outputs of ``dialect`` (issue 29 item 8), the tools' schemas declared: schema-typed values."""
    typed = _xml_call("book", ("room", "B12"), ("hours", "3"), ("urgent", "True"), ("rate", "2.5"),
                      ("opts", "{'recursive': True, \"n\": None}"), ("tags", '["a", 1]'), ("note", "None"),
                      ("code", 'if a < b && c > d:\n    print("</parameter>")'))
    items = [
        Input(f"xml-typed-{dialect}", "Let me book it.\n\n" + typed, dialect),
        Input(f"xml-two-calls-{dialect}", _xml_call("book", ("room", "A1")) + "\n" + _xml_call("search", ("q", "x y"))
              + "\nDone.", dialect),
        Input(f"xml-truncated-second-{dialect}", _xml_call("book", ("room", "A1")) + "\n"
              + _xml_call("book", ("room", "B2"), close=False)[:-10], dialect),
        Input(f"xml-recoveries-{dialect}", "<tool_call>\n<function=book>\n<parameter=room>\nB12\n<parameter=hours>\n"
              "2\n</parameter2>\n</function>\n</tool_call>", dialect),
        Input(f"xml-spaces-{dialect}", _xml_call("book", ("code", " " * 3000 + "x")), dialect),
        Input(f"xml-json-body-{dialect}", '<tool_call>\n{"name": "book", "arguments": {"room": "C3"}}\n</tool_call>',
              dialect),
    ]
    if dialect in ("qwen3.5", "nemotron-3", "step-3.5"):  # their generation prompts may open <think>
        items.append(Input(f"xml-think-{dialect}", "I will book.\n</think>\n\n" + _xml_call("book", ("room", "B12")),
                           dialect, opens=True))
    return [dataclasses.replace(i, tools=_XML_TOOLS, schemas=_XML_SCHEMAS) for i in items]


XML_DIALECTS = ("qwen3-coder", "qwen3.5", "nemotron-3", "step-3.5")
XML_EDGE = [item for dialect in XML_DIALECTS for item in _xml_edge(dialect)]


def inputs() -> list[Input]:
    """The corpus's completion cases (every dialect, no options; the request declares their calls' tools)
    and the edge cases."""
    out = []
    for case in load_cases(ROOT / "conformance" / "cases"):
        if case.level == "completion" and not case.options:
            names = {c.name for c in parse_completion(case.input, dialect=case.dialect).tool_calls}
            out.append(Input(case.id, case.input, case.dialect, tools=tuple(sorted(names | {"get_weather"}))))
    return out + EDGE + XML_EDGE


def tool_objects(item: Input) -> list[dict[str, Any]]:
    schemas = dict(item.schemas)
    return [{"type": "function", "function": {"name": n, "parameters": schemas.get(n, {"type": "object"})}}
            for n in item.tools]


@dataclass(frozen=True)
class Message:
    content: str | None
    reasoning: str | None
    calls: tuple[tuple[str, str], ...]  # (name, arguments JSON)

    def normal(self) -> Message:
        """Comparable form: empty content is None; with calls, content is stripped (see the chunker's caveat)."""
        content = self.content or None
        if self.calls and content is not None:
            content = content.strip(WS) or None
        return Message(content, self.reasoning or None, self.calls)


def oracle(item: Input, *, reasoning_parser: bool, undeclared: str = "text") -> Message:
    """What the server should report: ``parse_completion`` of the output, ``starts_in_reasoning`` from the prompt."""
    source = item.text
    opens = item.opens and reasoning_parser  # without a reasoning parser the markup is content
    parsed = parse_completion(
        source, dialect=item.dialect, starts_in_reasoning=opens, tools=tool_objects(item), undeclared=undeclared
    )
    parts = list(parsed.parts)
    reasoning = None
    lead = False
    if reasoning_parser:
        i = 0
        while i < len(parts) and isinstance(parts[i], Text) and not parts[i].text.strip(WS):
            i += 1
        if i < len(parts) and isinstance(parts[i], Reasoning):
            text = parts[i].text
            text = text[1:] if text.startswith("\n") else text
            text = text[:-1] if text.endswith("\n") else text
            reasoning, parts, lead = text or None, parts[i + 1 :], True
    content = "".join(
        p.text if isinstance(p, Text) else p.span.text(source) if isinstance(p, Reasoning) and p.opened else ""
        for p in parts
    )
    if lead:
        content = content.lstrip("\n")
    calls = tuple((p.name, p.arguments_json) for p in parts if isinstance(p, ToolCall))
    return Message(content, reasoning, calls).normal()


def chunkings(n: int, seed: int) -> list[list[int]]:
    """Cut points for ``n`` items: one by one, and two random chunkings (sizes 1..9)."""
    rng = random.Random(seed)
    out = [list(range(1, n))]
    for _ in range(2):
        cuts, at = [], 0
        while True:
            at += rng.randint(1, 9)
            if at >= n:
                break
            cuts.append(at)
        out.append(cuts)
    return out


def groups(items: list[Any], cuts: list[int]) -> list[list[Any]]:
    bounds = [0, *cuts, len(items)]
    return [items[a:b] for a, b in itertools.pairwise(bounds) if b > a]


class Accumulator:
    """A client's view of streamed deltas (content, reasoning, calls by index: id/name once, arguments appended)."""

    def __init__(self) -> None:
        self.content: list[str] = []
        self.reasoning: list[str] = []
        self.calls: dict[int, dict[str, Any]] = {}
        self.problems: list[str] = []

    def add(self, content: str | None, reasoning: str | None, calls: list[tuple[int, Any, Any, str]]) -> None:
        if content:
            self.content.append(content)
        if reasoning:
            self.reasoning.append(reasoning)
        for index, call_id, name, arguments in calls:
            have = self.calls.get(index)
            if have is None:
                if name is None:
                    self.problems.append(f"call {index}: first delta without a name")
                self.calls[index] = {"id": call_id, "name": name or "", "arguments": arguments}
            else:
                if call_id is not None or name is not None:
                    self.problems.append(f"call {index}: id or name sent twice ({call_id!r}, {name!r})")
                have["arguments"] += arguments

    def message(self) -> Message:
        calls = tuple((c["name"], c["arguments"]) for _, c in sorted(self.calls.items()))
        return Message("".join(self.content), "".join(self.reasoning), calls).normal()
