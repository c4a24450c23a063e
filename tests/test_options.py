"""The parse options are declared once (issue 28, item 6): ``ParseOptions.make``'s keywords, mirrored by
``ParseKeywords``; every entry point takes them as ``**keywords: Unpack[ParseKeywords]``; the serving
``Policy`` and the CLI flags name the same options with the same defaults; ``options=`` beside an option
keyword is refused."""

from __future__ import annotations

import argparse
import dataclasses
import inspect
from typing import Any

import pytest

from hermes_toolcall import parse_completion, parse_transcript
from hermes_toolcall._ids import sequential_ids
from hermes_toolcall._options import OPTION_NAMES, ParseKeywords, ParseOptions
from hermes_toolcall.errors import UsageError
from hermes_toolcall.integrations._session import POLICY_OPTIONS, Policy, stream_parser
from hermes_toolcall.statemachine import StreamParser

MAKE = inspect.signature(ParseOptions.make).parameters
#: one valid non-default value per option
VALUES: dict[str, Any] = {
    "dialect": "qwen3",
    "strict": True,
    "calls_in_reasoning": True,
    "stop_at_fabricated_response": True,
    "max_block_chars": 99,
    "ids": sequential_ids(),
    "starts_in_reasoning": True,
    "tools": [{"type": "function", "function": {"name": "f"}}],
    "undeclared": "drop",
    "coerce_arguments": True,
}


def test_the_keywords_are_make_s_parameters_with_their_types() -> None:
    assert tuple(MAKE) == OPTION_NAMES == tuple(ParseKeywords.__annotations__)
    for name, parameter in MAKE.items():
        assert parameter.kind is inspect.Parameter.KEYWORD_ONLY
        declared = ParseKeywords.__annotations__[name]
        assert parameter.annotation == getattr(declared, "__forward_arg__", declared), name
    assert set(VALUES) == set(OPTION_NAMES)


@pytest.mark.parametrize("entry", [parse_completion, parse_transcript, StreamParser.__init__])
def test_every_entry_point_takes_the_declared_keywords(entry: Any) -> None:
    parameters = inspect.signature(entry).parameters
    assert not set(parameters) & set(OPTION_NAMES)  # no option re-listed in the signature
    (var,) = [p for p in parameters.values() if p.kind is inspect.Parameter.VAR_KEYWORD]
    assert var.annotation == "Unpack[ParseKeywords]"


@pytest.mark.parametrize("name", OPTION_NAMES)
def test_options_beside_an_option_keyword_is_refused(name: str) -> None:
    with pytest.raises(UsageError, match="not both"):
        StreamParser(options=ParseOptions.make(), **{name: VALUES[name]})


def test_strict_beside_options_is_refused() -> None:
    """The case the issue names: ``strict`` was silently ignored."""
    with pytest.raises(UsageError):
        StreamParser(options=ParseOptions.make(), strict=True)  # type: ignore[call-arg]


@pytest.mark.parametrize("entry", [parse_completion, parse_transcript])
def test_an_unknown_option_is_a_usage_error(entry: Any) -> None:
    with pytest.raises(UsageError, match="unknown option 'strickt'"):
        entry("x", strickt=True)
    with pytest.raises(UsageError, match="unknown option"):
        StreamParser(strickt=True)  # type: ignore[call-arg]


@pytest.mark.parametrize("name", OPTION_NAMES)
def test_each_keyword_reaches_the_options(name: str) -> None:
    keywords = {name: VALUES[name]}
    if name in ("undeclared", "coerce_arguments"):
        keywords["tools"] = VALUES["tools"]
    made = ParseOptions.make(**keywords)
    parser = StreamParser(**keywords)
    assert parser.options == made
    if name != "starts_in_reasoning":  # a transcript holds its own prompt
        parse_transcript("<|im_start|>user\nhi<|im_end|>", **keywords)
    with pytest.raises(UsageError):
        parse_transcript("x", starts_in_reasoning=True)


def test_the_serving_policy_names_the_options_and_passes_them_as_they_are() -> None:
    fields = {f.name: f for f in dataclasses.fields(Policy)}
    assert set(POLICY_OPTIONS) == set(fields) & set(OPTION_NAMES) == {
        "dialect", "tools", "undeclared", "starts_in_reasoning", "ids",
    }
    ids = sequential_ids()
    policy = Policy(dialect="qwq", tools=(VALUES["tools"][0],), undeclared="drop", starts_in_reasoning=True, ids=ids)
    expected = ParseOptions.make(
        dialect="qwq", tools=list(policy.tools or ()), undeclared="drop", starts_in_reasoning=True, ids=ids
    )
    assert stream_parser(policy).options == expected


def test_the_cli_flags_are_the_options_with_their_defaults() -> None:
    from hermes_toolcall.cli._common import add_parse_options

    p = argparse.ArgumentParser()
    add_parse_options(p)
    flags = {a.dest: a for a in p._actions if a.dest != "help"}
    # ``--sequential-ids`` is the CLI's spelling of ``ids`` (a factory cannot be a flag)
    assert set(flags) - {"sequential_ids"} <= set(OPTION_NAMES)
    for dest, action in flags.items():
        if dest in OPTION_NAMES:
            default = MAKE[dest].default
            assert action.default == default or (action.default is False and default is False), dest


def test_the_start_state_read_by_tags_is_the_parser_s_on_every_dialect() -> None:
    """``_options.prompt_open_kind`` reads a dialect's own generation prompt without the parser (the
    options sit below it); ``_prompt_state`` reads it with the grammar engine: the same answer."""
    from hermes_toolcall._options import prompt_open_kind
    from hermes_toolcall._profiles import DIALECTS, get_profile
    from hermes_toolcall._prompt_state import generation_prompt_state

    for name in DIALECTS:
        profile = get_profile(name)
        for thinking in (None, False):
            state = generation_prompt_state(profile, enable_thinking=thinking)
            assert prompt_open_kind(state.prompt, profile.reasoning_kinds) == state.reasoning, (name, thinking)
    opened = "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n<scratch_pad>\nx"
    prompts = [opened, "<think>", "x<think>y</think>"]
    for prompt in prompts:
        parsed = generation_prompt_state("hermes", prompt=prompt).reasoning
        assert prompt_open_kind(prompt, get_profile("hermes").reasoning_kinds) == parsed, prompt


def test_regression_an_ids_factory_is_found_again_by_identity_only() -> None:
    # issue 24: a dataset loop passes one ids factory to every call (validate's engines, bench/parse.py);
    # its options are made once and found by the factory's identity, never shared with another factory
    import hermes_toolcall._parse as parse_module

    text = '<tool_call>\n{"name": "f", "arguments": {}}\n</tool_call>'
    first, second = sequential_ids("a_"), sequential_ids("b_")
    assert parse_completion(text, ids=first).tool_calls[0].id == "a_0"
    assert parse_completion(text, ids=second).tool_calls[0].id == "b_0"
    assert parse_completion(text, ids=first).tool_calls[0].id == "a_0"
    found = parse_module._options(text, {"ids": first})
    assert found is parse_module._options(text, {"ids": first}) and found.ids is first
    assert parse_module._options(text, {"ids": second}).ids is second
    assert parse_module._options(text, {"ids": first, "strict": True}).strict is True
    with pytest.raises(UsageError):
        parse_completion(text, ids="x")  # type: ignore[arg-type]
    with pytest.raises(UsageError):
        parse_completion(text, ids=first, strict=1)  # type: ignore[arg-type]


def test_a_factory_per_call_keeps_the_ids_table_bounded() -> None:
    import hermes_toolcall._parse as parse_module

    for n in range(parse_module._MADE_IDS_MAX * 3):
        factory = sequential_ids(f"p{n}_")
        assert parse_completion('<tool_call>\n{"name": "f", "arguments": {}}\n</tool_call>', ids=factory).tool_calls[
            0
        ].id == f"p{n}_0"
    assert len(parse_module._MADE_IDS) <= parse_module._MADE_IDS_MAX
    assert all(made.ids is not None for made in parse_module._MADE_IDS.values())
