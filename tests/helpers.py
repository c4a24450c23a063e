"""Helpers shared by the tests (merging adjacent deltas, reading shared files, grammar variants)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import strategies as st

from conftest import SHARED, TEMPLATES
from hermes_toolcall._profiles import DIALECTS
from hermes_toolcall.conformance._generate import MARKERS
from hermes_toolcall.grammar import Variant
from hermes_toolcall.testing import completion_cases, xml_completion_cases

#: A tool in OpenAI shape, as the official templates receive it.
TIME: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "get_time",
        "description": "Get the current local time in a timezone.",
        "parameters": {
            "type": "object",
            "properties": {"timezone": {"type": "string", "description": "IANA timezone name"}},
            "required": ["timezone"],
        },
    },
}

# every option variant of the grammar (reasoning kinds × calls in reasoning × stop at a fabricated result)
VARIANTS = tuple(
    Variant(kinds=kinds, calls_in_reasoning=cir, stop_at_fabricated=stop)
    for kinds in (("think", "scratch_pad"), ("think",), ())
    for cir in (False, True)
    for stop in (False, True)
)


def stream_options(max_block_chars: int) -> st.SearchStrategy[dict[str, object]]:
    """Keyword options of a ``StreamParser`` (and of the whole-text parse), any subset of them."""
    return st.fixed_dictionaries(
        {},
        optional={
            "strict": st.booleans(),
            "calls_in_reasoning": st.booleans(),
            "stop_at_fabricated_response": st.booleans(),
            "max_block_chars": st.integers(min_value=1, max_value=max_block_chars),
            "stream_arguments": st.booleans(),
            "dialect": st.sampled_from(["hermes", "qwen3", "omp"]),
        },
    )


_PIECES = (*MARKERS, "assistant\n", "user\n", "tool\n", "system\n", "x\n", "<", "{", "[", '"', "\\", "a", "\n", " ")
soup = st.lists(st.sampled_from(_PIECES), max_size=30).map("".join)


def template_source(name: str) -> str:
    """The text of an official template from ``shared/conformance/templates``; skips when absent."""
    path = TEMPLATES / name
    if not path.exists():
        pytest.skip(f"{path} is absent: the official templates live in ../shared beside the repository")
    return path.read_text(encoding="utf-8")


def shared_file(relative: str) -> Path:
    """A file under ``../shared``; skips the test when the folder is absent."""
    path = SHARED / relative
    if not path.exists():
        pytest.skip(f"{path} is absent: ../shared is not beside the repository")
    return path


def jinja_render(
    source: str,
    messages: list[dict[str, object]],
    tools: list[dict[str, object]] | None = None,
    add_generation_prompt: bool = False,
    special_tokens: dict[str, str] | None = None,
    **kwargs: object,
) -> str:
    """Render a chat template the way transformers does: the library's oracle (official-templates.md §11)."""
    from hermes_toolcall.render._oracle import oracle_render

    return oracle_render(source, messages, tools, add_generation_prompt, special_tokens, **kwargs)


def merge_events(events: list[object]) -> list[object]:
    """Merge adjacent text, reasoning and argument deltas of one element and drop empty ones.

    The merged list does not depend on the chunking (format.md §4); same rules as
    ``hermes_toolcall.testing.merge_deltas``.
    """
    from hermes_toolcall.testing._helpers import merge_deltas

    merged: list[object] = merge_deltas(events)
    return merged


def stream_chunks(
    chunks: tuple[str, ...] | list[str], *, eager: bool, **options: Any
) -> tuple[Any, list[dict[str, Any]]]:
    """Feed ``chunks`` to a ``StreamParser`` (sequential ids) and an ``OpenAIChunker``: ``(result, chunks)``."""
    from hermes_toolcall._ids import sequential_ids
    from hermes_toolcall._openai_chunks import OpenAIChunker
    from hermes_toolcall.statemachine import StreamParser

    parser = StreamParser(ids=sequential_ids(), **options)
    chunker = OpenAIChunker(eager=eager)
    out = chunker.start()
    for piece in chunks:
        out += chunker.feed(parser.feed(piece))
    out += chunker.feed(parser.close())
    out += chunker.finish()
    return parser.result(), out


def openai_stream(
    chunks: tuple[str, ...] | list[str], *, eager: bool = True, **options: Any
) -> tuple[Any, dict[str, Any], list[dict[str, Any]]]:
    """Feed ``chunks`` to a ``StreamParser`` (sequential ids) and an ``OpenAIChunker``.

    Returns:
        ``(result, message, chunks)``: the folded completion, the message accumulated from the chunks
        the way openai-python does (``testing.accumulate_chunks``, with ``finish_reason`` checked
        against the result) and the chunks. ``stream_arguments`` follows ``eager`` unless given.
    """
    from hermes_toolcall.testing import accumulate_chunks

    options.setdefault("stream_arguments", eager)
    result, out = stream_chunks(chunks, eager=eager, **options)
    message, finish = accumulate_chunks(out)
    assert finish == result.finish_reason
    return result, message, out

# ---- datasets (issue 16): records Arrow can store, with defects and explicit nulls -----------------

WEATHER_TOOL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Weather for a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string", "minLength": 1}, "days": {"type": "integer", "minimum": 1}},
            "required": ["city"],
            "additionalProperties": False,
        },
    },
}
SEARCH_TOOL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "search_files",
        "description": "Search files.",
        "parameters": {
            "type": "object",
            "properties": {"pattern": {"type": "string"}, "paths": {"type": "array", "items": {"type": "string"}}},
            "required": ["pattern"],
        },
    },
}
_ARGS = (
    '{"city": "Paris", "days": 2}',
    '{"city": "", "days": 0}',
    '{"days": true}',
    '{"pattern": "*.py", "paths": ["src", 3]}',
    '{"pattern": "x"}',
    '{"city": "Lima"',
    "[]",
    '{"city": "Zürich \\ud800", "extra": 1}',
)
_TEXTS = ("hi", "", "a < b & c", "<tool_call>{}</tool_call>", "<|im_end|> fake", "東京 \u2028", "<think>x</think>")


def _call(k: int, name: str, args: str) -> dict[str, Any]:
    return {"id": f"call_{k}", "type": "function", "function": {"name": name, "arguments": args}}


@st.composite
def arrow_openai_records(draw: st.DrawFn) -> dict[str, Any]:
    """An OpenAI record whose fields have one type each (so Arrow can store a list of them), with
    explicit ``None`` fields, defects of every kind, and tools whose schemas differ in their keys."""
    texts = st.sampled_from(_TEXTS) | st.text(max_size=12)
    msgs: list[dict[str, Any]] = []
    for k in range(draw(st.integers(0, 6))):
        role = draw(st.sampled_from(("system", "user", "assistant", "tool", "robot")))
        m: dict[str, Any] = {"role": role, "content": draw(st.none() | texts)}
        if role == "assistant" and draw(st.booleans()):
            name = draw(st.sampled_from(("get_weather", "search_files", "nope")))
            m["tool_calls"] = [_call(k, name, draw(st.sampled_from(_ARGS)))]
        elif draw(st.booleans()):
            m["tool_calls"] = None
        if role == "tool":
            m["tool_call_id"] = draw(st.sampled_from((None, f"call_{max(0, k - 1)}", "call_99")))
        if draw(st.booleans()):
            m["name"] = draw(st.none() | st.just("get_weather"))
        msgs.append(m)
    record: dict[str, Any] = {"messages": msgs}
    tools = draw(st.sampled_from(((), (WEATHER_TOOL,), (SEARCH_TOOL,), (WEATHER_TOOL, SEARCH_TOOL))))
    if tools or draw(st.booleans()):
        record["tools"] = list(tools)
    return record


def dataset_records(n: int, *, sharegpt: bool = True) -> list[dict[str, Any]]:
    """``n`` deterministic records (OpenAI, and ShareGPT when asked) with a defect in one of five."""
    out: list[dict[str, Any]] = []
    for i in range(n):
        bad = i % 5 == 3
        args = _ARGS[1] if bad else _ARGS[0]
        if sharegpt and i % 3 == 2:
            call = '<tool_call>\n{"name": "get_weather", "arguments": ' + args + "}\n</tool_call>"
            out.append(
                {
                    "conversations": [
                        {"from": "human", "value": f"weather {i}?"},
                        {"from": "gpt", "value": "<think>\nok\n</think>\n" + call},
                        {"from": "tool", "value": '<tool_response>\n{"name": "get_weather", "content": 1}\n'
                         "</tool_response>"},
                        {"from": "gpt", "value": "Sunny." if not bad else "Sunny <|im_end|>"},
                    ],
                    "tools": '[{"type": "function", "function": {"name": "get_weather", "parameters": '
                    '{"type": "object", "properties": {"city": {"type": "string", "minLength": 1}, '
                    '"days": {"type": "integer", "minimum": 1}}}}}]',
                }
            )
            continue
        msgs: list[dict[str, Any]] = [
            {"role": "user", "content": f"weather {i}?", "tool_calls": None},
            {"role": "assistant", "content": None, "tool_calls": [_call(i, "get_weather", args)]},
            {"role": "tool", "content": "sunny", "tool_call_id": f"call_{i}" if not bad else "call_x"},
            {"role": "assistant", "content": "It is sunny."},
        ]
        out.append({"messages": msgs, "tools": [WEATHER_TOOL, SEARCH_TOOL] if i % 2 else [SEARCH_TOOL, WEATHER_TOOL]})
    return out


# ---- validate CLI records: one call to get_weather (or another name) with string arguments ----------

#: A tool taking a required string ``location`` (the validate CLI tests).
LOCATION_WEATHER: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "parameters": {"type": "object", "properties": {"location": {"type": "string"}}, "required": ["location"]},
    },
}


def call_record(name: str, args: str) -> dict[str, Any]:
    """An OpenAI record: a user turn, then one call to ``name`` with the arguments string ``args``."""
    return {
        "messages": [
            {"role": "user", "content": "x"},
            {
                "role": "assistant",
                "tool_calls": [{"id": "c1", "type": "function", "function": {"name": name, "arguments": args}}],
            },
        ],
        "tools": [LOCATION_WEATHER],
    }


#: the dialects whose calls have an XML body (``DialectProfile.body_kind``)
XML_DIALECT_NAMES = sorted(name for name, profile in DIALECTS.items() if profile.body_kind == "xml")


@st.composite
def dialect_completions(draw: Any, dialect: str) -> tuple[str, list[dict[str, Any]] | None]:
    """A generated completion in ``dialect``'s body kind and the ``tools=`` to parse it with: JSON bodies
    (``testing.completion_cases``, no tools) or, for an XML-body dialect, XML bodies with every malformation
    (``testing.xml_completion_cases``), typed by the case's tools or by none."""
    if DIALECTS[dialect].body_kind != "xml":
        return draw(completion_cases(dialect)).text, None
    case = draw(xml_completion_cases(), label="xml case")
    return case.text, list(case.tools) if draw(st.booleans(), label="typed") else None


def xml_completions() -> st.SearchStrategy[str]:
    """The text of ``testing.xml_completion_cases`` (XML-body calls, malformed ones included)."""
    return xml_completion_cases().map(lambda case: case.text)


def xml_dialect(name: str) -> Any:
    """The XML-body dialect ``name`` (qwen3-coder, qwen3.5, nemotron-3, step-3.5), or, until its profile is on
    this branch, a stand-in with its parse-relevant facts (qwen3's profile with XML bodies; qwen3.5's
    generation prompt opens ``<think>``)."""
    import dataclasses

    if name in DIALECTS or name not in ("qwen3-coder", "qwen3.5", "nemotron-3", "step-3.5"):
        return name
    base = DIALECTS["qwen3"]
    prompt = base.generation_prompt + ("<think>\n" if name == "qwen3.5" else "")
    return dataclasses.replace(base, name=name, body_kind="xml", generation_prompt=prompt)


#: the [grammar] extra that docs/constrained.md's and grammar_export's examples need (the README's ``[test]``
#: does not install it; ``.ci/run`` does): the module to find and how a skip names it
GRAMMAR_EXTRA = ("outlines_core", "the [grammar] extra (outlines-core)")


def extra_param(value: Any, need: tuple[str, str] | None, where: str) -> Any:
    """``value`` as a test parameter, ``ci_required`` when it needs the extra ``need`` (a skip under CI fails)."""
    if need is None:
        return value
    return pytest.param(value, marks=pytest.mark.ci_required(f"{where} shows {need[1]}, installed by .ci/run"))


def skip_without(need: tuple[str, str] | None) -> None:
    """Skip the running test when the extra ``need`` is not installed (the newcomer's ``[test]``-only set-up)."""
    import importlib.util

    if need is not None and importlib.util.find_spec(need[0]) is None:
        pytest.skip(f"{need[1]} is not installed")
