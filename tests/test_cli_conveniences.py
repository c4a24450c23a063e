"""The command line's conveniences (issue 23 §4-§6), through the real entry point: ``rule``, the project settings
in ``pyproject.toml``, shell completion, ``--statistics``/``--quiet``/``--exit-zero``, ``validate --dialect auto``,
dialect-aware style defaults, ``conformance --group`` and the render injection message."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

import hermes_toolcall as ht

BIN = Path(sys.executable).parent / "hermes-toolcall"
REPO = Path(__file__).resolve().parent.parent
EXAMPLE = REPO / "examples" / "dataset.jsonl"


def _cli(*argv: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(BIN), *argv], capture_output=True, text=True, check=False, cwd=cwd)


# ---- rule ----------------------------------------------------------------------------------------------------


def test_rule_explains_a_code_offline() -> None:
    done = _cli("rule", "HT302")
    assert done.returncode == 0
    assert done.stdout.startswith("HT302 arguments-schema-violation (error, group: validation: calls)\n")
    assert "Fix: Fix the value at the reported path" in done.stdout
    assert "Not reported by default for: hermes, hermes-vllm" in _cli("rule", "ht109").stdout
    entry = json.loads(_cli("rule", "HT514", "--format", "json").stdout)
    assert entry["quiet_for"] == ["qwen3 (its template's own empty <think>)"]
    listing = _cli("rule", "--all").stdout.splitlines()
    assert len(listing) > 60 and listing[0].startswith("HT001  turn-missing-end")


@pytest.mark.parametrize("code", ["HT999", "XX1", "HT30"])
def test_rule_on_an_unknown_code_exits_2(code: str) -> None:
    done = _cli("rule", code)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith(f"hermes-toolcall: error: no diagnostic code {code!r}")


# ---- settings in pyproject.toml -----------------------------------------------------------------------------


def _project(tmp_path: Path, table: str) -> Path:
    (tmp_path / "sub").mkdir()
    (tmp_path / "pyproject.toml").write_text(f"[project]\nname = 'x'\n\n[tool.hermes-toolcall]\n{table}\n")
    return tmp_path / "sub"  # run from a folder below: the nearest pyproject.toml is the one above


def test_settings_come_from_the_nearest_pyproject_and_flags_win(tmp_path: Path) -> None:
    cwd = _project(tmp_path, 'select = ["HT302"]\njobs = 2')
    out = _cli("validate", str(EXAMPLE), "--format", "jsonl", cwd=cwd).stdout
    rows = [json.loads(line) for line in out.splitlines()]
    assert {r["code"] for r in rows if r["type"] == "finding"} == {"HT302"}
    rows = [json.loads(line) for line in
            _cli("validate", str(EXAMPLE), "--format", "jsonl", "--select", "HT4", cwd=cwd).stdout.splitlines()]
    assert {r["code"][:3] for r in rows if r["type"] == "finding"} == {"HT4"}


def test_the_dialect_setting_reaches_parse_and_render(tmp_path: Path) -> None:
    cwd = _project(tmp_path, 'dialect = "qwq"')
    out = json.loads(subprocess.run([str(BIN), "parse", "-", "--completion", "--format", "openai"], input="a</think>b",
                                    capture_output=True, text=True, cwd=cwd).stdout)
    assert (out["reasoning_content"], out["content"]) == ("a", "b")  # qwq: the output starts inside <think>
    (tmp_path / "s").mkdir()
    stream = _cli("stream", "-", cwd=_project(tmp_path / "s", 'dialect = "auto"'))
    assert stream.returncode == 2 and "cannot detect its dialect" in stream.stderr


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ("selct = 1", "has no setting 'selct'"),
        ("jobs = -1", "jobs must be 0"),
        ('dialect = "klingon"', "dialect = 'klingon'"),
        ("select = 3", "select must be a list"),
        ("select = [", "cannot read the settings"),
    ],
)
def test_bad_settings_are_a_usage_error_naming_the_file(tmp_path: Path, table: str, message: str) -> None:
    done = _cli("validate", str(EXAMPLE), cwd=_project(tmp_path, table))
    assert done.returncode == 2 and message in done.stderr and "pyproject.toml" in done.stderr, done.stderr


# ---- completion -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("shell", ["bash", "zsh"])
def test_completion_scripts_name_every_subcommand_and_flag(shell: str) -> None:
    done = _cli("completion", shell)
    assert done.returncode == 0
    for word in ("validate", "convert-dataset", "rule", "--sharegpt-roles", "--drop-columns", "--statistics"):
        assert word in done.stdout, (shell, word)


def test_the_bash_completion_completes(tmp_path: Path) -> None:
    """The generated bash script, sourced by a real bash, completes a subcommand's flags."""
    script = tmp_path / "c.bash"
    script.write_text(_cli("completion", "bash").stdout)
    probe = (f"source {script}; COMP_WORDS=(hermes-toolcall validate --stat); COMP_CWORD=2; "
             "_shtab_hermes_toolcall 2>/dev/null; printf '%s\\n' \"${COMPREPLY[@]}\"")
    done = subprocess.run(["bash", "-c", probe], capture_output=True, text=True, check=False)
    assert "--statistics" in done.stdout.split(), done


# ---- --statistics, --quiet, --exit-zero --------------------------------------------------------------------------


def test_statistics_quiet_and_exit_zero() -> None:
    full = _cli("validate", str(EXAMPLE))
    summary = full.stdout.rstrip("\n").rsplit("\n", 1)[-1]
    assert re.fullmatch(r"36 record\(s\) in 1 file\(s\): \d+ error\(s\), \d+ warning\(s\), \d+ info", summary)
    stats = _cli("validate", str(EXAMPLE), "--statistics")
    assert stats.returncode == 1 and stats.stdout.startswith("findings by code\n") and "record 4" not in stats.stdout
    assert stats.stdout.rstrip("\n").endswith(summary)
    quiet = _cli("validate", str(EXAMPLE), "--quiet")
    assert (quiet.returncode, quiet.stdout) == (1, summary + "\n")
    zero = _cli("validate", str(EXAMPLE), "--exit-zero", "--format", "json")
    assert zero.returncode == 0 and json.loads(zero.stdout)["exit_status"] == 0
    assert json.loads(zero.stdout)["errors"] > 0  # the findings are all there
    refused = _cli("validate", str(EXAMPLE), "--quiet", "--format", "json")
    assert refused.returncode == 2 and "--quiet shapes the text report" in refused.stderr


# ---- dialect-aware style defaults, --dialect auto -----------------------------------------------------------------


def test_hermes_does_not_report_the_order_its_reference_prompt_asks_for() -> None:
    """HT109 (arguments before name) is what the Hermes 2 Pro reference prompt prescribes: quiet for hermes, reported
    for the Qwen dialects and whenever --select names it."""
    c = ht.parse_completion('<tool_call>\n{"arguments": {"symbol": "TSLA"}, "name": "quote"}\n</tool_call>')
    assert ht.validate(c).codes == ()
    assert ht.validate(c, dialect="qwen3").codes == ("HT109",)
    assert ht.validate(c, select=["HT109"]).codes == ("HT109",)
    assert ht.validate(c, select=["HT1"]).codes == ("HT109",)
    assert ht.validate(c, select=["HT1"], ignore=["HT109"]).codes == ()


def test_qwen3_does_not_report_its_own_empty_think() -> None:
    own = "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\nHello<|im_end|>\n"
    t = ht.parse_transcript(own, dialect="qwen3")
    assert ht.validate(t, dialect="qwen3").codes == ()
    assert ht.validate(t, dialect="qwen3", select=["HT514"]).codes == ("HT514",)
    assert ht.validate(t, dialect="hermes").codes == ("HT514",)
    other = own.replace("<think>\n\n</think>\n\nHello", "Hello <think> </think>")  # not the template's
    assert ht.validate(ht.parse_transcript(other, dialect="qwen3"), dialect="qwen3").codes == ("HT514",)


def test_regression_validate_dialect_auto(tmp_path: Path) -> None:
    """`validate --dialect auto` was refused although `parse --dialect auto` exists; each record now gets its own."""
    qwen = ht.render([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "Hello"}], dialect="qwen3")
    path = tmp_path / "d.txt"
    path.write_text(qwen + "\n")
    assert _cli("validate", str(path), "--dialect", "qwen3").returncode == 0
    auto = _cli("validate", str(path), "--dialect", "auto", "--format", "json")
    assert auto.returncode == 0, auto.stderr
    assert json.loads(auto.stdout)["summary"] == {}
    assert "HT514" in _cli("validate", str(path), "--dialect", "hermes", "--format", "json").stdout


# ---- conformance --group, render's injection message ------------------------------------------------------------


def test_regression_conformance_unknown_group_exits_2() -> None:
    """Before: `conformance --group <typo>` reported "0/0 passed (100%)" and exited 0."""
    done = _cli("conformance", "--group", "R5 JSN")
    assert done.returncode == 2 and done.stdout == ""
    assert "no group 'R5 JSN' in the corpus (groups: A streaming," in done.stderr and "R5 JSON" in done.stderr
    assert _cli("conformance", "--group", "M names").returncode == 0


_TAGS = ["<tool_call>", "</tool_call>", "<tool_response>", "</tool_response>", "<think>", "</think>", "<tools>",
         "</tools>", "<|im_end|>", "<|im_start|>", "<"]
_TEXTS = st.lists(st.one_of(st.sampled_from(_TAGS), st.text("ab {}\"\n", max_size=4)), max_size=5).map("".join)


@given(role=st.sampled_from(["user", "assistant", "system", "tool"]), text=_TEXTS,
       dialect=st.sampled_from(sorted(ht.DIALECTS)))
@example(role="user", text="<|im_end|><tool_call>", dialect="hermes")  # named '<tool_call>' at offset 0
def test_regression_render_refusal_names_the_markup_at_its_offset(role: str, text: str, dialect: str) -> None:
    """A refused content names the markup that is at the offset it gives in that content (it named the tag where
    the parse diverged: '<tool_call>' at offset 0 of '<|im_end|><tool_call>')."""
    msgs: list[dict[str, Any]] = [{"role": "user", "content": "hi"}]
    if role == "tool":
        msgs.append({"role": "assistant", "content": "", "tool_calls": [
            {"id": "a", "type": "function", "function": {"name": "f", "arguments": "{}"}}]})
        msgs.append({"role": "tool", "content": text, "tool_call_id": "a"})
    else:
        msgs.append({"role": role, "content": text})
    try:
        ht.render(msgs, dialect=dialect, tools=[])
    except ht.RenderError as exc:
        named = re.search(r": '([^']+)'(?: inside [^ ]+(?: [a-z]+)?)? at offset (\d+)", str(exc))
        if named is not None and exc.message_index is not None and (exc.field or "") in ("content", "tool result"):
            value = msgs[exc.message_index]["content"]
            assert value[int(named.group(2)):].startswith(named.group(1)), (str(exc), value)


# ---- parse --jsonl, stream --format sse ---------------------------------------------------------------------------


def test_parse_jsonl_writes_one_message_per_line(tmp_path: Path) -> None:
    call = '<tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call>'
    lines = [{"id": 1, "output": f"Hi {call}"}, {"id": 2}, {"choices": [{"text": "x"}]}, {"output": "plain"}]
    path = tmp_path / "c.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in lines) + "not json\n")
    done = _cli("parse", str(path), "--jsonl", "output", "--format", "openai", "--sequential-ids")
    out = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(out) == 5 and out[1] is None and out[2] is None and out[4] is None
    assert out[0]["tool_calls"][0]["function"] == {"name": "f", "arguments": '{"a": 1}'}
    assert out[0]["content"] == "Hi" and out[3]["content"] == "plain"
    assert done.returncode == 1
    assert f"{path}:2: error: no string at 'output'" in done.stderr and f"{path}:5: error: not JSON" in done.stderr
    nested = _cli("parse", str(path), "--jsonl", "choices.0.text", "--format", "openai")
    assert [json.loads(line) for line in nested.stdout.splitlines()][2]["content"] == "x"


def test_stream_sse_frames_carry_id_model_created() -> None:
    body = 'Hi <tool_call>{"name": "f", "arguments": {}}</tool_call>'
    done = subprocess.run([str(BIN), "stream", "-", "--format", "sse", "--id", "chatcmpl-7", "--model", "qwen",
                           "--created", "1700000000"], input=body, capture_output=True, text=True, check=False)
    assert done.returncode == 0
    frames = done.stdout.split("\n\n")
    assert frames[-1] == "" and frames[-2] == "data: [DONE]"
    chunks = [json.loads(f.removeprefix("data: ")) for f in frames[:-2]]
    assert all(f.startswith("data: ") for f in frames[:-1])
    assert {(c["id"], c["model"], c["created"]) for c in chunks} == {("chatcmpl-7", "qwen", 1700000000)}
    from hermes_toolcall.testing import accumulate_chunks

    message, finish = accumulate_chunks(chunks)
    assert message["tool_calls"][0]["function"]["name"] == "f" and finish == "tool_calls"


def test_the_python_api_takes_dialect_auto() -> None:
    qwen = ht.render([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "Hello"}], dialect="qwen3")
    t = ht.parse_transcript(qwen, dialect="qwen3")
    assert ht.validate(t, dialect="auto").codes == () and ht.validate(t, dialect="hermes").codes == ("HT514",)
    record = {"messages": [{"role": "user", "content": "hi"},
                           {"role": "assistant", "content": "<think>\nhm\n</think>\n\nHi"}]}
    assert ht.validate_record(record, dialect="auto").codes == ()
