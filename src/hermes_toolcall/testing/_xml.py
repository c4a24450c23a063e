"""Hypothesis strategies for XML call bodies (Qwen3-Coder, Qwen3.5+, Nemotron 3, Step 3.5).

A writer of the templates' bytes (``xml_call_block``: strings raw, ``True``/``False``/``None``,
numbers with Python ``str``, objects and arrays with ``tojson``), typed arguments with their
schemas and nasty values, and completions with every malformation seen in the wild
(chatml-family.md §4), each recorded by name. This module requires ``hypothesis``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from .. import _jsonio as jsonio
from ..tags import (
    CALL_CLOSE,
    CALL_OPEN,
    FUNCTION_CLOSE,
    FUNCTION_OPEN,
    IM_END,
    PARAMETER_CLOSE,
    PARAMETER_OPEN,
    THINK_CLOSE,
    THINK_OPEN,
)

__all__ = [
    "MALFORMATIONS",
    "XmlCase",
    "xml_arguments",
    "xml_call_block",
    "xml_completion_cases",
    "xml_strings",
    "xml_value",
]

SearchStrategy = st.SearchStrategy

#: the malformations ``xml_completion_cases`` applies, by name (chatml-family.md §4)
MALFORMATIONS: tuple[str, ...] = (
    "parameter-unclosed",
    "closer-drifted",
    "function-no-gt",
    "parameter-no-gt",
    "function-unclosed",
    "bare-function",
    "bare-function-cut",
    "closer-repeated",
    "function-closer-repeated",
    "stray-text",
    "several-functions",
    "call-unterminated",
    "truncated",
    "json-body",
    "crlf",
    "reasoning-never-closed",
)

# values that look like the structure: a reader that finds closers by search alone gets them wrong
_NASTY_STRINGS = (
    "",
    " ",
    "\n",
    "\n\n",
    "  padded  ",
    "\nleading",
    "trailing\n",
    "line1\nline2\n",
    "a <b> & c",
    "AT&T <b>bold</b>",
    'print("</parameter>")',
    "x = '</function>'",
    "s.split('</tool_call>')",
    CALL_OPEN,
    "<parameter=x>",
    "a</parameter>b",
    "</parameter2>",
    "</parameters>",
    "True",
    "None",
    "null",
    "42",
    "3.0",
    "[]",
    "{}",
    "{'k': 'v'}",
    " " * 300,
    "tab\tand\r\ncrlf",
    "北京",
    "😀",
    "\ud800",
    "\x00",
    "\ufeff",
    "<|im_end",
    "&amp;&lt;",
)


def xml_strings() -> SearchStrategy[str]:
    """String argument values, the structure-like and whitespace-edge ones included."""
    return st.one_of(st.sampled_from(_NASTY_STRINGS), st.text(max_size=12))


def xml_value(value: Any) -> str:
    """A value as the XML-body templates write it (no newlines around it).

    >>> [xml_value(v) for v in ("a b", True, None, 3.0, 12, [1, None], {"k": "ü"})]
    ['a b', 'True', 'None', '3.0', '12', '[1, null]', '{"k": "ü"}']
    """
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "True" if value else "False"
    if value is None:
        return "None"
    if isinstance(value, int):
        return jsonio.int_text(value)
    if isinstance(value, float):
        return repr(value)
    return jsonio.dumps_spaced(value)


def xml_call_block(name: str, arguments: dict[str, Any]) -> str:
    """One call block exactly as the four XML-body templates render it.

    >>> xml_call_block("f", {"x": 1})
    '<tool_call>\\n<function=f>\\n<parameter=x>\\n1\\n</parameter>\\n</function>\\n</tool_call>'
    """
    params = "".join(f"{PARAMETER_OPEN}{k}>\n{xml_value(v)}\n{PARAMETER_CLOSE}\n" for k, v in arguments.items())
    return f"{CALL_OPEN}\n{FUNCTION_OPEN}{name}>\n{params}{FUNCTION_CLOSE}\n{CALL_CLOSE}"


_SCALARS: dict[str, Callable[[], SearchStrategy[Any]]] = {
    "string": xml_strings,
    "integer": lambda: st.one_of(st.integers(), st.sampled_from([12345678901234567890, -(10**40), 0])),
    "number": lambda: st.floats(allow_nan=False, allow_infinity=False),
    "boolean": st.booleans,
    "null": st.none,
}


def _json_leaves() -> SearchStrategy[Any]:
    return st.one_of(
        st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False, allow_infinity=False), xml_strings()
    )


def _containers(kind: str) -> SearchStrategy[Any]:
    inner = st.recursive(
        _json_leaves(),
        lambda x: st.one_of(st.lists(x, max_size=3), st.dictionaries(xml_strings(), x, max_size=3)),
        max_leaves=6,
    )
    if kind == "array":
        return st.lists(inner, max_size=4)
    return st.dictionaries(xml_strings(), inner, max_size=4)


@st.composite
def _typed(draw: Callable[..., Any]) -> tuple[dict[str, Any], Any]:
    """A parameter schema and a value it allows, in one of the shapes schemas take."""
    kind = draw(st.sampled_from(("string", "integer", "number", "boolean", "null", "object", "array")))
    value = draw(_containers(kind)) if kind in ("object", "array") else draw(_SCALARS[kind]())
    shape = draw(st.sampled_from(("type", "list", "anyOf", "nullable", "enum")))
    schema: dict[str, Any]
    if shape == "type" or kind == "null":
        schema = {"type": kind}
    elif shape == "list":
        schema = {"type": [kind, "null"]}
    elif shape == "anyOf":
        schema = {"anyOf": [{"type": kind}, {"type": "null"}]}
    elif shape == "nullable":
        schema = {"type": kind, "nullable": True}
    else:
        schema = {"type": kind, "enum": [value]}
    if shape in ("list", "anyOf", "nullable") and kind == "string" and value in ("None", "null"):
        value = "none"  # with null allowed, the text None is the null the templates write for it
    return schema, value


@st.composite
def xml_arguments(draw: Callable[..., Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(parameters schema, arguments)``: typed arguments and the schema that declares them.

    >>> schema, args = xml_arguments().example()
    >>> set(args) <= set(schema["properties"])
    True
    """
    keys = draw(st.lists(st.from_regex(r"[a-z_][a-z0-9_]{0,8}", fullmatch=True), max_size=4, unique=True))
    properties: dict[str, Any] = {}
    arguments: dict[str, Any] = {}
    for key in keys:
        schema, value = draw(_typed())
        properties[key] = schema
        arguments[key] = value
    return {"type": "object", "properties": properties}, arguments


@dataclass(frozen=True, slots=True, kw_only=True)
class XmlCase:
    """A generated XML-body completion: its text, the tools that type it, the calls as written, and
    the malformations applied (none: a template-exact completion whose calls must come back)."""

    text: str
    tools: tuple[dict[str, Any], ...]
    calls: tuple[tuple[str, dict[str, Any]], ...]
    malformed: tuple[str, ...]


def _malform(draw: Callable[..., Any], block: str, how: str) -> str:
    if how == "parameter-unclosed" and PARAMETER_CLOSE in block:
        at = draw(st.sampled_from([i for i in range(len(block)) if block.startswith("\n" + PARAMETER_CLOSE, i)]))
        return block[:at] + block[at + 1 + len(PARAMETER_CLOSE) :]
    if how == "closer-drifted" and PARAMETER_CLOSE in block:
        drift = draw(st.sampled_from(["</parameter1>", "</parameter_x>", "</parameter"]))
        return block.replace(PARAMETER_CLOSE, drift, 1)
    if how == "function-no-gt":
        at = block.index(FUNCTION_OPEN)
        return block[: block.index(">", at)] + block[block.index(">", at) + 1 :]
    if how == "parameter-no-gt" and PARAMETER_OPEN in block:
        at = block.index(PARAMETER_OPEN)
        return block[: block.index(">", at)] + block[block.index(">", at) + 1 :]
    if how == "function-unclosed":
        return block.replace(FUNCTION_CLOSE + "\n", "", 1)
    if how == "bare-function":  # no <tool_call>; a </tool_call> after it is kept (seen in the wild), or not
        bare = block[len(CALL_OPEN) + 1 :]
        return bare if draw(st.booleans()) else bare[: -len(CALL_CLOSE) - 1]
    if how == "bare-function-cut":  # a bare function cut before its </function>: text (prose mentioning one)
        bare = block[len(CALL_OPEN) + 1 :]
        return bare[: draw(st.integers(min_value=0, max_value=bare.index(FUNCTION_CLOSE) + len(FUNCTION_CLOSE) - 1))]
    if how == "closer-repeated" and PARAMETER_CLOSE in block:
        return block.replace(PARAMETER_CLOSE, PARAMETER_CLOSE + "\n" + PARAMETER_CLOSE, 1)
    if how == "function-closer-repeated":
        return block.replace(FUNCTION_CLOSE, FUNCTION_CLOSE + "\n" + FUNCTION_CLOSE, 1)
    if how == "stray-text":
        at = block.index(">", block.index(FUNCTION_OPEN)) + 2
        stray: str = draw(st.sampled_from(["Let me think.\n", "x\n", "<b>\n", CALL_CLOSE[:-1]]))
        return block[:at] + stray + block[at:]
    if how == "call-unterminated":
        return block[: -len(CALL_CLOSE)]
    if how == "truncated":
        return block[: draw(st.integers(min_value=0, max_value=len(block)))]
    if how == "crlf":
        return block.replace("\n", "\r\n")
    return block


@st.composite
def xml_completion_cases(draw: Callable[..., Any], *, malformed: bool = True) -> XmlCase:
    """A completion with XML-body calls: prose, optional reasoning, zero to three calls, text between.

    With ``malformed`` (the default), some calls get one of ``MALFORMATIONS``; the case lists
    which. Without, the text is what the templates render and ``calls`` is what a parser given
    ``tools`` must return.

    >>> case = xml_completion_cases(malformed=False).example()
    >>> case.malformed
    ()
    """
    prose = st.text(st.characters(codec="utf-8", exclude_characters="<"), max_size=20)
    pieces: list[str] = []
    tools: list[dict[str, Any]] = []
    calls: list[tuple[str, dict[str, Any]]] = []
    applied: list[str] = []
    never_closed = malformed and draw(st.integers(min_value=0, max_value=9)) == 0
    if never_closed:
        applied.append("reasoning-never-closed")
        pieces.append(f"{THINK_OPEN}\n{draw(prose)}\n")
    elif draw(st.booleans()):
        pieces.append(f"{THINK_OPEN}\n{draw(prose)}\n{THINK_CLOSE}\n\n")
    pieces.append(draw(prose))
    n = draw(st.integers(min_value=0, max_value=3))
    for k in range(n):
        name = draw(st.sampled_from(["get_weather", "run", "f", f"tool_{k}", "write_file"]))
        schema, args = draw(xml_arguments())
        if name not in {t["function"]["name"] for t in tools}:
            tools.append({"type": "function", "function": {"name": name, "parameters": schema}})
        else:
            schema = next(t["function"]["parameters"] for t in tools if t["function"]["name"] == name)
            args = {}
        block = xml_call_block(name, args)
        if malformed and draw(st.integers(min_value=0, max_value=2)) == 0:
            how = draw(st.sampled_from(MALFORMATIONS[:-1]))
            if how == "json-body":
                block = f"{CALL_OPEN}\n{jsonio.dumps_spaced({'name': name, 'arguments': args})}\n{CALL_CLOSE}"
            elif how == "several-functions" and calls:
                pieces.pop()  # the text after the previous block
                prev = pieces.pop()
                block = prev[: -len(CALL_CLOSE)] + block[len(CALL_OPEN) + 1 :]
            else:
                block = _malform(draw, block, how)
            applied.append(how)
        calls.append((name, args))
        pieces.append(block)
        pieces.append(draw(st.sampled_from(["", "\n", "\n\n", " "])) if k < n - 1 or never_closed else draw(prose))
    if draw(st.booleans()):
        pieces.append(IM_END)
    return XmlCase(text="".join(pieces), tools=tuple(tools), calls=tuple(calls), malformed=tuple(applied))
