"""Print the behaviour table of docs/integrations.md: each edge case through each parser of this venv.

    PYTHONPATH=src $VENVS/vllm-0.33.0/bin/python tests/integrations/inside/behaviour.py
    PYTHONPATH=src $VENVS/sglang-0.5.23/bin/python tests/integrations/inside/behaviour.py

Each parser gets the completion in 4-character deltas through its server's streaming path (the
request declares the case's tools) and is compared with the oracle of ``common.py`` (hermes-toolcall's
reading, as the plugin reports it; undeclared names kept as text). ✓: same content and calls.
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import EDGE, Message, oracle


def deltas(text: str) -> list[str]:
    return [text[i : i + 4] for i in range(0, len(text), 4)]


def main() -> None:
    rows: dict[str, list[str]] = {}
    parsers: list[str] = []
    try:
        from hermes_toolcall.integrations.vllm import run_vllm_parser

        parsers += ["vllm:hermes", "vllm:hermes_toolcall"]
    except ImportError:
        pass
    try:
        from hermes_toolcall.integrations.sglang import run_sglang_parser

        parsers += ["sglang:hermes", "sglang:qwen25", "sglang:hermes_toolcall"]
    except ImportError:
        pass
    for item in EDGE:
        if item.opens:
            continue  # needs the reasoning parser: see the tests
        if item.id == "big-arguments":
            item = dataclasses.replace(item, text=item.text.replace("x" * 100_000, "x" * 2_000))  # SGLang's is cubic
        expected = oracle(item, reasoning_parser=False)
        cells = []
        for spec in parsers:
            server, name = spec.split(":")
            if server == "vllm":
                content, _, calls = run_vllm_parser(name, deltas(item.text), item.tools, "text")
            else:
                content, calls = run_sglang_parser(name, deltas(item.text), item.tools, "text")
            got = Message(content, None, tuple(calls)).normal()
            if got == expected:
                cells.append("✓")
            else:
                what = []
                if got.calls != expected.calls:
                    what.append(f"calls {len(got.calls)}/{len(expected.calls)}")
                if got.content != expected.content:
                    what.append("content")
                cells.append("✗ " + ", ".join(what))
        rows[item.id] = cells
    print("| edge case | " + " | ".join(f"`{p}`" for p in parsers) + " |")
    print("|---|" + "---|" * len(parsers))
    for case, cells in rows.items():
        print(f"| {case} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
