"""The public XML-body tests of vLLM, SGLang and llama.cpp, mined as data (tests/data/peers/xml_bodies.json).

Each case holds a peer's input, tools and assertion; the project passes every assertion it agrees
with, and where it deliberately differs the data says why and what the project gives instead. Both
engines run every case (the stream on the whole text and, but for the 100 KB case, in 1-character
chunks), strict mode included, so a case is also an agreement example.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import hermes_toolcall as ht
from helpers import xml_dialect
from hermes_toolcall.testing import assert_engines_agree

DATA = json.loads((Path(__file__).parent / "data" / "peers" / "xml_bodies.json").read_text(encoding="utf-8"))
CASES: list[dict[str, Any]] = DATA["cases"]
_EXPANSIONS = {"@SPACES@": " " * 100_000}
def _expand(value: Any) -> Any:
    if isinstance(value, str):
        for key, text in _EXPANSIONS.items():
            value = value.replace(key, text)
        return value
    if isinstance(value, list):
        return [_expand(v) for v in value]
    if isinstance(value, dict):
        return {k: _expand(v) for k, v in value.items()}
    return value


def _content_ok(got: str | None, want: Any, check: str) -> bool:
    """Whether the content meets the peer's check ("none": the peer asserts nothing about it, not checked)."""
    text = got or ""
    if check == "exact":
        return text == (want or "")
    if check == "strip":
        return text.strip() == (want or "").strip()
    if check == "contains":
        return str(want) in text
    if check == "contains-all":
        return all(w in text for w in want)
    assert check == "startswith", check
    return text.startswith(str(want))


def _calls(completion: ht.Completion) -> list[dict[str, Any]]:
    return [{"name": c.name, "arguments": c.arguments} for c in completion.tool_calls]


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_peer_case(case: dict[str, Any]) -> None:
    case = _expand(case)
    text, tools, dialect = case["input"], case["tools"], xml_dialect(case["dialect"])
    completion = ht.parse_completion(text, dialect=dialect, tools=tools)
    peer = case["peer"]
    got = _calls(completion)
    if case["ours"] == "agree":
        if peer["calls"] is not None:
            if peer["arguments_check"] == "name-only":
                assert [c["name"] for c in got] == [c["name"] for c in peer["calls"]]
            else:
                assert got == peer["calls"]
        if peer["content_check"] != "none" and (peer["content"] is not None or peer["content_check"] == "exact"):
            assert _content_ok(completion.to_openai()["content"], peer["content"], peer["content_check"])
    else:
        assert "why" in case and "expect" in case, "a deliberate difference says why and what the project gives"
    expect = case.get("expect")
    if expect is not None:
        assert got == expect["calls"]
        codes = {d.code for d in completion.diagnostics}
        assert set(expect.get("codes", ())) <= codes, codes
    long = len(text) > 10_000
    for strict in (False, True):
        assert_engines_agree(
            text, dialect=dialect, tools=tools, strict=strict, char_by_char=not long, check_chunks=not long
        )


def test_every_difference_is_explained() -> None:
    differ = [c for c in CASES if c["ours"] == "differ"]
    assert differ and all(c.get("why") and c.get("expect") for c in differ)
    assert {c["source"]["repo"] for c in CASES} == {"vllm-project/vllm", "sgl-project/sglang", "ggml-org/llama.cpp"}
