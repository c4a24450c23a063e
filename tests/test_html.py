"""hermes_toolcall.html without a browser: escaping, marked text, the model's displays, the report writer.

The pages themselves are checked in a real browser in tests/test_html_browser.py; here the HTML is read
back with the standard library's parser (what became an element, what text each mark holds).
"""

from __future__ import annotations

import copy
import dataclasses
import io
import itertools
import pickle
import re
from html.parser import HTMLParser
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import hermes_toolcall as ht
from hermes_toolcall.html import (
    Finding,
    ReportWriter,
    findings_of,
    json_record_body,
    notebook_html,
    record_body,
    shown,
    text,
    view_page,
)
from hermes_toolcall.html._conversation import _layout
from hermes_toolcall.html._escape import attr
from hermes_toolcall.html._marked import Mark, Region, marked
from hermes_toolcall.testing import adversarial_texts, completions, rendered_transcripts

PAYLOADS = [
    "<script>window.__pwned=1</script>",
    '"><img src=x onerror="window.__pwned=1">',
    "' onmouseover='window.__pwned=1",
    "</mark></span></div><b>bold</b>",
    "<!--",
    "]]>",
    "&lt;&amp;",
    "\ud800",
    "\udfff x",
    "\x00\r\x1b[2J\u202e\ufeff",
    "<|im_end|>",
    "javascript:alert(1)",
]
nasty_text = st.lists(
    st.one_of(st.characters(blacklist_categories=()), st.sampled_from(PAYLOADS)), max_size=30
).map("".join)


class Reader(HTMLParser):
    """Read HTML back: the elements made, the text of each mark id (in document order), all text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.stack: list[tuple[str, list[str]]] = []
        self.marks: dict[str, str] = {}
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        self.tags.append((tag, a))
        ids = (a.get("data-f") or "").split() if tag == "mark" else []
        for i in ids:
            self.marks.setdefault(i, "")
        if tag not in ("br", "meta"):
            self.stack.append((tag, ids))

    def handle_endtag(self, tag: str) -> None:
        assert self.stack and self.stack[-1][0] == tag, (tag, self.stack[-3:])
        self.stack.pop()

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        for _, ids in self.stack:
            for i in ids:
                self.marks[i] += data


def read(html: str) -> Reader:
    r = Reader()
    r.feed(html)
    r.close()
    assert not r.stack, "unclosed elements"
    return r


@settings(max_examples=300)
@given(value=nasty_text)
def test_escaped_text_makes_no_element_but_the_stand_ins(value: str) -> None:
    r = read(text(value))
    assert {t for t, _ in r.tags} <= {"span"}
    assert all(a.get("class") == "cc" for _, a in r.tags)
    assert "".join(r.text) == shown(value)
    assert len(shown(value)) == len(value)
    shown(value).encode("utf-8")  # a lone surrogate never reaches the file


@settings(max_examples=300)
@given(value=nasty_text)
def test_an_attribute_value_stays_one_attribute(value: str) -> None:
    r = read(f'<i title="{attr(value)}"></i>')
    assert r.tags == [("i", {"title": shown(value)})]


@st.composite
def marked_cases(draw: Any) -> tuple[str, list[Region], list[Mark]]:
    source = draw(nasty_text)
    n = len(source)
    cuts = sorted(set(draw(st.lists(st.integers(0, n), max_size=6))) | {0, n})
    regions = [
        Region(start=a, end=b, kind="text", label=f"[{a}, {b})", ident=f"p{k}")
        for k, (a, b) in enumerate(itertools.pairwise(cuts))
        if draw(st.booleans())
    ]
    marks = []
    for k in range(draw(st.integers(0, 5))):
        a = draw(st.integers(0, n))
        b = draw(st.integers(a, n))
        marks.append(Mark(start=a, end=b, ident=f"f{k}", severity=draw(st.sampled_from(["error", "warning"])),
                          label=draw(nasty_text)))
    return source, regions, marks


@settings(max_examples=300)
@given(case=marked_cases())
def test_each_mark_holds_exactly_its_slice_and_the_text_is_the_source(case: Any) -> None:
    source, regions, marks = case
    r = read(marked(source, 0, len(source), regions=regions, marks=marks))
    assert "".join(r.text) == shown(source)
    for m in marks:
        assert r.marks.get(m.ident, "") == shown(source[m.start : m.end])
        assert m.ident in r.marks  # a zero-width finding is an empty mark, still there
    assert {t for t, _ in r.tags} <= {"span", "mark"}
    for tag, a in r.tags:
        if tag == "span" and a.get("class", "").startswith("pt "):
            assert a["title"] == shown(next(x.label for x in regions if x.ident == a["data-part"]))


def test_a_long_text_keeps_windows_around_its_marks_and_counts_the_rest() -> None:
    source = "a" * 10_000 + "<bad>" + "b" * 10_000
    html = marked(source, 0, len(source), marks=[Mark(start=10_000, end=10_005, ident="f", severity="error",
                                                    label="x")], budget=1_000)
    r = read(html)
    assert r.marks["f"] == "<bad>"
    assert "characters not shown" in html and len(html) < 3_000


@settings(max_examples=100)
@given(text_=st.one_of(rendered_transcripts(), adversarial_texts()))
def test_results_bind_to_calls_as_the_openai_view_binds_them(text_: str) -> None:
    t = ht.parse_transcript(text_, ids=ht.sequential_ids())
    layout = _layout(t, [], "")
    shown_ids = []
    for turn in layout.turns:
        results = [p for p in turn.parts if p.shown.kind == "result"]
        if turn.role in ("tool", "user") and (results or turn.role == "tool"):
            if not results:
                shown_ids.append(layout.calls[turn.answers].shown.call_id if turn.answers else None)
            for p in results:
                bound = layout.bound.get(p.pid)
                shown_ids.append(layout.calls[bound].shown.call_id if bound else None)
    openai_ids = [m.tool_call_id for m in t.to_messages() if m.role == "tool"]
    assert shown_ids == openai_ids


@settings(max_examples=100)
@given(text_=st.one_of(rendered_transcripts(), adversarial_texts(), completions(), nasty_text))
def test_the_displays_leave_equality_pickling_and_fields_alone(text_: str) -> None:
    ids = ht.sequential_ids
    pairs = [(ht.parse_transcript(text_, ids=ids()), ht.parse_transcript(text_, ids=ids())),
             (ht.parse_completion(text_, ids=ids()), ht.parse_completion(text_, ids=ids()))]
    for value, again in pairs:
        assert value == again
        assert pickle.loads(pickle.dumps(value)) == value and copy.deepcopy(value) == value
        assert [f.name for f in dataclasses.fields(value)][-2:] in (["source", "stopped_at"], ["end", "stopped_at"])
        line = repr(value)
        assert line.startswith(f"<{type(value).__name__} ") and "\n" not in line and "\x1b" not in line
        assert len(line) < 600
        html = value._repr_html_()
        r = read(html)
        assert {t for t, _ in r.tags} <= {"style", "div", "section", "span", "mark", "details", "summary", "b",
                                           "code", "ul", "li", "a", "h2"}


def test_repr_of_parts_turns_and_diagnostics_is_unchanged() -> None:
    """Only Completion, Transcript and ValidationReport got a short repr; the values inside keep theirs
    (tests and doctests show them)."""
    c = ht.parse_completion('x<tool_call>{"name": "f", "arguments": {}}</tool_call><tool_call>{',
                            ids=ht.sequential_ids())
    assert repr(c.parts[0]) == "Text(text='x', span=Span(start=0, end=1, line=1, column=1))"
    assert repr(c.diagnostics[0]).startswith("Diagnostic(code='HT102', severity='error', ")
    assert repr(c) == "<Completion 66 chars: text, call f, invalid call (HT102) · 1 diagnostic: HT102 error>"
    t = ht.parse_transcript("<|im_start|>user\nhi<|im_end|>\n")
    assert repr(t.turns[0]).startswith("Turn(role='user', parts=(Text(text='hi'")
    assert repr(t) == "<Transcript 30 chars, 1 turn: user · no diagnostics>"


def test_rich_shows_a_tree_without_the_inputs_escape_sequences() -> None:
    from rich.console import Console

    t = ht.parse_transcript('<|im_start|>user\nhi \x1b[2J[bold]x[/bold]<|im_end|>\n<|im_start|>assistant\n'
                            '<tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call><|im_end|>\n')
    out = io.StringIO()
    Console(file=out, width=100, force_terminal=False).print(t)
    printed = out.getvalue()
    assert "\x1b" not in printed and "[bold]x[/bold]" in printed and "call f" in printed


def test_a_validation_report_shows_its_subject_and_keeps_its_equality() -> None:
    tools = [{"type": "function", "function": {"name": "f", "parameters": {
        "type": "object", "properties": {"a": {"type": "string"}}}}}]
    c = ht.parse_completion('<tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call>', ids=ht.sequential_ids())
    report = ht.validate(c, tools=tools)
    assert report.subject is c and report == dataclasses.replace(report, subject=None)
    assert repr(report) == "<ValidationReport 1 finding: 1 error (HT302)>"
    assert repr(ht.validate([])) == "<ValidationReport: no findings>"
    r = read(report._repr_html_())
    assert [a["data-code"] for t, a in r.tags if t == "li"] == ["HT302"]
    marks = [a["data-f"] for t, a in r.tags if t == "mark"]
    assert len(marks) == 1 and r.marks[marks[0]] == "1"
    messages = ht.validate([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hi <|im_end|> x"}])
    r = read(messages._repr_html_())
    assert [a["data-code"] for t, a in r.tags if t == "li"] == ["HT006", "HT501"]
    assert sorted(r.marks.values()) == ["<|im_end|>", "<|im_end|> x"]


def test_a_json_record_marks_the_string_a_finding_points_into_and_outlines_a_whole_value() -> None:
    record = {"messages": [{"role": "user", "content": "a <b> c"},
                           {"role": "assistant", "tool_calls": [{"id": "c1", "type": "function",
                            "function": {"name": "f", "arguments": {"x": 1}}}]}], "tools": []}
    found = [
        Finding(code="HT501", severity="error", message="m", path=("messages", 0, "content"), start=2, end=5),
        Finding(code="HT302", severity="error", message="m", path=("messages", 1, "tool_calls", 0, "function",
                                                                  "arguments", "x"), whole=True),
        Finding(code="HT305", severity="warning", message="m", path=("tools",), whole=True),
        Finding(code="HT602", severity="error", message="m", path=(), whole=True),
    ]
    r = read(json_record_body(record, found, prefix="r1"))
    assert r.marks == {"r1f0": "<b>"}
    flagged = {a["data-f"]: a["class"] for _, a in r.tags if "data-f" in a and "flag" in (a.get("class") or "")}
    assert set(flagged) == {"r1f1", "r1f2", "r1f3"} and "field" in flagged["r1f1"] and "tools" in flagged["r1f2"]


def test_a_json_record_shows_each_sender_as_the_validator_reads_it() -> None:
    """Regression: the HTML view had its own ShareGPT sender table: ``function_response`` (a tool's result in
    ``_sharegpt.SENDERS``) was shown as ``other``, and a ShareGPT ``function`` sender (unknown to the validator)
    as a tool. One table now; an OpenAI ``function`` message (the legacy result) stays a tool's."""
    senders = ["system", "human", "gpt", "function_call", "function_response", "observation", "tool", "function"]
    sharegpt = {"conversations": [{"from": f, "value": "v"} for f in senders]}
    shown = re.findall(r'<section class="turn role-(\w+)', json_record_body(sharegpt, [], prefix="r"))
    assert shown == ["system", "user", "assistant", "assistant", "tool", "tool", "tool", "other"]
    openai = {"messages": [{"role": r, "content": "v"} for r in ("user", "assistant", "function", "gpt")]}
    shown = re.findall(r'<section class="turn role-(\w+)', json_record_body(openai, [], prefix="r"))
    assert shown == ["user", "assistant", "tool", "other"]


def test_a_chatml_record_is_shown_turn_by_turn_and_a_long_one_only_near_its_findings() -> None:
    turns = "".join(f"<|im_start|>user\nmessage {k}<|im_end|>\n" for k in range(40))
    t = ht.parse_transcript(turns)
    at = turns.index("message 20")
    html = record_body(t, [Finding(code="HT501", severity="error", message="m", start=at, end=at + 7)], prefix="r")
    r = read(html)
    assert r.marks == {"rf0": "message"}
    assert html.count('<section class="turn') == 5 and "18 turn(s) without findings not shown" in html


def test_the_report_writer_caps_what_it_shows_and_says_what_it_left_out() -> None:
    out = io.StringIO()
    w = ReportWriter(out, title="t", command="c", limit=3)
    shown_total = 0
    for n in range(1, 6):
        fs = [Finding(code="HT302" if k % 2 else "HT501", severity="error" if k % 2 else "warning", message="m")
              for k in range(2)]
        for f in fs:
            w.count("a.jsonl", f)
        w.record_seen()
        room = w.room()
        if room:
            w.record(file="a.jsonl", number=n, line=n, record_id=None, body="", findings=fs[:room])
            shown_total += len(fs[:room])
    w.finish(records=5, note="interrupted after 5 record(s)", status=130)
    page = out.getvalue()
    r = read(page)
    assert shown_total == 3 and sum(1 for t, _ in r.tags if t == "li") == 3
    assert 'data-left-out="7"' in page and "shows 3 of 10 findings (in 2 of 5 records with findings)" in page
    assert "(4 errors, 3 warnings)" in page
    assert "The run did not complete: interrupted after 5 record(s)." in page
    assert "https:" not in page and "http:" not in page and " src=" not in page


def test_findings_of_and_view_page_name_every_diagnostic() -> None:
    c = ht.parse_completion('<tool_call>{"name": "f", "arguments": {"a": 1}</tool_call>\x00<b>')
    found = findings_of(c.diagnostics, {"HT103": "not-json"})
    page = view_page(c, findings=found)
    r = read(page.split("<body>", 1)[1].rsplit("<script>", 1)[0])
    codes = [a["data-code"] for t, a in r.tags if t == "li"]
    assert codes == [d.code for d in c.diagnostics] and codes
    assert "<b>" not in page and "&lt;b&gt;" in page
    assert notebook_html(c) != notebook_html(c)  # each fragment has its own ids


@pytest.mark.parametrize("body", ["x" * 5_000, '{"a": ' * 3_000])
def test_bodies_too_big_or_too_deep_still_show(body: str) -> None:
    c = ht.parse_completion(f'<tool_call>{{"name": "f", "arguments": {{"v": "{body}"}}}}</tool_call>')
    assert "characters" in c._repr_html_()


def test_a_control_character_in_the_title_or_a_file_name_stays_one_character() -> None:
    """Regression (hypothesis, browser test): ``<title>`` holds text only (RCDATA) and ``<option>`` drops
    elements, so the stand-in's ``<span>`` showed as markup in the title; both now take the stand-in alone."""
    page = view_page(ht.parse_completion("x"), title="a\x1fb<c>")
    assert "<title>a\u241fb&lt;c&gt;</title>" in page
    out = io.StringIO()
    w = ReportWriter(out, title="t", command="c")
    f = Finding(code="HT501", severity="error", message="m")
    w.count("f\x1b.jsonl", f)
    w.record(file="f\x1b.jsonl", number=1, line=1, record_id=None, body="", findings=[f])
    w.finish(records=1, note=None, status=1)
    assert '<option value="f\u241b.jsonl">f\u241b.jsonl (1)</option>' in out.getvalue()


def test_the_style_and_script_hold_no_control_character() -> None:
    """Regression (seen in a screenshot): ``content:"\\23CE"`` in a plain Python string was an octal escape,
    so the ⏎ drawn after a highlighted newline came out as U+0013 and "CE"."""
    from hermes_toolcall.html._page import CSS, SCRIPT

    for source in (CSS, SCRIPT):
        assert not [c for c in source if ord(c) < 0x20 and c != "\n"]
    assert 'content:"\\23CE"' in CSS


def test_rich_shows_a_reports_findings_where_they_point() -> None:
    from rich.console import Console

    out = io.StringIO()
    Console(file=out, width=120).print(ht.validate([{"role": "tool", "content": "<b>", "tool_call_id": "x"}]))
    assert "messages[0].content" in out.getvalue() and "HT402" in out.getvalue()
