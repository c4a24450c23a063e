"""A pytest plugin that counts the examples each hypothesis property ran and prints a summary.

Property tests call ``count("property name")`` at the end of each example (so only examples that ran
to completion are counted, not ones hypothesis discarded); the summary table is printed at the end of
the session (and written as JSON to ``$HYPOTHESIS_STATS_FILE`` when that is set).
Test modules register it with ``pytest_plugins = ["hypothesis_stats"]``.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from typing import Any

from hypothesis import settings

COUNTS: Counter[str] = Counter()
#: properties whose counts make up the "agreement" total (grammar vs machine).
AGREEMENT: set[str] = set()


def count(name: str, *, agreement: bool = False) -> None:
    """Record one example of the property ``name``."""
    COUNTS[name] += 1
    if agreement:
        AGREEMENT.add(name)


def examples(n: int) -> int:
    """``n`` examples, or the loaded profile's default when that is larger (the ``long`` profile)."""
    return max(n, settings().max_examples)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if not COUNTS:
        return
    tr = terminalreporter
    tr.section("hypothesis examples per property")
    width = max(len(k) for k in COUNTS)
    for name in sorted(COUNTS):
        mark = " (agreement)" if name in AGREEMENT else ""
        tr.write_line(f"{name:<{width}}  {COUNTS[name]:>6}{mark}")
    total = sum(COUNTS[k] for k in AGREEMENT)
    tr.write_line(f"{'agreement examples, total':<{width}}  {total:>6}")
    path = os.environ.get("HYPOTHESIS_STATS_FILE")
    if path:
        with open(path, "w", encoding="utf-8") as fh:
            data = {"counts": dict(COUNTS), "agreement_total": total, "profile": settings().max_examples}
            fh.write(json.dumps(data, indent=2, sort_keys=True))
