"""Coverage-guided fuzz target for both engines (atheris); falls back to the plain driver.

    python fuzz/fuzz_engines.py /tmp/hermes-fuzz fuzz/corpus -atheris_runs=20000   # with atheris
    python fuzz/fuzz_engines.py fuzz/corpus                                        # without: one pass

The library is imported inside ``atheris.instrument_imports`` so that its code reports coverage.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))


def test_one_input(data: bytes) -> None:
    """atheris entry point: every invariant of ``targets.check`` on one input."""
    targets: Any = importlib.import_module("targets")
    targets.check_bytes(data)


def main() -> None:
    try:
        import atheris  # type: ignore[import-untyped]
    except ImportError:
        import driver

        status = driver.main([a for a in sys.argv[1:] if not a.startswith("-")])
        raise SystemExit(status) from None
    with atheris.instrument_imports(include=["hermes_toolcall", "lark"]):
        import hermes_toolcall._parse
        import hermes_toolcall.grammar
        import hermes_toolcall.statemachine  # noqa: F401
    importlib.import_module("targets")
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
