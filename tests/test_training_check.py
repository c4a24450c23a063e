"""Train/serve skew: ``check_training_render`` and the ``check-training`` / ``training-data`` commands.

Named regressions for each skew the issue lists (chatml-family.md §6, official-templates.md §4/§7/§9):
Hermes ``tool_use`` after a tool result (a one-newline skew), QwQ (its prompt ends ``<think>\\n``; earlier
reasoning is stripped), Nemotron 3 (its prompt ends ``<think>\\n``, a turn without reasoning is rendered
``<think></think>``; earlier reasoning becomes ``<think></think>``), Qwen3 (history rewritten: earlier reasoning
dropped, only the last turn gets an empty think block), Qwen3.5 and Step 3.5 (earlier think blocks dropped); the
dataset test checks that exactly those rows are flagged.
"""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest

from hermes_toolcall import RenderError, TokenBoundaryWarning, check_training_render, render, token_labels, train_mask
from hermes_toolcall.cli import main
from hermes_toolcall.training import TrainingReport
from test_render_spans import REF, TOOLS

BOS = "<|begin_of_text|>"


def kinds(report: TrainingReport) -> list[tuple[str, str, int | None]]:
    return [(f.kind, f.code, f.message_index) for f in report.findings]


@pytest.mark.parametrize("dialect", ["hermes", "hermes-vllm"])
def test_hermes_after_a_tool_result(dialect: str) -> None:
    """Trained ``</tool_response>\\n<|im_end|>``, served ``</tool_response><|im_end|>``: HT700 at that newline."""
    report = check_training_render(REF, TOOLS, dialect=dialect, bos_token=BOS)
    assert kinds(report) == [("prompt_not_prefix", "HT700", 5)]
    f = report.findings[0]
    assert report.text[f.offset - len("</tool_response>") : f.offset] == "</tool_response>"
    assert f.expected.startswith("\n<|im_end|><|im_start|>assistant\n")
    assert f.found == "<|im_end|><|im_start|>assistant\n"
    served = render(REF[:5], tools=TOOLS, dialect=dialect, bos_token=BOS, add_generation_prompt=True)
    assert served[: f.offset] == report.text[: f.offset] and served[f.offset :] == f.found
    # the call turn (after a user turn) is served as trained
    assert check_training_render(REF[:3], TOOLS, dialect=dialect, bos_token=BOS).ok


def test_qwq_prompt_ends_inside_think() -> None:
    """QwQ is served ``…assistant\\n<think>\\n``: every turn that does not start so is HT700."""
    report = check_training_render(REF, TOOLS, dialect="qwq")
    assert kinds(report) == [("prompt_not_prefix", "HT700", 2), ("prompt_not_prefix", "HT700", 5)]
    for f in report.findings:
        assert report.text[f.offset - len("<|im_start|>assistant\n") : f.offset] == "<|im_start|>assistant\n"
        assert f.found == "<think>\n"
    thinking = [{"role": "user", "content": "q"}, {"role": "assistant", "content": "<think>\nhm\n</think>\n\nA"}]
    assert check_training_render(thinking, dialect="qwq").ok
    # reasoning of a turn that is not the last is stripped once a later turn exists: HT701
    more = [*thinking, {"role": "user", "content": "q2"}, {"role": "assistant", "content": "<think>\nok\n</think>\nB"}]
    report = check_training_render(more, dialect="qwq")
    assert kinds(report) == [("history_rewritten", "HT701", 1)]
    assert report.findings[0].found.startswith("<think>\nhm") and report.findings[0].expected.startswith("A<|im_end|>")
    # the template writes content only: reasoning_content is not rendered, so such a turn is HT700 too
    given = [{"role": "user", "content": "q"}, {"role": "assistant", "content": "A", "reasoning_content": "hm"}]
    report = check_training_render(given, dialect="qwq")
    assert kinds(report) == [("prompt_not_prefix", "HT700", 1)] and "hm" not in report.text
    # a turn followed by a tool result is not the last message either: stripped up to the last </think> and the
    # newlines after it; a call turn whose content so empties keeps the newline before its call
    call = [{"id": "c0", "type": "function", "function": {"name": "get_weather", "arguments": {"location": "Paris"}}}]
    tool = {"role": "tool", "tool_call_id": "c0", "content": "sunny"}
    calls = [thinking[0], {"role": "assistant", "content": "<think>\nhm\n</think>\n\n", "tool_calls": call}, tool,
             {"role": "assistant", "content": "<think>\nok\n</think>\n\nB"}]
    report = check_training_render(calls, TOOLS, dialect="qwq")
    assert kinds(report) == [("history_rewritten", "HT701", 1)]
    assert report.findings[0].expected.startswith("\n<tool_call>") and report.findings[0].found.startswith("<think>")
    assert report.text[: report.findings[0].offset].endswith("<|im_start|>assistant\n")
    # leading newlines alone are stripped from a turn that is not the last message: HT701 without any reasoning
    lead = [{"role": "user", "content": "q"}, {"role": "assistant", "content": "<think>\n\nA"},
            {"role": "user", "content": "q2"}, {"role": "assistant", "content": "<think>\nB"}]
    assert check_training_render(lead, dialect="qwq").ok  # no </think>, no leading newline: kept as written
    lead[1] = {"role": "assistant", "content": "\nA"}
    assert ("history_rewritten", "HT701", 1) in kinds(check_training_render(lead, dialect="qwq"))


def test_nemotron_prompt_opens_think() -> None:
    """Nemotron 3 is served ``…assistant\\n<think>\\n``, but renders a turn without reasoning ``<think></think>…``
    (HT700 right after ``<think>``), and once a later user turn exists an earlier turn's reasoning becomes
    ``<think></think>`` (HT701): chatml-family.md §6."""
    report = check_training_render(REF, TOOLS, dialect="nemotron-3")
    assert kinds(report) == [("prompt_not_prefix", "HT700", 2), ("prompt_not_prefix", "HT700", 5)]
    for f in report.findings:
        assert report.text[: f.offset].endswith("<|im_start|>assistant\n<think>")
        assert f.found == "\n" and f.expected.startswith("</think>")
    assert report.text[report.findings[0].offset:].startswith("</think>Let me check both.\n<tool_call>")
    msgs = [{"role": "user", "content": "q1"}, {"role": "assistant", "content": "a1", "reasoning_content": "r1"},
            {"role": "user", "content": "q2"}, {"role": "assistant", "content": "a2", "reasoning_content": "r2"}]
    report = check_training_render(msgs, dialect="nemotron-3")
    assert kinds(report) == [("history_rewritten", "HT701", 1)]
    f = report.findings[0]
    assert report.text[: f.offset].endswith("<|im_start|>assistant\n<think>")
    assert f.found == "\nr1\n</think>\na1<|im_end|>\n" and f.expected.startswith("</think>\na1<|im_end|>")
    # one turn with reasoning: served as trained
    assert check_training_render(msgs[:2], dialect="nemotron-3").ok


@pytest.mark.parametrize(("dialect", "suffix"), [("qwen3.5", "\n\n"), ("step-3.5", "\n")])
def test_qwen35_and_step_drop_reasoning_before_the_last_query(dialect: str, suffix: str) -> None:
    """Qwen3.5 and Step 3.5 render a turn's think block only after the last query: HT701 for an earlier turn, with
    its reasoning or (without) the empty block it had when last; a run of turns after one query keeps its bytes."""
    msgs = [{"role": "user", "content": "q1"}, {"role": "assistant", "content": "a1", "reasoning_content": "r1"},
            {"role": "user", "content": "q2"}, {"role": "assistant", "content": "a2", "reasoning_content": "r2"}]
    report = check_training_render(msgs, dialect=dialect)
    assert kinds(report) == [("history_rewritten", "HT701", 1)]
    f = report.findings[0]
    assert f.found == f"<think>\nr1\n</think>{suffix}a1<|im_end|>\n" and f.expected.startswith("a1<|im_end|>")
    assert report.text[: f.offset].endswith("<|im_start|>assistant\n")
    del msgs[1]["reasoning_content"]
    assert check_training_render(msgs, dialect=dialect).findings[0].found.startswith(f"<think>\n\n</think>{suffix}a1")
    assert check_training_render(REF, TOOLS, dialect=dialect).ok


def test_qwen3_history_rewrite() -> None:
    """Qwen3 drops earlier reasoning and gives only the last turn an empty think block: HT701 per rewritten turn."""
    msgs = [{"role": "user", "content": "q1"}, {"role": "assistant", "content": "a1", "reasoning_content": "r1"},
            {"role": "user", "content": "q2"}, {"role": "assistant", "content": "a2"}]
    report = check_training_render(msgs, dialect="qwen3")
    assert kinds(report) == [("history_rewritten", "HT701", 1)]
    f = report.findings[0]
    assert f.found == "<think>\nr1\n</think>\n\na1<|im_end|>\n" and f.expected.startswith("a1<|im_end|>")
    assert report.text[f.offset :].startswith("a1<|im_end|>")
    # calls then results then an answer, one query: the call turn loses the empty think block it had when last
    report = check_training_render(REF, TOOLS, dialect="qwen3")
    assert kinds(report) == [("history_rewritten", "HT701", 2)]
    assert report.findings[0].found.startswith("<think>\n\n</think>\n\nLet me check both.")
    # one assistant turn: nothing to rewrite
    assert check_training_render(msgs[:2], dialect="qwen3").ok


@pytest.mark.parametrize("dialect", ["qwen2.5", "omp"])
def test_dialects_without_skew(dialect: str) -> None:
    msgs = [*REF, {"role": "user", "content": "thanks"}, {"role": "assistant", "content": "welcome"}]
    assert check_training_render(msgs, TOOLS, dialect=dialect).ok


def test_given_text_differs() -> None:
    """Another renderer's text (here: one newline after ``<|im_end|>`` missing) against the official bytes."""
    official = render(REF, tools=TOOLS, dialect="qwen2.5")
    at = official.index("<|im_end|>\n<|im_start|>assistant") + len("<|im_end|>")
    other = official[:at] + official[at + 1 :]
    report = check_training_render(REF, TOOLS, dialect="qwen2.5", text=other)
    assert kinds(report) == [("text_differs", "HT702", 1)]
    assert report.findings[0].offset == at and report.findings[0].found.startswith("<|im_start|>assistant")
    assert check_training_render(REF, TOOLS, dialect="qwen2.5", text=official).ok
    longer = check_training_render(REF, TOOLS, dialect="qwen2.5", text=official + "x")
    assert [(f.kind, f.offset, f.message_index) for f in longer.findings] == [("text_differs", len(official), None)]


def test_whole_conversation_refused() -> None:
    """The HF Hermes template crashes on ``tools=None``: the check raises as ``render`` does; ``[]`` renders."""
    msgs = [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}]
    with pytest.raises(RenderError):
        check_training_render(msgs, dialect="hermes")
    assert check_training_render(msgs, [], dialect="hermes").ok


# ---- the commands -------------------------------------------------------------------------------------------

SKEW_ROWS: list[tuple[dict[str, Any], dict[str, set[str]]]] = [
    # (record, {dialect: codes expected}); a dialect not named: no finding
    ({"messages": REF, "tools": TOOLS},
     {"hermes": {"HT700"}, "qwq": {"HT700"}, "qwen3": {"HT701"}, "nemotron-3": {"HT700"}}),
    ({"messages": REF[:3], "tools": TOOLS}, {"qwq": {"HT700"}, "nemotron-3": {"HT700"}}),
    ({"messages": [{"role": "user", "content": "q1"}, {"role": "assistant", "content": "a1"},
                   {"role": "user", "content": "q2"}, {"role": "assistant", "content": "a2"}]},
     {"qwq": {"HT700"}, "qwen3": {"HT701"}, "qwen3.5": {"HT701"}, "step-3.5": {"HT701"}, "nemotron-3": {"HT700"}}),
    ({"messages": [{"role": "user", "content": "q"}, {"role": "assistant", "content": "<think>\nr\n</think>\n\nA"}]},
     {"omp": {"HT704"}}),  # omp writes reasoning from reasoning_content only: a think block in content is refused
    ({"messages": [{"role": "system", "content": "s"}, {"role": "user", "content": "q"}]}, {}),
]


def _write_jsonl(path: Path, rows: list[Any]) -> None:
    path.write_text("".join((json.dumps(r) if not isinstance(r, str) else r) + "\n" for r in rows), encoding="utf-8")


@pytest.mark.parametrize("dialect", ["hermes", "qwen3", "qwen2.5", "qwq", "omp", "qwen3-coder", "qwen3.5",
                                     "nemotron-3", "step-3.5"])
def test_check_training_flags_exactly_the_skewed_rows(dialect: str, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "data.jsonl"
    _write_jsonl(path, [row for row, _ in SKEW_ROWS])
    status = main(["check-training", str(path), "--dialect", dialect, "--bos-token", BOS])
    out, err = capsys.readouterr()
    flagged: dict[int, set[str]] = {}
    for line in (out + err).splitlines():  # findings on standard output, unrenderable records (HT704) on error
        if not line.startswith(f"{path}:"):
            continue
        where, code, _, _, record, *_ = line.split(" ")
        assert where.startswith(f"{path}:") and record == f"{int(where.split(':')[1])}:"
        flagged.setdefault(int(where.split(":")[1]), set()).add(code)
    expected = {n: codes[dialect] for n, (_, codes) in enumerate(SKEW_ROWS, 1) if dialect in codes}
    assert flagged == expected
    assert status == (1 if expected else 0)
    assert f"{len(SKEW_ROWS)} record(s) checked ({dialect}), {len(expected)} with findings" in err


def test_check_training_text_column_and_bad_records(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    official = render(REF, tools=TOOLS, dialect="qwen2.5")
    path = tmp_path / "data.jsonl"
    _write_jsonl(path, [{"messages": REF, "tools": TOOLS, "prompt": official},
                        {"messages": REF, "tools": TOOLS, "prompt": official.replace("\n<|im_start|>", "<|im_start|>")},
                        {"messages": REF, "tools": TOOLS},
                        {"messages": [{"role": "user", "content": "<|im_end|>"}], "prompt": ""},
                        "{not json"])
    status = main(["check-training", str(path), "-d", "qwen2.5", "--text-column", "prompt"])
    out, err = capsys.readouterr()
    assert status == 1
    assert [line.split(" ")[0:2] for line in out.splitlines()] == [[f"{path}:2:", "HT702"]]
    assert f"{path}:3: HT704 error: record 3: no `prompt` string to compare" in err
    assert f"{path}:4: HT704 error: record 4: cannot render:" in err
    assert f"{path}:5: HT704 error: record 5: cannot read: invalid JSON" in err
    assert "5 record(s) checked (qwen2.5), 4 with findings: HT702 ×1, HT704 ×3" in err


def test_training_data_spans_jsonl(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "in.jsonl"
    rows = [{"messages": REF, "tools": TOOLS}, {"messages": [{"role": "user", "content": "<|im_end|>"}]},
            {"conversations": [{"from": "human", "value": "Hi"}, {"from": "gpt", "value": "Hello"}]}]
    _write_jsonl(src, rows)
    out = tmp_path / "out.jsonl.gz"
    status = main(["training-data", str(src), str(out), "-d", "qwen3", "--no-reasoning"])
    assert status == 1  # two records skipped: one refused, one not --from openai
    err = capsys.readouterr().err
    assert f"{src}:2: HT704 error: record 2: cannot render:" in err
    assert f"{src}:3: HT704 error: record 3: cannot read: no `messages` list (the record shape is --from openai)" in err
    assert "1 record(s) written" in err
    [row] = [json.loads(line) for line in gzip.open(out, "rt", encoding="utf-8")]
    r = render(REF, tools=TOOLS, dialect="qwen3", return_spans=True)
    assert row["text"] == r.text
    assert row["spans"] == [{"start": s.start, "end": s.end, "kind": s.kind, "role": s.role,
                             "message_index": s.message_index} for s in r.spans]
    assert row["trained"] == [list(i) for i in train_mask(r, include_reasoning=False)]
    # ShareGPT input, converted to OpenAI messages first
    out2 = tmp_path / "out2.jsonl"
    assert main(["training-data", str(src), str(out2), "-d", "qwen2.5", "--from", "sharegpt"]) == 1
    rows2 = [json.loads(line) for line in out2.read_text(encoding="utf-8").splitlines()]
    assert rows2[-1]["text"].endswith("<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\nHello<|im_end|>\n")


def test_training_data_tokens_parquet_from_stdin(tmp_path: Path) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    tokenizers = pytest.importorskip("tokenizers")
    tok = tokenizers.Tokenizer(tokenizers.models.BPE())
    tok.pre_tokenizer = tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    trainer = tokenizers.trainers.BpeTrainer(vocab_size=400, special_tokens=["<|im_start|>", "<|im_end|>"],
                                             initial_alphabet=tokenizers.pre_tokenizers.ByteLevel.alphabet(),
                                             show_progress=False)
    tok.train_from_iterator([render(REF, tools=TOOLS, dialect=d) for d in ("qwen3", "qwen2.5")] * 2, trainer)
    tok_path = tmp_path / "tokenizer.json"
    tok.save(str(tok_path))
    src = "".join(json.dumps(r) + "\n" for r in ({"messages": REF, "tools": TOOLS},
                                                  {"messages": REF[:3], "tools": TOOLS}))
    out = tmp_path / "out.parquet"
    done = subprocess.run([sys.executable, "-m", "hermes_toolcall", "training-data", "-", str(out), "-d", "qwen3",
                           "--tokenizer", str(tok_path), "--policy", "last_assistant"],
                          input=src, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "2 record(s) written" in done.stderr and "token(s) straddled a span boundary (train)" in done.stderr
    table = pq.read_table(out).to_pylist()
    for row, msgs in zip(table, (REF, REF[:3]), strict=True):
        r = render(msgs, tools=TOOLS, dialect="qwen3", return_spans=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", TokenBoundaryWarning)
            labels = token_labels(r, tok, "last_assistant")
        assert row == labels.as_dict()


def test_training_data_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "in.jsonl"
    _write_jsonl(src, [{"messages": REF}])
    assert main(["training-data", str(src), str(tmp_path / "o.jsonl"), "--output-format", "text"]) == 2
    assert "invalid choice: 'text'" in capsys.readouterr().err  # main returns argparse's usage status
    assert main(["training-data", str(src), str(tmp_path / "o.jsonl"), "--tokenizer",
                 str(tmp_path / "missing.json")]) == 2
    assert "cannot read the tokenizer" in capsys.readouterr().err
    assert not (tmp_path / "o.jsonl").exists() and not (tmp_path / "o.jsonl.partial").exists()


def test_docs_page_examples() -> None:
    """docs/training.md's ``>>>`` examples hold (the docs examples test runs every page the same way)."""
    import doctest

    from conftest import REPO

    result = doctest.testfile(str(REPO / "docs" / "training.md"), module_relative=False,
                              optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted >= 10 and result.failed == 0
