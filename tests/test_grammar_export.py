"""grammar_export against the real engines: llguidance (``LLMatcher``, token level) and outlines-core (``Index``
walk, and the regex on the string), over a tokenizer trained here (grammar_cases.py). xgrammar runs in vLLM's
venv: tests/integrations/test_grammar_xgrammar.py.

Properties: every dialect's rendering of calls valid under generated tools is accepted for every choice;
forged blocks (each shown invalid by the library) are rejected; strings sampled from the llguidance grammar
by random walks over its token mask parse strictly with no error. The llguidance ones run in each of
``TAG_MODES``: the tags as added tokens (token references), and tokenizers that lack them (the tags as text).
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
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
    CUT_TOOLS,
    DIALECTS,
    HEADER,
    SENTINEL,
    TAGS,
    Case,
    cases,
    completion,
    cut_completions,
    eos_id,
    forgeries,
    possible_reasoning,
    problems,
    reasoning_of,
    rendered_with,
    tokenizer_json,
    tokenizer_json_without,
    walk,
    xml,
    xml_writes,
)
from hermes_toolcall._profiles import BODY_KINDS
from hermes_toolcall.grammar_export import llguidance_grammar, outlines_regex, xgrammar_structural_tag
from hermes_toolcall.grammar_export._build import build, request
from hermes_toolcall.grammar_export._ir import CUT, Alt, Block, Free, Rep, Seq, avoiding
from hermes_toolcall.grammar_export._regex import strings_avoiding
from hermes_toolcall.grammar_export._shape import completion_shape
from hermes_toolcall.tags import CALL_CLOSE, CALL_OPEN, CLOSE, CONTROL

llguidance = pytest.importorskip("llguidance", reason="the grammar extra (llguidance) is not installed")
outlines_core = pytest.importorskip("outlines_core", reason="the grammar extra (outlines-core) is not installed")
tokenizers = pytest.importorskip("tokenizers", reason="tokenizers is not installed")

pytestmark = pytest.mark.ci_required("grammar_export must be proven against the real llguidance and outlines-core")


# --- the engines over the trained tokenizer ----------------------------------------------------------


# how the tokenizer holds the family's tags: as added tokens (the family's tokenizers: the grammar writes token
# references), or not (the grammar writes them as text): without the call tags, or without any tag but the end token
TAG_MODES = ("tokens", "call-tags-as-text", "tags-as-text")
_WITHOUT = {"tokens": (), "call-tags-as-text": (CALL_OPEN, CALL_CLOSE),
            "tags-as-text": tuple(t for t in TAGS if t not in CONTROL)}


@functools.cache
def _lltok(mode: str = "tokens") -> Any:
    path = tokenizer_json_without(_WITHOUT[mode]) if _WITHOUT[mode] else tokenizer_json()
    return llguidance.LLTokenizer(path, eos_token=eos_id())


def _llg_grammar(tools: Any, mode: str, **request: Any) -> str:
    """The export for the tokenizer of ``mode`` (``tokens``: the default, every tag a token)."""
    return llguidance_grammar(tools, **request, tokenizer=None if mode == "tokens" else _lltok(mode))


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


def llg_accepts(grammar: str, text: str, *, spell: bool = True, mode: str = "tokens") -> bool:
    """Whether the llguidance matcher takes ``text`` to an accepting state, fed the tokens a model would emit:
    the tokenizer's own tokens (the tokenizer of ``mode``), except that an added token the grammar does not allow
    where it stands (a tag's text inside a JSON string) is spelled with ordinary tokens, as the mask would make
    the model do."""
    tok = _lltok(mode)
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
# levels of any JSON value: tens of thousands of characters); those are checked on the string only. The size is
# counted with each JSON string as outlines-core writes it (the export's string without control tokens is about a
# thousand characters where outlines-core's is 43, at about the same Index cost: measured 0.10 s both for
# _WEATHER), so that the same regexes are walked as before.
_INDEX_LIMIT = 12_000


@functools.cache
def _string_regexes() -> tuple[str, str]:
    """outlines-core's regex for a JSON string, and the export's in its place (``_regex.strings_avoiding``)."""
    plain = importlib.import_module("outlines_core.json_schema").build_regex_from_schema('{"type": "string"}', "")
    return plain, strings_avoiding(plain, plain, CUT)


def outlines_accepts(regex: str, text: str) -> bool:
    """Both ways outlines-core is used: the regex on the string, and its ``Index`` walked token by token (for
    regexes up to ``_INDEX_LIMIT`` characters, each JSON string counted as outlines-core writes it)."""
    whole = re.fullmatch(regex, text) is not None
    plain, guarded = _string_regexes()
    if len(regex.replace(guarded, plain)) > _INDEX_LIMIT:
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
    for mode in TAG_MODES:
        grammar = _llg_grammar(case.tools, mode, **_request(case))
        assert llg_accepts(grammar, case.text, mode=mode) == (expected and llguidance_writes(case)), (mode, case)
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
    for mode in TAG_MODES:
        assert not llg_accepts(_llg_grammar(case.tools, mode, **_request(case)), case.text, mode=mode), (kind, mode)
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
WITH_CALLS = ENDED // 20  # of the ended walks, at least these hold calls (XML values end less often than prose)
WALKS = 720  # at most (an XML value is free text: about half its walks end within the token budget)


@functools.cache
def _closing(mode: str) -> list[int]:
    """Tokens that help a long walk end: tags (added tokens), tokens made only of quotes, closing brackets and
    newlines, the tokens of an XML body's closers, and ordinary tokens that spell a call tag or a reasoning closer
    whole (not the pieces of a tag written out, nor the other tags, which text may hold: they would crowd out the
    rest)."""
    tok = _lltok(mode)
    closers = set(tok.tokenize_str("\n</parameter>\n</function>\n", parse_special=False))
    tags = {t.encode() for t in (CALL_OPEN, CALL_CLOSE, *CLOSE.values())}
    return [t for t in range(tok.vocab_size) if tok.is_special_token(t) or t in closers or (
        tok.decode_bytes([t]) in tags or (tok.decode_bytes([t]) and set(tok.decode_bytes([t])) <= set(b'"}]\n')))]


@pytest.mark.parametrize("mode", TAG_MODES)
@pytest.mark.parametrize("dialect", DIALECTS)
def test_random_walks_over_the_llguidance_mask_parse_strictly(dialect: str, mode: str) -> None:
    tok = _lltok(mode)
    rng = random.Random(f"walk-{dialect}" + ("" if mode == "tokens" else f"-{mode}"))
    requests = [(c, p, r) for c in _WALK_CHOICES for p in (True, False) for r in possible_reasoning(dialect)]
    done = calls = 0
    for n in range(WALKS):  # until ENDED walks ended and WITH_CALLS of them hold calls
        if done >= ENDED and calls >= WITH_CALLS:
            break
        choice, parallel, reasoning = requests[n % len(requests)]
        grammar = _llg_grammar(_WALK_TOOLS, mode, dialect=dialect, tool_choice=choice, parallel_tool_calls=parallel,
                               reasoning=reasoning)
        matcher = llguidance.LLMatcher(tok, grammar, log_level=0)

        def mask(m: Any = matcher) -> int:
            return int.from_bytes(m.compute_bitmask(), "little")

        tokens = walk(mask, matcher.consume_token, size=tok.vocab_size, eos=tok.eos_token, rng=rng,
                      closing=_closing(mode))
        if tokens is None:
            continue
        assert matcher.is_accepting()
        text = tok.decode_bytes(tokens).decode("utf-8")
        state = reasoning_of(dialect, reasoning)
        opens = state and ht.generation_prompt_state(dialect).starts_in_reasoning
        found = problems(text, dialect=dialect, tools=_WALK_TOOLS, starts_in_reasoning=opens)
        assert found == [], (dialect, mode, choice, parallel, reasoning, text, found)
        parsed = ht.parse_completion(text, dialect=dialect, tools=_WALK_TOOLS, starts_in_reasoning=opens)
        n_calls = len(parsed.tool_calls)
        if choice == "none":
            assert n_calls == 0
        elif choice != "auto":
            assert n_calls >= 1
        if not parallel or isinstance(choice, dict):
            assert n_calls <= 1
        done += 1
        calls += n_calls > 0
    assert done >= ENDED, f"only {done} of {WALKS} walks ended"
    assert calls >= WITH_CALLS, f"only {calls} of {done} ended walks hold calls"  # the walks reach the calls too


# --- the regex for text that avoids markers ------------------------------------------------------


@given(st.lists(st.sampled_from(["<a>", "<ab", "<b", "<|x|>", "</a>", "<a"]), min_size=1, unique=True),
       st.lists(st.sampled_from(["<", "a", "b", ">", "|", "x", "/", "<a", "<ab"]), max_size=10).map("".join))
def test_avoiding_matches_exactly_the_texts_without_a_marker(markers: list[str], text: str) -> None:
    assert (re.fullmatch(avoiding(markers), text) is not None) == (not any(m in text for m in markers))


@given(st.lists(st.sampled_from(["<a>", "<ab", "<b", "<|x|>", "</a>", "<a"]), min_size=1, unique=True),
       st.lists(st.sampled_from(["", "a", "ab", "b", "x|", "abx", "/"]), unique=True),
       st.lists(st.sampled_from(["<", "a", "b", ">", "|", "x", "/", "<a", "<ab", '"', "&q;"]), max_size=10).map(
           "".join))
def test_avoiding_with_names_and_an_alphabet_is_exact(markers: list[str], names: list[str], text: str) -> None:
    """``avoiding``'s ``but`` (texts left out: the declared keys beside llguidance's free-key pattern) and
    ``alphabet`` (a JSON string's characters and escapes: outlines-core's string regex) against the definition."""
    clean = not any(m in text for m in markers)
    assert (re.fullmatch(avoiding(markers, but=names), text) is not None) == (clean and text not in names)
    toy = avoiding(markers, alphabet=('"', "&q;"))
    assert (re.fullmatch(toy, text) is not None) == (clean and '"' not in text)


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
    tokens is taken up to the ``<tool_call>`` token and refused there; the same grammar takes the same bytes once
    each refused token is spelled with ordinary tokens, and the refused tokens are exactly the four tags (the tags,
    and nothing else in the grammar, are what fails). The export's own grammar (token references) takes the tokens
    as they are."""
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
            assert _spelled_through(as_text, ids) == ([CALL_OPEN, CALL_CLOSE] * 2, True), (dialect, reasoning)
            spelled_through += not text.startswith(CALL_OPEN)  # text before the tag: issue 26's text-tag limit
            grammar = llguidance_grammar(_WEATHER, **request)
            assert f"{CALL_OPEN} " in grammar and f'"{CALL_OPEN}' not in grammar, dialect
            assert llg_accepts(grammar, text, spell=False), (dialect, reasoning, text)
    assert spelled_through >= 10  # every reasoning state of QwQ, Qwen3.5, Nemotron 3, Step 3.5; Qwen3 thinking
    # with a tokenizer that has the tags, the export writes token references; forced bytes follow the tag
    grammar = llguidance_grammar(_WEATHER, dialect="qwen3", tool_choice="required", tokenizer=_lltok())
    matcher = llguidance.LLMatcher(_lltok(), grammar, log_level=0)
    assert matcher.consume_tokens(_lltok().tokenize_str(CALL_OPEN, parse_special=True))
    assert matcher.compute_ff_bytes() == b'\n{"name": "get_weather", "arguments": {"location": "'


def _text_tag_cases(dialect: str, reasoning: bool | None) -> list[str]:
    """Completions of ``dialect`` with free text right before a call: reasoning, content, both; one call or two."""
    call = {"name": "get_weather", "arguments": {"location": "Paris"}}
    state = reasoning_of(dialect, reasoning)
    return [completion(dialect, state, thought=thought, content=content, calls=calls, tools=_WEATHER)
            for thought in ("t", "a <b>\n\n") for content in ("", "Let me check.", "a\n<b>\n\nc <")
            for calls in ([call], [call, call])]


@pytest.mark.parametrize("mode", ["call-tags-as-text", "tags-as-text"])
@pytest.mark.parametrize(("dialect", "reasoning"), [("qwq", None), ("qwen3", True)])
def test_llguidance_text_tag_after_free_text_is_taken(dialect: str, reasoning: bool | None, mode: str) -> None:
    """Regression (issue 26, the text-tag configuration): with a tokenizer that lacks the call tags, the grammar
    writes them as text, and llguidance refused a tag right after free text: every QwQ call (the newlines after
    ``</think>``) and Qwen3 with reasoning (``</think>\n\n``, content). Its lexer is greedy and looks back one
    byte only: the free-text terminal read the ``<tool_call`` of the tag's terminal as more text and failed on the
    ``>``. The text before a call now shares the terminal of the call's head. Fed the tokenizer's own tokens, with
    and without content, one call or two, byte by byte at the tag too."""
    tok = _lltok(mode)
    request: dict[str, Any] = {"dialect": dialect, "tool_choice": "required", "reasoning": reasoning}
    grammar = _llg_grammar(_WEATHER, mode, **request)
    assert f'"{CALL_OPEN}' in grammar and f" {CALL_OPEN} " not in grammar
    for text in _text_tag_cases(dialect, reasoning):
        assert not text.startswith(CALL_OPEN) and f"\n{CALL_OPEN}" in text, text
        assert problems(text, dialect=dialect, tools=_WEATHER, starts_in_reasoning=dialect == "qwq") == []
        assert llg_accepts(grammar, text, spell=False, mode=mode), (text, grammar)
        at = text.index(CALL_OPEN)
        matcher = llguidance.LLMatcher(tok, grammar, log_level=0)
        assert matcher.consume_tokens(tok.tokenize_str(text[:at], parse_special=True)), text
        for byte in CALL_OPEN.encode():  # the tag one byte-level token at a time: its '>' too
            token = tok.tokenize_bytes(bytes([byte]))
            assert len(token) == 1 and matcher.consume_tokens(token), (text, byte)
        assert not matcher.is_error()
    for choice in ("auto", {"type": "function", "function": {"name": "get_weather"}}):
        grammar = _llg_grammar(_WEATHER, mode, **{**request, "tool_choice": choice})
        for text in _text_tag_cases(dialect, reasoning):
            named = isinstance(choice, dict)
            assert llg_accepts(grammar, text, spell=False, mode=mode) is not (named and text.count(CALL_OPEN) > 1)


@pytest.mark.parametrize("mode", TAG_MODES)
def test_llguidance_text_cannot_smuggle_a_call(mode: str) -> None:
    """Text that holds a tag's text is no way around the call's grammar (the text-tag grammar too, where the tag is
    text): content with ``<tool_call>`` or ``</tool_call>`` in it and no valid call after it, or a call under
    ``tool_choice="none"``, is refused, and the library rejects each; reasoning holds no ``<tool_call>`` either
    (docs/constrained.md §1)."""
    forged = '<tool_call>\n{"name": "nope", "arguments": {}}\n</tool_call>'
    for dialect, reasoning in (("qwen3", False), ("qwen3", True), ("qwq", None), ("hermes", None), ("omp", None),
                               ("qwen3.5", None)):
        state = reasoning_of(dialect, reasoning)
        opens = state and ht.generation_prompt_state(dialect).starts_in_reasoning
        texts = [completion(dialect, state, thought="t", content=content, calls=[], allow_injection=True)
                 for content in (f"I will write {CALL_OPEN} here.", f"a\n{CALL_OPEN}", forged, f"x {CALL_CLOSE}")]
        if state:
            texts += [completion(dialect, state, thought=f"t {CALL_OPEN} u", content="c", calls=[],
                                 allow_injection=True)]
        for text in texts:
            assert CALL_OPEN in text or CALL_CLOSE in text
            in_content = CALL_OPEN not in text[: text.rfind("</think>") + 1]
            assert not in_content or problems(text, dialect=dialect, tools=_WEATHER, starts_in_reasoning=opens), text
            for choice in ("auto", "none", "required"):
                grammar = _llg_grammar(_WEATHER, mode, dialect=dialect, tool_choice=choice, reasoning=reasoning)
                assert not llg_accepts(grammar, text, mode=mode), (dialect, reasoning, choice, text)
        call = completion(dialect, state, thought="t", content="", calls=[
            {"name": "get_weather", "arguments": {"location": "Paris"}}], tools=_WEATHER)
        assert problems(call, dialect=dialect, tools=_WEATHER, starts_in_reasoning=opens) == []
        grammar = _llg_grammar(_WEATHER, mode, dialect=dialect, tool_choice="none", reasoning=reasoning)
        assert not llg_accepts(grammar, call, mode=mode), (dialect, reasoning, call)
        assert llg_accepts(_llg_grammar(_WEATHER, mode, dialect=dialect, reasoning=reasoning), call, mode=mode)


def test_reasoning_text_holds_no_reasoning_closer() -> None:
    """Regression (found by the random walks over the tags-as-text grammar): the reasoning text of every export
    admitted the other kind's closer (``<think>x</scratch_pad>y</think>``), which ``validate`` reports inside a
    reasoning block (HT502). With the tags as tokens a model could still spell it with ordinary tokens. All three
    exports now refuse it, in each dialect's reasoning."""
    call = completion("qwen3", True, thought="t", content="", calls=[
        {"name": "get_weather", "arguments": {"location": "Paris"}}], tools=_WEATHER)
    for tag in ("</scratch_pad>",):
        text = call.replace("<think>\nt\n", f"<think>\nt {tag} u\n")
        assert text != call
        found = problems(text, dialect="qwen3", tools=_WEATHER, starts_in_reasoning=False)
        assert [f[:5] for f in found] == ["HT502"], found
        for mode in TAG_MODES:
            grammar = _llg_grammar(_WEATHER, mode, dialect="qwen3", reasoning=True)
            assert not llg_accepts(grammar, text, mode=mode), (mode, tag)
            assert llg_accepts(grammar, call, mode=mode)
        regex = outlines_regex(_WEATHER, dialect="qwen3", reasoning=True)
        assert not outlines_accepts(regex, text) and outlines_accepts(regex, call)
    reasoning = xgrammar_structural_tag(_WEATHER, dialect="qwen3", reasoning=True)["format"]["elements"][1]
    assert {"</scratch_pad>", "</think>"} <= set(reasoning["excludes"]), reasoning
    for dialect in DIALECTS:  # the tree the three exports write: its reasoning text, in every reasoning state
        for state in possible_reasoning(dialect):
            tree = build(request(_WEATHER, dialect=dialect, tool_choice="auto", parallel_tool_calls=True,
                                 reasoning=state))
            thoughts = [n for n in _nodes(tree) if isinstance(n, Free) and n.role == "reasoning"]
            assert len(thoughts) == reasoning_of(dialect, state), (dialect, state)
            assert all(set(CLOSE.values()) <= set(n.excludes) for n in thoughts), (dialect, state)


def _nodes(node: Any) -> list[Any]:
    """``node`` and every node below it."""
    below = (node.head, node.arguments, node.tail) if isinstance(node, Block) else node.items if isinstance(
        node, Seq) else node.options if isinstance(node, Alt) else (node.node,) if isinstance(node, Rep) else ()
    return [node, *(m for n in below if n is not None for m in _nodes(n))]


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


@pytest.mark.parametrize("control", CUT)
def test_json_string_holding_a_control_token_is_rejected(control: str) -> None:
    """Regression (issue 26, the exports' last gap with the library): a JSON string holding a control token's text,
    which the library reads as the control token wherever it stands (the call is cut off, HT102), was accepted by
    all three exports: written with ordinary tokens by llguidance and outlines-core, and as the added
    ``<|im_start|>`` token too by xgrammar (tests/integrations/inside/check_xgrammar.py). Each export now keeps the
    texts of ``grammar_export._ir.CUT`` (the vocabulary's control tokens) out of every JSON string it allows: the
    string argument, nested items, a free object's keys and values, an untyped value's strings and undeclared
    arguments, in every dialect (an XML body's object and array values too). Rejected spelled with ordinary tokens
    and as the added token, in each tokenizer mode; outlines-core on the string and through its ``Index``."""
    checked = 0
    for dialect, reasoning, text in cut_completions(control):
        opens = reasoning and ht.generation_prompt_state(dialect).starts_in_reasoning
        found = problems(text, dialect=dialect, tools=CUT_TOOLS, starts_in_reasoning=opens)
        assert found and "HT102" in found[0], (dialect, text, found)
        request: dict[str, Any] = {"dialect": dialect, "tool_choice": "required", "reasoning": reasoning}
        for mode in TAG_MODES:
            grammar = _llg_grammar(CUT_TOOLS, mode, **request)
            assert not llg_accepts(grammar, text, mode=mode), (mode, dialect, text)  # ordinary tokens
            assert not llg_accepts(grammar, text, mode=mode, spell=False), (mode, dialect, text)  # the added token
        regex = outlines_regex(CUT_TOOLS, **request)
        assert re.fullmatch(regex, text) is None, (dialect, text)  # the text, however tokenized
        assert not outlines_accepts(regex, text), (dialect, text)  # the tokenizer's tokens: the added one
        checked += 1
    assert checked == 8 * 6 + 6 * 4  # every kind of string in the JSON dialects, the declared ones in the XML


@pytest.mark.parametrize("near", ["<|im_end|", "<|im_sta", "|im_end|>", "<<|im_end", "<|im_start>"])
def test_json_string_near_a_control_token_is_accepted(near: str) -> None:
    """The other side of the control-text regression: a text that only comes close to a control token (a prefix,
    a suffix, a lookalike) is an ordinary string for the library and for every export, in every kind of JSON
    string (outlines-core writes no undeclared argument, docs/constrained.md §5: it is checked on the rest)."""
    for dialect, reasoning, text in cut_completions(near):
        opens = reasoning and ht.generation_prompt_state(dialect).starts_in_reasoning
        assert problems(text, dialect=dialect, tools=CUT_TOOLS, starts_in_reasoning=opens) == [], (dialect, text)
        request: dict[str, Any] = {"dialect": dialect, "tool_choice": "required", "reasoning": reasoning}
        for mode in TAG_MODES:
            assert llg_accepts(_llg_grammar(CUT_TOOLS, mode, **request), text, mode=mode), (mode, dialect, text)
        if not any(key in text for key in ('"zz"', '"z<', '"z|')):  # outlines-core: see the docstring
            assert re.fullmatch(outlines_regex(CUT_TOOLS, **request), text), (dialect, text)


# a string reached through ``$ref``, and one with a ``pattern`` of its own that admits the texts
_REF_TOOLS = [{"type": "function", "function": {"name": "f", "description": "f", "parameters": {
    "type": "object", "$defs": {"word": {"type": "string"}},
    "properties": {"r": {"$ref": "#/$defs/word"}, "p": {"type": "string", "pattern": "^[a-z<|_>]*$"}}}}}]


@pytest.mark.parametrize("control", CUT)
def test_control_token_through_a_ref_and_beside_a_pattern(control: str) -> None:
    """The control-text regression through the schema's own definitions (``$ref``: every engine) and in a string with
    a ``pattern`` of its own (llguidance intersects the two; outlines-core writes the pattern alone, a limit in
    docs/constrained.md §5); a pattern-conforming string without the text is accepted by both."""
    for key, outlines_rejects in (("r", True), ("p", False)):
        text = rendered_with(f"a{control}b", "qwen3", False, {"name": "f", "arguments": {key: SENTINEL}}, _REF_TOOLS)
        assert problems(text, dialect="qwen3", tools=_REF_TOOLS, starts_in_reasoning=False)
        grammar = llguidance_grammar(_REF_TOOLS, dialect="qwen3", reasoning=False)
        assert not llg_accepts(grammar, text), key
        regex = outlines_regex(_REF_TOOLS, dialect="qwen3", reasoning=False)
        assert (re.fullmatch(regex, text) is None) is outlines_rejects, key
        fine = text.replace(control, control[:-1])
        assert problems(fine, dialect="qwen3", tools=_REF_TOOLS, starts_in_reasoning=False) == []
        assert llg_accepts(grammar, fine) and re.fullmatch(regex, fine), key


def test_outlines_untyped_property_is_one_group() -> None:
    """Regression (found with the control-text tests): outlines-core 0.2.14 writes the regex of an untyped property
    (``{}``, ``true``) as an alternation without a group around it, which cut the arguments' regex in two: no value
    of the property matched, and invalid JSON did (``{"s": "x"null}``, which the library rejects, HT103). The export
    now writes such a schema's types out (``_regex.typed``): values of every type are accepted, the forgeries
    rejected, as in llguidance."""
    tools = [{"type": "function", "function": {"name": "f", "description": "f", "parameters": {
        "type": "object", "properties": {"s": {"type": "string"}, "u": {}, "v": True}, "required": ["s"]}}}]
    regex = outlines_regex(tools, dialect="hermes", tool_choice="required")
    grammar = llguidance_grammar(tools, dialect="hermes", tool_choice="required")
    for args, valid in (('{"s": "x", "u": 1}', True), ('{"s": "x", "u": "a", "v": null}', True),
                        ('{"s": "x", "u": [1, {"k": null}], "v": {"w": [true]}}', True), ('{"s": "x"}', True),
                        ('{"s": "x"null}', False), ('{"s": "x"1}', False), ('{"s": "x""y"}', False),
                        ('{"s": "x", "u": 1 "v": 2}', False)):
        text = f'<tool_call>\n{{"name": "f", "arguments": {args}}}\n</tool_call>'
        assert (problems(text, dialect="hermes", tools=tools, starts_in_reasoning=False) == []) is valid, args
        assert outlines_accepts(regex, text) is valid, args
        assert llg_accepts(grammar, text) is valid, args


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
