"""_xmlbody: XML call bodies to calls, each recovery named, strict mode failing with its code (docs/parsing.md §8.2)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hermes_toolcall import _jsonio as jsonio
from hermes_toolcall._diagnostics import CATALOGUE
from hermes_toolcall._xmlbody import body_kind, decode_xml_body, value_text
from hermes_toolcall.testing._xml import xml_arguments, xml_call_block

P = "<parameter="
# (name, body, calls as (name, arguments), issue codes in lenient mode, the strict failure or None)
CASES: list[tuple[str, str, list[tuple[str, dict[str, Any]]], list[str], str | None]] = [
    (
        "template",
        "\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n<parameter=days>\n3\n</parameter>\n</function>\n",
        [("get_weather", {"city": "Paris", "days": 3})],
        [],
        None,
    ),
    ("no arguments", "\n<function=ping>\n</function>\n", [("ping", {})], [], None),
    ("empty value", "\n<function=f>\n<parameter=es>\n\n</parameter>\n</function>\n", [("f", {"es": ""})], [], None),
    (
        "edge newlines kept",
        "\n<function=f>\n<parameter=s>\n\nline1\nline2\n\n\n</parameter>\n</function>\n",
        [("f", {"s": "\nline1\nline2\n\n"})],
        [],
        None,
    ),
    (
        "markup kept verbatim",
        "\n<function=f>\n<parameter=q>\nAT&T <b>bold</b> &amp;\n</parameter>\n</function>\n",
        [("f", {"q": "AT&T <b>bold</b> &amp;"})],
        [],
        None,
    ),
    (
        "parameter unclosed (next parameter)",
        "\n<function=book>\n<parameter=room>\nB12\n<parameter=hours>\n2\n</parameter>\n</function>\n",
        [("book", {"room": "B12", "hours": 2})],
        ["HT230"],
        "HT230",
    ),
    (
        "parameter unclosed (function end)",
        "\n<function=book>\n<parameter=room>\nB12\n</function>\n",
        [("book", {"room": "B12"})],
        ["HT230"],
        "HT230",
    ),
    (
        "drifted closer with a digit",
        "\n<function=open>\n<parameter=path>\nsrc/a.py\n</parameter2>\n<parameter=mode>\nr\n</parameter>\n</function>\n",
        [("open", {"path": "src/a.py", "mode": "r"})],
        ["HT231"],
        "HT231",
    ),
    (
        "drifted closer with a suffix",
        "\n<function=open>\n<parameter=path>\na\n</parameter_x>\n</function>\n",
        [("open", {"path": "a"})],
        ["HT231"],
        "HT231",
    ),
    (
        "bare closer without >",
        "\n<function=open>\n<parameter=path>\na\n</parameter\n<parameter=mode>\nr\n</parameter>\n</function>\n",
        [("open", {"path": "a", "mode": "r"})],
        ["HT231"],
        "HT231",
    ),
    (
        "function name without >",
        "\n<function=book\n<parameter=room>\nB12\n</parameter>\n</function>\n",
        [("book", {"room": "B12"})],
        ["HT232"],
        "HT232",
    ),
    (
        "parameter name without >",
        "\n<function=book>\n<parameter=room\nB12\n</parameter>\n</function>\n",
        [("book", {"room": "B12"})],
        ["HT232"],
        "HT232",
    ),
    (
        "function unclosed",
        "\n<function=f>\n<parameter=a>\n1\n</parameter>\n",
        [("f", {"a": 1})],
        ["HT233"],
        "HT233",
    ),
    (
        "literal closers in code",
        '\n<function=w>\n<parameter=code>\nprint("</parameter>")\nx = "</function>"\n</parameter>\n</function>\n',
        [("w", {"code": 'print("</parameter>")\nx = "</function>"'})],
        ["HT243", "HT243"],
        None,
    ),
    (
        "not a closer: </parameters>",
        "\n<function=w>\n<parameter=xml>\n<parameters>\n</parameters>\n</parameter>\n</function>\n",
        [("w", {"xml": "<parameters>\n</parameters>"})],
        [],
        None,
    ),
    (
        "duplicate parameter closer",
        "\n<function=w>\n<parameter=city>\nParis\n</parameter>\n</parameter>\n</function>\n",
        [("w", {"city": "Paris"})],
        ["HT235"],
        "HT235",
    ),
    (
        "duplicate function closer",
        "\n<function=w>\n</function>\n</function>\n",
        [("w", {})],
        ["HT235"],
        "HT235",
    ),
    (
        "stray text",
        "\n<function=f>\nLet me think.\n<parameter=a>\n1\n</parameter>\n</function>\n",
        [("f", {"a": 1})],
        ["HT236"],
        "HT236",
    ),
    (
        "several functions",
        "\n<function=a>\n</function>\n<function=b>\n<parameter=x>\ny\n</parameter>\n</function>\n",
        [("a", {}), ("b", {"x": "y"})],
        ["HT237"],
        "HT237",
    ),
    (
        "next function without </function>",
        "\n<function=a>\n<parameter=x>\n1\n</parameter>\n<function=b>\n</function>\n",
        [("a", {"x": 1}), ("b", {})],
        ["HT233", "HT237"],
        "HT233",
    ),
    (
        "a name starts a parameter once",
        "\n<function=f>\n<parameter=a>\n1\n</parameter>\n<parameter=a>\n2\n</parameter>\n</function>\n",
        [("f", {"a": "1\n</parameter>\n<parameter=a>\n2\n</parameter>"})],
        ["HT230", "HT243"],
        "HT230",
    ),
    (
        "literal parameter of a given name",
        '\n<function=w>\n<parameter=path>\nf.py\n</parameter>\n<parameter=content>\ndoc = """\n'
        '<parameter=path>\nliteral/value\n</parameter>\n"""\n</parameter>\n</function>\n',
        [("w", {"path": "f.py", "content": 'doc = """\n<parameter=path>\nliteral/value\n</parameter>\n"""'})],
        [],
        None,
    ),
    (
        "literal nested call",
        '\n<function=w>\n<parameter=content>\nx = """\n<tool_call>\n<function=foo>\n<parameter=bar>baz</parameter>\n'
        '</function>\n</tool_call>\n"""\n</parameter>\n</function>\n',
        [
            (
                "w",
                {
                    "content": 'x = """\n<tool_call>\n<function=foo>\n<parameter=bar>baz</parameter>\n'
                    '</function>\n</tool_call>\n"""'
                },
            )
        ],
        [],
        None,
    ),
    (
        "undeclared parameter is a parameter",
        "\n<function=f>\n<parameter=path>\na.py\n</parameter>\n<parameter=mode>\nr\n</parameter>\n</function>\n",
        [("f", {"path": "a.py", "mode": "r"})],
        [],
        None,
    ),
    ("empty name", "\n<function=>\n</function>\n", [], ["HT104"], "HT104"),
]


@pytest.mark.parametrize(("name", "body", "calls", "codes", "strict_failure"), CASES, ids=[c[0] for c in CASES])
def test_named_cases(
    name: str, body: str, calls: list[tuple[str, dict[str, Any]]], codes: list[str], strict_failure: str | None
) -> None:
    lenient = decode_xml_body(body, strict=False)
    assert [(c.name, c.arguments) for c in lenient.calls] == calls
    assert [i.code for i in lenient.issues] == codes
    for c in lenient.calls:  # the JSON text reads back to the arguments
        assert jsonio.loads(c.arguments_json) == c.arguments
    for issue in lenient.issues:
        assert 0 <= issue.start <= issue.end <= len(body)
        assert issue.hint == CATALOGUE[issue.code].fix
    strict = decode_xml_body(body, strict=True)
    assert strict.failure == strict_failure
    if strict_failure is None:
        assert [(c.name, c.arguments) for c in strict.calls] == calls
    else:
        assert strict.calls == () and strict.issues[-1].code == strict_failure


def test_cut_off_is_never_a_call() -> None:
    body = "\n<function=f>\n<parameter=a>\n1\n</parameter>\n</function>\n"
    for k in range(len(body)):
        cut = body[:k]
        if not cut.strip() or not cut.lstrip().startswith("<function="):
            continue
        decoded = decode_xml_body(cut, strict=False, closed=False)
        complete = cut.rstrip("\n").endswith("</function>")
        assert (decoded.failure is None) == complete, repr(cut)
        if not complete:
            assert decoded.failure == "HT102" and [i.code for i in decoded.issues if i.code != "HT243"] == ["HT102"]


def test_typed_by_tools() -> None:
    tools = {"f": {"properties": {"n": {"type": "integer"}, "s": {"type": "string"}, "o": {"type": "object"}}}}
    body = "<function=f>\n<parameter=n>\nthree\n</parameter>\n<parameter=s>\n42\n</parameter>\n"
    body += "<parameter=o>\n{'k': None}\n</parameter>\n<parameter=extra>\n7\n</parameter>\n</function>"
    decoded = decode_xml_body(body, strict=False, tools=tools)
    assert decoded.calls[0].arguments == {"n": "three", "s": "42", "o": {"k": None}, "extra": 7}
    assert [(i.code, body[i.start : i.end]) for i in decoded.issues] == [
        ("HT239", "\nthree\n"),
        ("HT240", "\n{'k': None}\n"),
    ]
    assert "'n'" in decoded.issues[0].message  # the warning names the parameter
    assert decode_xml_body(body, strict=True, tools=tools).failure == "HT240"
    # an undeclared tool: values read without a schema
    assert decode_xml_body(body, strict=False, tools={}).calls[0].arguments["s"] == 42


@pytest.mark.parametrize(
    ("raw", "value"),
    [("\nx\n", "x"), ("\r\nx\r\n", "x"), ("\nx\r\n", "x\r"), ("\rx\r", "x"), ("x", "x"), ("\n", ""), ("", "")],
)
def test_value_newlines(raw: str, value: str) -> None:
    assert value_text(raw) == value


def test_body_kind() -> None:
    assert body_kind("\n {") == "json"
    assert body_kind("[") == "json"
    assert body_kind("\r\n<function=x") == "xml"
    assert body_kind("<function") == "plain"
    assert body_kind("") == "plain"


_PIECES = ["<function=f>", "<parameter=a>", "</parameter>", "</function>", "</parameter1>", "</parameter"]
_PIECES += ["\n", " ", "x", "<", ">", "=", "\r", "None", "[1", "{'a': 1}", "</tool_call>"]


@given(
    st.lists(st.sampled_from(_PIECES), max_size=30).map(lambda s: "<function=" + "".join(s)),
    st.booleans(),
    st.booleans(),
)
def test_total(body: str, strict: bool, closed: bool) -> None:
    """Any body: calls or one failure code, issues within the body, arguments JSON that reads back."""
    decoded = decode_xml_body(body, strict=strict, closed=closed)
    assert (decoded.failure is None) == bool(decoded.calls)
    for issue in decoded.issues:
        assert 0 <= issue.start <= issue.end <= len(body), issue
    for c in decoded.calls:
        assert jsonio.loads(c.arguments_json) == c.arguments


def _closer_free(arguments: dict[str, Any]) -> bool:
    """No value text holds a place where a closer could stand (the render guard refuses those)."""
    from hermes_toolcall.testing._xml import xml_value

    probe = decode_xml_body
    for key, value in arguments.items():
        text = xml_value(value)
        body = f"<function=f>\n{P}{key}>\n{text}\n</parameter>\n</function>"
        got = probe(body, strict=False).calls
        if not got or (got[0].arguments.get(key, object()) is None and value is not None):
            return False
        if "</parameter" in text or "</function>" in text or "<parameter=" in text:
            return False
    return True


@given(xml_arguments())
def test_template_bytes_read_back(case: tuple[dict[str, Any], dict[str, Any]]) -> None:
    """A block as the templates write it reads back to its arguments, given the tool's schema."""
    schema, arguments = case
    block = xml_call_block("f", arguments)
    inner = block[len("<tool_call>") : -len("</tool_call>")]
    decoded = decode_xml_body(inner, strict=True, tools={"f": schema})
    if not _closer_free(arguments):
        return  # a value that holds closer-like text: exercised by the engine agreement tests
    assert decoded.failure is None, decoded.issues
    (call,) = decoded.calls
    assert call.name == "f"
    assert jsonio.dumps_report(call.arguments) == jsonio.dumps_report(arguments)
    assert jsonio.loads(call.arguments_json) == call.arguments


def _unguarded(text: str, start: int, tools: Any) -> tuple[int, str, Any]:
    """``scan_xml_block`` without its guard (``_canonical``): the reader alone."""
    from hermes_toolcall._xmlbody import _read

    block = _read(text, start, strict=False, tools=tools, bare=False)
    assert block is not None
    return block.end, block.how, block.body


def test_regression_canonical_guard_line_initial_parameter_opens_a_parameter() -> None:
    """A hypothesis find (test_xmlstream): the templates'-bytes guard took a value that starts with a
    line-initial ``<parameter=KEY>`` whose key may start a parameter as value text; the reader ends the
    value there (``HT230``). The guard now leaves that body to the reader."""
    from hermes_toolcall._xmlbody import scan_xml_block

    text = "<tool_call>\n<function=f>\n<parameter=s>\n<parameter=x>\n</parameter>\n</function>\n</tool_call>"
    tools = {"f": {"type": "object", "properties": {"s": {"type": "string"}}}}
    block = scan_xml_block(text, 11, strict=False, tools=tools)
    assert (block.end, block.how, block.body) == _unguarded(text, 11, tools)
    assert block.body.calls[0].arguments == {"s": "", "x": ""}


def test_regression_canonical_guard_parameter_after_a_carriage_return() -> None:
    """Found reading the guard for issue 29's stream work: a ``<parameter=KEY>`` after a ``\r`` inside a
    value starts a line for the reader (and the stream reader), which ends the value there
    (``HT230``); the templates'-bytes guard took it as value text. It now leaves that body to the reader."""
    from hermes_toolcall._xmlbody import scan_xml_block

    text = "<tool_call>\n<function=f>\n<parameter=a>\nx\r<parameter=b>\ny\n</parameter>\n</function>\n</tool_call>"
    block = scan_xml_block(text, 11, strict=False, tools=None)
    assert (block.end, block.how, block.body) == _unguarded(text, 11, None)
    assert block.body.calls[0].arguments == {"a": "x\r", "b": "y"}
    assert [i.code for i in block.body.issues] == ["HT230"]


@given(xml_arguments(), st.sampled_from(["", "\n", "<parameter=x>\n", "<function=g>\n", "x\r<parameter=x>\n"]))
def test_canonical_guard_returns_the_reader_s_values(case: tuple[dict[str, Any], dict[str, Any]], lead: str) -> None:
    """The guard in front of the reader (a body exactly as the templates write it) gives what the reader gives."""
    from hermes_toolcall._xmlbody import scan_xml_block

    schema, arguments = case
    block = xml_call_block("f", arguments)
    at = block.find("<parameter=")
    at = block.find(">\n", at if at >= 0 else block.find("<function=")) + 2
    text = block[:at] + lead + block[at:]  # a value (or the function) that starts with a tag
    for tools in ({"f": schema}, None):
        got = scan_xml_block(text, 11, strict=False, tools=tools)
        assert (got.end, got.how, got.body) == _unguarded(text, 11, tools)
