"""Golden event streams: inputs in tests/data/stream/, the merged events fed one character at a time.

``*.txt`` are completions, ``*.chatml`` transcripts; the expected merged events (JSON lines, as the
``stream`` command prints them) are in ``<name>.events.jsonl``. Regenerate after a reviewed change with
``.venv/bin/python tests/test_stream_golden.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from helpers import merge_events
from hermes_toolcall import _jsonio as jsonio
from hermes_toolcall._ids import sequential_ids
from hermes_toolcall.cli._stream_cmd import event_json
from hermes_toolcall.statemachine import StreamParser

DATA = Path(__file__).resolve().parent / "data" / "stream"
INPUTS = sorted(p for p in DATA.iterdir() if p.suffix in (".txt", ".chatml"))


def merged_lines(path: Path, chunk_size: int) -> list[str]:
    text = path.read_text(encoding="utf-8")
    level = "transcript" if path.suffix == ".chatml" else "completion"
    parser = StreamParser(level=level, ids=sequential_ids(), stream_arguments=True)  # type: ignore[arg-type]
    events: list[object] = []
    for i in range(0, len(text), chunk_size):
        events += parser.feed(text[i : i + chunk_size])
    events += parser.close()
    return [jsonio.dumps_fast(event_json(e)) for e in merge_events(events)]  # type: ignore[arg-type]


def golden(path: Path) -> Path:
    return path.with_name(path.stem + ".events.jsonl")


@pytest.mark.parametrize("path", INPUTS, ids=[p.name for p in INPUTS])
@pytest.mark.parametrize("chunk_size", [1, 3, 1 << 20])
def test_merged_events_match_the_golden_file(path: Path, chunk_size: int) -> None:
    expected = golden(path).read_text(encoding="utf-8").splitlines()
    assert merged_lines(path, chunk_size) == expected


if __name__ == "__main__":
    for p in INPUTS:
        golden(p).write_text("\n".join(merged_lines(p, 1 << 20)) + "\n", encoding="utf-8")
        print("wrote", golden(p))
