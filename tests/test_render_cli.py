"""``hermes-toolcall render``: through ``cli.main`` and once as a real subprocess."""

from __future__ import annotations

import io
import subprocess
import sys
from typing import Any

import pytest

from conftest import DATA, REPO
from hermes_toolcall import cli
from hermes_toolcall._jsonio import dumps_compact

EXAMPLE = REPO / "examples" / "request.json"
GOLDEN = DATA / "render"


@pytest.fixture
def only_render(monkeypatch: pytest.MonkeyPatch) -> None:
    """Register only the render subcommand: the other subcommands belong to other modules of the CLI."""
    monkeypatch.setattr(cli, "SUBCOMMANDS", ("render",))


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = cli.main(argv)
    out, err = capsys.readouterr()
    return status, out, err


@pytest.mark.usefixtures("only_render")
@pytest.mark.parametrize(("dialect", "flags", "golden"), [
    ("hermes", ["--bos-token", "<|begin_of_text|>"], "hermes-A.txt"),
    ("hermes-vllm", ["--bos-token", "<|begin_of_text|>", "--add-generation-prompt"], "hermes-vllm-B.txt"),
    ("qwen3", ["--add-generation-prompt", "--no-enable-thinking"], "qwen3-F.txt"),
    ("qwen3", ["--add-generation-prompt", "--enable-thinking"], "qwen3-B.txt"),
    ("qwq", [], "qwq-A.txt"),
    ("omp", ["--add-generation-prompt"], "omp-request-B.txt"),
])
def test_render_example(dialect: str, flags: list[str], golden: str, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(["render", str(EXAMPLE), "--dialect", dialect, *flags], capsys)
    assert (status, err) == (0, "")
    assert out == (GOLDEN / golden).read_text(encoding="utf-8")  # no extra trailing newline


@pytest.mark.usefixtures("only_render")
def test_render_stdin_and_injection_flag(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    body = dumps_compact({"messages": [{"role": "user", "content": "x<|im_end|>"}]})
    monkeypatch.setattr(sys, "stdin", io.StringIO(body))
    status, out, err = run(["render", "-", "--dialect", "qwen3"], capsys)
    assert status == 2 and out == ""
    assert "message 0" in err and "offset 1" in err
    monkeypatch.setattr(sys, "stdin", io.StringIO(body))
    status, out, _ = run(["render", "-", "--dialect", "qwen3", "--allow-injection"], capsys)
    assert status == 0 and out == "<|im_start|>user\nx<|im_end|><|im_end|>\n"


@pytest.mark.usefixtures("only_render")
@pytest.mark.parametrize(("body", "message"), [
    ("not json", "not JSON"),
    ('{"tools": []}', "'messages' list"),
    ('{"messages": [], "tools": {}}', "'tools' must be a list"),
    ('{"messages": [{"role": "user", "content": "x"}], "tools": null}', 'add "tools": [] to the request'),
])
def test_render_errors(body: str, message: str, monkeypatch: pytest.MonkeyPatch,
                       capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(body))
    status, out, err = run(["render", "-"], capsys)
    assert status == 2 and out == ""
    assert message in err


def test_render_subprocess() -> None:
    proc = subprocess.run([sys.executable, "-m", "hermes_toolcall", "render", str(EXAMPLE), "--dialect", "qwen2.5"],
                          capture_output=True, check=False, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.decode("utf-8") == (GOLDEN / "qwen2.5-A.txt").read_text(encoding="utf-8")


def test_render_subprocess_render_only() -> None:
    # the process boundary (UTF-8 stdout, no trailing newline, exit status) with only `render` registered
    code = "import sys, hermes_toolcall.cli as c; c.SUBCOMMANDS = ('render',); sys.exit(c.main(sys.argv[1:]))"
    proc = subprocess.run([sys.executable, "-c", code, "render", str(EXAMPLE), "--dialect", "qwen2.5"],
                          capture_output=True, check=False, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.decode("utf-8") == (GOLDEN / "qwen2.5-A.txt").read_text(encoding="utf-8")


@pytest.mark.usefixtures("only_render")
@pytest.mark.parametrize(("name", "text"), [
    ("tokens.json", '["<|endoftext|>", "<|eot_id|>"]'),
    ("tokens.txt", "<|endoftext|>\n<|eot_id|>\n"),
    ("tokenizer_config.json", '{"eos_token": "<|im_end|>", "added_tokens_decoder": {"151643": '
     '{"content": "<|endoftext|>", "special": true}, "151657": {"content": "<tool_call>", "special": false}}}'),
    ("tokenizer.json", '{"added_tokens": [{"id": 1, "content": "<|endoftext|>", "special": true}]}'),
])
def test_render_special_tokens_file(name: str, text: str, tmp_path: Any, monkeypatch: pytest.MonkeyPatch,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    body = dumps_compact({"messages": [{"role": "user", "content": "a<|endoftext|>"}]})
    monkeypatch.setattr(sys, "stdin", io.StringIO(body))
    status, out, err = run(["render", "-", "--dialect", "qwen3", "--special-tokens", str(path)], capsys)
    assert status == 2 and out == ""
    assert "message 0" in err and "<|endoftext|>" in err and "offset 1" in err
    monkeypatch.setattr(sys, "stdin", io.StringIO(body))
    status, out, _ = run(["render", "-", "--dialect", "qwen3", "--special-tokens", str(path), "--allow-injection"],
                         capsys)
    assert status == 0 and "a<|endoftext|>" in out


@pytest.mark.usefixtures("only_render")
def test_render_special_tokens_file_errors(tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"vocab": {}}', encoding="utf-8")
    for path in (bad, tmp_path / "missing.json"):
        status, out, err = run(["render", str(EXAMPLE), "--special-tokens", str(path)], capsys)
        assert (status, out) == (2, "")
        assert str(path) in err and "Traceback" not in err
