"""The invariants both fuzz targets assert, on one input (shared by the atheris targets and the
fallback driver).

For any string, in lenient mode: neither engine raises; the grammar engine and the streaming engine
(fed whole and in the given chunks) return equal results; spans partition the input. In strict mode:
only ``HermesError`` escapes, and both engines reject or accept together.
"""

from __future__ import annotations

from typing import Any

from hermes_toolcall._profiles import DIALECTS
from hermes_toolcall.errors import HermesError
from hermes_toolcall.testing import assert_engines_agree, assert_spans_tile

DIALECT_NAMES = tuple(sorted(DIALECTS))
#: the tools of the tools-aware inputs: one declared name with typed parameters (others are undeclared)
FUZZ_TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {
                "type": "object",
                "properties": {
                    "days": {"type": "integer"},
                    "exact": {"type": "boolean"},
                    "city": {"type": "string"},
                    "items": {"type": "array", "items": {"type": "number"}},
                },
            },
        },
    }
]


def decode_input(data: bytes) -> tuple[str, str, dict[str, Any], tuple[int, ...]]:
    """Split fuzzer bytes into (level, text, options, chunk sizes), deterministically.

    Byte 0 picks level and options (bit 4: starts_in_reasoning; bits 5-6: tools, coercion), byte 1 the
    dialect, byte 2 the chunk size (and the undeclared policy); the rest is the text (UTF-8, undecodable
    bytes replaced).
    """
    head = data[:3].ljust(3, b"\0")
    flags, dialect, size = head[0], head[1], head[2]
    text = data[3:].decode("utf-8", errors="replace")
    level = "transcript" if flags & 1 else "completion"
    options: dict[str, Any] = {
        "dialect": DIALECT_NAMES[dialect % len(DIALECT_NAMES)],
        "calls_in_reasoning": bool(flags & 2),
        "stop_at_fabricated_response": bool(flags & 4),
    }
    if flags & 8:
        options["max_block_chars"] = 1 + (size % 64)
    if flags & 16 and level == "completion":
        options["starts_in_reasoning"] = True
    if flags & 32:  # tools-aware parsing (docs/parsing.md §11-§12)
        options["tools"] = FUZZ_TOOLS
        options["undeclared"] = ("keep", "text", "drop")[size % 3]
        options["coerce_arguments"] = bool(flags & 64)
    return level, text, options, (1 + size % 7,)


def check(text: str, *, level: str, options: dict[str, Any], chunk_size: int = 3) -> None:
    """Assert every invariant on one input (raises AssertionError on a finding)."""
    chunks = tuple(text[i : i + chunk_size] for i in range(0, len(text), chunk_size)) or ("",)
    result = assert_engines_agree(text, level=level, chunkings=[chunks], char_by_char=False, **options)
    assert result is not None, "lenient mode must not reject"
    if options.get("undeclared") != "drop":  # a dropped call leaves a hole in the spans
        assert_spans_tile(result)
    try:
        assert_engines_agree(text, level=level, chunkings=[chunks], char_by_char=False, strict=True, **options)
    except HermesError:
        pass  # a HermesError is allowed out of strict mode; anything else propagates


def check_bytes(data: bytes) -> None:
    """The fuzz entry point on raw bytes."""
    level, text, options, sizes = decode_input(data)
    check(text, level=level, options=options, chunk_size=sizes[0])
