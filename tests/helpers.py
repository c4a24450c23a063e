"""Helpers shared by the tests (merging adjacent deltas, reading shared files)."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import SHARED, TEMPLATES


def template_source(name: str) -> str:
    """The text of an official template from ``shared/conformance/templates``; skips when absent."""
    path = TEMPLATES / name
    if not path.exists():
        pytest.skip(f"{path} is absent: the official templates live in ../shared beside the repository")
    return path.read_text(encoding="utf-8")


def shared_file(relative: str) -> Path:
    """A file under ``../shared``; skips the test when the folder is absent."""
    path = SHARED / relative
    if not path.exists():
        pytest.skip(f"{path} is absent: ../shared is not beside the repository")
    return path
