"""Regenerate src/hermes_toolcall/grammar/_tables.py from hermes.lark (Lark compiles every option variant).

Usage: ``.venv/bin/python scripts/gen_grammar_tables.py [--check]``

Run it after editing ``grammar/hermes.lark`` or the variants in ``grammar/_parser.py``;
``--check`` only reports whether the committed file is current (exit status 1 when it is not).
``tests/test_grammar_tables.py`` makes the same check.
"""

from __future__ import annotations

import argparse
import sys

from hermes_toolcall.grammar._tablegen import TABLES_PATH, generate, write


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--check", action="store_true", help="only check that the committed tables are current")
    args = ap.parse_args()
    if args.check:
        current = TABLES_PATH.read_text(encoding="utf-8") == generate()
        print(f"{TABLES_PATH}: {'current' if current else 'STALE: run scripts/gen_grammar_tables.py'}")
        return 0 if current else 1
    changed = write()
    print(f"{TABLES_PATH}: {'rewritten' if changed else 'unchanged'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
