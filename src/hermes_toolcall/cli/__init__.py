"""The ``hermes-toolcall`` command line: one module per subcommand under ``hermes_toolcall.cli``.

Each subcommand module defines ``register(subparsers)``, which adds its parser and sets
``func(args) -> int`` as the parser default.
"""

from __future__ import annotations

import argparse
import errno
import importlib
import os
import signal
import sys
from collections.abc import Sequence

from ..errors import HermesError, InternalError

__all__ = ["EXIT_FAILED", "EXIT_FINDINGS", "EXIT_INTERRUPTED", "EXIT_OK", "EXIT_PIPE", "EXIT_USAGE", "main"]

# the exit statuses of every subcommand
EXIT_OK, EXIT_FINDINGS, EXIT_USAGE, EXIT_FAILED, EXIT_INTERRUPTED = 0, 1, 2, 3, 130
EXIT_PIPE = 128 + signal.SIGPIPE  # 141: the reader of the output went away (as git, jq and cat end)

# subcommand name -> module (in the order shown by --help)
SUBCOMMANDS: tuple[str, ...] = (
    "render", "parse", "convert", "stream", "validate", "convert-dataset", "conformance",
    "view",
    "training-data", "check-training",
    "grammar",
    "rule", "completion",
)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand registered."""
    from .. import __version__

    parser = argparse.ArgumentParser(
        prog="hermes-toolcall",
        description="Read, stream, write, validate and convert the Hermes tool-calling format.",
        epilog="Exit status: 0 success, 1 errors found (validate findings, --strict), 2 usage or input error, "
        "3 internal failure or output not written (full disk), 130 interrupted, 141 the output was closed "
        "(a closed pipe: quietly, as cat does).",
    )
    parser.add_argument("--version", action="version", version=f"hermes-toolcall {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in SUBCOMMANDS:
        module = importlib.import_module(f"{__name__}._{name.replace('-', '_')}_cmd")
        module.register(sub)
    return parser


def _say(message: str) -> None:
    from .._excerpt import sanitize
    from ._common import in_flags

    try:
        print(f"hermes-toolcall: {sanitize(in_flags(message))}", file=sys.stderr, flush=True)
    except (OSError, ValueError):  # standard error is gone too: the status says it
        pass


def _drop_stdout() -> None:
    """Point standard output at /dev/null, so that the interpreter's final flush cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status.

    Exit status: 0 success, 1 errors found (validate findings, ``--strict``), 2 usage or input error,
    3 the tool itself failed (an internal error, or its output could not be written: a full disk),
    130 interrupted (Ctrl-C), 141 the reader of the output went away (``… | head``: quietly, nothing on
    standard error, as ``git``, ``jq`` and ``cat`` end; every write is whole or fails, so a report is
    never cut short with a success status). Nothing prints a traceback (``HERMES_TOOLCALL_TRACEBACK=1`` does).
    """
    from ._output import whole_writes

    previous = signal.getsignal(signal.SIGINT)
    try:
        with whole_writes():
            return _main(argv)
    finally:  # an interrupted run ignores a second Ctrl-C; a caller in the same process gets its handler back
        if signal.getsignal(signal.SIGINT) is not previous and previous is not None:
            try:
                signal.signal(signal.SIGINT, previous)
            except ValueError:  # not the main thread: nothing was changed there
                pass


def _main(argv: Sequence[str] | None) -> int:
    try:
        try:
            from ._config import configure, fill_codes, load_config

            parser = build_parser()
            config = load_config()
            configure(parser, config)  # the project's settings are the defaults: a flag wins
            args = parser.parse_args(argv)
            fill_codes(args, config)
        except SystemExit as exc:  # --help, --version, a usage error: argparse printed; see it through
            sys.stdout.flush()
            return exc.code if isinstance(exc.code, int) else EXIT_USAGE
        status: int = args.func(args)
        sys.stdout.flush()
    except InternalError as exc:  # the library's own bug, raised as such: the tool failed, not the input
        return _internal(exc)
    except HermesError as exc:
        _say(f"error: {exc}")
        return EXIT_USAGE
    except BrokenPipeError:
        return _closed()
    except KeyboardInterrupt:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        _drop_stdout()
        _say("interrupted")
        return EXIT_INTERRUPTED
    except OSError as exc:
        if exc.errno == errno.EPIPE:
            return _closed()
        _drop_stdout()
        _say(f"error: cannot write the output: {exc.strerror or exc}")
        return EXIT_FAILED
    except Exception as exc:  # a bug: one line and a status, the traceback only when asked
        return _internal(exc)
    return status


def _closed() -> int:
    """The reader of the output went away: nothing more is written anywhere, status 141."""
    _drop_stdout()
    return EXIT_PIPE


def _internal(exc: Exception) -> int:
    """A bug (an ``InternalError`` or any other exception): one line and status 3, the traceback only
    when ``HERMES_TOOLCALL_TRACEBACK`` is set (then the exception goes on)."""
    if os.environ.get("HERMES_TOOLCALL_TRACEBACK"):
        raise exc
    _say(f"internal error: {type(exc).__name__}: {exc} (please report it; HERMES_TOOLCALL_TRACEBACK=1 shows where)")
    return EXIT_FAILED
