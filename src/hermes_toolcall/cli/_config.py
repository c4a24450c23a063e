"""Project settings from the nearest ``pyproject.toml``: its ``[tool.hermes-toolcall]`` table.

```toml
[tool.hermes-toolcall]
select = ["HT3", "HT4"]   # or "HT3,HT4"
ignore = ["HT514"]
dialect = "qwen3"         # validate, parse, stream, render (auto: validate and parse only)
jobs = 0                  # validate: worker processes (0 = all cores)
```

The nearest file is the first ``pyproject.toml`` found from the current directory upwards (one without the
table sets nothing, and the search stops there, as ruff's does). A flag given on the command line wins over
the file; an unknown key or a value of the wrong type is a usage error (status 2) naming the file.
"""

from __future__ import annotations

import argparse
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import UsageError

__all__ = ["Config", "configure", "fill_codes", "find_config", "load_config"]

TABLE = "hermes-toolcall"


@dataclass(frozen=True, slots=True, kw_only=True)
class Config:
    """The settings of a ``[tool.hermes-toolcall]`` table (empty when there is none)."""

    path: Path | None = None
    values: Mapping[str, Any] = field(default_factory=dict)


def find_config(start: Path | None = None) -> Path | None:
    """The nearest ``pyproject.toml`` from ``start`` (default: the current directory) upwards, or None."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            return candidate
    return None


def _codes(value: Any, key: str, path: Path) -> tuple[str, ...]:
    if isinstance(value, str):
        value = value.split(",")
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise UsageError(f"{path}: [tool.{TABLE}] {key} must be a list of codes or prefixes (or one string)")
    return tuple(v.strip() for v in value if v.strip())


def load_config(start: Path | None = None) -> Config:
    """The settings of the nearest ``pyproject.toml``.

    Raises:
        UsageError: the file is not TOML, or its table has an unknown key or a bad value.

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "pyproject.toml").write_text('[tool.hermes-toolcall]\\nselect = "HT3,HT4"\\njobs = 2\\n')
    >>> dict(load_config(d).values)
    {'select': ('HT3', 'HT4'), 'jobs': 2}
    """
    from .._profiles import DIALECTS

    path = find_config(start)
    if path is None:
        return Config()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise UsageError(f"cannot read the settings in {path}: {exc}") from exc
    table = data.get("tool", {}).get(TABLE)
    if table is None:
        return Config(path=path)
    if not isinstance(table, dict):
        raise UsageError(f"{path}: [tool.{TABLE}] must be a table")
    values: dict[str, Any] = {}
    for key, value in table.items():
        if key in ("select", "ignore"):
            values[key] = _codes(value, key, path)
        elif key == "dialect":
            if value not in (*DIALECTS, "auto"):
                raise UsageError(f"{path}: [tool.{TABLE}] dialect = {value!r}: one of {', '.join(sorted(DIALECTS))}, "
                                 "auto")
            values[key] = value
        elif key == "jobs":
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise UsageError(f"{path}: [tool.{TABLE}] jobs must be 0 (all cores) or a positive integer")
            values[key] = value
        else:
            raise UsageError(f"{path}: [tool.{TABLE}] has no setting {key!r} (select, ignore, dialect, jobs)")
    return Config(path=path, values=values)


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:  # argparse keeps the subcommands' parsers here (no public accessor)
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def configure(parser: argparse.ArgumentParser, config: Config) -> None:
    """Make the project's ``dialect`` and ``jobs`` the defaults of every subcommand that has the flag (a flag on
    the command line still wins).

    Raises:
        UsageError: the file's dialect is one a subcommand cannot take (``auto`` for ``stream`` or ``render``:
            they cannot detect their dialect).
    """
    for name, sub in _subparsers(parser).items():
        for action in sub._actions:
            key = action.dest
            if key not in ("dialect", "jobs") or key not in config.values:
                continue
            value = config.values[key]
            if action.choices is not None and value not in action.choices:
                raise UsageError(f"{config.path}: [tool.{TABLE}] {key} = {value!r}: `{name}` cannot take it"
                                 + ("; it cannot detect its dialect: pass --dialect" if value == "auto" else ""))
            sub.set_defaults(**{key: value})


def fill_codes(args: argparse.Namespace, config: Config) -> None:
    """``select`` and ``ignore`` from the project when the command line gave none (a flag replaces the file's
    list, as ruff's ``--select`` does)."""
    for key in ("select", "ignore"):
        if key in config.values and getattr(args, key, False) is None:
            setattr(args, key, [",".join(config.values[key])])
