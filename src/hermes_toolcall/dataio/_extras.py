"""Optional dependencies: import them on first use, or fail with the extra that installs them."""

from __future__ import annotations

import importlib
from types import ModuleType

from ..errors import UsageError

__all__ = ["EXTRAS", "require"]

# module -> (extra, what needs it)
EXTRAS: dict[str, tuple[str, str]] = {
    "pyarrow": ("parquet", "reading and writing Parquet"),
    "pyarrow.parquet": ("parquet", "reading and writing Parquet"),
    "zstandard": ("zstd", "reading zstd-compressed files"),
    "datasets": ("datasets", "Hugging Face datasets"),
    "ray": ("ray", "the Ray engine"),
    "ray.data": ("ray", "the Ray engine"),
}


def require(module: str) -> ModuleType:
    """Import ``module``, or raise a ``UsageError`` naming the extra that installs it.

    Raises:
        UsageError: the module is not installed.

    >>> require("json").__name__
    'json'
    """
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        extra, what = EXTRAS.get(module, (None, module))
        if extra is None:
            raise UsageError(f"{module} is not installed") from exc
        raise UsageError(
            f"{what} needs the `{extra}` extra ({module} is not installed): pip install 'hermes-toolcall[{extra}]'"
        ) from exc
