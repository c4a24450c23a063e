"""_xmlstream against _xmlbody: the streaming reader finds the whole-text reader's extent, name and
arguments on every chunking (1-character chunks included), XML bodies with every malformation."""

from __future__ import annotations

from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from hermes_toolcall._xmlbody import scan_bare_function, scan_xml_block
from hermes_toolcall.statemachine._xmlstream import XmlStream
from hermes_toolcall.testing import chunkings
from hermes_toolcall.testing._xml import XmlCase, xml_completion_cases

_PIECES = [
    "<function=f>",
    "<function=g>",
    "<parameter=a>",
    "<parameter=b>",
    "</parameter>",
    "</function>",
    "</parameter1>",
    "</parameter",
    "</parameters>",
    "</tool_call>",
    "<tool_call>",
    "<|im_end|>",
    "\n",
    "\r\n",
    " ",
    "x",
    "<",
    ">",
    "=",
    "\r",
    "None",
    "42",
    "[1",
    "{'a': 1}",
    "true",
    "\n<parameter=a>",
    "\n<function=h>",
]


def _stream(text: str, start: int, chunks: list[str], tools: Any, bare: bool) -> XmlStream:
    reader = XmlStream(start, tools=tools, bare=bare)
    args = []
    for k, chunk in enumerate(chunks):
        reader.feed(chunk, final=k == len(chunks) - 1)
        args.append(reader.take_arguments())
        if reader.done:
            break
    if not reader.done:
        reader.feed("", final=True)
    reader._streamed = "".join(args) + reader.take_arguments()  # type: ignore[attr-defined]
    return reader


def _check(text: str, start: int, chunks: list[str], tools: Any) -> None:
    block = scan_xml_block(text, start, strict=False, tools=tools)
    reader = _stream(text, start, chunks, tools, bare=False)
    assert (reader.end, reader.how) == (block.end, block.how), (text, chunks)
    calls = block.body.calls
    if calls:
        first = calls[0]
        head = text[start:].lstrip(" \t\n\r")
        gt = head.find(">") if head.startswith("<function=") else -1
        if reader.name is not None:
            assert reader.name == first.name
        if 0 <= gt and "\n" not in head[:gt] and "<" not in head[1:gt] and first.name:
            assert reader.name == first.name  # announced as soon as its `>` is read
        streamed = reader._streamed  # type: ignore[attr-defined]
        assert first.arguments_json.startswith(streamed), (streamed, first.arguments_json)
        if len(calls) == 1 or block.body.failure is None:
            assert streamed == first.arguments_json, (streamed, first.arguments_json)


def _split(text: str, cuts: list[int]) -> list[str]:
    points = sorted({min(max(c, 0), len(text)) for c in cuts})
    out, prev = [], 0
    for p in points:
        out.append(text[prev:p])
        prev = p
    out.append(text[prev:])
    return out


_TOOLS = {
    "f": {"properties": {"a": {"type": "string"}, "b": {"type": ["integer", "null"]}}},
    "g": {"properties": {"a": {"type": "object"}, "b": {"enum": [1, "x"]}}},
}


@settings(max_examples=500)
@given(
    st.lists(st.sampled_from(_PIECES), max_size=25),
    st.lists(st.integers(0, 200), max_size=8),
    st.booleans(),
    st.sampled_from([None, _TOOLS]),
)
def test_fragments_agree(pieces: list[str], cuts: list[int], char_by_char: bool, tools: Any) -> None:
    text = "<tool_call>\n<function=f>\n" + "".join(pieces)
    body = text[len("<tool_call>") :]
    chunks = list(body) if char_by_char else _split(body, cuts)
    _check(text, len("<tool_call>"), chunks or [""], tools)


@settings(max_examples=200)
@given(st.data(), xml_completion_cases())
def test_generated_blocks_agree(data: st.DataObject, case: XmlCase) -> None:
    text = case.text
    at = text.find("<tool_call>")
    tools = {t["function"]["name"]: t["function"]["parameters"] for t in case.tools}
    while at >= 0:
        start = at + len("<tool_call>")
        body = text[start:]
        chunks = list(data.draw(chunkings(body))) if body else [""]
        if scan_xml_block(text, start, strict=False, tools=tools).body.failure != "HT103":
            _check(text, start, chunks, tools)
        at = text.find("<tool_call>", start)


@settings(max_examples=300)
@given(st.lists(st.sampled_from([*_PIECES, "Done.", "\n\n"]), max_size=20), st.lists(st.integers(0, 200), max_size=8))
def test_bare_functions_agree(pieces: list[str], cuts: list[int]) -> None:
    text = "<function=f>" + "".join(pieces)
    whole = scan_bare_function(text, 0, strict=False)
    reader = _stream(text, 0, _split(text, cuts), None, bare=True)
    if whole is None:
        assert reader.how == "none", (text, reader.end)
    else:
        assert (reader.how, reader.end) == ("closed", whole.end), text


class _TagByTag(XmlStream):
    """``XmlStream`` without the guard of ``_between`` (every parameter read tag by tag)."""

    def _params_in_bulk(self, w: str, i: int) -> int:
        return i


_BULK_PIECES = [
    *_PIECES,
    "\n<parameter=a>\nx\n</parameter>\n",
    "<parameter=b>\n1\n</parameter>\n",
    "<parameter=c>\n</parameter>",
    "<parameter=a>\r\ny z\r\n</parameter>",
    "<parameter=>\n\n</parameter>",
    '<parameter=a b>\n{"k": [1]}\n</parameter>\n',
    "\n</function>\n",
    "<parameter=a>\n<|im_end|>\n</parameter>\n",
    "<parameter=b>\nx</tool_call>\n</parameter>\n",
    "<parameter=b>\n\n<parameter=a>\n</parameter>\n",
    "<parameter=a>\n<b>\n</parameter>\n",
    "<parameter=b>\nx < 3 and '<b>' # <i>\n</parameter>\n",
    "<parameter=a>\n</parameters> <parameter <function\n</parameter>\n",
    "<parameter=b>\n<function=g>\n</parameter>\n",
]


def _observed(reader: XmlStream) -> tuple[Any, ...]:
    return (
        reader.state,
        reader.at,
        reader.carry,
        reader.end,
        reader.how,
        reader.name,
        reader.name_end,
        reader.functions,
        sorted(reader._keys),
    )


@settings(max_examples=500)
@example(["<parameter=a>\n<|im_end|>\n</parameter>\n", "</function>\n"], [], False, None)
@example(["<parameter=b>\nx</tool_call>\n</parameter>\n", "</function>\n"], [9], False, None)
@example(["<parameter=b>\n\n<parameter=a>\n</parameter>\n", "</function>\n"], [], False, _TOOLS)
@example(["\n<parameter=a>\nx\n</parameter>\n", "<parameter=a>\n<b>\n</parameter>\n", "</function>\n"], [], False, None)
@example(["<parameter=b>\n<function=g>\n</parameter>\n", "</function>\n"], [], False, None)
@example(["<parameter=a>\nx\n<parameter=b>\n</parameter>\n", "</function>\n"], [], False, None)
@given(
    st.lists(st.sampled_from(_BULK_PIECES), max_size=20),
    st.lists(st.integers(0, 300), max_size=8),
    st.booleans(),
    st.sampled_from([None, _TOOLS]),
)
def test_parameters_read_in_bulk_as_tag_by_tag(pieces: list[str], cuts: list[int], args: bool, tools: Any) -> None:
    """The guard of ``XmlStream._between`` (whole parameters as the templates write them, read in one
    step when nothing is streamed) leaves the reader as the tag-by-tag reading does, after every chunk
    and at the end: duplicate keys, a closer followed by a given key, drifted closers, markers in values,
    chunks cut anywhere; and the whole-text reader's extent."""
    text = "<tool_call>\n<function=f>\n" + "".join(pieces) + "</tool_call>"
    body = text[len("<tool_call>") :]
    for chunks in (_split(body, cuts), [body]):
        fast = XmlStream(len("<tool_call>"), tools=tools, args=args)
        slow = _TagByTag(len("<tool_call>"), tools=tools, args=args)
        for k, chunk in enumerate(chunks):
            final = k == len(chunks) - 1
            fast.feed(chunk, final=final)
            slow.feed(chunk, final=final)
            assert _observed(fast) == _observed(slow), (text, chunks, k)
            assert fast.take_arguments() == slow.take_arguments()
        block = scan_xml_block(text, len("<tool_call>"), strict=False, tools=tools)
        assert (fast.end, fast.how) == (block.end, block.how), text


_RUN_PIECES = [
    *_BULK_PIECES,
    "<parameter=a>\n",
    "<parameter=g>\n",
    "x < 3 and ",
    '"<b>" in s:  # & ',
    "check 5\n  ",
    "  total += f(x, None)\n",
    '[{"k": 1, "v": "lorem"}, ',
    "{'a': [1, <",
    "\\u00e9 \\ \t\x00 é 😀",
    "</",
    "\r",
    "<|",
    "\n<",
    "\n<param",
    "<param",
    "</param",
    "</functio",
]
_RUN_TOOLS = {
    "f": {"properties": {"a": {"type": "string"}, "b": {"type": "integer"}, "g": {"type": "array"}}},
    "g": {"properties": {"a": {"type": "object"}, "b": {"type": "string"}}},
}


@settings(max_examples=500)
@example(["<parameter=a>\n", "x < 3 and ", "\n<", "b>\n</parameter>\n", "</function>\n"], [14, 20, 21, 25], False)
@example(["<parameter=g>\n", '[{"k": 1, "v": "lorem"}, ', "</", "</parameter>\n"], [14, 20, 40, 41], False)
@given(
    st.lists(st.sampled_from(_RUN_PIECES), max_size=20),
    st.lists(st.integers(0, 300), max_size=12),
    st.booleans(),
)
def test_value_runs_read_in_bulk_as_fed(pieces: list[str], cuts: list[int], bare: bool) -> None:
    """The guard of ``XmlStream.feed`` (``value_run``: a chunk of a streamed string's, or a held
    object's or array's, text in which no tag starts or may start, after the held-back text, read in
    one step) leaves the reader as ``feed`` does and gives the same ``arguments`` pieces, after every
    chunk: markers, ``<`` and line ends in values, tags and line ends cut by chunks, control tokens,
    escapes, string, array, object and untyped values, bare functions."""
    text = ("" if bare else "<tool_call>\n") + "<function=f>\n" + "".join(pieces) + "</tool_call>"
    start = 0 if bare else len("<tool_call>")
    chunks = _split(text[start:], cuts)
    for tools in (None, _RUN_TOOLS):
        fast = XmlStream(start, tools=tools, bare=bare)
        slow = XmlStream(start, tools=tools, bare=bare)
        for k, chunk in enumerate(chunks):
            final = k == len(chunks) - 1
            piece = None if final else fast.value_run(chunk)
            if piece is None:
                fast.feed(chunk, final=final)
                piece = fast.take_arguments()
            slow.feed(chunk, final=final)
            assert piece == slow.take_arguments(), (text, chunks, k)
            seen = [(*_observed(r), r._kind, r._tail, "".join(r._parts), r._skip, r._lead) for r in (fast, slow)]
            assert seen[0] == seen[1], (text, chunks, k)
