"""The vLLM and SGLang adapters against the real servers' classes, each in its own cached venv.

``.ci/heavy-venvs.sh`` builds the venvs (vLLM 0.33.0, SGLang 0.5.23) under
``$HERMES_TOOLCALL_VENV_CACHE`` (default ``/var/cache/hermes-toolcall/venvs``); these tests run
``tests/integrations/inside/check_*.py`` there with pytest, with this checkout's ``src/`` on
``PYTHONPATH`` (nothing is installed into the venvs from the checkout). They skip only when a venv
is absent, and CI (``ci_required``) turns that skip into a failure.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
SRC = HERE.parent.parent / "src"
CACHE = Path(os.environ.get("HERMES_TOOLCALL_VENV_CACHE", "/var/cache/hermes-toolcall/venvs"))
STAMP = ".hermes-toolcall-complete"


def _run(venv: str, check: str) -> None:
    python = CACHE / venv / "bin" / "python"
    if not (CACHE / venv / STAMP).is_file() or not python.is_file():
        pytest.skip(f"{CACHE / venv} is not built (run .ci/heavy-venvs.sh)")
    env = {**os.environ, "PYTHONPATH": str(SRC), "HERMES_TOOLCALL_EAGER": ""}
    proc = subprocess.run(
        [str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", "--confcutdir", str(HERE / "inside"),
         "-o", "python_files=check_*.py", "-W", "ignore::DeprecationWarning", check],
        cwd=HERE / "inside", env=env, capture_output=True, text=True, timeout=1800, check=False,
    )
    sys.stdout.write(proc.stdout[-20000:])
    assert proc.returncode == 0, f"{check} failed in {venv}:\n{proc.stdout[-8000:]}\n{proc.stderr[-4000:]}"


@pytest.mark.ci_required("the vLLM plugin must be tested against vLLM's own classes")
def test_vllm_plugin_in_vllm_venv() -> None:
    _run("vllm-0.33.0", "check_vllm.py")


@pytest.mark.ci_required("the SGLang detector must be tested against SGLang's own classes")
def test_sglang_detector_in_sglang_venv() -> None:
    _run("sglang-0.5.23", "check_sglang.py")
