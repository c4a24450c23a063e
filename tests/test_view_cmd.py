"""``hermes-toolcall view`` and ``validate --format html`` on the command line (the pages' DOM is checked in
tests/test_html_browser.py): detection, options, exit statuses, and flat memory."""

from __future__ import annotations

import json
import subprocess
import sys
import tracemalloc
from pathlib import Path

import pytest

from conftest import REPO
from hermes_toolcall.cli import main

TRANSCRIPT = (
    "<|im_start|>user\nhi <b>there</b><|im_end|>\n<|im_start|>assistant\n"
    '<tool_call>\n{"name": "f", "arguments": {"a": 1}}\n</tool_call><|im_end|>\n'
)
COMPLETION = '<think>\nhm\n</think>\n<tool_call>\n{"name": "f", "arguments": {"a": 1}}\n</tool_call>'


def _run(tmp_path: Path, text: str, *flags: str) -> tuple[int, str]:
    src = tmp_path / "in.txt"
    src.write_text(text, encoding="utf-8")
    out = tmp_path / "page.html"
    status = main(["view", str(src), "-o", str(out), *flags])
    return status, out.read_text(encoding="utf-8") if out.exists() else ""


def test_a_transcript_and_a_completion_are_told_apart(tmp_path: Path) -> None:
    status, page = _run(tmp_path, TRANSCRIPT)
    assert status == 0 and "transcript · 2 turns · 1 call" in page and "&lt;b&gt;there" in page
    status, page = _run(tmp_path, COMPLETION)
    assert status == 0 and "completion · 1 call" in page and "(completion, qwen3)" in page  # <think> first
    status, page = _run(tmp_path, TRANSCRIPT, "--completion")
    assert status == 0 and "completion · 0 calls" in page  # forced: the whole text is one completion
    status, page = _run(tmp_path, COMPLETION, "--transcript")
    assert status == 0 and "transcript · 0 turns" in page


def test_the_dialect_is_detected_and_the_validator_runs_unless_told_not_to(tmp_path: Path) -> None:
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps([{"type": "function", "function": {"name": "f", "parameters": {
        "type": "object", "properties": {"a": {"type": "string"}}}}}]), encoding="utf-8")
    status, page = _run(tmp_path, COMPLETION, "--tools", str(tools))
    assert status == 0 and 'data-code="HT302"' in page
    status, page = _run(tmp_path, COMPLETION, "--tools", str(tools), "--no-validate")
    assert status == 0 and 'data-code="HT302"' not in page
    qwen = "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\nHello<|im_end|>\n"
    status, page = _run(tmp_path, qwen)
    assert status == 0 and "(transcript, qwen3)" in page


def test_view_writes_to_standard_output_and_refuses_what_it_cannot_write(tmp_path: Path) -> None:
    src = tmp_path / "in.txt"
    src.write_text(TRANSCRIPT, encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "hermes_toolcall", "view", str(src)], capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0 and done.stdout.startswith("<!DOCTYPE html>") and done.stdout.endswith("</html>\n")
    done = subprocess.run([sys.executable, "-m", "hermes_toolcall", "view", str(src), "-o", str(tmp_path / "no" / "x")],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 2 and done.stderr.startswith("hermes-toolcall: error: cannot write") and not done.stdout
    done = subprocess.run([sys.executable, "-m", "hermes_toolcall", "view", str(tmp_path / "missing")],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 2 and "Traceback" not in done.stderr


def test_html_max_findings_is_for_the_html_format(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    example = str(REPO / "examples" / "dataset.jsonl")
    assert main(["validate", example, "--html-max-findings", "3"]) == 2
    assert "--html-max-findings is for --format html" in capsys.readouterr().err
    assert main(["validate", example, "--format", "html", "--html-max-findings", "-1"]) == 2
    assert main(["validate", example, "--format", "html", "--html-max-findings", "0"]) == 1
    page = capsys.readouterr().out
    assert 'class="finding' not in page and "This page shows 0 of" in page


def test_an_interrupted_html_report_is_still_a_whole_page(tmp_path: Path) -> None:
    """Ctrl-C (here: the input breaks off): the page closes, and says the run did not complete."""
    big = tmp_path / "d.jsonl"
    big.write_text(json.dumps({"messages": [{"role": "tool", "content": "x", "tool_call_id": "q"}]}) + "\n",
                   encoding="utf-8")
    out = tmp_path / "r.html"
    proc = subprocess.Popen([sys.executable, "-c", (
        "import signal, sys\n"
        "from hermes_toolcall.cli import _validate_cmd as v\n"
        "from hermes_toolcall import dataio as hooks\n"
        "real = hooks.results\n"
        "def results(*a, **k):\n"
        "    yield from real(*a, **k)\n"
        "    raise KeyboardInterrupt\n"
        "hooks.results = results\n"
        "from hermes_toolcall.cli import main\n"
        f"sys.exit(main(['validate', {str(big)!r}, '--format', 'html', '-o', {str(out)!r}]))\n"
    )], stderr=subprocess.PIPE, text=True)
    _, err = proc.communicate(timeout=120)
    page = out.read_text(encoding="utf-8")
    assert proc.returncode == 130 and "interrupted" in err
    assert page.rstrip().endswith("</html>") and "The run did not complete: interrupted after 1 record(s)" in page
    assert 'data-code="HT402"' in page


def _peak(argv: list[str]) -> int:
    tracemalloc.start()
    try:
        main(argv)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_the_html_report_streams_its_memory_stays_near_the_jsonl_reports(tmp_path: Path) -> None:
    """Peak Python memory of ``--format html`` within 1.5x of ``--format jsonl`` on the same dataset, one
    record in ten with a finding and the cap reached (bench/validate_io.py --report-memory measures
    the peak resident memory on 50 MB)."""
    rows = []
    for i in range(1_000):
        content = f"record {i} " + "words " * 60
        if i % 10 == 3:
            content += "<|im_end|> injected"
        rows.append(json.dumps({"id": f"r{i}", "messages": [{"role": "user", "content": content},
                                                          {"role": "assistant", "content": "ok " * 40}]}))
    data = tmp_path / "d.jsonl"
    data.write_text("\n".join(rows) + "\n", encoding="utf-8")
    common = ["validate", str(data), "--no-round-trip"]
    _peak([*common, "--format", "html", "-o", str(tmp_path / "warm.html")])  # imports, caches
    jsonl = min(_peak([*common, "--format", "jsonl", "-o", str(tmp_path / "o.jsonl")]) for _ in range(2))
    html = min(_peak([*common, "--format", "html", "--html-max-findings", "60", "-o", str(tmp_path / "o.html")])
               for _ in range(2))
    page = (tmp_path / "o.html").read_text(encoding="utf-8")
    found = (tmp_path / "o.jsonl").read_text(encoding="utf-8").count('"type":"finding"')
    assert found == 100 and page.count('<li class="finding') == 60 and f'data-left-out="{found - 60}"' in page
    assert html <= 1.5 * jsonl, (html, jsonl)


def test_the_html_report_is_the_same_with_worker_processes(capsys: pytest.CaptureFixture[str]) -> None:
    """The records shown travel back from the workers (``RecordResult.raw``): the same page, byte for byte."""
    example = str(REPO / "examples" / "dataset.jsonl")
    pages = []
    for jobs in ("1", "2"):
        assert main(["validate", example, "--format", "html", "--jobs", jobs]) == 1
        pages.append(capsys.readouterr().out)
    assert pages[0] == pages[1] and pages[0].count('<section class="record"') == 30
