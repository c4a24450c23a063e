"""Drop-in parsers for serving stacks: vLLM (``integrations.vllm``) and SGLang (``integrations.sglang``).

The server-independent part is ``integrations._session``; the adapters import their server when
imported, and name the extra to install when it is missing. See docs/integrations.md.
"""

from __future__ import annotations

from ..errors import UsageError

__all__ = ["ExtraMissing", "require"]


class ExtraMissing(UsageError, ImportError):
    """An integration was imported without its server installed (the message names the extra)."""


def require(module: str, extra: str) -> None:
    """Import ``module`` or raise ``ExtraMissing`` naming the extra that installs it.

    Raises:
        ExtraMissing: the module cannot be imported.

    >>> require("json", "none")
    >>> require("no_such_server_xyz", "xyz")
    Traceback (most recent call last):
    ...
    hermes_toolcall.integrations.ExtraMissing: no_such_server_xyz is not installed: pip install 'hermes-toolcall[xyz]'
    """
    import importlib

    try:
        importlib.import_module(module)
    except ImportError as exc:
        raise ExtraMissing(f"{module} is not installed: pip install 'hermes-toolcall[{extra}]'") from exc
