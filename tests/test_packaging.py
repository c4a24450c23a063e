"""The package as users get it: the built wheel in a fresh virtual environment outside the checkout, and
the pre-commit hook run by the real ``pre-commit`` against a local repository."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO

BAD = {
    "messages": [
        {"role": "user", "content": "weather?"},
        {
            "role": "assistant",
            "tool_calls": [{"id": "c", "type": "function", "function": {"name": "w", "arguments": '{"city": 7}'}}],
        },
    ],
    "tools": [
        {
            "type": "function",
            "function": {
                "name": "w",
                "description": "Weather.",
                "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
            },
        }
    ],
}


def _run(argv: list[str | Path], **kw: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(a) for a in argv], capture_output=True, text=True, check=False, **kw)  # type: ignore[call-overload]


def _source_copy(target: Path) -> Path:
    """The project's files (tracked and new, not ignored) copied to ``target``, symlinks kept."""
    listed = _run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=REPO)
    if listed.returncode != 0:
        pytest.skip(f"not a git checkout: {listed.stderr.strip()}")
    for name in listed.stdout.split("\0"):
        source = REPO / name
        if not name or not (source.is_file() or source.is_symlink()):
            continue
        dest = target / name
        dest.parent.mkdir(parents=True, exist_ok=True)
        if source.is_symlink():
            os.symlink(os.readlink(source), dest)
        else:
            shutil.copy2(source, dest)
    return target


@pytest.mark.ci_required("the wheel must be built and installed the way users install it")
def test_wheel_in_a_fresh_venv_outside_the_checkout(tmp_path: Path) -> None:
    src = _source_copy(tmp_path / "src")
    built = _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", tmp_path / "dist", src])
    if built.returncode != 0:
        pytest.skip(f"cannot build the wheel here (no access to setuptools?): {built.stderr[-500:]}")
    (wheel,) = (tmp_path / "dist").glob("hermes_toolcall-*.whl")
    venv = tmp_path / "venv"
    assert _run([sys.executable, "-m", "venv", venv]).returncode == 0
    installed = _run([venv / "bin" / "python", "-m", "pip", "install", "-q", f"{wheel}[testing]"])
    if installed.returncode != 0:
        pytest.skip(f"cannot install the dependencies here (no package index?): {installed.stderr[-500:]}")
    work = tmp_path / "elsewhere"  # no checkout here: everything must come from the wheel
    work.mkdir()
    cli = venv / "bin" / "hermes-toolcall"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}

    def run(*argv: str | Path, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        return _run([cli, *argv], cwd=work, env=env, input=stdin)

    version = run("--version")
    assert version.returncode == 0 and version.stdout.startswith("hermes-toolcall 0.")
    body = {"messages": BAD["messages"][:1], "tools": BAD["tools"]}
    rendered = run("render", "-", stdin=json.dumps(body))
    assert rendered.returncode == 0 and "<tools>" in rendered.stdout
    parsed = run(
        "parse",
        "--completion",
        "--format",
        "openai",
        "-",
        stdin='<tool_call>{"name": "w", "arguments": {}}</tool_call>',
    )
    assert parsed.returncode == 0 and json.loads(parsed.stdout)["tool_calls"][0]["function"]["name"] == "w"
    streamed = run("stream", "-", stdin='hi <tool_call>{"name": "w", "arguments": {}}</tool_call>')
    assert streamed.returncode == 0 and '"tool_call' in streamed.stdout
    data = work / "d.jsonl"
    data.write_text(json.dumps(BAD) + "\n", encoding="utf-8")
    validated = run("validate", data, "--format", "jsonl")
    assert validated.returncode == 1 and '"code":"HT302"' in validated.stdout
    conformance = run("conformance", "--format", "json")
    assert conformance.returncode == 0, conformance.stderr
    assert json.loads(conformance.stdout)["ok"] is True
    example = run("conformance", "--adapter", "hermes_toolcall.conformance.examples._vllm_style_regex:adapter")
    assert example.returncode == 1 and "Traceback" not in example.stderr  # the regex baseline fails cases
    strategies = _run([venv / "bin" / "python", "-c", "import hermes_toolcall.testing._strategies"], cwd=work, env=env)
    assert strategies.returncode == 0, strategies.stderr
    licence = _run(
        [
            venv / "bin" / "python",
            "-c",
            "import importlib.metadata as m; "
            "print(m.metadata('hermes-toolcall')['License-Expression'], m.files('hermes-toolcall'))",
        ],
        cwd=work,
        env=env,
    )
    assert licence.stdout.startswith("MIT") and "LICENSE" in licence.stdout


@pytest.mark.ci_required("the pre-commit hook must be run by the real pre-commit")
def test_pre_commit_hook_with_the_real_pre_commit(tmp_path: Path) -> None:
    pre_commit = shutil.which("pre-commit", path=str(Path(sys.executable).parent))
    if pre_commit is None:
        pytest.skip("pre-commit is not installed (it comes with the test extra)")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"]
    hooks = _source_copy(tmp_path / "hooks")
    assert _run(["git", "init", "-q"], cwd=hooks).returncode == 0
    assert _run(["git", "add", "-A"], cwd=hooks).returncode == 0
    assert _run([*git, "commit", "-q", "-m", "hooks"], cwd=hooks).returncode == 0
    rev = _run(["git", "rev-parse", "HEAD"], cwd=hooks).stdout.strip()
    project = tmp_path / "project"
    project.mkdir()
    (project / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {hooks}\n    rev: {rev}\n    hooks:\n      - id: hermes-toolcall-validate\n",
        encoding="utf-8",
    )
    (project / "data.jsonl").write_text(json.dumps(BAD) + "\n", encoding="utf-8")
    (project / "notes.txt").write_text("not a dataset\n", encoding="utf-8")
    assert _run(["git", "init", "-q"], cwd=project).returncode == 0
    assert _run(["git", "add", "-A"], cwd=project).returncode == 0
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "cache")}
    env.pop("PYTHONPATH", None)
    failed = _run([pre_commit, "run", "--all-files"], cwd=project, env=env)
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "data.jsonl:1:" in failed.stdout and "HT302" in failed.stdout and "notes.txt" not in failed.stdout
    fixed = dict(BAD, messages=[BAD["messages"][0]])
    (project / "data.jsonl").write_text(json.dumps(fixed) + "\n", encoding="utf-8")
    passed = _run([pre_commit, "run", "--all-files"], cwd=project, env=env)
    assert passed.returncode == 0, passed.stdout + passed.stderr
