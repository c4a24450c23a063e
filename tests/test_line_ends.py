"""CRLF and lone-CR line ends (issue 30, item 1): a ChatML file edited on Windows reads as the LF one.

The envelope reads ``\\r\\n``, ``\\n`` and a lone ``\\r`` as line ends in both engines (a role header
ends at the first of them; a ``<tool_response>`` loses one leading and one trailing line end; a
``<tools>`` block is read line by line at any of them), and every position stays exact in the
original text. The property: an LF transcript and the same transcript with CRLF (or lone CR) line
ends give the same parts and findings, with every offset mapped into the CRLF text and every
string mapped back (docs/parsing.md §3).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

import hermes_toolcall as ht
from hermes_toolcall import _jsonio as jsonio
from hermes_toolcall._profiles import DIALECTS
from hermes_toolcall.conformance._generate import FRAGMENTS
from hermes_toolcall.testing import adversarial_texts, assert_engines_agree, chunkings, rendered_transcripts
from hypothesis_stats import count

pytest_plugins = ["hypothesis_stats"]

_ROLES = ("system", "user", "assistant", "tool", "developer", "observer")

SYSTEM = (
    '<|im_start|>system\nYou can call tools.\n<tools>\n{"type": "function", "function": {"name": "read_file", '
    '"description": "Read a file.", "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, '
    '"required": ["path"]}}}\n'
    "</tools><|im_end|>\n"
)
UNSAFE_LF = (
    SYSTEM + "<|im_start|>user\nClean up.<|im_end|>\n"
    '<|im_start|>assistant\n<tool_call>\n{"name": "rm_rf", "arguments": {"path": "/"}}\n</tool_call><|im_end|>\n'
    '<|im_start|>assistant\n<tool_call>\n{"name": "read_file", "arguments": {"path": 7}}\n</tool_call><|im_end|>\n'
    '<|im_start|>tool\n<tool_response>\n{"ok": true}\n</tool_response><|im_end|>\n'
)


def _turn_piece() -> st.SearchStrategy[str]:
    header = st.sampled_from(_ROLES).map(lambda role: f"<|im_start|>{role}\n")
    piece = st.one_of(header, st.just("<|im_end|>\n"), st.sampled_from(FRAGMENTS), adversarial_texts(max_pieces=3))
    return st.lists(piece, min_size=1, max_size=10).map("".join)


def _lf_transcripts() -> st.SearchStrategy[str]:
    """LF-only transcripts: every dialect's renderings, and hostile turn soups (no ``\\r`` at all)."""
    rendered = st.sampled_from(sorted(DIALECTS)).flatmap(lambda d: rendered_transcripts(d))
    return st.one_of(rendered, _turn_piece()).map(lambda t: t.replace("\r", ""))


def _map_string(value: str, le: str) -> str:
    # a message quotes values with repr(): the escaped line end too (the LF text has no "\r" at all)
    return value.replace(le, "\n").replace(repr(le)[1:-1], "\\n")


def _map_value(value: Any, le: str) -> Any:
    """A decoded JSON value with every string (keys included) mapped back to LF."""
    if isinstance(value, str):
        return _map_string(value, le)
    if isinstance(value, list):
        return [_map_value(v, le) for v in value]
    if isinstance(value, dict):
        return {_map_string(k, le): _map_value(v, le) for k, v in value.items()}
    return value


def _normal(value: Any, le: str, columns: bool, key: str = "") -> Any:
    """``as_dict`` of a result, its strings with line ends ``le`` mapped to LF (spans: line:column only
    when ``columns``)."""
    if isinstance(value, dict):
        if set(value) == {"start", "end", "line", "column"}:
            span = {"start": value["start"], "end": value["end"]}
            if columns:
                span |= {"line": value["line"], "column": value["column"]}
            return span
        return {k: _normal(v, le, columns, k) for k, v in value.items() if k != "source"}
    if isinstance(value, list | tuple):
        return [_normal(v, le, columns, key) for v in value]
    if key == "arguments_json" and isinstance(value, str):
        return _map_value(jsonio.loads(value), le)
    if key == "arguments":
        return _map_value(value, le)
    if key == "message" and not columns:  # a body position in a message ("at 2:16") counts "\n" only
        value = re.sub(r" at \d+:\d+", " at -:-", value)
    if isinstance(value, str):
        return _map_string(value, le)
    return value


def _lf_view(result: Any, text: str, le: str, columns: bool) -> Any:
    """The LF text's result with its offsets mapped into the text with line ends ``le``."""
    starts = [i for i, c in enumerate(text) if c == "\n"]
    extra = len(le) - 1

    def offset(p: int) -> int:
        return p + extra * sum(1 for s in starts if s < p)

    def spans(value: Any, key: str = "") -> Any:
        if isinstance(value, dict):
            if set(value) == {"start", "end", "line", "column"}:
                span = {"start": offset(value["start"]), "end": offset(value["end"])}
                if columns:
                    span |= {"line": value["line"], "column": value["column"]}
                return span
            return {k: spans(v, k) for k, v in value.items() if k != "source"}
        if isinstance(value, list | tuple):
            return [spans(v, key) for v in value]
        if key == "stopped_at" and isinstance(value, int):
            return offset(value)
        return value

    return spans(ht.as_dict(result))


def _check_line_ends(lf: str, le: str, **options: Any) -> None:
    other = lf.replace("\n", le)
    a = ht.parse_transcript(lf, ids=ht.sequential_ids(), **options)
    b = ht.parse_transcript(other, ids=ht.sequential_ids(), **options)
    columns = le == "\r\n"  # only "\n" counts lines in positions; a lone-CR file is one long line
    # strings of both sides mapped alike: a decoded value may hold "\r" from an escape, in both texts
    assert _normal(ht.as_dict(b), le, columns) == _normal(_lf_view(a, lf, le, columns), le, columns)
    ht.validate(b)  # total


@given(st.data(), _lf_transcripts(), st.sampled_from(["\r\n", "\r"]))
def test_crlf_and_lone_cr_give_the_lf_parts_and_findings(data: st.DataObject, lf: str, le: str) -> None:
    count("line ends: LF vs CRLF / lone CR transcripts")
    _check_line_ends(lf, le)
    other = lf.replace("\n", le)
    if len(other) < 400:
        assert_engines_agree(other, level="transcript", chunkings=[data.draw(chunkings(other))], char_by_char=True)


# ------------------------------------------------------------------------------------ named cases


def test_crlf_transcript_keeps_its_structure_and_validate_reports_it() -> None:
    """Issue 30 item 1: roles read as ``user\\r`` (HT004), every call became text, validate passed."""
    crlf = UNSAFE_LF.replace("\n", "\r\n")
    t = ht.parse_transcript(crlf)
    assert [turn.role for turn in t.turns] == ["system", "user", "assistant", "assistant", "tool"]
    assert [d.code for d in t.diagnostics] == []
    assert [p.name for turn in t.turns for p in turn.parts if isinstance(p, ht.ToolCall)] == ["rm_rf", "read_file"]
    report = ht.validate(t)
    assert not report.ok
    codes = {d.code for d in report.diagnostics}
    assert {"HT301", "HT302"} <= codes
    lf_codes = {d.code for d in ht.validate(ht.parse_transcript(UNSAFE_LF)).diagnostics}
    assert codes == lf_codes
    assert t.turns[4].parts[0].content == '{"ok": true}'  # type: ignore[union-attr]
    assert t.turns[0].parts[1].tools[0]["function"]["name"] == "read_file"  # type: ignore[union-attr]
    _check_line_ends(UNSAFE_LF, "\r\n")
    _check_line_ends(UNSAFE_LF, "\r")


def test_crlf_positions_are_exact_in_the_original_text() -> None:
    crlf = UNSAFE_LF.replace("\n", "\r\n")
    t = ht.parse_transcript(crlf)
    header = t.turns[1].header
    assert crlf[header.start : header.end] == "<|im_start|>user\r\n"
    assert (header.line, header.column) == (6, 1)
    call = t.turns[2].parts[0]
    assert crlf[call.span.start : call.span.end].startswith("<tool_call>\r\n{")
    assert crlf[call.span.start : call.span.end].endswith("}\r\n</tool_call>")


def test_unknown_role_with_crlf_spans_the_role_only() -> None:
    t = ht.parse_transcript("<|im_start|>observer\r\nhi<|im_end|>")
    (d,) = t.diagnostics
    assert d.code == "HT004" and (d.span.start, d.span.end) == (12, 20)
    assert t.turns[0].role == "observer"


def test_a_header_line_end_split_across_chunks() -> None:
    """``\\r`` at the end of a chunk is held back: the next chunk may make it ``\\r\\n``."""
    text = "<|im_start|>user\r\nhi<|im_end|>\r\n<|im_start|>x\ry<|im_end|><|im_start|>tool\r"
    for cut in range(1, len(text)):
        assert_engines_agree(text, level="transcript", chunkings=[(text[:cut], text[cut:])], char_by_char=cut == 1)


def test_crlf_tool_response_and_tools_block_read_as_lf() -> None:
    lf = '<|im_start|>tool\n<tool_response>\n{"a": 1}\n</tool_response><|im_end|>\n'
    for le in ("\r\n", "\r"):
        part = ht.parse_transcript(lf.replace("\n", le)).turns[0].parts[0]
        assert part.content == '{"a": 1}'  # type: ignore[union-attr]
    tools = '{"type": "function", "function": {"name": "a"}}\r{"type": "function", "function": {"name": "b"}}'
    block = ht.parse_transcript(f"<|im_start|>system\r<tools>\r{tools}\r</tools><|im_end|>").turns[0].parts[0]
    assert [t["function"]["name"] for t in block.tools] == ["a", "b"]  # type: ignore[union-attr]


def test_cli_parse_openai_of_a_crlf_file(tmp_path: Any) -> None:
    """``parse --format openai`` gave role ``"system\\r"``; ``convert`` exited 2 (through the real entry point)."""
    path = tmp_path / "t.chatml"
    path.write_bytes(UNSAFE_LF.replace("\n", "\r\n").encode())
    run = subprocess.run(
        [sys.executable, "-m", "hermes_toolcall", "parse", "--format", "openai", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    messages = json.loads(run.stdout)
    messages = messages.get("messages", messages) if isinstance(messages, dict) else messages
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "assistant", "tool"]
    simple = "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n"
    simple += '<tool_call>\n{"name": "f", "arguments": {"a": 1}}\n</tool_call><|im_end|>\n'
    outputs = []
    for le in ("\n", "\r\n"):
        path.write_bytes(simple.replace("\n", le).encode())
        run = subprocess.run(
            [sys.executable, "-m", "hermes_toolcall", "convert", "--from", "qwen3", "--to", "qwen2.5", str(path)],
            capture_output=True,
            text=True,
            check=False,
        )
        assert (run.returncode, run.stderr) == (0, "")
        outputs.append(run.stdout)
    assert outputs[0] == outputs[1]  # the rendering is LF: the same conversation, as the template writes it


def test_regression_tool_result_ending_in_cr_keeps_it() -> None:
    """CI find (test_render_roundtrip, omp): a tool result ``'\\r'`` rendered by an LF template is
    ``<tool_response>\\n\\r\\n</tool_response>``; the trailing line end taken is the leading one's kind
    (``\\n``), so the result reads back as ``'\\r'`` (it read as ``''``), in both engines and every
    chunking, and the CRLF- and CR-edited files of it read the same."""
    for content in ("\r", "a\r", "\r\n", "\n\r", "\r\r"):
        for dialect in ("omp", "qwen3", "qwen2.5"):
            text = ht.render([{"role": "tool", "content": content}], dialect=dialect)
            results = [p for t in ht.parse_transcript(text, dialect=dialect).turns for p in t.parts
                       if isinstance(p, ht.ToolResponse)]
            assert [r.content for r in results] == [content]
            chunked = [tuple(text[i:i + size] for i in range(0, len(text), size)) for size in (2, 3)]
            assert_engines_agree(text, level="transcript", dialect=dialect, chunkings=chunked)
        lf = f"<|im_start|>tool\n<tool_response>\n{content}\n</tool_response><|im_end|>\n"
        for le in ("\r\n", "\r"):
            edited = lf.replace("\n", le)
            got = [p.content for t in ht.parse_transcript(edited, dialect="omp").turns for p in t.parts
                   if isinstance(p, ht.ToolResponse)]
            assert got == [content.replace("\n", le)]
