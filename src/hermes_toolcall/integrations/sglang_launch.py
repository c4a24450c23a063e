"""Start SGLang's server with the ``hermes_toolcall`` tool-call parser registered.

    python -m hermes_toolcall.integrations.sglang_launch --model-path MODEL --tool-call-parser hermes_toolcall \\
        [--reasoning-parser qwen3] [any other sglang.launch_server argument]

The arguments are SGLang's own (``sglang.launch_server``); this module only registers the detector
(``integrations.sglang.register``) before SGLang reads them, then runs the server as
``python -m sglang.launch_server`` does (plugins, ``prepare_server_args``, ``run_server``, and the
process-tree clean-up at exit).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> None:
    """Register the detector and run SGLang's server with ``argv`` (default: the command line).

    Raises:
        ExtraMissing: SGLang is not installed.
    """
    from .sglang import register

    register()
    from sglang.launch_server import run_server
    from sglang.srt.plugins import load_plugins
    from sglang.srt.server_args import prepare_server_args
    from sglang.srt.utils import kill_process_tree

    load_plugins()
    server_args = prepare_server_args(list(sys.argv[1:] if argv is None else argv))
    try:
        run_server(server_args)
    finally:
        kill_process_tree(os.getpid(), include_parent=False)


if __name__ == "__main__":  # pragma: no cover - starts a server
    main()
