"""Coverage-guided fuzz target for both engines (atheris); falls back to the plain driver.

    python fuzz/fuzz_engines.py fuzz/corpus -max_total_time=600    # with atheris
    python fuzz/fuzz_engines.py fuzz/corpus                         # without: one pass over the corpus
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from targets import check_bytes


def test_one_input(data: bytes) -> None:
    """atheris entry point: every invariant of ``targets.check`` on one input."""
    check_bytes(data)


def main() -> None:
    try:
        import atheris
    except ImportError:
        import driver

        status = driver.main([a for a in sys.argv[1:] if not a.startswith("-")])
        raise SystemExit(status) from None
    with atheris.instrument_imports():
        import hermes_toolcall.body
        import hermes_toolcall.grammar
        import hermes_toolcall.statemachine  # noqa: F401
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
