"""``hermes-toolcall rule CODE``: what a diagnostic code means, offline, from the installed catalogue."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .. import _jsonio as jsonio
from ..errors import UsageError

__all__ = ["describe", "register"]


def register(subparsers: Any) -> None:
    """Add the ``rule`` subcommand."""
    p: argparse.ArgumentParser = subparsers.add_parser(
        "rule",
        help="explain a diagnostic code (HT302), offline",
        description="Explain a diagnostic code from the catalogue of the installed package: its name, severity, "
        "what it means, an example input and the fix. Exit status 2 for a code that does not exist.",
    )
    target = p.add_mutually_exclusive_group(required=True)
    target.add_argument("code", metavar="CODE", nargs="?", help="a diagnostic code, e.g. HT302")
    target.add_argument("--all", action="store_true", help="every code, one line each")
    p.add_argument("--format", choices=("text", "json"), default="text", help="text (default) or JSON")
    p.set_defaults(func=_run)


def _catalogue() -> Any:
    from .._diagnostics import CATALOGUE  # every code's table, assembled there

    return CATALOGUE


def _quiet_for(code: str) -> list[str]:
    from ..validate import OWN_EMPTY_THINK, QUIET

    dialects = [d for d, codes in sorted(QUIET.items()) if code in codes]
    if code == "HT514":
        dialects += [f"{d} (its template's own empty <think>)" for d in sorted(OWN_EMPTY_THINK)]
    return dialects


def describe(code: str) -> str:
    """The text ``rule CODE`` prints.

    Raises:
        UsageError: no such code.

    >>> print(describe("ht109").splitlines()[0])
    HT109 arguments-before-name (warning, group: blocks)
    """
    entry = _lookup(code)
    quiet = _quiet_for(entry.code)
    lines = [
        f"{entry.code} {entry.name} ({entry.kind}, group: {entry.group})",
        "",
        entry.summary,
        "",
        f"Example: {entry.example}",
        f"Fix: {entry.fix}",
    ]
    if quiet:
        lines += ["", f"Not reported by default for: {', '.join(quiet)} (`--select {entry.code}` reports it)."]
    return "\n".join(lines)


def _lookup(code: str) -> Any:
    catalogue = _catalogue()
    key = code.strip().upper()
    if key not in catalogue:
        near = sorted(c for c in catalogue if c.startswith(key[:4]))[:8] if len(key) >= 4 else []
        hint = f" (codes starting {key[:4]}: {', '.join(near)})" if near else " (`rule --all` lists them)"
        raise UsageError(f"no diagnostic code {code!r}{hint}")
    return catalogue[key]


def _entry_json(entry: Any) -> dict[str, Any]:
    return {
        "code": entry.code,
        "name": entry.name,
        "severity": entry.kind,
        "group": entry.group,
        "summary": entry.summary,
        "example": entry.example,
        "fix": entry.fix,
        "quiet_for": _quiet_for(entry.code),
    }


def _run(args: argparse.Namespace) -> int:
    if args.all:
        entries = [e for _, e in sorted(_catalogue().items())]
        if args.format == "json":
            sys.stdout.write(jsonio.dumps_spaced([_entry_json(e) for e in entries]) + "\n")
        else:
            for e in entries:
                sys.stdout.write(f"{e.code}  {e.name:<36} {e.kind:<11} {e.group}\n")
        return 0
    if args.code is None:
        raise UsageError("name a code (rule HT302) or pass --all")
    if args.format == "json":
        sys.stdout.write(jsonio.dumps_spaced(_entry_json(_lookup(args.code))) + "\n")
    else:
        sys.stdout.write(describe(args.code) + "\n")
    return 0
