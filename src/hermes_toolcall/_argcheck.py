"""Argument checks of the public entry points: a wrong type is a `UsageError` naming the argument."""

from __future__ import annotations

from typing import Any

from .errors import UsageError

__all__ = ["check_bool", "check_int", "check_text", "check_type"]


def check_type(name: str, value: Any, kind: type | tuple[type, ...], what: str) -> None:
    """Raise `UsageError` when ``value`` is not an instance of ``kind`` (``what`` describes the expected type).

    >>> check_type("options", 3, dict, "a dict")
    Traceback (most recent call last):
    ...
    hermes_toolcall.errors.UsageError: options must be a dict, got int
    """
    if not isinstance(value, kind):
        raise UsageError(f"{name} must be {what}, got {type(value).__name__}")


def check_text(name: str, value: Any) -> None:
    """``value`` must be a ``str`` (bytes included in the refusal: decode them first)."""
    if not isinstance(value, str):
        hint = " (decode bytes first)" if isinstance(value, (bytes, bytearray, memoryview)) else ""
        raise UsageError(f"{name} must be a str{hint}, got {type(value).__name__}")


def check_bool(name: str, value: Any) -> None:
    """``value`` must be a ``bool``."""
    check_type(name, value, bool, "a bool")


def check_int(name: str, value: Any) -> None:
    """``value`` must be an ``int`` (not a ``bool``)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise UsageError(f"{name} must be an int, got {type(value).__name__}")
