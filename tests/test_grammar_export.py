"""grammar_export against the real engines: llguidance (``LLMatcher``, token level) and outlines-core (``Index``
walk, and the regex on the string), over a tokenizer trained here (grammar_cases.py). xgrammar runs in vLLM's
venv: tests/integrations/test_grammar_xgrammar.py.

Properties: every dialect's rendering of calls valid under generated tools is accepted for every choice;
forged blocks (each shown invalid by the library) are rejected; strings sampled from the llguidance grammar
by random walks over its token mask parse strictly with no error.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import random
import re
import subprocess
import sys
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import hermes_toolcall as ht
from grammar_cases import (
    DIALECTS,
    HEADER,
    Case,
    cases,
    completion,
    eos_id,
    forgeries,
    possible_reasoning,
    problems,
    reasoning_of,
    tokenizer_json,
    walk,
    xml,
    xml_writes,
)
from hermes_toolcall._profiles import BODY_KINDS
from hermes_toolcall.grammar_export import llguidance_grammar, outlines_regex, xgrammar_structural_tag
from hermes_toolcall.grammar_export._ir import avoiding
from hermes_toolcall.grammar_export._shape import completion_shape
from hermes_toolcall.tags import CALL_CLOSE, CALL_OPEN

llguidance = pytest.importorskip("llguidance", reason="the grammar extra (llguidance) is not installed")
outlines_core = pytest.importorskip("outlines_core", reason="the grammar extra (outlines-core) is not installed")
tokenizers = pytest.importorskip("tokenizers", reason="tokenizers is not installed")

pytestmark = pytest.mark.ci_required("grammar_export must be proven against the real llguidance and outlines-core")


# --- the engines over the trained tokenizer ----------------------------------------------------------


@functools.lru_cache(maxsize=1)
def _lltok() -> Any:
    return llguidance.LLTokenizer(tokenizer_json())


@functools.lru_cache(maxsize=1)
def _hftok() -> Any:
    return tokenizers.Tokenizer.from_file(tokenizer_json())


def _byte_decoder() -> dict[str, int]:
    """GPT-2's byte-to-unicode table, inverted (byte-level BPE spells each byte as one character)."""
    bs = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return {chr(c): b for b, c in zip(bs, cs, strict=True)}


@functools.lru_cache(maxsize=1)
def _vocabulary() -> Any:
    tok = _hftok()
    added = {t.content for t in tok.get_added_tokens_decoder().values()}
    decode = _byte_decoder()
    table: dict[bytes, list[int]] = {}
    for token, i in tok.get_vocab().items():
        if i == eos_id():
            continue
        raw = token.encode() if token in added else bytes(decode[ch] for ch in token)
        table.setdefault(raw, []).append(i)
    return outlines_core.Vocabulary(eos_id(), table)


@functools.lru_cache(maxsize=64)
def _index(regex: str) -> Any:
    return outlines_core.Index(regex, _vocabulary())


def llg_accepts(grammar: str, text: str, *, spell: bool = True) -> bool:
    """Whether the llguidance matcher takes ``text`` to an accepting state, fed the tokens a model would emit:
    the tokenizer's own tokens, except that an added token the grammar does not allow where it stands (a tag's
    text inside a JSON string) is spelled with ordinary tokens, as the mask would make the model do."""
    tok = _lltok()
    matcher = llguidance.LLMatcher(tok, grammar, log_level=0)
    assert not matcher.is_error(), matcher.get_error()
    for token in tok.tokenize_str(text, parse_special=True):
        if matcher.validate_tokens([token]) == 1:
            matcher.consume_token(token)
            continue
        if not spell or not tok.is_special_token(token):
            return False
        spelled = tok.decode_bytes([token]).decode()
        pieces = tok.tokenize_str(spelled[:1]) + tok.tokenize_str(spelled[1:])
        if matcher.validate_tokens(pieces) != len(pieces):
            return False
        matcher.consume_tokens(pieces)
    return bool(matcher.is_accepting())


# outlines-core builds its Index in seconds for a regex holding a free object (``{"type": "object"}`` nests three
# levels of any JSON value: tens of thousands of characters); those are checked on the string only
_INDEX_LIMIT = 12_000


def outlines_accepts(regex: str, text: str) -> bool:
    """Both ways outlines-core is used: the regex on the string, and its ``Index`` walked token by token (for
    regexes up to ``_INDEX_LIMIT`` characters)."""
    whole = re.fullmatch(regex, text) is not None
    if len(regex) > _INDEX_LIMIT:
        return whole
    index = _index(regex)
    state = index.get_initial_state()
    for token in _hftok().encode(text).ids:
        state = index.get_next_state(state, token)
        if state is None:
            break
    walked = state is not None and index.is_final_state(state)
    assert whole == walked, (whole, walked, text)
    return walked


def _request(case: Case) -> dict[str, Any]:
    return {"dialect": case.dialect, "tool_choice": case.tool_choice, "parallel_tool_calls": case.parallel,
            "reasoning": case.reasoning}


_CONTROL = re.compile("[\x00-\x08\x0b\x0e-\x1f\x7f-\x9f]")


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    if isinstance(value, dict):
        return [*value, *(s for v in value.values() for s in _strings(v))]
    return []


def llguidance_writes(case: Case) -> bool:
    """What the llguidance grammar admits (docs/constrained.md, limits): its JSON strings have no raw U+007F."""
    return not any("\x7f" in s for value, _ in _json_parts(case) for s in _strings(value))


def _json_parts(case: Case) -> list[tuple[Any, Any]]:
    """The values a completion writes as JSON, with their schemas: the arguments object of a JSON body; in an
    XML body, each object or array value (strings there are raw text)."""
    out: list[tuple[Any, Any]] = []
    for call in case.calls:
        schema = next(t["function"]["parameters"] for t in case.tools if t["function"]["name"] == call["name"])
        if not xml(case.dialect):
            out.append((call["arguments"], schema))
            continue
        props = schema.get("properties") or {}
        out += [(v, props.get(k, {})) for k, v in call["arguments"].items() if isinstance(v, (dict, list))]
    return out


def outlines_writes(case: Case) -> bool:
    """What the outlines regex admits (docs/constrained.md, limits): not the empty completion (see _regex); from
    outlines-core's JSON compiler, no extra key beside declared properties (it ignores additionalProperties), no
    string holding a control character it would need ``\\u`` for or a raw U+007F-U+009F."""
    def fits(value: Any, schema: Any) -> bool:
        if isinstance(value, str):
            return not _CONTROL.search(value)
        if isinstance(value, list):
            items = schema.get("items", {}) if isinstance(schema, dict) else {}
            return all(fits(v, items) for v in value)
        if isinstance(value, dict):
            props = schema.get("properties") if isinstance(schema, dict) else None
            if props is not None and any(k not in props for k in value):
                return False
            return all(not _CONTROL.search(k) and fits(v, (props or {}).get(k, {})) for k, v in value.items())
        return True

    return case.text != "" and all(fits(value, schema) for value, schema in _json_parts(case))


# --- the three exports accept every rendering of valid calls --------------------------------------


@pytest.mark.parametrize("dialect", DIALECTS)
@settings(max_examples=20)
@given(data=st.data())
def test_renderings_of_valid_calls_are_accepted(dialect: str, data: st.DataObject) -> None:
    case = data.draw(cases(dialect))
    assert problems(case.text, dialect=dialect, tools=case.tools, starts_in_reasoning=case.starts_in_reasoning) == []
    expected = xml_writes(case)
    grammar = llguidance_grammar(case.tools, **_request(case))
    assert llg_accepts(grammar, case.text) == (expected and llguidance_writes(case)), (case, grammar)
    regex = outlines_regex(case.tools, **_request(case))
    assert outlines_accepts(regex, case.text) == (expected and outlines_writes(case)), case
    xgrammar_structural_tag(case.tools, **_request(case))  # builds; xgrammar itself runs in vLLM's venv


@pytest.mark.parametrize("dialect", DIALECTS)
@settings(max_examples=20)
@given(data=st.data())
def test_forged_blocks_are_rejected(dialect: str, data: st.DataObject) -> None:
    kind, case = data.draw(forgeries(dialect))
    assert problems(case.text, dialect=dialect, tools=case.tools, starts_in_reasoning=case.starts_in_reasoning), (
        kind, case)
    assert not llg_accepts(llguidance_grammar(case.tools, **_request(case)), case.text), (kind, case)
    assert not outlines_accepts(outlines_regex(case.tools, **_request(case)), case.text), (kind, case)


# --- agreement the other way: what the grammar generates parses -------------------------------------

_WALK_TOOLS = [
    {"type": "function", "function": {"name": "get_weather", "description": "w", "parameters": {
        "type": "object", "properties": {"location": {"type": "string"}, "unit": {"enum": ["celsius", "fahrenheit"]},
                                         "days": {"type": "integer"}},
        "required": ["location"], "additionalProperties": False}}},
    {"type": "function", "function": {"name": "search", "description": "s", "parameters": {
        "type": "object", "properties": {"q": {"type": "string"}, "filters": {"type": "object"},
                                         "limit": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
                                         "tags": {"type": "array", "items": {"type": "string"}},
                                         "exact": {"type": "boolean"}},
        "required": ["q"]}}},
    {"type": "function", "function": {"name": "ping", "description": "p",
                                      "parameters": {"type": "object", "properties": {}}}},
]
_WALK_CHOICES: list[Any] = ["auto", "required", "none", {"type": "function", "function": {"name": "search"}}]
ENDED = 200  # walks that end, per dialect, spread over the choices, parallel or not, and the reasoning states
WALKS = 480  # at most (an XML value is free text: about half its walks end within the token budget)


@functools.lru_cache(maxsize=1)
def _closing() -> list[int]:
    """Tokens that help a long walk end: tags, tokens made only of quotes, closing brackets and newlines, and the
    tokens of an XML body's closers."""
    tok = _lltok()
    closers = set(tok.tokenize_str("\n</parameter>\n</function>\n</tool_call>", parse_special=False))
    return [t for t in range(tok.vocab_size) if tok.is_special_token(t) or t in closers or (
        tok.decode_bytes([t]) and set(tok.decode_bytes([t])) <= set(b'"}]\n'))]


@pytest.mark.parametrize("dialect", DIALECTS)
def test_random_walks_over_the_llguidance_mask_parse_strictly(dialect: str) -> None:
    tok = _lltok()
    rng = random.Random(f"walk-{dialect}")
    requests = [(c, p, r) for c in _WALK_CHOICES for p in (True, False) for r in possible_reasoning(dialect)]
    done = calls = 0
    for n in range(WALKS):
        if done == ENDED:
            break
        choice, parallel, reasoning = requests[n % len(requests)]
        grammar = llguidance_grammar(_WALK_TOOLS, dialect=dialect, tool_choice=choice, parallel_tool_calls=parallel,
                                     reasoning=reasoning)
        matcher = llguidance.LLMatcher(tok, grammar, log_level=0)

        def mask(m: Any = matcher) -> int:
            return int.from_bytes(m.compute_bitmask(), "little")

        tokens = walk(mask, matcher.consume_token, size=tok.vocab_size, eos=tok.eos_token, rng=rng,
                      closing=_closing())
        if tokens is None:
            continue
        assert matcher.is_accepting()
        text = tok.decode_bytes(tokens).decode("utf-8")
        state = reasoning_of(dialect, reasoning)
        opens = state and ht.generation_prompt_state(dialect).starts_in_reasoning
        found = problems(text, dialect=dialect, tools=_WALK_TOOLS, starts_in_reasoning=opens)
        assert found == [], (dialect, choice, parallel, reasoning, text, found)
        parsed = ht.parse_completion(text, dialect=dialect, tools=_WALK_TOOLS, starts_in_reasoning=opens)
        n_calls = len(parsed.tool_calls)
        if choice == "none":
            assert n_calls == 0
        elif choice != "auto":
            assert n_calls >= 1
        if not parallel or isinstance(choice, dict):
            assert n_calls <= 1
        done += 1
        calls += n_calls
    assert done == ENDED, f"only {done} of {WALKS} walks ended"
    assert calls >= ENDED // 20  # the ended walks hold calls too (XML values end less often than prose)


# --- the regex for text that avoids markers ------------------------------------------------------


@given(st.lists(st.sampled_from(["<a>", "<ab", "<b", "<|x|>", "</a>", "<a"]), min_size=1, unique=True),
       st.lists(st.sampled_from(["<", "a", "b", ">", "|", "x", "/", "<a", "<ab"]), max_size=10).map("".join))
def test_avoiding_matches_exactly_the_texts_without_a_marker(markers: list[str], text: str) -> None:
    assert (re.fullmatch(avoiding(markers), text) is not None) == (not any(m in text for m in markers))


# --- the bytes come from the renderer: facts of official-templates.md and omp-dialect.md ------------


def test_shapes_read_off_the_renderer_match_the_reference_facts() -> None:
    hermes = completion_shape(ht.get_profile("hermes"), None).frames
    assert (hermes.content_lead, hermes.between, hermes.calls_tail) == (None, "\n", "")  # content dropped
    qwen3 = completion_shape(ht.get_profile("qwen3"), True)
    assert (qwen3.opener, qwen3.closer, qwen3.frames.calls_lead, qwen3.frames.content_sep) == (
        "<think>\n", "</think>", "\n\n", "\n")  # <think>\nR\n</think>\n\n{content}\n<tool_call>
    omp = completion_shape(ht.get_profile("omp"), True)
    assert (omp.frames.calls_lead, omp.frames.content_sep) == ("", "")  # </think>On it.<tool_call>
    qwq = completion_shape(ht.get_profile("qwq"), None)
    assert (qwq.starts_in_reasoning, qwq.opener, qwq.newlines_after_closer) == (True, "", True)
    with pytest.raises(ht.UsageError, match="reasoning=False is impossible"):
        completion_shape(ht.get_profile("qwq"), False)


# --- named: the built-in failures the issue quotes, and the export's answer ------------------------

_WEATHER = [{"type": "function", "function": {"name": "get_weather", "description": "w", "parameters": {
    "type": "object", "properties": {"location": {"type": "string"}}, "required": ["location"]}}}]
_RENDERED = '<tool_call>\n{"name": "get_weather", "arguments": {"location": "Paris"}}\n</tool_call>'


def _without(tmp_path: Any, tags: tuple[str, ...]) -> str:
    """A tokenizer.json like the trained one, without these added tokens."""
    data = json.loads(open(tokenizer_json()).read())
    data["added_tokens"] = [t for t in data["added_tokens"] if t["content"] not in tags]
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(data))
    return str(path)


def _spelled_through(grammar: str, ids: list[int]) -> tuple[list[str], bool]:
    """Feed ``ids`` to an llguidance matcher, spelling each token it refuses with ordinary tokens (the first
    character, then the rest): the refused tokens' texts, and whether every token or spelling was taken and the
    matcher ended accepting."""
    tok = _lltok()
    matcher = llguidance.LLMatcher(tok, grammar, log_level=0)
    refused: list[str] = []
    for token in ids:
        if matcher.validate_tokens([token]) == 1:
            matcher.consume_token(token)
            continue
        spelled = tok.decode_bytes([token]).decode()
        refused.append(spelled)
        pieces = tok.tokenize_str(spelled[:1]) + tok.tokenize_str(spelled[1:])
        if matcher.validate_tokens(pieces) != len(pieces):
            return refused, False
        matcher.consume_tokens(pieces)
    return refused, bool(matcher.is_accepting())


def test_llguidance_tags_written_as_text_never_match_the_added_token(tmp_path: Any) -> None:
    """chatml-family.md §7.2 (reach §B.3): a grammar with the call tags as text literals accepts none of the
    renderings, because the tokenizer emits ``<tool_call>`` and ``</tool_call>`` as added tokens, which llguidance
    treats as special. For every dialect and reasoning state, the rendering of two calls fed as the tokenizer's own
    tokens is taken up to the ``<tool_call>`` token and refused there; where the calls open the completion, the
    same grammar takes the same bytes once each refused token is spelled with ordinary tokens, and the refused
    tokens are exactly the four tags (the tags, and nothing else in the grammar, are what fails). The export's own
    grammar (token references) takes the tokens as they are."""
    tok = _lltok()
    text_tags = _without(tmp_path, (CALL_OPEN, CALL_CLOSE))
    opener = tok.tokenize_str(CALL_OPEN, parse_special=True)
    assert len(opener) == 1 and tok.is_special_token(opener[0])
    call = {"name": "get_weather", "arguments": {"location": "Paris"}}
    spelled_through = 0
    for dialect in DIALECTS:
        for reasoning in possible_reasoning(dialect):
            request: dict[str, Any] = {"dialect": dialect, "tool_choice": "required", "reasoning": reasoning}
            text = completion(dialect, reasoning_of(dialect, reasoning), thought="t", content="",
                              calls=[call, call], tools=_WEATHER)
            as_text = llguidance_grammar(_WEATHER, **request, tokenizer=text_tags)
            assert f'"{CALL_OPEN}' in as_text and f'{CALL_CLOSE}"' in as_text, dialect
            ids = tok.tokenize_str(text, parse_special=True)
            matcher = llguidance.LLMatcher(tok, as_text, log_level=0)
            assert matcher.validate_tokens(ids) == ids.index(opener[0]), (dialect, reasoning, text)
            if text.startswith(CALL_OPEN):
                assert _spelled_through(as_text, ids) == ([CALL_OPEN, CALL_CLOSE] * 2, True), (dialect, reasoning)
                spelled_through += 1
            grammar = llguidance_grammar(_WEATHER, **request)
            assert f"{CALL_OPEN} " in grammar and f'"{CALL_OPEN}' not in grammar, dialect
            assert llg_accepts(grammar, text, spell=False), (dialect, reasoning, text)
    assert spelled_through >= 5  # hermes, hermes-vllm, omp, qwen2.5, qwen3 without reasoning
    # with a tokenizer that has the tags, the export writes token references; forced bytes follow the tag
    grammar = llguidance_grammar(_WEATHER, dialect="qwen3", tool_choice="required", tokenizer=_lltok())
    matcher = llguidance.LLMatcher(_lltok(), grammar, log_level=0)
    assert matcher.consume_tokens(_lltok().tokenize_str(CALL_OPEN, parse_special=True))
    assert matcher.compute_ff_bytes() == b'\n{"name": "get_weather", "arguments": {"location": "'


def test_llguidance_text_tag_after_free_text_is_refused(tmp_path: Any) -> None:
    """A limit of the text-tag grammar (a tokenizer without the tags as added tokens; docs/constrained.md §5):
    llguidance's lexer is greedy and gives nothing back, so free text that may go on past ``<`` (content before a
    call, the newlines after ``</think>``) takes the ``<tool_call`` of a tag written after it, and the tag's
    ``>`` is then refused. Found when the test above was made to check why the text tags fail; the same request
    with token references takes the same bytes."""
    call = {"name": "get_weather", "arguments": {"location": "Paris"}}
    text_tags = _without(tmp_path, (CALL_OPEN, CALL_CLOSE))
    for dialect, reasoning, content in (("qwen3", False, "Let me check."), ("qwq", None, "")):
        text = completion(dialect, reasoning_of(dialect, reasoning), thought="t", content=content, calls=[call],
                          tools=_WEATHER)
        assert not text.startswith(CALL_OPEN) and f"\n{CALL_OPEN}" in text, text
        request: dict[str, Any] = {"dialect": dialect, "tool_choice": "required", "reasoning": reasoning}
        as_text = llguidance_grammar(_WEATHER, **request, tokenizer=text_tags)
        assert _spelled_through(as_text, _lltok().tokenize_str(text, parse_special=True)) == ([CALL_OPEN], False)
        matcher = llguidance.LLMatcher(_lltok(), as_text, log_level=0)
        before = _lltok().tokenize_str(text[: text.index(CALL_OPEN) + len(CALL_OPEN) - 1])
        assert matcher.validate_tokens(before) == len(before)  # up to '<tool_call' ...
        assert matcher.consume_tokens(before) and matcher.validate_tokens(_lltok().tokenize_str(">")) == 0  # not '>'
        assert llg_accepts(llguidance_grammar(_WEATHER, **request), text, spell=False), (dialect, text)


def test_llguidance_json_string_cannot_hold_the_added_closer_token() -> None:
    """The limit that comes with token references: inside a ``%json`` string the added ``</tool_call>`` token is
    not allowed (a special token is no byte of a lexeme), so a model writes those bytes with ordinary tokens."""
    text = '<tool_call>\n{"name": "get_weather", "arguments": {"location": "a</tool_call>b"}}\n</tool_call>'
    grammar = llguidance_grammar(_WEATHER, dialect="qwen3", tool_choice="required")
    tok = _lltok()
    matcher = llguidance.LLMatcher(tok, grammar, log_level=0)
    as_tokenized = tok.tokenize_str(text, parse_special=True)
    assert matcher.validate_tokens(as_tokenized) < len(as_tokenized)  # the added token inside the string: refused
    assert llg_accepts(grammar, text)  # spelled with ordinary tokens there: accepted


def test_outlines_limits_are_the_json_compilers() -> None:
    """outlines-core's ``build_regex_from_schema`` ignores ``additionalProperties`` (no extra key is ever written)
    and has no ``\\u`` escape and no raw U+007F-U+009F in strings: such valid calls are outside its regex."""
    tools = [{"type": "function", "function": {"name": "f", "description": "f", "parameters": {
        "type": "object", "properties": {"s": {"type": "string"}}, "additionalProperties": True}}}]
    regex = outlines_regex(tools, dialect="hermes", tool_choice="required")
    for args, expected in (({"s": "ok"}, True), ({"s": "ok", "extra": 1}, False), ({"s": "\x01"}, False),
                           ({"s": "\x85"}, False), ({"s": "tab\tnew\nline"}, True)):
        text = completion("hermes", False, thought="", content="", calls=[{"name": "f", "arguments": args}])
        assert problems(text, dialect="hermes", tools=tools, starts_in_reasoning=False) == []
        assert outlines_accepts(regex, text) is expected, args
        assert llg_accepts(llguidance_grammar(tools, dialect="hermes", tool_choice="required"), text), args


def _walk_ids(regex: str, text: str) -> bool:
    """outlines-core's Index walked one token per character (each is a byte-level token here)."""
    index = outlines_core.Index(regex, _vocabulary())
    state = index.get_initial_state()
    for ch in text:
        state = index.get_next_state(state, _hftok().token_to_id(ch))
        if state is None:
            return False
    return bool(index.is_final_state(state))


def test_outlines_index_drops_edges_out_of_an_accepting_state() -> None:
    """outlines-core 0.2.14: its Index keeps a token's edge only if the state after it is not a (one byte late)
    match state or completes a match, so unanchored ``a(?:bc)?`` cannot go on past ``a``; anchored with ``$`` it can.
    An anchored pattern that matches ``""`` has no universal start state; hence the export's ``(?:…)$`` without
    the empty completion."""
    assert re.fullmatch("a(?:bc)?", "abc")
    assert not _walk_ids("a(?:bc)?", "abc") and _walk_ids("a(?:bc)?", "a")
    assert _walk_ids("(?:a(?:bc)?)$", "abc") and _walk_ids("(?:a(?:bc)?)$", "a")
    with pytest.raises(ValueError, match="universal start state"):
        outlines_core.Index("(?:a*)$", _vocabulary())
    regex = outlines_regex(_WEATHER, dialect="qwen3", tool_choice="auto")
    assert regex.endswith(")$") and re.fullmatch(regex, "") is None
    assert outlines_accepts(regex, "Hi") and outlines_accepts(regex, "Hi\n" + _RENDERED + "\n" + _RENDERED)


def test_arguments_follow_the_schema_property_order() -> None:
    """Every engine's JSON compiler writes declared properties in the schema's order (llguidance documents it,
    xgrammar's ``any_order`` would drop required-key checks, outlines-core's regex is ordered): a valid call with
    its keys in another order is outside the grammar, in all three."""
    tools = [{"type": "function", "function": {"name": "f", "description": "f", "parameters": {
        "type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
        "required": ["a", "b"], "additionalProperties": False}}}]
    ordered, swapped = ({"a": 1, "b": 2}, {"b": 2, "a": 1})
    for args, expected in ((ordered, True), (swapped, False)):
        text = completion("qwen3", False, thought="", content="", calls=[{"name": "f", "arguments": args}])
        assert problems(text, dialect="qwen3", tools=tools, starts_in_reasoning=False) == []
        assert llg_accepts(llguidance_grammar(tools, dialect="qwen3"), text) is expected
        assert outlines_accepts(outlines_regex(tools, dialect="qwen3"), text) is expected


def test_content_before_calls_follows_the_template() -> None:
    """Under ``required``, prose before the first call is allowed where the template renders content beside calls
    (Qwen3: ``{content}\\n<tool_call>``) and not where it drops it (Hermes ``tool_use``)."""
    prose = "Let me check.\n" + _RENDERED
    for dialect, expected in (("qwen3", True), ("qwen2.5", True), ("hermes", False), ("hermes-vllm", False)):
        grammar = llguidance_grammar(_WEATHER, dialect=dialect, tool_choice="required", reasoning=False
                                     if dialect == "qwen3" else None)
        assert llg_accepts(grammar, prose) is expected, dialect
        assert llg_accepts(grammar, _RENDERED), dialect
        regex = outlines_regex(_WEATHER, dialect=dialect, tool_choice="required")
        assert outlines_accepts(regex, prose) is expected, dialect


def test_choice_and_count() -> None:
    two = _RENDERED + "\n" + _RENDERED
    named = {"type": "function", "function": {"name": "get_weather"}}
    expect = [("auto", True, "Hi", True), ("auto", True, two, True), ("auto", False, two, False),
              ("none", True, _RENDERED, False), ("none", True, "Hi", True), ("required", True, "Hi", False),
              (named, True, two, False), (named, True, _RENDERED, True), ("required", False, two, False)]
    for choice, parallel, text, expected in expect:
        kw: dict[str, Any] = {"dialect": "hermes", "tool_choice": choice, "parallel_tool_calls": parallel}
        assert llg_accepts(llguidance_grammar(_WEATHER, **kw), text) is expected, (choice, parallel, text)
        assert outlines_accepts(outlines_regex(_WEATHER, **kw), text) is expected, (choice, parallel, text)


# --- arguments and errors --------------------------------------------------------------------------


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"tool_choice": "sometimes"}, "tool_choice must be"),
    ({"tool_choice": {"type": "function", "function": {"name": "nope"}}}, "do not declare"),
    ({"dialect": "nope"}, "unknown dialect"),
    ({"reasoning": "yes"}, "reasoning must be"),
    ({"parallel_tool_calls": 1}, "parallel_tool_calls must be"),
    ({"tokenizer": 42}, "tokenizer must be"),
])
def test_bad_arguments_are_usage_errors(kwargs: dict[str, Any], message: str) -> None:
    for export in (llguidance_grammar, outlines_regex, xgrammar_structural_tag):
        with pytest.raises(ht.UsageError, match=message):
            export(_WEATHER, **kwargs)


def test_bad_tools_are_usage_errors() -> None:
    with pytest.raises(ht.UsageError, match="declared twice"):
        llguidance_grammar(_WEATHER * 2)
    with pytest.raises(ht.UsageError, match="cannot be written"):
        llguidance_grammar([{"name": 'a"b', "parameters": {}}])
    with pytest.raises(ht.UsageError, match="must describe an object"):
        llguidance_grammar([{"name": "f", "parameters": {"type": "string"}}])
    with pytest.raises(ht.UsageError, match="no call can be made"):
        llguidance_grammar([], tool_choice="required")


def test_a_body_kind_without_a_grammar_is_a_usage_error() -> None:
    """A profile whose call body kind nothing reads is the caller's error (``UsageError``), raised by the profile
    itself (``dataclasses.replace`` too), so no export meets one; every kind a profile can hold has a grammar,
    in a profile of the caller's own too."""
    with pytest.raises(ht.UsageError, match="unknown call body kind 'yaml'") as caught:
        dataclasses.replace(ht.get_profile("qwen3"), name="custom", body_kind="yaml")  # type: ignore[arg-type]
    assert caught.value.fault == "caller"
    assert {p.body_kind for p in ht.DIALECTS.values()} == set(BODY_KINDS)
    for named in ("qwen3", "qwen3-coder"):
        own = dataclasses.replace(ht.get_profile(named), name="custom")
        for tool_choice in ("auto", "required", "none"):
            assert llguidance_grammar(_WEATHER, dialect=own, tool_choice=tool_choice) == llguidance_grammar(
                _WEATHER, dialect=named, tool_choice=tool_choice)


def test_tokenizer_without_the_tags_gets_text_tags(tmp_path: Any) -> None:
    grammar = llguidance_grammar(_WEATHER, dialect="qwen3", tokenizer=_without(tmp_path, (CALL_OPEN, CALL_CLOSE)))
    assert f'"{CALL_OPEN}' in grammar and f" {CALL_CLOSE}" not in grammar
    assert f"{CALL_OPEN} " in llguidance_grammar(_WEATHER, dialect="qwen3", tokenizer=tokenizer_json())


def test_missing_extra_is_a_clear_error() -> None:
    code = ("import sys; sys.modules['outlines_core'] = None; sys.modules['outlines_core.json_schema'] = None\n"
            "import hermes_toolcall as ht\n"
            "from hermes_toolcall.grammar_export import outlines_regex\n"
            "try:\n    outlines_regex([{'name': 'f'}])\nexcept ht.UsageError as e:\n    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "needs the `grammar` extra" in out and "pip install 'hermes-toolcall[grammar]'" in out


def test_completion_starts_after_the_generation_prompt() -> None:
    """The oracle the properties use: a rendered turn continues the generation prompt."""
    for dialect in DIALECTS:
        for reasoning in possible_reasoning(dialect):
            state = reasoning_of(dialect, reasoning)
            text = completion(dialect, state, thought="t", content="", calls=[{"name": "f", "arguments": {}}])
            assert CALL_OPEN in text and not text.startswith(HEADER), (dialect, reasoning, text)


# --- the command line ---------------------------------------------------------------------------


def test_grammar_command_prints_each_export(tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    from hermes_toolcall.cli import main

    path = tmp_path / "tools.json"
    path.write_text(json.dumps(_WEATHER))
    base = ["grammar", "--tools", str(path), "--dialect", "qwen3"]
    assert main([*base, "--tool-choice", "required", "--format", "xgrammar"]) == 0
    assert json.loads(capsys.readouterr().out) == xgrammar_structural_tag(_WEATHER, dialect="qwen3",
                                                                          tool_choice="required")
    assert main([*base, "--tool-choice", "get_weather", "--format", "llguidance", "--reasoning", "on"]) == 0
    assert capsys.readouterr().out == llguidance_grammar(
        _WEATHER, dialect="qwen3", tool_choice={"type": "function", "function": {"name": "get_weather"}},
        reasoning=True)
    body = tmp_path / "body.json"
    body.write_text(json.dumps({"messages": [], "tools": _WEATHER}))
    assert main(["grammar", "--tools", str(body), "--format", "outlines", "--no-parallel-tool-calls"]) == 0
    assert capsys.readouterr().out == outlines_regex(_WEATHER, parallel_tool_calls=False) + "\n"


def test_grammar_command_errors_are_one_line(tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    from hermes_toolcall.cli import main

    path = tmp_path / "tools.json"
    path.write_text(json.dumps({"not": "tools"}))
    assert main(["grammar", "--tools", str(path), "--format", "xgrammar"]) == 2
    path.write_text(json.dumps(_WEATHER))
    assert main(["grammar", "--tools", str(path), "--format", "xgrammar", "--tool-choice", "nope"]) == 2
    assert main(["grammar", "--tools", str(path), "--format", "llguidance", "--dialect", "qwq", "--reasoning",
                 "off"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 3 and all(line.startswith("hermes-toolcall: error: ") for line in err), err


def test_the_bytes_read_off_the_renderer_are_the_profiles() -> None:
    """The probe reads what the profile's separator fields say (docs/dialects.md): the grammar is the profile's."""
    for name, profile in ht.DIALECTS.items():
        for reasoning in possible_reasoning(name):
            shape = completion_shape(profile, reasoning)
            f = shape.frames
            assert f.between == profile.call_separator, name
            assert f.calls_tail == profile.calls_suffix, name
            if profile.content_call_separator is None:
                assert f.content_lead is None, name
            else:
                assert f.content_sep == profile.content_call_separator, name
            if shape.reasoning and not shape.newlines_after_closer:  # the template renders reasoning
                assert f.calls_lead == profile.think_suffix or f.calls_lead.startswith(profile.think_suffix), name
