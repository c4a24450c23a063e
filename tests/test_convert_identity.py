"""``convert --from X --to X`` is the identity (issue 30, item 3): ``Transcript.to_request(dialect=X)`` inverts
``render(dialect=X)`` for every dialect in ``DIALECTS``.

What broke it: reasoning markup written in assistant content came back as ``reasoning_content`` (which the
hermes, hermes-vllm, qwen2.5 and qwq templates never render: the turn came out empty); object arguments came
back as a JSON string that the encoding templates (hermes-vllm, qwen2.5, qwq) encoded twice; content before
the calls lost its trailing whitespace; QwQ's generation prompt (``<think>\\n``) became a message; call names
with ``\\n``, ``\\t`` or NUL rendered as invalid JSON; and a system turn holding only a ``<tools>`` block could
not be converted at all. Where the identity cannot hold (reasoning markup in content where the dialect
renders reasoning in blocks of its own: qwen3, omp) ``render`` refuses, naming the field.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

import hermes_toolcall as ht
from hermes_toolcall._profiles import DIALECTS
from hermes_toolcall.cli._convert_cmd import convert
from hermes_toolcall.render import render
from hermes_toolcall.testing import plain_texts, tools
from hypothesis_stats import count

pytest_plugins = ["hypothesis_stats"]

BIN = Path(sys.executable).parent / "hermes-toolcall"

_MARKUP = (
    "<think>r</think>c",
    "<think>\nr\n</think>\n\nc",
    "<scratch_pad>s</scratch_pad>x",
    "a </think> b",
    "<think>open",
    "x<think>y",
    "</scratch_pad>",
    "<tools>t</tools>",
    "</tool_call>",
    "\n",
    "  ",
    "tail\n",
    "",
)
_TEXT = st.one_of(
    st.sampled_from(_MARKUP),
    plain_texts(max_size=12),
    st.tuples(st.sampled_from(_MARKUP), plain_texts(max_size=6), st.sampled_from(_MARKUP)).map("".join),
)
_GOOD_NAMES = st.sampled_from(["f", "get_weather", "a.b-c", "ü"])
_NAMES = st.one_of(_GOOD_NAMES, _GOOD_NAMES, _GOOD_NAMES, st.sampled_from(["f\n", "f\tg", "f\x00", 'f"q', "f g"]))
_ARGUMENTS = st.one_of(
    st.dictionaries(
        st.sampled_from(["a", "b", "ü"]),
        st.one_of(
            st.integers(),
            st.floats(allow_nan=False, allow_infinity=False),
            st.text(max_size=5),
            st.lists(st.integers(), max_size=2),
            st.dictionaries(st.just("k"), st.booleans(), max_size=1),
            st.none(),
        ),
        max_size=3,
    ),
    st.sampled_from(['{"a": 1}', "{}", '{"a":[1,2]}', '"x"', "[1]"]),
)


@st.composite
def hostile_conversations(draw: st.DrawFn) -> tuple[list[dict[str, Any]], list[dict[str, Any]] | None]:
    """OpenAI conversations with markup in every text, odd names, object and string arguments, reasoning."""
    declared = draw(st.one_of(st.none(), tools()))
    messages: list[dict[str, Any]] = []
    if draw(st.booleans()):
        messages.append({"role": "system", "content": draw(_TEXT)})
    for _ in range(draw(st.integers(1, 3))):
        messages.append({"role": "user", "content": draw(_TEXT)})
        if draw(st.booleans()):
            calls = [
                {
                    "id": f"c{len(messages)}_{k}",
                    "type": "function",
                    "function": {"name": draw(_NAMES), "arguments": draw(_ARGUMENTS)},
                }
                for k in range(draw(st.integers(1, 2)))
            ]
            m: dict[str, Any] = {
                "role": "assistant",
                "content": draw(st.one_of(st.just(""), _TEXT)),
                "tool_calls": calls,
            }
            if draw(st.booleans()):
                m["reasoning_content"] = draw(_TEXT)
            messages.append(m)
            for c in calls:
                messages.append(
                    {"role": "tool", "tool_call_id": c["id"], "content": draw(st.sampled_from(["ok", '{"r": 1}']))}
                )
        answer: dict[str, Any] = {"role": "assistant", "content": draw(_TEXT)}
        if draw(st.booleans()):
            answer["reasoning_content"] = draw(_TEXT)
        messages.append(answer)
    return messages, declared


def _identity(text: str, dialect: str) -> str:
    return convert(ht.parse_transcript(text, dialect=dialect), to=dialect, source=dialect)


@pytest.mark.parametrize("dialect", sorted(DIALECTS))
@given(conversation=hostile_conversations(), prompt=st.booleans())
@example(conversation=([{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "", "tool_calls": [
    {"id": "c", "type": "function", "function": {"name": "f", "arguments": {"city": "Paris"}}}]},
    {"role": "tool", "tool_call_id": "c", "content": "ok"}], [{"type": "function", "function": {
        "name": "f", "description": "F.", "parameters": {"type": "object", "properties": {
            "city": {"type": "string"}}}}}]), prompt=False)
def test_convert_x_to_x_is_the_identity(dialect: str, conversation: Any, prompt: bool) -> None:
    """Every prompt ``render`` writes (it may refuse) converts to itself, in every dialect of ``DIALECTS``."""
    messages, declared = conversation
    try:
        text = render(messages, tools=declared, dialect=dialect, add_generation_prompt=prompt)
    except ht.RenderError:
        count(f"convert identity: refused ({dialect})")
        return
    count(f"convert identity: rendered ({dialect})")
    assert _identity(text, dialect) == text


# ------------------------------------------------------------------------------------ named cases

_PLAIN = [{"role": "user", "content": "Hi"}]
_CALL = {
    "id": "c",
    "type": "function",
    "function": {"name": "get_weather", "arguments": {"city": "Paris", "n": [1, 2.5]}},
}


@pytest.mark.parametrize("dialect", ["hermes", "hermes-vllm", "qwen2.5", "qwq"])
@pytest.mark.parametrize(
    "content", ["<think>\nplan\n</think>\n\nSunny.", "<scratch_pad>s</scratch_pad>Done", "a<think>b"]
)
def test_reasoning_markup_in_content_stays_content(dialect: str, content: str) -> None:
    """Issue 30 item 3: the turn came out empty (reasoning_content, which these templates never render)."""
    messages = [*_PLAIN, {"role": "assistant", "content": content}, {"role": "user", "content": "ok"}]
    messages.append({"role": "assistant", "content": content})
    text = render(messages, dialect=dialect, tools=[] if dialect == "hermes" else None)
    assert _identity(text, dialect) == text
    request = ht.parse_transcript(text, dialect=dialect).to_request(dialect=dialect)
    assert request["messages"][-1]["content"] == content
    assert "reasoning_content" not in request["messages"][-1] or request["messages"][-1]["reasoning_content"] is None


@pytest.mark.parametrize("last", [False, True])
def test_qwen3_stray_think_closer_in_a_verbatim_turn(last: bool) -> None:
    """Hypothesis find (qwen3): with ``reasoning_content`` given, the template writes a content holding
    ``</think>`` verbatim (a turn before the last query, or one after it without reasoning); converted back
    without ``reasoning_content`` the template split it at ``</think>`` (``a </think> b`` became `` b``)."""
    turn = {"role": "assistant", "content": "a </think> b", "reasoning_content": "" if last else "r"}
    messages = [*_PLAIN, turn] if last else [*_PLAIN, turn, {"role": "user", "content": "q"}, {"role": "assistant",
                                                                                              "content": "c"}]
    text = render(messages, dialect="qwen3")
    assert "a </think> b" in text
    assert _identity(text, "qwen3") == text


@pytest.mark.parametrize(("content", "reasoning", "written"), [
    ("", "\n", "<think>\n\n</think>\n\n<tool_call>"),
    ("", "\n\n", "<think>\n\n</think>\n\n<tool_call>"),
    ("\n", "x", "<think>\nx\n</think>\n\n\n<tool_call>"),
])
def test_regression_qwen3_newlines_before_a_call(content: str, reasoning: str, written: str) -> None:
    """Hypothesis finds: Qwen3 writes ``<think>\\n\\n</think>`` for a ``reasoning_content`` of newlines in a turn
    that is not the last, and only for a true one (the request gave none back: the block was lost); and content
    of newlines only is stripped to nothing but, being true, still writes the newline before the call (the
    request gave ``""`` back: the newline was lost)."""
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "<think>r</think>c"},
        {"role": "assistant", "content": content, "tool_calls": [{**_CALL, "id": "c1_0"}],
         "reasoning_content": reasoning},
        {"role": "tool", "tool_call_id": "c1_0", "content": "ok"},
        {"role": "assistant", "content": "<think>r</think>c"},
    ]
    text = render(messages, dialect="qwen3")
    assert written in text
    assert _identity(text, "qwen3") == text


@pytest.mark.parametrize("dialect", ["hermes-vllm", "qwen2.5", "qwq"])
def test_object_arguments_are_not_encoded_twice(dialect: str) -> None:
    """Issue 30 item 3: object arguments came back as a string and were re-rendered double-encoded."""
    messages = [*_PLAIN, {"role": "assistant", "content": "", "tool_calls": [_CALL]}]
    messages.append({"role": "tool", "tool_call_id": "c", "content": "ok"})
    as_string = {**_CALL, "function": {"name": "f", "arguments": '{"a": 1}'}}
    messages += [{"role": "user", "content": "again"}, {"role": "assistant", "content": "x", "tool_calls": [as_string]}]
    text = render(messages, dialect=dialect)
    assert '"arguments": {"city": "Paris"' in text and '"arguments": "{\\"a\\": 1}"' in text
    assert _identity(text, dialect) == text


@pytest.mark.parametrize("dialect", sorted(DIALECTS))
def test_content_before_calls_keeps_its_whitespace(dialect: str) -> None:
    messages = [*_PLAIN, {"role": "assistant", "content": "\nLet me check.  ", "tool_calls": [_CALL]}]
    messages.append({"role": "tool", "tool_call_id": "c", "content": "ok"})
    text = render(messages, dialect=dialect, tools=[])
    assert _identity(text, dialect) == text


@pytest.mark.parametrize("dialect", sorted(DIALECTS))
def test_generation_prompt_stays_a_prompt(dialect: str) -> None:
    """QwQ's prompt ends with ``<think>\\n``: it became an assistant message (its reasoning-as-content)."""
    text = render(_PLAIN, dialect=dialect, tools=[], add_generation_prompt=True)
    assert _identity(text, dialect) == text


@pytest.mark.parametrize("dialect", sorted(DIALECTS))
@pytest.mark.parametrize("name", ["get\nweather", "get\tweather", "get\x00weather"])
def test_names_with_control_characters_are_refused_or_round_trip(dialect: str, name: str) -> None:
    """Issue 30 item 3: names with ``\\n``, ``\\t``, NUL rendered as invalid JSON (docs/dialects.md: refused)."""
    call = {"id": "c", "type": "function", "function": {"name": name, "arguments": {}}}
    messages = [*_PLAIN, {"role": "assistant", "content": "", "tool_calls": [call]}]
    try:
        text = render(messages, dialect=dialect, tools=[])
    except ht.RenderError as exc:
        assert exc.field == "tool_calls[0].function.name" and exc.offset == 3 and exc.message_index == 1
        return
    parsed = ht.parse_transcript(text, dialect=dialect)
    assert [p.name for t in parsed.turns for p in t.parts if isinstance(p, ht.ToolCall)] == [name]
    assert not [d for d in parsed.diagnostics if d.code == "HT204"]  # written as JSON: escaped
    assert _identity(text, dialect) == text


def test_names_with_control_characters_are_refused_where_written_raw() -> None:
    call = {"id": "c", "type": "function", "function": {"name": "f\n", "arguments": {}}}
    messages = [*_PLAIN, {"role": "assistant", "content": "", "tool_calls": [call]}]
    refused = []
    for dialect in ("hermes", "hermes-vllm", "qwen3", "qwen2.5", "qwq"):
        with pytest.raises(ht.RenderError, match="broken call"):
            render(messages, dialect=dialect, tools=[])
        refused.append(dialect)
    assert render(messages, dialect="hermes", tools=[], allow_injection=True)  # the template's bytes, on request
    from hermes_toolcall.render import render_tool_call

    with pytest.raises(ht.RenderError):
        render_tool_call({"name": "f\t", "arguments": {}}, dialect="qwen3")


@pytest.mark.parametrize("dialect", ["qwen3", "omp"])
@pytest.mark.parametrize("content", ["a<think>b", "<scratch_pad>s</scratch_pad>x"])
def test_markup_that_would_move_into_reasoning_is_refused(dialect: str, content: str) -> None:
    """Where the dialect renders reasoning in blocks of its own, markup in content would move text into it."""
    messages = [*_PLAIN, {"role": "assistant", "content": content, "reasoning_content": "plan"}]
    with pytest.raises(ht.RenderError, match="reasoning") as info:
        render(messages, dialect=dialect)
    assert info.value.field == "content" and info.value.message_index == 1
    assert render(messages, dialect=dialect, allow_injection=True)


TOOLS_ONLY = (
    '<|im_start|>system\n<tools>\n{"type": "function", "function": {"name": "lookup", "description": "Look up.", '
    '"parameters": {"type": "object", "properties": {"q": {"type": "string"}}}}}\n</tools><|im_end|>\n'
    "<|im_start|>user\nhi<|im_end|>\n"
)


@pytest.mark.parametrize("target", sorted(DIALECTS))
def test_a_tools_only_system_turn_converts_to_every_dialect(target: str) -> None:
    """Issue 30 item 3: the turn could not be converted to any dialect (docs/validate.md §10: it is dropped)."""
    t = ht.parse_transcript(TOOLS_ONLY)
    request = t.to_request()
    assert request["messages"] == [{"role": "user", "content": "hi"}]
    assert [tool["function"]["name"] for tool in request["tools"]] == ["lookup"]
    out = convert(t, to=target)
    back = ht.parse_transcript(out, dialect=target)
    assert [tool["function"]["name"] for tool in back.tools] == ["lookup"]
    mixed = TOOLS_ONLY.replace("<|im_start|>system\n", "<|im_start|>system\nBe brief.\n")
    request = ht.parse_transcript(mixed).to_request()
    assert request["messages"][0] == {"role": "system", "content": "Be brief.\n"}  # the rest of the turn stays


def test_cli_convert_identity_through_the_entry_point(tmp_path: Path) -> None:
    messages = [*_PLAIN, {"role": "assistant", "content": "<think>\nplan\n</think>\n\nx", "tool_calls": [_CALL]}]
    messages.append({"role": "tool", "tool_call_id": "c", "content": "ok"})
    for dialect in ("hermes-vllm", "qwen2.5", "qwq"):
        text = render(messages, dialect=dialect)
        path = tmp_path / f"{dialect}.chatml"
        path.write_text(text, encoding="utf-8")
        run = subprocess.run(
            [BIN, "convert", "--from", dialect, "--to", dialect, str(path)], capture_output=True, check=False
        )
        assert (run.returncode, run.stdout.decode()) == (0, text), run.stderr.decode()
    path = tmp_path / "tools.chatml"
    path.write_text(TOOLS_ONLY, encoding="utf-8")
    run = subprocess.run([BIN, "convert", "--to", "qwen3", str(path)], capture_output=True, check=False)
    assert run.returncode == 0, run.stderr.decode()


def test_regression_qwq_history_content_the_template_empties() -> None:
    """Hypothesis find (speed helper, main at a8c7a34): QwQ writes a history turn's content ``"\\n"`` beside a call
    as ``assistant\\n\\n<tool_call>`` (``'\\n' + content.lstrip('\\n')``); convert read it back as ``''``, which the
    template writes as ``assistant\\n<tool_call>``. It reads back as ``"\\n"`` now, so qwq -> qwq is the identity."""
    call = {"type": "function", "function": {"name": "f", "arguments": {}}}
    for content in ("\n", "\n\n", "r</think>", "r</think>\n"):
        messages = [
            {"role": "user", "content": "<think>r</think>c"},
            {"role": "assistant", "content": content, "tool_calls": [call]},
            {"role": "tool", "content": "ok"},
            {"role": "assistant", "content": "<think>r</think>c"},
        ]
        text = render(messages, dialect="qwq")
        assert "<|im_start|>assistant\n\n<tool_call>" in text
        assert _identity(text, "qwq") == text


@pytest.mark.parametrize("dialect", ["qwen3.5", "step-3.5"])
def test_regression_stray_think_closer_in_a_history_turn_after_last_query(dialect: str) -> None:
    """Hypothesis find (qwen3.5, test_convert_x_to_x_is_the_identity): the Qwen3.5 and Step templates write a history
    turn's content holding ``</think>`` verbatim when ``reasoning_content`` is a string, and split it at ``</think>``
    when it is not; converted back without ``reasoning_content``, ``a </think> b`` was written `` b``. The content
    now comes back with ``reasoning_content`` ``''`` (as qwen3's does)."""
    messages = [{"role": "user", "content": "q"},
                {"role": "assistant", "content": "a </think> b", "reasoning_content": "<think>r</think>c"},
                {"role": "user", "content": "<think>r</think>c"}, {"role": "assistant", "content": "c"}]
    text = render(messages, dialect=dialect)
    assert "a </think> b" in text
    assert _identity(text, dialect) == text


def test_regression_nemotron_gives_content_back_without_the_think_block_it_adds() -> None:
    """Convert-pairs find (nemotron-3 -> omp): Nemotron writes ``<think></think>`` before an assistant content that
    holds no reasoning markup; it came back as part of the content, which omp refuses (it would read as reasoning)
    and every other dialect writes as text. It is given back without it (Nemotron adds it again)."""
    messages = [{"role": "user", "content": "q"}, {"role": "assistant", "content": "18 °C."}]
    text = render(messages, dialect="nemotron-3")
    assert "<think></think>18 °C." in text
    request = ht.parse_transcript(text, dialect="nemotron-3").to_request(dialect="nemotron-3")
    assert request["messages"][-1]["content"] == "18 °C."
    assert _identity(text, "nemotron-3") == text
    assert convert(ht.parse_transcript(text, dialect="nemotron-3"), to="omp", source="nemotron-3").endswith(
        "<|im_start|>assistant\n18 °C.<|im_end|>\n")
