"""The server plugins' settings, read from the environment (a server passes no options to a parser).

``HERMES_TOOLCALL_DIALECT`` (default ``hermes``) for the names without a dialect suffix;
``HERMES_TOOLCALL_EAGER=1`` announces calls at their name and streams argument deltas (default:
each call is sent whole when its block closes); ``HERMES_TOOLCALL_UNDECLARED`` (``keep``, ``text``
(default) or ``drop``) is what becomes of a call to a tool the request did not declare.
"""

from __future__ import annotations

import os

from .._options import UNDECLARED, Undeclared
from ..errors import UsageError

__all__ = ["dialect", "eager", "undeclared"]


def dialect() -> str:
    """``HERMES_TOOLCALL_DIALECT`` or ``hermes``."""
    return os.environ.get("HERMES_TOOLCALL_DIALECT", "hermes")


def eager() -> bool:
    """Whether ``HERMES_TOOLCALL_EAGER`` is set to a true value."""
    return os.environ.get("HERMES_TOOLCALL_EAGER", "") not in ("", "0", "false", "no")


def undeclared() -> Undeclared:
    """``HERMES_TOOLCALL_UNDECLARED`` or ``text``.

    Raises:
        UsageError: not one of ``keep``, ``text``, ``drop``.
    """
    value = os.environ.get("HERMES_TOOLCALL_UNDECLARED", "text")
    for known in UNDECLARED:
        if value == known:
            return known
    raise UsageError(f"HERMES_TOOLCALL_UNDECLARED={value!r}: expected one of {', '.join(UNDECLARED)}")
