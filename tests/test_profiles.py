"""Dialect profiles (``_profiles``): the values a profile may hold are checked where the profile is made."""

from __future__ import annotations

import dataclasses

import pytest

import hermes_toolcall as ht
from hermes_toolcall._profiles import BODY_KINDS, DIALECTS


def test_an_unknown_body_kind_is_refused_by_the_profile() -> None:
    """Regression: a profile with ``body_kind="yaml"`` (built with ``dataclasses.replace``) reached the engines:
    ``render_tool_call`` and ``parse_completion`` raised InternalError (a KeyError in the readers' table) and
    ``StreamParser.feed`` a bare KeyError. The profile is the caller's, so it is a UsageError, raised once,
    where the profile is made."""
    with pytest.raises(ht.UsageError, match="dialect 'custom': unknown call body kind 'yaml' \\(known: json, xml\\)"):
        dataclasses.replace(ht.get_profile("qwen3"), name="custom", body_kind="yaml")  # type: ignore[arg-type]


@pytest.mark.parametrize("kind", BODY_KINDS)
def test_every_body_kind_is_read_and_written(kind: str) -> None:
    """Each kind a profile may hold is one the shipped dialects use: the renderer writes it and both engines
    read it back, in a profile of the caller's own too."""
    named = next(p for p in DIALECTS.values() if p.body_kind == kind)
    own = dataclasses.replace(named, name="custom")
    block = ht.render_tool_call({"name": "f", "arguments": {"a": 1}}, dialect=own)
    assert block == ht.render_tool_call({"name": "f", "arguments": {"a": 1}}, dialect=named.name)
    parsed = ht.parse_completion(block, dialect=own)
    assert [(c.name, c.arguments) for c in parsed.tool_calls] == [("f", {"a": 1})]
    stream = ht.StreamParser(dialect=own)
    stream.feed(block)
    stream.close()
    assert [(c.name, c.arguments) for c in stream.result().tool_calls] == [("f", {"a": 1})]


@pytest.mark.parametrize(
    ("field", "value"),
    [("reasoning", "deepseek"), ("tools_block", "yaml-list"), ("result_role", "function"),
     ("json_style", "pretty"), ("reasoning_kinds", ("think", "reflection"))],
)
def test_every_choice_field_is_checked_where_the_profile_is_made(field: str, value: object) -> None:
    """Regression (noticed with the body kind): only ``body_kind`` was checked; an unknown ``reasoning`` or
    ``tools_block`` reached the renderers' and engines' tables. Every closed-set field is a UsageError now."""
    with pytest.raises(ht.UsageError, match=f"dialect 'custom': unknown {field} "):
        dataclasses.replace(ht.get_profile("qwen3"), name="custom", **{field: value})


@pytest.mark.parametrize("name", sorted(DIALECTS))
def test_every_shipped_profile_passes_its_own_check(name: str) -> None:
    """The shipped profiles hold only declared values (a copy re-runs the check)."""
    assert dataclasses.replace(DIALECTS[name]) == DIALECTS[name]
