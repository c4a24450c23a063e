"""The ``hermes-toolcall`` command line: one module per subcommand under ``hermes_toolcall.cli``.

Each subcommand module defines ``register(subparsers)``, which adds its parser and sets
``func(args) -> int`` as the parser default.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from ..errors import HermesError

__all__ = ["main"]

# subcommand name -> module (in the order shown by --help)
SUBCOMMANDS: tuple[str, ...] = (
    "render", "parse", "convert", "stream", "validate", "convert-dataset", "conformance"
)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand registered."""
    parser = argparse.ArgumentParser(
        prog="hermes-toolcall",
        description="Read, stream, write, validate and convert the Hermes tool-calling format.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in SUBCOMMANDS:
        module = importlib.import_module(f"{__name__}.{name.replace('-', '_')}_cmd")
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status.

    Exit status: 0 success, 1 errors found (strict/validate), 2 usage or input error.
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        status: int = args.func(args)
    except HermesError as exc:
        print(f"hermes-toolcall: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    return status
