"""The HTML pages in a real headless Chromium (Debian's chromium + chromium-driver, driven by Selenium).

What is checked on the DOM the browser built: the counts (turns, calls, results bound to their calls,
findings with their code as text), that the filters change what is shown, that a highlighted span's
text is the source slice, that nothing from the input became an element or ran a script, and that the
pages load nothing from outside. A screenshot of each page goes to the test's temporary folder (never
committed) and must not be trivially small.

``.ci/run`` installs Chromium; without it these tests skip (and under CI a skip fails: ``ci_required``).
"""

from __future__ import annotations

import json
import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import hermes_toolcall as ht
from conftest import REPO
from hermes_toolcall.cli import main
from hermes_toolcall.html import CSP, Finding, ReportWriter, json_record_body, record_body, shown, view_page

webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is in the [test] extra")

pytestmark = pytest.mark.ci_required("a real browser: .ci/run installs Debian's chromium and chromium-driver")

CHROMIUM = next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)
DRIVER = shutil.which("chromedriver")
# every element the pages are made of: anything else would have come from the input
ALLOWED = {
    "html", "head", "meta", "title", "style", "body", "script", "div", "header", "main", "section", "h1", "h2",
    "p", "span", "mark", "details", "summary", "b", "code", "ul", "li", "a", "table", "thead", "tbody", "tr",
    "th", "td", "svg", "rect", "label", "select", "option",
}
PAYLOADS = [
    "<script>window.__pwned=1</script>",
    '"><img src=x onerror="window.__pwned=1">',
    "' onmouseover='window.__pwned=1' x='",
    "</span></mark></div><svg onload=window.__pwned=1>",
    "<iframe srcdoc='<script>parent.__pwned=1</script>'></iframe>",
    "<!-- ]]> <style>*{display:none}</style>",
    "\ud800 lone \udfff",
    "\x00\r\x1b[2J\u202eevil\u202c\ufeff",
    "javascript:window.__pwned=1",
]


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if CHROMIUM is None or DRIVER is None:
        pytest.skip("Chromium and ChromeDriver are not installed (.ci/run installs chromium chromium-driver)")
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    profile = tempfile.mkdtemp(prefix="hermes-toolcall-chromium-")
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage", "--window-size=1400,1000", f"--user-data-dir={profile}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def load(browser: Any, page: Path) -> None:
    browser.get(page.resolve().as_uri())
    browser.get_log("browser")  # drop what an earlier page left


def js(browser: Any, script: str, *args: Any) -> Any:
    return browser.execute_script(script, *args)


def console_errors(browser: Any) -> list[str]:
    return [e["message"] for e in browser.get_log("browser") if e["level"] in ("SEVERE", "WARNING")]


def assert_inert(browser: Any, html: str, *, trusted_input: bool = True) -> None:
    """Nothing from the input became an element, ran, or loads anything: only the page's own elements and
    its one script; no ``src``, no link out, no ``url()`` or ``@import``; no console error (a refused
    script or style would be one)."""
    tags = set(js(browser, "return Array.from(document.querySelectorAll('*'), e => e.localName)"))
    assert tags <= ALLOWED, tags - ALLOWED
    assert js(browser, "return document.scripts.length") <= 1
    assert js(browser, "return window.__pwned === undefined && (window.parent.__pwned === undefined)")
    assert js(browser, "return document.querySelectorAll('[src],[srcdoc],iframe,object,embed,img,link').length") == 0
    hrefs = js(browser, "return Array.from(document.querySelectorAll('[href]'), e => e.getAttribute('href'))")
    assert all(h.startswith("#") for h in hrefs), hrefs
    handlers = js(browser, """return Array.from(document.querySelectorAll('*')).flatMap(
        e => Array.from(e.attributes, a => a.name)).filter(n => n.startsWith('on'))""")
    assert handlers == []
    styles = js(browser, "return Array.from(document.querySelectorAll('style'), s => s.textContent).join('')")
    assert "url(" not in styles and "@import" not in styles and js(browser, "return document.styleSheets.length") <= 1
    if trusted_input:  # the input holds none of these words: the file itself must not either
        assert "url(" not in html and "@import" not in html and not re.search(r"\b(src|srcdoc)=", html)
    assert not console_errors(browser)


def screenshot(browser: Any, path: Path) -> None:
    browser.save_screenshot(str(path))
    assert path.stat().st_size > 15_000, "the screenshot is nearly empty"


def mark_text(browser: Any, ident: str) -> str:
    return str(js(browser, "return Array.from(document.querySelectorAll('[data-f]'))"
                           ".filter(m => m.localName === 'mark' && m.dataset.f.split(' ').includes(arguments[0]))"
                           ".map(m => m.textContent).join('')", ident))


TOOLS = '{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object", ' \
        '"properties": {"city": {"type": "string"}, "days": {"type": "integer"}}, "required": ["city"]}}}'
TRANSCRIPT = (
    f"<|im_start|>system\nYou are a function calling AI model. <tools>\n{TOOLS}\n</tools><|im_end|>\n"
    "<|im_start|>user\nWeather in <script>window.__pwned=1</script> Paris?<|im_end|>\n"
    "<|im_start|>assistant\n<think>\nTwo cities.\n</think>\n"
    '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris", "days": "3"}}\n</tool_call>\n'
    '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Lyon"}}\n</tool_call>\n'
    '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Nice"\n</tool_call><|im_end|>\n'
    '<|im_start|>tool\n<tool_response>\n{"name": "get_weather", "content": {"temp": 21}}\n</tool_response>\n'
    '<tool_response>\n{"name": "get_weather", "content": {"temp": 19}}\n</tool_response><|im_end|>\n'
    "<|im_start|>assistant\nParis 21°C, Lyon 19°C.<|im_end|>\n"
)


def test_the_view_page(browser: Any, tmp_path: Path) -> None:
    source = tmp_path / "chat.txt"
    source.write_text(TRANSCRIPT, encoding="utf-8")
    page = tmp_path / "view.html"
    assert main(["view", str(source), "-o", str(page), "--sequential-ids"]) == 0
    html = page.read_text(encoding="utf-8")
    load(browser, page)
    t = ht.parse_transcript(TRANSCRIPT, ids=ht.sequential_ids())
    report = ht.validate(t)
    assert report.codes and "HT103" in report.codes and "HT302" in report.codes  # parse and schema findings
    assert js(browser, "return document.querySelectorAll('.conv > section.turn').length") == len(t.turns)
    assert js(browser, "return Array.from(document.querySelectorAll('.conv .role'), e => e.firstChild.textContent)") \
        == [turn.role for turn in t.turns]
    calls = js(browser, "return Array.from(document.querySelectorAll('.conv .part.call .fn'), e => e.textContent)")
    assert calls == [c.name for turn in t.turns for c in turn.tool_calls]
    assert js(browser, "return document.querySelectorAll('.conv .part.invalid').length") == 1
    # each result names the call it answers, and links to it
    bound = js(browser, """return Array.from(document.querySelectorAll('.conv .part.result'), r => {
        const a = r.querySelector('.head a'); const card = document.getElementById(a.getAttribute('href').slice(1));
        return [card.querySelector('.id').textContent, a.querySelector('.id').textContent]; })""")
    assert bound == [["call_0", "call_0"], ["call_1", "call_1"]]
    assert [m["tool_call_id"] for m in t.to_openai_messages() if m["role"] == "tool"] == ["call_0", "call_1"]
    # reasoning folded; every finding listed once, its code as text
    assert js(browser, "return Array.from(document.querySelectorAll('details.reasoning'), d => d.open)") == [False]
    codes = js(browser, "return Array.from(document.querySelectorAll('li.finding code.code'), e => e.textContent)")
    assert sorted(codes) == sorted(report.codes)
    # the raw text: the whole source, each part's region holding exactly its span, each finding its slice
    assert js(browser, "return document.querySelector('.raw .src').textContent") == shown(TRANSCRIPT)
    regions = js(browser, """return Array.from(document.querySelectorAll('.raw [data-part]'),
        e => [e.getAttribute('title'), e.textContent])""")
    assert len(regions) >= sum(len(turn.parts) for turn in t.turns)
    for title, content in regions:
        start, end = map(int, re.search(r"\[(\d+), (\d+)\)", title).groups())  # type: ignore[union-attr]
        assert content == shown(TRANSCRIPT[start:end]), title
    items = js(browser, "return Array.from(document.querySelectorAll('li.finding'), e => [e.id, e.dataset.code])")
    by_code = {d.code: d for d in report.diagnostics}
    for ident, code in items:
        d = by_code[code]
        assert mark_text(browser, ident) == shown(TRANSCRIPT[d.span.start : d.span.end]), code
    # hovering a call's card lights its bytes in the raw text (the page's own script runs)
    from selenium.webdriver import ActionChains

    card = browser.find_element("css selector", ".conv .part.call")
    ActionChains(browser).move_to_element(card).perform()
    lit = js(browser, "return Array.from(document.querySelectorAll('.raw .lit'), e => e.dataset.part)")
    assert lit == [card.get_attribute("data-part")]
    assert CSP in html.replace("&#39;", "'")
    assert_inert(browser, html)
    screenshot(browser, tmp_path / "view.png")


def _records(tmp_path: Path) -> tuple[Path, Path]:
    jsonl = tmp_path / "data.jsonl"
    weather = json.loads(TOOLS)
    rows = [
        {"id": "rec-<1>", "messages": [{"role": "user", "content": "hi"},
                                       {"role": "assistant", "content": "see <|im_end|> here"}]},
        {"id": 7, "tools": [weather], "messages": [
            {"role": "user", "content": "weather"},
            {"role": "assistant", "tool_calls": [{"id": "c1", "type": "function", "function": {
                "name": "get_weather", "arguments": '{"city": 5, "days": "x"}'}}]},
            {"role": "tool", "tool_call_id": "c1", "content": "sunny"}]},
        {"messages": [{"role": "user", "content": "fine"}]},
    ]
    lines = [json.dumps(r) for r in rows] + ['{"messages": [oops']
    jsonl.write_text("\n".join(lines) + "\n", encoding="utf-8")
    chatml = tmp_path / "chat.chatml"
    chatml.write_text(TRANSCRIPT, encoding="utf-8")
    return jsonl, chatml


def _jsonl_findings(*argv: str, tmp_path: Path) -> list[dict[str, Any]]:
    out = tmp_path / "all.jsonl"
    main(["validate", *argv, "--format", "jsonl", "-o", str(out)])
    return [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines() if '"finding"' in line]


def test_the_report_page_shows_every_finding_and_its_filters_work(browser: Any, tmp_path: Path) -> None:
    jsonl, chatml = _records(tmp_path)
    example = REPO / "examples" / "dataset.jsonl"
    page = tmp_path / "report.html"
    argv = [str(example), str(jsonl), str(chatml)]
    assert main(["validate", *argv, "--format", "html", "-o", str(page)]) == 1
    expected = _jsonl_findings(*argv, tmp_path=tmp_path)
    html = page.read_text(encoding="utf-8")
    load(browser, page)
    items = js(browser, """return Array.from(document.querySelectorAll('li.finding'), e => [
        e.closest('section.record').dataset.file, e.querySelector('code.code').textContent, e.dataset.sev])""")
    assert items == [[f["file"], f["code"], f["severity"]] for f in expected]
    assert len(items) > 50
    # the record's own id; the record-level finding (not JSON) shown on the raw line
    heads = js(browser, "return Array.from(document.querySelectorAll('section.record h2'), e => e.textContent)")
    assert any(h.endswith("id rec-<1>") for h in heads) and any(h.endswith("id 7") for h in heads)
    # a highlighted span is its source slice: a JSON record's string, and the ChatML file's text
    sections = js(browser, """return Array.from(document.querySelectorAll('section.record[data-file$="data.jsonl"]'),
        s => Array.from(s.querySelectorAll('li.finding'), e => e.id))""")
    rows = [json.loads(line) for line in jsonl.read_text(encoding="utf-8").splitlines()[:2]]
    checked = 0
    for ids, row in zip(sections, rows, strict=False):
        rep = ht.validate_record(row)
        assert len(ids) == len(rep.diagnostics)
        for ident, d, where in zip(ids, rep.diagnostics, rep.locations, strict=True):
            value: Any = row
            for key in where.path or ():
                value = value[key]
            if where.in_value and isinstance(value, str):
                assert mark_text(browser, ident) == shown(value[where.span.start : where.span.end]), d.code
                checked += 1
    assert checked >= 3
    t = ht.parse_transcript(TRANSCRIPT)
    report = ht.validate(t)
    ids = js(browser, "return Array.from(document.querySelectorAll("
                      "'section.record[data-file$=\"chat.chatml\"] li.finding'), e => e.id)")
    assert len(ids) == len(report.diagnostics)
    for ident, d in zip(ids, report.diagnostics, strict=True):
        assert mark_text(browser, ident) == shown(TRANSCRIPT[d.span.start : d.span.end]), d.code

    def visible() -> list[str]:
        return list(js(browser, """return Array.from(document.querySelectorAll('li.finding'))
            .filter(e => e.offsetParent !== null).map(e => e.dataset.code)"""))

    from selenium.webdriver.support.ui import Select

    assert len(visible()) == len(expected)
    Select(browser.find_element("id", "filter-code")).select_by_value("HT302")
    assert visible() == [f["code"] for f in expected if f["code"] == "HT302"]
    assert js(browser, "return document.getElementById('shown-count').textContent") == str(len(visible()))
    records = js(browser, "return Array.from(document.querySelectorAll('section.record')).filter("
                          "s => s.offsetParent !== null).length")
    assert records == len({(f["file"], f["record"]) for f in expected if f["code"] == "HT302"})
    Select(browser.find_element("id", "filter-code")).select_by_value("")
    Select(browser.find_element("id", "filter-sev")).select_by_value("warning")
    assert visible() == [f["code"] for f in expected if f["severity"] == "warning"]
    Select(browser.find_element("id", "filter-sev")).select_by_value("")
    Select(browser.find_element("id", "filter-file")).select_by_value(str(chatml))
    assert visible() == [f["code"] for f in expected if f["file"] == str(chatml)]
    # the totals: by severity and by code, a bar for each
    totals = js(browser, """return Array.from(document.querySelectorAll('table.by-code tbody tr'),
        r => [r.dataset.code, r.cells[3].textContent])""")
    counts: dict[str, int] = {}
    for f in expected:
        counts[f["code"]] = counts.get(f["code"], 0) + 1
    assert {c: int(n.replace(",", "")) for c, n in totals} == counts
    assert js(browser, "return document.querySelectorAll('#summary svg.bar rect').length") == len(counts) + 3
    # the totals are drawn above the records, though written after them
    Select(browser.find_element("id", "filter-file")).select_by_value("")
    assert len(visible()) == len(expected)
    assert js(browser, """return document.getElementById('summary').getBoundingClientRect().top <
        document.querySelector('section.record').getBoundingClientRect().top""")
    assert_inert(browser, html)
    screenshot(browser, tmp_path / "report.png")


def test_a_capped_report_says_how_many_findings_it_left_out(browser: Any, tmp_path: Path) -> None:
    _, chatml = _records(tmp_path)
    page = tmp_path / "capped.html"
    argv = [str(REPO / "examples" / "dataset.jsonl"), str(chatml)]
    assert main(["validate", *argv, "--format", "html", "--html-max-findings", "7", "-o", str(page)]) == 1
    total = len(_jsonl_findings(*argv, tmp_path=tmp_path))
    load(browser, page)
    assert js(browser, "return document.querySelectorAll('li.finding').length") == 7
    note = browser.find_element("css selector", ".note.capped")
    assert note.is_displayed() and note.get_attribute("data-left-out") == str(total - 7)
    assert f"shows 7 of {total} findings" in note.text
    hidden = js(browser, "return Array.from(document.querySelectorAll('table.by-code tbody tr'),"
                         " r => Number(r.cells[5].textContent))")
    assert sum(hidden) == total - 7
    assert_inert(browser, page.read_text(encoding="utf-8"))
    screenshot(browser, tmp_path / "capped.png")


def test_the_notebook_displays(browser: Any, tmp_path: Path) -> None:
    t = ht.parse_transcript(TRANSCRIPT, ids=ht.sequential_ids())
    c = ht.parse_completion(TRANSCRIPT.split("<|im_start|>assistant\n")[1], ids=ht.sequential_ids())
    report = ht.validate(t)
    messages = ht.validate([{"role": "user", "content": "x"}, {"role": "assistant", "content": "a <|im_end|> b"}])
    body = "".join(f"<section class=\"cell\">{v._repr_html_()}</section>" for v in (t, c, report, messages))
    page = tmp_path / "notebook.html"
    html = (f'<!DOCTYPE html><html><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" '
            f'content="{CSP.replace(chr(39), "&#39;")}"><title>cells</title></head><body>{body}</body></html>')
    page.write_text(html, encoding="utf-8")
    load(browser, page)
    per_cell = js(browser, """return Array.from(document.querySelectorAll('section.cell'), s => [
        s.querySelectorAll('.conv .part.call').length, s.querySelectorAll('li.finding').length,
        s.querySelectorAll('details > .src').length])""")
    assert per_cell == [
        [2, len(t.diagnostics), 1],
        [2, len(c.diagnostics), 1],
        [2, len(report.diagnostics), 1],
        [0, len(messages.diagnostics), 0],
    ]
    assert js(browser, "return getComputedStyle(document.querySelector('mark.hl')).backgroundColor") != \
        "rgba(0, 0, 0, 0)"  # the fragment's own style applies
    tags = set(js(browser, "return Array.from(document.querySelectorAll('*'), e => e.localName)"))
    assert tags <= ALLOWED and js(browser, "return document.scripts.length") == 0
    assert not console_errors(browser)
    screenshot(browser, tmp_path / "notebook.png")


@st.composite
def hostile_transcripts(draw: Any) -> str:
    piece = st.one_of(st.sampled_from(PAYLOADS), st.text(st.characters(blacklist_categories=()), max_size=8))
    words = st.lists(piece, max_size=4).map("".join)
    turns = []
    for _ in range(draw(st.integers(1, 4))):
        role = draw(st.sampled_from(["system", "user", "assistant", "tool", 'user"><script>window.__pwned=1//']))
        body = draw(words)
        if role == "assistant" and draw(st.booleans()):
            call = {"name": draw(words), "arguments": {draw(words): draw(words)}}
            body += f"<think>{draw(words)}</think><tool_call>\n{json.dumps(call)}\n</tool_call>" + draw(words)
        if role == "tool":
            body = f"<tool_response>\n{body}\n</tool_response>"
        if role == "system" and draw(st.booleans()):
            body += f'<tools>\n{{"type": "function", "function": {{"name": {json.dumps(draw(words))}}}}}\n</tools>'
        turns.append(f"<|im_start|>{role}\n{body}<|im_end|>\n")
    return "".join(turns) + draw(words)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=hostile_transcripts())
@example(text="<|im_start|>system\n<|im_end|>\n\xa0")  # a no-break space is not collapsed in a title
@example(text="<|im_start|>user\n<|im_end|>\n\x1f")  # a stand-in's <span> showed in the RCDATA title
def test_no_byte_of_a_hostile_transcript_becomes_markup_or_script(browser: Any, text: str) -> None:
    folder = Path(tempfile.mkdtemp(prefix="hermes-toolcall-xss-"))
    try:
        t = ht.parse_transcript(text, ids=ht.sequential_ids())
        view = folder / "view.html"
        view.write_text(view_page(t, title=text), encoding="utf-8")  # a lone surrogate would fail here
        load(browser, view)
        assert js(browser, "return document.querySelector('.raw .src').textContent") == shown(text)
        title = re.sub(r"[\t\n\f\r ]+", " ", shown(text)).strip("\t\n\f\r ")  # a browser collapses ASCII spaces
        assert js(browser, "return document.title") == title
        assert_inert(browser, view.read_text(encoding="utf-8"), trusted_input=False)
        record = {"id": text, "messages": [{"role": text, "content": text}], "tools": [{"name": text}]}
        found = [Finding(code="HT501", severity="error", message=text, hint=text, where=text,
                         path=("messages", 0, "content"), start=0, end=len(text) // 2),
                 Finding(code="HT006", severity="warning", message=text, start=0, end=len(text))]
        out = folder / "report.html"
        with open(out, "w", encoding="utf-8") as fh:
            w = ReportWriter(fh, title=text, command=text, limit=10)
            for f in found:
                w.count(text, f)
            w.record_seen()
            w.record(file=text, number=1, line=1, record_id=text, body=json_record_body(record, found[:1], prefix="r1"),
                     findings=found[:1], prefix="r1")
            w.record(file=text, number=2, line=2, record_id=None, body=record_body(t, found[1:], prefix="r2"),
                     findings=found[1:], prefix="r2")
            w.finish(records=2, note=text, status=1)
        load(browser, out)
        assert mark_text(browser, "r1f0") == shown(text[: len(text) // 2])
        assert mark_text(browser, "r2f0") == shown(text)
        assert js(browser, "return document.querySelector('section.record').dataset.file") == shown(text)
        assert_inert(browser, out.read_text(encoding="utf-8"), trusted_input=False)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
