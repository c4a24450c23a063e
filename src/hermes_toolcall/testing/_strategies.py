"""Hypothesis strategies for the Hermes format: conversations, rendered transcripts, completions,
adversarial text and chunkings.

This module requires ``hypothesis`` (``pip install 'hermes-toolcall[testing]'``); importing it
without hypothesis raises ``UsageError``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..errors import UsageError

try:
    from hypothesis import assume
    from hypothesis import strategies as st
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise UsageError("hermes_toolcall.testing needs hypothesis: pip install 'hermes-toolcall[testing]'") from exc

from .. import _jsonio as jsonio
from .._profiles import get_profile
from ..conformance import FRAGMENTS, MARKERS, VALID_CALLS
from ..render import block_end
from ..tags import ASSISTANT, CALL_CLOSE, CALL_OPEN, IM_END, RESP_CLOSE, RESP_OPEN, SYSTEM, TOOL, USER
from ._xml import XmlCase, xml_arguments, xml_call_block, xml_completion_cases, xml_strings

__all__ = [
    "CompletionCase",
    "XmlCase",
    "adversarial_texts",
    "arguments",
    "chunkings",
    "completion_cases",
    "completions",
    "conversations",
    "json_values",
    "mutations",
    "plain_texts",
    "rendered_transcripts",
    "tool_names",
    "tools",
    "truncations",
    "xml_arguments",
    "xml_call_block",
    "xml_completion_cases",
    "xml_strings",
]

SearchStrategy = st.SearchStrategy

# Prose that cannot form a marker or a control token: no "<", plus letters, digits, punctuation,
# quotes, braces, backslashes and non-ASCII.
_PROSE_ALPHABET = st.characters(
    codec="utf-8",
    categories=("L", "N", "P", "S", "Zs"),
    exclude_characters="<\x00",
)


def plain_texts(*, min_size: int = 0, max_size: int = 40) -> SearchStrategy[str]:
    """Prose with no ``<`` (so no marker or control token), spaces and newlines included.

    >>> plain_texts().example().count("<")
    0
    """
    extra = st.sampled_from("\n\t {}[]\"'\\:,")
    return st.text(st.one_of(_PROSE_ALPHABET, extra), min_size=min_size, max_size=max_size)


def _strings() -> SearchStrategy[str]:
    # Argument strings: anything, markers and control-looking text included (JSON escapes them or not).
    return st.one_of(
        st.text(max_size=20),
        st.sampled_from([CALL_CLOSE, CALL_OPEN, "what's", 'say "hi"', "C:\\", "{", "}", "北京", "😀", ""]),
    )


def json_values(*, max_leaves: int = 8) -> SearchStrategy[Any]:
    """JSON values (null, booleans, integers, finite floats, strings, lists, objects).

    >>> jsonio.loads(jsonio.dumps_spaced(json_values().example())) is not Ellipsis
    True
    """
    leaves = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(min_value=-(2**53), max_value=2**53),
        st.floats(allow_nan=False, allow_infinity=False),
        _strings(),
    )
    return st.recursive(
        leaves,
        lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(_strings(), inner, max_size=4)),
        max_leaves=max_leaves,
    )


def arguments() -> SearchStrategy[dict[str, Any]]:
    """A call's arguments object: parameter names to JSON values."""
    return st.dictionaries(st.from_regex(r"[a-z_][a-z0-9_]{0,11}", fullmatch=True), json_values(), max_size=4)


def tool_names() -> SearchStrategy[str]:
    """Tool names as models write them (``get_weather``, ``search2``)."""
    return st.from_regex(r"[a-z][a-z0-9_]{0,15}", fullmatch=True)


def tools(*, min_size: int = 1, max_size: int = 3) -> SearchStrategy[list[dict[str, Any]]]:
    """OpenAI tool definitions with distinct names and simple JSON-Schema parameters."""

    def tool(name: str, params: list[str], description: str) -> dict[str, Any]:
        properties = {p: {"type": "string", "description": f"the {p}"} for p in params}
        return {
            "type": "function",
            "function": {
                "name": name,
                "description": description,
                "parameters": {"type": "object", "properties": properties, "required": params[:1]},
            },
        }

    one = st.builds(
        tool,
        tool_names(),
        st.lists(st.from_regex(r"[a-z]{1,8}", fullmatch=True), max_size=3, unique=True),
        st.text(st.characters(codec="ascii", categories=("L", "N", "Zs")), min_size=1, max_size=30),
    )
    return st.lists(one, min_size=min_size, max_size=max_size, unique_by=lambda t: t["function"]["name"])


def _message_text() -> SearchStrategy[str]:
    # Content the templates print verbatim; no leading/trailing ws (Qwen templates strip some).
    return plain_texts(min_size=1, max_size=30).map(str.strip).filter(bool)


def ends_at_its_closer(result: str) -> bool:
    """A tool result whose ``<tool_response>`` block ends at its own closer (the renderer refuses others).

    A body that looks like JSON (``{``/``[`` first) is read string-aware, so an unterminated string in it
    would swallow the closer (docs/parsing.md §5.3).

    >>> ends_at_its_closer('["'), ends_at_its_closer('[""]'), ends_at_its_closer('x "')
    (False, True, True)
    """
    return block_end(result + RESP_CLOSE, RESP_CLOSE, RESP_OPEN) == len(result)


def _result_text() -> SearchStrategy[str]:
    # A tool result the renderer accepts (hypothesis found '["', which plain texts may draw).
    return _message_text().filter(ends_at_its_closer)


@st.composite
def conversations(
    draw: Callable[..., Any], dialect: str = "hermes"
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """An OpenAI conversation ``(messages, tools)`` the dialect's renderer accepts.

    System prompt (optional), then one to three exchanges: a user message, then either an assistant
    answer, or an assistant message with one to three calls of the declared tools, one tool
    result per call, and an assistant answer.
    """
    get_profile(dialect)  # check the name
    declared = draw(tools())
    messages: list[dict[str, Any]] = []
    if draw(st.booleans()):
        messages.append({"role": SYSTEM, "content": draw(_message_text())})
    for _ in range(draw(st.integers(min_value=1, max_value=3))):
        messages.append({"role": USER, "content": draw(_message_text())})
        if draw(st.booleans()):
            calls = []
            for k in range(draw(st.integers(min_value=1, max_value=3))):
                function = draw(st.sampled_from(declared))["function"]
                args = {p: draw(_message_text()) for p in function["parameters"]["properties"]}
                calls.append(
                    {
                        "id": f"call_{len(messages)}_{k}",
                        "type": "function",
                        "function": {"name": function["name"], "arguments": args},
                    }
                )
            messages.append({"role": ASSISTANT, "content": "", "tool_calls": calls})
            for c in calls:
                messages.append({"role": TOOL, "tool_call_id": c["id"], "content": draw(_result_text())})
        messages.append({"role": ASSISTANT, "content": draw(_message_text())})
    return messages, declared


@st.composite
def rendered_transcripts(
    draw: Callable[..., Any], dialect: str = "hermes", *, add_generation_prompt: bool | None = None
) -> str:
    """A conversation rendered by ``hermes_toolcall.render.render`` for the dialect (a transcript)."""
    from ..errors import RenderError
    from ..render import render

    messages, declared = draw(conversations(dialect))
    prompt = draw(st.booleans()) if add_generation_prompt is None else add_generation_prompt
    try:
        text: str = render(messages, tools=declared, dialect=dialect, add_generation_prompt=prompt)
    except RenderError:
        assume(False)
        raise  # unreachable: assume(False) aborts the example
    return text


@dataclass(frozen=True, slots=True, kw_only=True)
class CompletionCase:
    """A generated completion and what a parser must find in it."""

    text: str
    calls: tuple[tuple[str, dict[str, Any]], ...]


@st.composite
def completion_cases(draw: Callable[..., Any], dialect: str = "hermes") -> CompletionCase:
    """A model completion in the dialect's style with the calls it contains.

    Prose, an optional reasoning block (``<think>``/``<scratch_pad>``), then zero to three call
    blocks written in the dialect's JSON style, with or without newlines around the JSON, prose
    between and after, and an optional final ``<|im_end|>``.
    """
    profile = get_profile(dialect)
    dumps = jsonio.dumps_compact if profile.json_style == "compact" else jsonio.dumps_spaced
    pieces: list[str] = []
    if profile.reasoning_kinds and draw(st.booleans()):
        kind = draw(st.sampled_from(profile.reasoning_kinds))
        pieces.append(f"<{kind}>\n{draw(plain_texts(max_size=30))}\n</{kind}>\n\n")
    pieces.append(draw(plain_texts(max_size=20)))
    calls: list[tuple[str, dict[str, Any]]] = []
    for _ in range(draw(st.integers(min_value=0, max_value=3))):
        name, args = draw(tool_names()), draw(arguments())
        body = dumps({"name": name, "arguments": args})
        if draw(st.booleans()):
            pieces.append(f"{CALL_OPEN}\n{body}\n{CALL_CLOSE}")
        else:
            pieces.append(f"{CALL_OPEN}{body}{CALL_CLOSE}")
        pieces.append(draw(st.sampled_from(["", "\n", " ", "\n\n"])) if draw(st.booleans()) else draw(plain_texts()))
        calls.append((name, args))
    if draw(st.booleans()):
        pieces.append(IM_END)
    return CompletionCase(text="".join(pieces), calls=tuple(calls))


def completions(dialect: str = "hermes") -> SearchStrategy[str]:
    """The text of ``completion_cases(dialect)``."""
    return completion_cases(dialect).map(lambda c: c.text)


def truncations(text: str) -> SearchStrategy[str]:
    """``text`` cut at any point (the empty prefix and the whole text included)."""
    return st.integers(min_value=0, max_value=len(text)).map(lambda k: text[:k])


@st.composite
def mutations(draw: Callable[..., Any], text: str, *, max_edits: int = 3) -> str:
    """``text`` with a few random edits: delete, duplicate or replace a character, or insert a fragment."""
    out = text
    for _ in range(draw(st.integers(min_value=1, max_value=max_edits))):
        k = draw(st.integers(min_value=0, max_value=len(out)))
        op = draw(st.sampled_from(("delete", "duplicate", "insert", "replace")))
        if op == "delete":
            out = out[:k] + out[k + 1 :]
        elif op == "duplicate":
            out = out[: k + 1] + out[k:]
        elif op == "insert":
            out = out[:k] + draw(st.sampled_from(FRAGMENTS)) + out[k:]
        else:
            out = out[:k] + draw(st.sampled_from("{}[]\"\\':,<>/ x")) + out[k + 1 :]
    return out


def _nested(opener: str, closer: str, depth: int) -> str:
    return opener * depth + closer * depth


@st.composite
def nasty_calls(draw: Callable[..., Any]) -> str:
    """Call blocks at the edges of the value space: integers beyond Python's int/str limit, nesting
    of any depth, duplicate ``name``/``arguments`` keys, NaN/Infinity, lone surrogates (raw and
    escaped), NUL, a BOM, CRLF line ends, Python-literal bodies; sometimes truncated anywhere.

    >>> isinstance(nasty_calls().example(), str)
    True
    """
    digits = draw(st.integers(min_value=4290, max_value=4400))
    big = draw(st.sampled_from(["", "-"])) + "9" * digits
    depth = draw(st.sampled_from([2, 199, 201, 900, 1100, 3000]))
    value = draw(
        st.sampled_from(
            [
                big,
                big + ".5",
                "1e400",
                _nested("[", "]", depth),
                _nested('{"a": ', "}", depth).replace("}", "") + "1" + "}" * depth,
                "NaN",
                "-Infinity",
                '"\\ud800"',
                '"\ud800"',
                '"\udc00x"',
                '"\u0000"',
                '"a\x00b"',
                '"\ufeff"',
                '"line\r\nnext"',
            ]
        )
    )
    shape = draw(st.sampled_from(["plain", "dup-name", "dup-arguments", "python", "name-value", "crlf", "bom"]))
    name = '"f"'
    if shape == "name-value":
        name = value
    body = f'{{"name": {name}, "arguments": {{"v": {value}}}}}'
    if shape == "dup-name":
        body = f'{{"name": "read_file", "arguments": {{"v": {value}}}, "name": "delete_file"}}'
    elif shape == "dup-arguments":
        body = f'{{"name": "f", "arguments": {{"v": 1}}, "arguments": {{"v": {value}}}}}'
    elif shape == "python":
        body = body.replace('"', "'").replace("NaN", "float('nan')")
    text = f"{CALL_OPEN}\n{body}\n{CALL_CLOSE}"
    if shape == "crlf":
        text = text.replace("\n", "\r\n")
    elif shape == "bom":
        text = "\ufeff" + text
    if draw(st.booleans()):
        text = text[: draw(st.integers(min_value=0, max_value=len(text)))]
    return text


def adversarial_texts(*, max_pieces: int = 10) -> SearchStrategy[str]:
    """Adversarial input: markers, partial markers, stray closers, quotes, braces, backslashes,
    control tokens, non-ASCII, Python literals, truncated and mutated valid calls, random text, the
    value-space edges of `nasty_calls`, and XML-body completions with every malformation
    (`xml_completion_cases`), whole or truncated.

    >>> isinstance(adversarial_texts().example(), str)
    True
    """
    piece = st.one_of(
        st.sampled_from(FRAGMENTS),
        st.sampled_from(MARKERS),
        st.sampled_from(VALID_CALLS),
        st.sampled_from(VALID_CALLS).flatmap(truncations),
        st.sampled_from(VALID_CALLS).flatmap(mutations),
        st.text(max_size=6),
    )
    return st.one_of(
        st.lists(piece, max_size=max_pieces).map("".join),
        completions().flatmap(truncations),
        completions().flatmap(mutations),
        xml_completion_cases().map(lambda c: c.text),
        xml_completion_cases().map(lambda c: c.text).flatmap(truncations),
        st.tuples(
            st.lists(piece, max_size=2).map("".join), nasty_calls(), st.sampled_from(["", "Done.", f" {IM_END}"])
        ).map("".join),
    )


def chunkings(text: str, *, max_cuts: int = 12) -> SearchStrategy[tuple[str, ...]]:
    """Ways to cut ``text`` into chunks concatenating to ``text``: random cuts, one character at a
    time, fixed sizes, and random cuts with empty chunks between.

    >>> "".join(chunkings("abcdef").example())
    'abcdef'
    """
    from ._helpers import chunk_at

    if not text:
        return st.just(("",))
    cuts = st.lists(st.integers(min_value=0, max_value=len(text)), max_size=max_cuts)

    def cut(points: list[int]) -> tuple[str, ...]:
        return chunk_at(text, points)

    def with_empty(pieces: tuple[str, ...]) -> tuple[str, ...]:
        return (*(x for p in pieces for x in ("", p)), "")

    return st.one_of(
        cuts.map(cut),
        cuts.map(cut).map(with_empty),
        st.just(tuple(text)),
        st.integers(min_value=1, max_value=8).map(lambda n: tuple(text[i : i + n] for i in range(0, len(text), n))),
    )
