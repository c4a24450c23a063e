"""Test configuration: hypothesis profiles (``ci`` under CI, ``dev`` locally, ``newcomer`` for .ci/newcomer.sh,
``long`` on request) and shared paths."""

from __future__ import annotations

import gc
import os
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    derandomize=True,
    print_blob=True,
)
settings.register_profile(
    "dev",
    max_examples=50,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(  # .ci/newcomer.sh: the dev profile with CI's fixed seeds (a CI run is repeatable)
    "newcomer",
    max_examples=50,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    derandomize=True,
    print_blob=True,
)
settings.register_profile(
    "long",
    max_examples=5000,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"
TEMPLATES = SHARED / "conformance" / "templates"
DATA = Path(__file__).resolve().parent / "data"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "ci_required(reason): the test must run under CI (CI=true); a skip there is reported as a failure",
    )


@pytest.fixture(autouse=True)
def _collector_state_kept() -> Generator[None, None, None]:
    """Every test leaves the cyclic garbage collector as it found it.

    A test that left it disabled made every later test run without it: the suite's memory grew to 8 GB
    (tests/test_gcpause.py's fixture, 2026-12-04); the library's own pause (``_gcpause``) restores it too.
    """
    was = gc.isenabled()
    yield
    now = gc.isenabled()
    if now != was:
        (gc.enable if was else gc.disable)()
        pytest.fail(f"the test left the cyclic garbage collector {'disabled' if was else 'enabled'}")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, None]:
    """Under CI, a skipped test marked ``ci_required`` fails: what must run may not be skipped silently."""
    outcome = yield
    report = outcome.get_result()
    if not os.environ.get("CI") or not report.skipped or hasattr(report, "wasxfail"):
        return  # a strict xfail is an expected outcome, reported as one (it fails if it passes), not a skip
    marker = item.get_closest_marker("ci_required")
    if marker is None:
        return
    why = marker.args[0] if marker.args else marker.kwargs.get("reason", "")
    skipped = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
    report.outcome = "failed"
    report.longrepr = f"ci_required test was skipped under CI ({why}): {skipped}"


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Generator[None, Any, None]:
    """Under CI, a test module skipped whole (a module-level ``importorskip``) fails: its tests must run."""
    outcome = yield
    report = outcome.get_result()
    if os.environ.get("CI") and report.skipped:
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        report.outcome = "failed"
        report.longrepr = f"{report.nodeid} was skipped whole under CI: {reason}"
