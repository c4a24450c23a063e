"""XML-body calls through both engines: completions and transcripts, typed by tools=, every chunking.

The engines share the body decoding (``_xmlbody``); the agreement properties check that the stream
gives the whole parse's result, events and OpenAI chunks on XML bodies with every malformation
(``testing._xml.MALFORMATIONS``) and nasty values, 1-character chunks included.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import hermes_toolcall as ht
from helpers import xml_dialect
from hermes_toolcall import _jsonio as jsonio
from hermes_toolcall.testing import assert_engines_agree, chunkings
from hermes_toolcall.testing._xml import XmlCase, xml_call_block, xml_completion_cases

#: the XML-body dialects (their profiles, or stand-ins until they are on this branch)
XML_DIALECTS = [xml_dialect(name) for name in ("qwen3-coder", "qwen3.5", "nemotron-3", "step-3.5")]

WEATHER = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "days": {"type": "integer"}, "metric": {"type": "boolean"}},
            },
        },
    }
]

QWEN_OUTPUT = (
    "Let me check.\n\n<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n"
    "<parameter=days>\n3\n</parameter>\n<parameter=metric>\nTrue\n</parameter>\n</function>\n</tool_call>"
)


def test_qwen_output_to_openai() -> None:
    """The issue's first symptom: an XML body gave content "" and no calls."""
    c = ht.parse_completion(QWEN_OUTPUT, tools=WEATHER, ids=ht.sequential_ids())
    m = c.to_openai()
    assert m["content"] == "Let me check."
    assert m["tool_calls"] == [
        {
            "id": "call_0",
            "type": "function",
            "function": {"name": "get_weather", "arguments": '{"city": "Paris", "days": 3, "metric": true}'},
        }
    ]
    assert c.finish_reason == "tool_calls"
    assert [d.code for d in c.diagnostics] == ["HT238"]  # hermes (the default dialect) writes JSON bodies


def test_without_tools_values_follow_the_documented_rule() -> None:
    args = ht.parse_completion(QWEN_OUTPUT).tool_calls[0].arguments
    assert args == {"city": "Paris", "days": 3, "metric": True}
    text = QWEN_OUTPUT.replace("\nParis\n", "\n42\n")
    assert ht.parse_completion(text).tool_calls[0].arguments["city"] == 42  # no schema: 42 is a number
    assert ht.parse_completion(text, tools=WEATHER).tool_calls[0].arguments["city"] == "42"


def test_strict_mode_refuses_the_other_body_kind() -> None:
    with pytest.raises(ht.ParseError) as info:
        ht.parse_completion(QWEN_OUTPUT, strict=True)
    assert [d.code for d in info.value.diagnostics] == ["HT238"]


def test_transcript_level() -> None:
    block = xml_call_block("get_weather", {"city": "Paris"})
    text = (
        "<|im_start|>user\nWeather?<|im_end|>\n<|im_start|>assistant\n"
        f"{block}<|im_end|>\n<|im_start|>user\n<tool_response>\n18 C\n</tool_response><|im_end|>\n"
    )
    t = ht.parse_transcript(text, tools=WEATHER, ids=ht.sequential_ids())
    messages = t.to_openai_messages()
    assert messages[1]["tool_calls"][0]["function"] == {"name": "get_weather", "arguments": '{"city": "Paris"}'}
    assert messages[2] == {"role": "tool", "tool_call_id": "call_0", "content": "18 C"}
    assert_engines_agree(text, level="transcript", tools=WEATHER)


@pytest.mark.parametrize("line_end", ["\n", "\r\n"])
def test_step_tool_response_turns_hold_results(line_end: str) -> None:
    """Step 3.5 writes results in ``tool_response`` turns: a known role whose body holds ``<tool_response>``
    blocks (it was an unknown role, HT004, its results plain text), in both engines."""
    block = xml_call_block("get_weather", {"city": "Paris"})
    text = (
        "<|im_start|>user\nWeather?<|im_end|>\n<|im_start|>assistant\n"
        f"{block}<|im_end|>\n<|im_start|>tool_response{line_end}<tool_response>18 C</tool_response><|im_end|>\n"
    )
    t = ht.parse_transcript(text, tools=WEATHER, ids=ht.sequential_ids())
    assert [d.code for d in t.diagnostics] == ["HT238"]  # the XML body in the default (JSON) dialect
    (result,) = t.turns[2].parts
    assert t.turns[2].role == "tool_response" and isinstance(result, ht.ToolResponse) and result.content == "18 C"
    assert_engines_agree(text, level="transcript", tools=WEATHER)


def test_untyped_value_warning_names_the_parameter() -> None:
    text = QWEN_OUTPUT.replace("\n3\n", "\nthree\n")
    c = ht.parse_completion(text, tools=WEATHER)
    (untyped,) = [d for d in c.diagnostics if d.code == "HT239"]
    assert "'days'" in untyped.message and text[untyped.span.start : untyped.span.end] == "\nthree\n"
    assert c.tool_calls[0].arguments["days"] == "three"


def _tool_list(case: XmlCase) -> list[dict[str, Any]]:
    return list(case.tools)


@settings(max_examples=80)
@given(st.data(), xml_completion_cases(), st.booleans(), st.sampled_from(["hermes", "qwen3", *XML_DIALECTS]))
def test_engines_agree_on_xml_completions(data: st.DataObject, case: XmlCase, strict: bool, dialect: Any) -> None:
    """Stream = whole parse (result, events, OpenAI chunks) on generated XML completions, malformed ones
    included, in JSON dialects (``HT238``) and XML ones; the block's extent is the XML reading's."""
    chunks = data.draw(chunkings(case.text))
    tools = _tool_list(case) if data.draw(st.booleans()) else None
    assert_engines_agree(case.text, chunkings=[chunks], strict=strict, tools=tools, dialect=dialect)


WRITE = [
    {
        "type": "function",
        "function": {
            "name": "write_file",
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string"}, "content": {"type": "string"}, "mode": {"type": "integer"}},
            },
        },
    }
]
#: code that writes this format: block tags, closers and openers inside a value
CODE = 'parts = text.split("</tool_call>")\nnew = "<tool_call>" + body + "</parameter>" + "</function>"\n'


@pytest.mark.parametrize("dialect", ["hermes", XML_DIALECTS[0]])
def test_regression_tool_call_closer_inside_a_value_is_text_in_both_engines(dialect: Any) -> None:
    """Issue 29 item 4: the stream read an XML block to the first ``</tool_call>``, so a literal one in a
    value ended the block there (the call lost, the rest text with HT121); a closer counts only where
    the body's reading allows it, in both engines, on every chunking."""
    text = "Writing.\n" + xml_call_block("write_file", {"path": "a.py", "content": CODE}) + "\nDone."
    for tools in (WRITE, None):
        result = assert_engines_agree(text, dialect=dialect, tools=tools)
        assert isinstance(result, ht.Completion)
        assert [(c.name, c.arguments["content"]) for c in result.tool_calls] == [("write_file", CODE)]
        assert not {d.code for d in result.diagnostics} - {"HT238", "HT243"}
        assert result.to_openai()["content"] == "Writing.\n\nDone."


def _deltas(events: list[ht.Event]) -> str:
    return "".join(e.text for e in events if isinstance(e, ht.ArgumentsDelta))


def test_xml_call_streams_its_name_then_string_values_as_they_arrive() -> None:
    """``ToolCallStart`` once the function name is complete; with ``stream_arguments`` a string value goes
    out as it arrives (JSON-escaped), an integer when it ends; the deltas add up to ``arguments_json``."""
    p = ht.StreamParser(stream_arguments=True, dialect=XML_DIALECTS[0], tools=WRITE)
    assert p.feed("<tool_call>\n<function=write_f") == []
    events = p.feed("ile>\n")
    assert [type(e).__name__ for e in events] == ["ToolCallStart"]
    sent = _deltas(p.feed('<parameter=content>\nline "one"\n\tline two'))
    assert sent.startswith('{"content": "line \\"one\\"\\n')  # before the value's closer
    sent += _deltas(p.feed("\n</parameter>\n<parameter=mode>\n6"))
    assert sent.endswith('", "mode": ')  # an integer waits for its end (6 may become 64)
    events = p.feed("4\n</parameter>\n</function>\n</tool_call>") + p.close()
    sent += _deltas(events)
    (call,) = p.result().tool_calls
    assert call.arguments == {"content": 'line "one"\n\tline two', "mode": 64}
    assert sent == call.arguments_json


def test_xml_value_of_spaces_streams_with_bounded_memory() -> None:
    """A 100,000-space value read in 1-character chunks with ``retain=False``: the call comes out whole,
    and the parser holds no more than a few characters of unread input at any time."""
    text = xml_call_block("write_file", {"content": " " * 100_000})
    p = ht.StreamParser(stream_arguments=True, dialect=XML_DIALECTS[0], tools=WRITE, retain=False)
    events: list[ht.Event] = []
    held = 0
    for ch in text:
        events += p.feed(ch)
        held = max(held, len(p._buf.pending))  # the input held back for the next chunk
    events += p.close()
    (end,) = [e for e in events if isinstance(e, ht.ToolCallEnd)]
    assert end.call is not None and end.call.arguments == {"content": " " * 100_000}
    assert _deltas(events) == end.call.arguments_json
    assert held <= 16


@settings(max_examples=40)
@given(xml_completion_cases(malformed=False))
def test_template_completions_give_their_calls(case: XmlCase) -> None:
    """A completion as the templates write it gives back its calls, typed by the tools."""
    c = ht.parse_completion(case.text, tools=_tool_list(case), ids=ht.sequential_ids())
    if any(_ambiguous(args) for _, args in case.calls):
        return
    assert [(x.name, jsonio.dumps_report(x.arguments)) for x in c.tool_calls] == [
        (name, jsonio.dumps_report(args)) for name, args in case.calls
    ]


def _ambiguous(arguments: dict[str, Any]) -> bool:
    """A value whose text holds a closer, an opener or a block tag: exercised by the agreement tests."""
    from hermes_toolcall.testing._xml import xml_value

    words = ("</parameter", "</function>", "<parameter=", "<function=", "<tool_call>", "</tool_call>", "<|im_")
    return any(w in xml_value(v) for v in arguments.values() for w in words)


@pytest.mark.parametrize("limit", [1, 12, 30, 60])
@pytest.mark.parametrize("calls_in_reasoning", [False, True])
def test_regression_xml_block_cut_by_max_block_chars_in_small_chunks(limit: int, calls_in_reasoning: bool) -> None:
    """A hypothesis find (test_stream_checked): fed in 1-character chunks, the stream's XML reader gave
    away block text past ``max_block_chars`` before it knew where the block ends, and then could not
    cut there (the block was read whole); text past the cut now waits until the end is known."""
    text = "<think>\n\n" + xml_call_block("get_weather", {"city": "Paris"}) + "\nok"
    assert_engines_agree(text, max_block_chars=limit, calls_in_reasoning=calls_in_reasoning)
    assert_engines_agree(text[len("<think>\n\n") :], max_block_chars=limit, dialect=XML_DIALECTS[0])


@pytest.mark.parametrize("tail", ["<", "</", "</tool_call", "<tool_", "<|im_e", "\n</parameter"])
def test_regression_xml_block_ending_in_a_held_back_tag_prefix(tail: str) -> None:
    """A hypothesis find (test_agreement): an XML block whose input ends in what may start a tag (``<``)
    was never told the input ended, when the reader had already taken that text (held back by the
    stream reader, not by the buffer): the block was cut at ``max_block_chars`` far past the input."""
    text = "<think>\n\n</think>\n\n<tool_call>\n<function=get_weather>\n</function>\n" + tail
    assert_engines_agree(text)
    assert_engines_agree(text, dialect=XML_DIALECTS[0], tools=WEATHER)


# ---------------------------------------------------------------------------------------- bare functions (HT234)

BARE = "<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>"


def _kinds(result: ht.Completion) -> list[tuple[str, str]]:
    return [(type(p).__name__, getattr(p, "text", None) or getattr(p, "name", None) or p.code) for p in result.parts]


@pytest.mark.parametrize("dialect", ["hermes", "qwen3", *XML_DIALECTS])
def test_bare_function_is_a_call_in_every_dialect(dialect: Any) -> None:
    """Issue 29 item 4: a complete ``<function=…>`` with no ``<tool_call>`` is a call with ``HT234`` (and
    ``HT238`` where the dialect's bodies are JSON); a ``</tool_call>`` after it is part of it; strict:
    ``InvalidToolCall(HT234)``; both engines, every chunking."""
    for tail in ("", "\n</tool_call>"):
        text = f"Sure.\n{BARE}{tail} Done."
        result = assert_engines_agree(text, dialect=dialect, tools=WEATHER, starts_in_reasoning=False)
        assert isinstance(result, ht.Completion)
        assert _kinds(result) == [("Text", "Sure.\n"), ("ToolCall", "get_weather"), ("Text", " Done.")]
        call = result.tool_calls[0]
        assert call.arguments == {"city": "Paris"} and call.raw == BARE + tail
        assert (call.span.start, call.span.end) == (6, 6 + len(BARE + tail))
        json_dialect = dialect in ("hermes", "qwen3")
        assert [d.code for d in result.diagnostics] == (["HT234", "HT238"] if json_dialect else ["HT234"])
        assert result.diagnostics[0].span.start == 6 and result.diagnostics[0].severity == "warning"
        strict = {"dialect": dialect, "tools": WEATHER, "strict": True, "starts_in_reasoning": False}
        assert assert_engines_agree(text, **strict) is None
        with pytest.raises(ht.ParseError) as raised:
            ht.parse_completion(text, dialect=dialect, tools=WEATHER, strict=True, starts_in_reasoning=False)
        assert [(d.code, d.severity, d.span.start) for d in raised.value.diagnostics] == [("HT234", "error", 6)]
        parser = ht.StreamParser(dialect=dialect, tools=WEATHER, strict=True, starts_in_reasoning=False)
        parser.feed(text)
        with pytest.raises(ht.StreamError):
            parser.close()
        invalid = [p for p in parser.result().parts if isinstance(p, ht.InvalidToolCall)]
        assert [(p.code, p.name, p.raw) for p in invalid] == [("HT234", "get_weather", BARE + tail)]


@pytest.mark.parametrize(
    "text",
    [
        "Write <function=NAME> then the parameters.",
        "<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n",  # cut before </function>
        "<function=get_weather\n<parameter=city>\nParis\n</parameter>\n</function>",  # no '>' after the name
        "<function=f>\nLet me think.\n</function>",  # stray text inside
        "<function=f>\n<parameter=a>\n<tool_call>\n</parameter>\n</function>",  # a <tool_call> in a value
        "<function=f>\n<parameter=a>\n1<|im_end|>\n</parameter>\n</function>",
        "<function=",
    ],
)
def test_prose_mentioning_a_function_stays_text(text: str) -> None:
    """Only a complete bare function is a call: the rest is text, read on right after the tag."""
    for dialect in ("hermes", XML_DIALECTS[0]):
        result = assert_engines_agree(text, dialect=dialect)
        assert isinstance(result, ht.Completion)
        assert not result.tool_calls and "HT234" not in {d.code for d in result.diagnostics}
        assert "<function=" in "".join(p.text for p in result.parts if isinstance(p, ht.Text))


def test_regression_a_bare_function_given_up_is_read_again_as_assistant_text() -> None:
    """The text after a ``<function=`` that is not a bare function is assistant text again: reasoning,
    blocks and a complete bare function later in it are read (the stream held it, then reads it again)."""
    text = "<function=a> <think>x</think> <function=b>\n</function>\n" + xml_call_block("c", {})
    result = assert_engines_agree(text, dialect=XML_DIALECTS[0])
    assert isinstance(result, ht.Completion)
    assert _kinds(result) == [
        ("Text", "<function=a> "),
        ("Reasoning", "x"),
        ("Text", " "),
        ("ToolCall", "b"),
        ("Text", "\n"),
        ("ToolCall", "c"),
    ]


@pytest.mark.parametrize("limit", [10, 20, 25, 26, 40])
def test_regression_bare_function_bounded_by_max_block_chars(limit: int) -> None:
    """A bare function is read within ``max_block_chars`` of its tag (a stream holds no more than that);
    its ``</tool_call>`` is absorbed only within the bound too (``_xmlbody.bare_extent``)."""
    text = "<function=f>\n</function>\n</tool_call>x"  # the function is 24 characters, with the closer 37
    result = assert_engines_agree(text, dialect=XML_DIALECTS[0], max_block_chars=limit)
    assert isinstance(result, ht.Completion)
    want = [] if limit < 24 else ["<function=f>\n</function>" + ("\n</tool_call>" if limit >= 37 else "")]
    assert [c.raw for c in result.tool_calls] == want


@settings(max_examples=60)
@given(st.data(), st.sampled_from(["hermes", *XML_DIALECTS]))
def test_incomplete_bare_functions_stay_text(data: st.DataObject, dialect: Any) -> None:
    """Property: text holding ``<function=`` with no complete structure after it (a mention, a bare
    function cut before its ``</function>``) is text in both engines, on every chunking, as written."""
    no_tag = st.characters(exclude_characters="<")
    bare = xml_call_block("f", {"a": data.draw(st.text(no_tag, max_size=8))})[len("<tool_call>\n") :]
    cut = bare[: data.draw(st.integers(min_value=0, max_value=bare.index("</function>") + len("</function>") - 1))]
    mention = data.draw(st.sampled_from(["<function=", "<function=f>", "use <function=NAME> tags", cut]))
    text = data.draw(st.text(no_tag, max_size=10)) + mention
    chunks = data.draw(chunkings(text))
    result = assert_engines_agree(text, chunkings=[chunks], dialect=dialect, starts_in_reasoning=False)
    assert isinstance(result, ht.Completion)
    assert not result.tool_calls
    assert "".join(p.text for p in result.parts if isinstance(p, ht.Text)) == text


# ------------------------------------------------------------------------------------ calls ending reasoning (HT242)

JSON_CALL = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
XML_CALL = xml_call_block("get_weather", {"city": "Paris"})


@pytest.mark.parametrize("dialect", ["hermes", "qwen3", *XML_DIALECTS])
@pytest.mark.parametrize("prefilled", [False, True])
def test_call_that_ends_unclosed_reasoning_is_a_call(dialect: Any, prefilled: bool) -> None:
    """Issue 29 item 4: Qwen3.5 after its prefilled ``<think>\\n`` ends its turn with the call and never
    writes ``</think>``: the call is read, with ``HT242``; the reasoning ends before it (``HT111``); in
    every dialect (either body), both engines, every chunking; strict: ``HT242`` and ``HT111`` errors."""
    for call in (XML_CALL, JSON_CALL):
        opener = "" if prefilled else "<think>"
        text = f"{opener}I will look it up.\n{call}\n<|im_end|>"
        options = {"dialect": dialect, "tools": WEATHER, "starts_in_reasoning": prefilled}
        result = assert_engines_agree(text, **options)
        assert isinstance(result, ht.Completion)
        assert _kinds(result) == [("Reasoning", "I will look it up.\n"), ("ToolCall", "get_weather"), ("Text", "\n")]
        first = len(opener) + len("I will look it up.\n")
        codes = [(d.code, d.span.start) for d in result.diagnostics if d.code != "HT238"]
        assert codes == [("HT111", 0), ("HT242", first)]
        assert result.parts[0].span.end == first and result.tool_calls[0].arguments == {"city": "Paris"}
        assert result.to_openai()["tool_calls"][0]["function"]["name"] == "get_weather"
        assert assert_engines_agree(text, strict=True, **options) is None
        with pytest.raises(ht.ParseError) as raised:
            ht.parse_completion(text, strict=True, **options)
        assert {d.code for d in raised.value.diagnostics} >= {"HT111", "HT242"}


@pytest.mark.parametrize(
    "text",
    [
        f"<think>\nplan {XML_CALL}\n</think>\n",  # a closed block: calls_in_reasoning decides (HT124)
        f"<think>\nplan {XML_CALL}\nthen more reasoning",  # text after the call: reasoning
        f"<think>\nplan {XML_CALL}\n<tool_call>\n<function=f>\n<parameter=a>\n1\n",  # the last one cut off
        '<think>\nplan <tool_call>{"name": "f", "arguments": "</think>"}</tool_call>',  # closed inside a string
        "<think>\nplan <tool_call>\nnot a call\n</tool_call>",  # a plain body is text
        f"<think>\nplan <tool_call>{{broken</tool_call>\n{JSON_CALL}",  # a block that holds no call in the run
    ],
)
def test_calls_inside_reasoning_that_do_not_end_it_stay_reasoning(text: str) -> None:
    """Only closed blocks holding calls, after the last reasoning text of a block never closed, leave it."""
    for dialect in ("hermes", XML_DIALECTS[1]):
        result = assert_engines_agree(text, dialect=dialect, starts_in_reasoning=False)
        assert isinstance(result, ht.Completion)
        assert not result.tool_calls and "HT242" not in {d.code for d in result.diagnostics}
        with_calls = assert_engines_agree(text, dialect=dialect, starts_in_reasoning=False, calls_in_reasoning=True)
        assert isinstance(with_calls, ht.Completion)
        assert "HT242" not in {d.code for d in with_calls.diagnostics}


def test_several_calls_end_unclosed_reasoning() -> None:
    """Each closed block after the last reasoning text is a call; the whitespace between them is text."""
    text = f"Thinking.\n{XML_CALL}\n\n{xml_call_block('run', {'cmd': 'ls'})}\n"
    result = assert_engines_agree(text, dialect=XML_DIALECTS[1])
    assert isinstance(result, ht.Completion)
    assert _kinds(result) == [
        ("Reasoning", "Thinking.\n"),
        ("ToolCall", "get_weather"),
        ("Text", "\n\n"),
        ("ToolCall", "run"),
        ("Text", "\n"),
    ]
    assert [c.index for c in result.tool_calls] == [0, 1]
    assert [d.code for d in result.diagnostics] == ["HT111", "HT242", "HT242"]


@settings(max_examples=60)
@given(st.data(), st.sampled_from(["hermes", *XML_DIALECTS]), st.booleans())
def test_unclosed_reasoning_with_a_call_then_more_reasoning_stays_reasoning(
    data: st.DataObject, dialect: Any, json_body: bool
) -> None:
    """Property: in a reasoning block never closed, a complete call followed by more reasoning text is
    reasoning (``HT124``), on every chunking; without that text it is a call (``HT242``)."""
    no_tag = st.characters(exclude_characters="<")
    prose = data.draw(st.text(no_tag, max_size=12))
    after = data.draw(st.text(no_tag, min_size=1, max_size=12).filter(lambda t: t.strip(" \t\n\r")))
    call = JSON_CALL if json_body else XML_CALL
    sep = data.draw(st.sampled_from(["", "\n", " "]))
    text = f"<think>{prose}{call}{sep}{after}"
    result = assert_engines_agree(text, chunkings=[data.draw(chunkings(text))], dialect=dialect, tools=WEATHER)
    assert isinstance(result, ht.Completion)
    assert [type(p).__name__ for p in result.parts] == ["Reasoning"] and not result.tool_calls
    assert result.parts[0].text == text[len("<think>") :]
    ended = f"<think>{prose}{call}{sep}"
    result = assert_engines_agree(ended, chunkings=[data.draw(chunkings(ended))], dialect=dialect, tools=WEATHER)
    assert isinstance(result, ht.Completion)
    assert [c.name for c in result.tool_calls] == ["get_weather"]
    assert "HT242" in {d.code for d in result.diagnostics}


# the room of a held run (docs/parsing.md §4.2): one block's at max_block_chars, its two tags included
_ROOM_TAGS = len("<tool_call>") + len("</tool_call>")


@pytest.mark.parametrize("dialect", ["hermes", *XML_DIALECTS[:2]])
@pytest.mark.parametrize("json_body", [True, False])
def test_calls_ending_unclosed_reasoning_are_bounded_by_one_blocks_room(dialect: Any, json_body: bool) -> None:
    """HT242's bound: the run of blocks and whitespace that ends a reasoning block never closed, from its
    first ``<tool_call>`` to the end of the body, is calls when it fits in one block's room
    (``max_block_chars`` plus the two tags); one character more and it is reasoning text (``HT124``),
    as the stream gives a held run back (``held_long``) so its memory stays bounded; both engines,
    every chunking incl. 1-char."""
    call = JSON_CALL if json_body else XML_CALL
    run = f"{call}\n{call}\n"
    chars = len(run) - _ROOM_TAGS  # the run exactly at the bound
    text = f"<think>plan\n{run}"
    for max_block_chars, calls in ((chars, 2), (chars + 7, 2), (chars - 1, 0)):
        options = {"dialect": dialect, "tools": WEATHER, "max_block_chars": max_block_chars}
        result = assert_engines_agree(text, chunkings=[[text[:k], text[k:]] for k in range(len(text))], **options)
        assert isinstance(result, ht.Completion)
        assert len(result.tool_calls) == calls
        codes = [d.code for d in result.diagnostics if d.code != "HT238"]
        assert codes == (["HT111", "HT242", "HT242"] if calls else ["HT111", "HT124", "HT124"])
        if not calls:
            assert [type(p).__name__ for p in result.parts] == ["Reasoning"]
            assert result.parts[0].text == text[len("<think>") :]
    # past the bound only by the trailing whitespace: the same rule (the end of the body counts)
    options = {"dialect": dialect, "tools": WEATHER, "max_block_chars": chars}
    result = assert_engines_agree(text + " ", **options)
    assert isinstance(result, ht.Completion) and not result.tool_calls


@settings(max_examples=150)
@given(st.data(), st.sampled_from(["hermes", XML_DIALECTS[1]]))
def test_held_runs_past_their_bound_agree(data: st.DataObject, dialect: Any) -> None:
    """Property: a reasoning block never closed with runs of call blocks (closed, unterminated, broken,
    plain, with tags in strings), whitespace and text, under a ``max_block_chars`` small enough that
    runs pass their bound anywhere (inside a tag too) but larger than each block (a block cut by its own
    bound across a tag is not this rule): both engines agree on every chunking."""
    pieces = st.sampled_from(
        [JSON_CALL, XML_CALL, "\n", "  ", "text", "<tool_call>{broken</tool_call>", "<tool_call>\nplain\n</tool_call>",
         '<tool_call>{"name": "f", "arguments": {"a": "<tool_call>x"}}</tool_call>', "<tool_call>", "</tool_call>"]
    )
    text = "<think>" + "".join(data.draw(st.lists(pieces, max_size=7)))
    chars = data.draw(st.integers(1, 4 * len(XML_CALL)))
    chunks = data.draw(chunkings(text))
    assert_engines_agree(text, chunkings=[chunks], dialect=dialect, tools=WEATHER, max_block_chars=chars)
    assert_engines_agree(text + "</think>", chunkings=[], dialect=dialect, tools=WEATHER, max_block_chars=chars)


def test_a_long_run_of_held_blocks_keeps_retain_false_memory_bounded() -> None:
    """``StreamParser(retain=False)`` holds a run of call blocks separated only by whitespace inside a
    reasoning block never closed (``held``/``held_after``) for at most one block's room: past it the run
    is given back as reasoning (``held_long``) and read on. The held text never passes the room plus one
    tag, and the peak memory of a long run is that of the same length of plain reasoning (the open
    reasoning segment keeps its text either way, docs/statemachine.md), not a multiple of it (before:
    the whole run held beside it, 12x at 800 KB); no call until the end, where the last run may fit;
    the events are the whole parse's."""
    import tracemalloc

    from hermes_toolcall.statemachine._assembler import Held

    unit = '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call> '  # no line ends
    plain = "r" * (len(unit) - 1) + " "
    max_block_chars = 4_000
    room = len("<tool_call>") + max_block_chars + len("</tool_call>")

    def peak(piece: str, repeats: int) -> int:
        tracemalloc.start()
        p = ht.StreamParser(retain=False, ids=ht.sequential_ids(), max_block_chars=max_block_chars)
        p.feed("<think>plan ")
        held = 0
        for _ in range(repeats):
            for chunk in (piece[:30], piece[30:]):
                assert not any(isinstance(e, ht.ToolCallStart) for e in p.feed(chunk))
                element = p._asm.element
                if isinstance(element, Held):
                    held = max(held, sum(map(len, element.pieces)))
        calls = sum(isinstance(e, ht.ToolCallStart) for e in p.close())  # the last run, if it fits
        assert calls <= room // len(piece)
        top = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert held <= room + len("<tool_call>"), held
        return top

    peak(unit, 1_000)  # warm-up: one-off global allocations fall here (see test_edges' retain=False test)
    run, reasoning = peak(unit, 10_000), peak(plain, 10_000)  # 800 KB each
    assert run < 1.3 * reasoning + 4 * room + 50_000, (run, reasoning)
    text = "<think>plan " + unit * 150
    chunks = [text[:999], text[999:]]
    assert_engines_agree(text, max_block_chars=max_block_chars, char_by_char=False, chunkings=[chunks])
