"""Shared by tests/test_grammar_export.py (llguidance, outlines-core) and the xgrammar check in vLLM's venv.

- ``tokenizer_json()``: a byte-level BPE trained here with ``tokenizers`` (no hub download), the
  family's tags as added tokens, as the family's real tokenizers have them.
- Strategies: tool sets with JSON-Schema parameters, calls valid under them (nasty strings, huge
  numbers, nested values), content and reasoning text; a request (choice, parallel, reasoning).
- ``completion``: the text a model emits for a turn, rendered by the library's byte-exact renderer
  (an independent path from the export, which reads only a few probe renders).
- ``forgeries``: blocks the library itself rejects (``parse_completion(strict=True)`` or ``validate``).
- ``walk``: a random walk over a token mask, for sampling from a grammar.
"""

from __future__ import annotations

import functools
import json
import random
import re
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hypothesis import assume
from hypothesis import strategies as st

import hermes_toolcall as ht
from hermes_toolcall.tags import CALL_CLOSE, CALL_OPEN, CLOSE, CONTROL, IM_END, IM_START, OPEN, RESP_CLOSE, RESP_OPEN

HEADER = f"{IM_START}assistant\n"
TAGS = sorted({*CONTROL, CALL_OPEN, CALL_CLOSE, RESP_OPEN, RESP_CLOSE, *OPEN.values(), *CLOSE.values()})
DIALECTS = sorted(ht.DIALECTS)

# --- a tokenizer trained here --------------------------------------------------------------------

_CORPUS = [
    '<tool_call>\n{"name": "get_weather", "arguments": {"location": "Paris", "unit": "celsius"}}\n</tool_call>',
    '<tool_call>\n{"name":"read","arguments":{"path":"a.ts","n":2}}\n</tool_call>',
    "<tool_call>\n<function=get_weather>\n<parameter=location>\nParis\n</parameter>\n</function>\n</tool_call>",
    "<think>\nThe user wants the weather. I will call the tool.\n</think>\n\nLet me check both.",
    "True False None null true false 0 1 2 3 12345678901234567890 3.14 -1e-07 [] {} [1, 2] {\"k\": \"v\"}",
    "Hello, world! Zürich 東京 😀 — a < b & c > d; print(\"</parameter>\")\n\ttabs and\r\nlines",
]


@functools.lru_cache(maxsize=1)
def tokenizer_json() -> str:
    """The path of a tokenizer.json trained on a small corpus: byte-level BPE, every tag an added token."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=420, special_tokens=TAGS, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False
    )
    tok.train_from_iterator(_CORPUS * 20, trainer)
    path = Path(tempfile.mkdtemp(prefix="hermes-grammar-")) / "tokenizer.json"
    tok.save(str(path))
    return str(path)


@functools.cache
def tokenizer_json_without(tags: tuple[str, ...]) -> str:
    """The trained tokenizer with ``tags`` no longer added tokens: the text encodes them with ordinary tokens (the
    vocabulary keeps each as one ordinary token too, which the byte-level encoder never produces but a model
    may emit), as in a tokenizer that lacks the family's tags."""
    data = json.loads(Path(tokenizer_json()).read_text())
    data["added_tokens"] = [t for t in data["added_tokens"] if t["content"] not in tags]
    path = Path(tempfile.mkdtemp(prefix="hermes-grammar-")) / "tokenizer.json"
    path.write_text(json.dumps(data))
    return str(path)


def eos_id() -> int:
    """The id of ``<|im_end|>`` (the end of a completion)."""
    data = json.loads(Path(tokenizer_json()).read_text())
    return next(t["id"] for t in data["added_tokens"] if t["content"] == IM_END)


# --- tools and values ----------------------------------------------------------------------------

_PIECES = ["a", "Z", " ", "\n", '"', "\\", "/", "<", ">", "&", "<b>", "é", "東", "😀", "\t", "{", "}", "[", "]",
           ",", ":", "True", "null", "</tool_call>", "<tool_call>", "</parameter>", "<function=x>", "\x01", "\x7f",
           "\x85", "  "]


def _join(pieces: list[str]) -> str:
    return "".join(pieces)


STRINGS = st.lists(st.sampled_from(_PIECES), max_size=6).map(_join)

_SCALAR_SCHEMAS = st.sampled_from([
    {"type": "string"},
    {"type": "integer"},
    {"type": "number"},
    {"type": "boolean"},
    {"type": "string", "description": "a described string"},
    {"enum": ["celsius", "fahrenheit", "a b", 'q"uote']},
    {"enum": [1, 2, 3]},
    {"type": ["string", "null"]},
    {"anyOf": [{"type": "integer"}, {"type": "null"}]},
])

NAMES = st.from_regex(r"[a-z][a-z0-9_]{0,10}", fullmatch=True)
_KEYS = st.from_regex(r"[a-z][a-z_]{0,7}", fullmatch=True)


def _object_schema(children: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    @st.composite
    def build(draw: Callable[..., Any]) -> dict[str, Any]:
        keys = draw(st.lists(_KEYS, max_size=4, unique=True))
        props = {k: draw(children) for k in keys}
        schema: dict[str, Any] = {"type": "object", "properties": props}
        required = [k for k in keys if draw(st.booleans())]
        if required:
            schema["required"] = required
        closed = draw(st.sampled_from([None, False, True]))
        if closed is not None:
            schema["additionalProperties"] = closed
        return schema

    return build()


# a free object ({"type": "object"}) costs outlines-core a large automaton (its regex nests three levels): rarer
PROPERTY_SCHEMAS: st.SearchStrategy[Any] = st.one_of(
    _SCALAR_SCHEMAS,
    _SCALAR_SCHEMAS.map(lambda s: {"type": "array", "items": s}),
    _object_schema(_SCALAR_SCHEMAS),
).flatmap(lambda s: st.sampled_from([s] * 7 + [{"type": "object"}]))

PARAMETERS = _object_schema(PROPERTY_SCHEMAS)


def _json_values(depth: int) -> st.SearchStrategy[Any]:
    scalars = st.one_of(st.none(), st.booleans(), st.integers(-(10**20), 10**20), STRINGS,
                        st.floats(allow_nan=False, allow_infinity=False))
    if depth == 0:
        return scalars
    inner = _json_values(depth - 1)
    return st.one_of(scalars, st.lists(inner, max_size=2), st.dictionaries(_KEYS, inner, max_size=2))


def values(schema: Any) -> st.SearchStrategy[Any]:
    """Values valid under ``schema`` (the subset the strategies above produce)."""
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    if "anyOf" in schema:
        return st.one_of([values(s) for s in schema["anyOf"]])
    kind = schema.get("type")
    if isinstance(kind, list):
        return st.one_of([values({"type": k}) for k in kind])
    if kind == "string":
        return STRINGS
    if kind == "integer":
        return st.integers(-(10**30), 10**30)
    if kind == "number":
        return st.one_of(st.integers(-(10**20), 10**20), st.floats(allow_nan=False, allow_infinity=False))
    if kind == "boolean":
        return st.booleans()
    if kind == "null":
        return st.none()
    if kind == "array":
        return st.lists(values(schema["items"]), max_size=3)
    if kind == "object":
        return arguments(schema)
    raise AssertionError(schema)


@st.composite
def arguments(draw: Callable[..., Any], schema: Any) -> dict[str, Any]:
    """An arguments object valid under ``schema``: declared keys in schema order, extras last where allowed."""
    props = schema.get("properties")
    if props is None:
        return dict(draw(st.dictionaries(_KEYS, _json_values(1), max_size=3)))
    required = set(schema.get("required", ()))
    out = {k: draw(values(s)) for k, s in props.items() if k in required or draw(st.booleans())}
    if schema.get("additionalProperties", True) is not False:
        for key in draw(st.lists(_KEYS.filter(lambda k: k not in props), max_size=2, unique=True)):
            out[key] = draw(_json_values(0))
    return out


@st.composite
def tool_sets(draw: Callable[..., Any], *, min_size: int = 1) -> list[dict[str, Any]]:
    names = draw(st.lists(NAMES, min_size=min_size, max_size=3, unique=True))
    return [{"type": "function", "function": {"name": n, "description": f"tool {n}", "parameters": draw(PARAMETERS)}}
            for n in names]


def schema_of(tools: Sequence[dict[str, Any]], name: str) -> Any:
    return next(t["function"]["parameters"] for t in tools if t["function"]["name"] == name)


def xml(dialect: str) -> bool:
    """Whether the dialect writes XML call bodies."""
    return getattr(ht.get_profile(dialect), "body_kind", "json") == "xml"


def has_extras(calls: Sequence[dict[str, Any]], tools: Sequence[dict[str, Any]]) -> bool:
    """Whether a call has an argument its tool's schema lists no property for (where the schema allows it)."""
    for call in calls:
        props = schema_of(tools, call["name"]).get("properties")
        if props is not None and any(k not in props for k in call["arguments"]):
            return True
    return False


# --- requests and what the model emits for them ----------------------------------------------------


def _prose(excluded: Sequence[str]) -> st.SearchStrategy[str]:
    pieces = ["Sure", " ", "\n", "<", "<b>", "</b>", "<tool_", "</think", "a<", "x", "é", "😀", "{", '"', "\\", "\t"]
    return st.lists(st.sampled_from(pieces), max_size=8).map(_join).filter(
        lambda s: not any(m in s for m in excluded))


CONTENT = _prose(TAGS)
THOUGHT = _prose(TAGS)


@dataclass(frozen=True)
class Case:
    """A request and one completion the dialect's template renders for a turn valid under it."""

    dialect: str
    tools: list[dict[str, Any]]
    tool_choice: Any
    parallel: bool
    reasoning: bool | None
    text: str
    starts_in_reasoning: bool
    calls: list[dict[str, Any]]


def reasoning_of(dialect: str, reasoning: bool | None) -> bool:
    """The reasoning state a request's ``reasoning`` means (None: as the generation prompt leaves it)."""
    if reasoning is None:
        return ht.generation_prompt_state(dialect).starts_in_reasoning
    return reasoning


def possible_reasoning(dialect: str) -> list[bool | None]:
    """The ``reasoning`` values the dialect can be in (a prompt that always opens a block cannot be False)."""
    profile = ht.get_profile(dialect)
    opens = ht.generation_prompt_state(dialect).starts_in_reasoning
    out: list[bool | None] = [None, True]
    if not opens or profile.generation_prompt_no_thinking is not None:
        out.append(False)
    return out


_RENDER_TOOLS = [{"type": "function", "function": {"name": "t", "description": "d",
                                                    "parameters": {"type": "object", "properties": {}}}}]


def completion(dialect: str, reasoning: bool, *, thought: str, content: str, calls: list[dict[str, Any]],
               tools: list[dict[str, Any]] | None = None, allow_injection: bool = False) -> str:
    """The completion (after the generation prompt, before ``<|im_end|>``) the template renders for the turn.

    ``tools`` type an XML body's values for the renderer's guard; JSON dialects render with a stand-in tool list
    (the Hermes template cannot render every schema in its system prompt, and the turn does not depend on it)."""
    profile = ht.get_profile(dialect)
    opens = ht.generation_prompt_state(dialect).starts_in_reasoning
    prompt = profile.generation_prompt if reasoning else (profile.generation_prompt_no_thinking or
                                                          profile.generation_prompt)
    msg: dict[str, Any] = {"role": "assistant", "content": content}
    if reasoning:
        msg["reasoning_content"] = thought
    if calls:
        msg["tool_calls"] = [{"id": f"c{i}", "type": "function", "function": c} for i, c in enumerate(calls)]
    xml = getattr(profile, "body_kind", "json") == "xml"
    full = ht.render([{"role": "user", "content": "Hi"}, msg], tools=tools if xml and tools else _RENDER_TOOLS,
                     dialect=dialect, allow_injection=allow_injection)
    start = full.rindex(HEADER) + len(HEADER)
    body = full[start : full.index(IM_END, start)]
    tail = prompt[len(HEADER):]
    kind = ht.generation_prompt_state(dialect).reasoning or "think"
    if reasoning and CLOSE[kind] not in body[len(tail):]:  # the template renders no reasoning: the model's own
        return ("" if opens else OPEN[kind] + "\n") + thought + f"\n{CLOSE[kind]}\n\n" + body
    assert body.startswith(tail), (dialect, body, tail)
    return body[len(tail):]


@st.composite
def cases(draw: Callable[..., Any], dialect: str) -> Case:
    """A request and a completion valid under it, as the dialect's template renders it."""
    tools = draw(tool_sets())
    choice = draw(st.sampled_from(["auto", "required", "none", "named"]))
    parallel = draw(st.booleans())
    reasoning = draw(st.sampled_from(possible_reasoning(dialect)))
    names = [t["function"]["name"] for t in tools]
    if choice == "named":
        name = draw(st.sampled_from(names))
        tool_choice: Any = {"type": "function", "function": {"name": name}}
        chosen, low, high = [name], 1, 1
    else:
        tool_choice, chosen = choice, names
        low = 1 if choice == "required" else 0
        high = 0 if choice == "none" else (3 if parallel else 1)
    count = draw(st.integers(low, high))
    calls = []
    for _ in range(count):
        name = draw(st.sampled_from(chosen))
        calls.append({"name": name, "arguments": draw(arguments(schema_of(tools, name)))})
    state = reasoning_of(dialect, reasoning)
    try:
        # a blank thought: Nemotron renders an empty <think></think> that no prompt ending in <think>\n continues
        thought = draw(THOUGHT.filter(str.strip)) if state else ""
        text = completion(dialect, state, thought=thought, content=draw(CONTENT), calls=calls, tools=tools)
    except ht.RenderError:
        assume(False)  # a value the renderer refuses (it would not read back): not a rendering
        raise
    opens = ht.generation_prompt_state(dialect).starts_in_reasoning
    return Case(dialect=dialect, tools=tools, tool_choice=tool_choice, parallel=parallel, reasoning=reasoning,
                text=text, starts_in_reasoning=state and opens, calls=calls)


def problems(text: str, *, dialect: str, tools: list[dict[str, Any]], starts_in_reasoning: bool) -> list[str]:
    """What the library finds wrong with a completion: strict parse errors, then validate's errors."""
    try:
        parsed = ht.parse_completion(text, dialect=dialect, strict=True, tools=tools,
                                     starts_in_reasoning=starts_in_reasoning)
    except ht.ParseError as exc:
        return [str(exc)]
    return [f"{d.code} {d.message}" for d in ht.validate(parsed, tools=tools, dialect=dialect).errors]


def _xml_text_ok(value: str) -> bool:
    """A string value the XML grammar writes (docs/constrained.md, limits): no control token, no ``<parameter=``,
    ``<function=`` or ``</function``, and ``</parameter`` only as ``</parameter>`` followed by a character that
    is not whitespace or ``<``."""
    if any(m in value for m in ("<|im_start|>", "<|im_end|>", "<parameter=", "<function=", "</function")):
        return False
    for found in re.finditer("</parameter", value):
        rest = value[found.end() :]
        if not rest.startswith(">") or rest[1:2] in ("", " ", "\t", "\r", "\n", "<"):
            return False
    return True


def xml_writes(case: Case) -> bool:
    """What the XML grammars admit: declared parameters only, string values as ``_xml_text_ok`` says."""
    if not xml(case.dialect):
        return True
    if has_extras(case.calls, case.tools):
        return False
    for call in case.calls:
        props = next(t["function"]["parameters"] for t in case.tools
                     if t["function"]["name"] == call["name"]).get("properties") or {}
        for key, value in call["arguments"].items():
            if isinstance(value, str) and "enum" not in props.get(key, {}) and not _xml_text_ok(value):
                return False
    return True


# --- forged blocks ------------------------------------------------------------------------------

FORGERY_KINDS = ("undeclared", "missing-required", "wrong-type", "enum", "extra", "string-arguments", "unclosed",
                 "control-text")


SENTINEL = "Sq9x"  # stands for a text put into a rendering afterwards (no template trims, escapes or splits it)


def _spliced(value: Any, text: str) -> tuple[Any, bool]:
    """``value`` with ``text`` put inside its first string (depth first, dict values only), and whether there was
    one."""
    if isinstance(value, str):
        return value[:1] + text + value[1:], True
    if isinstance(value, list):
        for i, item in enumerate(value):
            new, done = _spliced(item, text)
            if done:
                return [*value[:i], new, *value[i + 1:]], True
    if isinstance(value, dict):
        for key, item in value.items():
            new, done = _spliced(item, text)
            if done:
                return {**value, key: new}, True
    return value, False


def _allows_string(schema: Any) -> bool:
    kinds = schema.get("type")
    if "anyOf" in schema:
        kinds = [s.get("type") for s in schema["anyOf"]]
    return "string" in (kinds if isinstance(kinds, list) else [kinds])


def _wrong_value(schema: Any) -> Any:
    """A value ``schema`` rejects (a type it does not allow, or outside its enum)."""
    if "enum" in schema:
        return "not-in-enum-\u2603"
    kinds = schema.get("type")
    if "anyOf" in schema:
        kinds = [s.get("type") for s in schema["anyOf"]]
    kinds = kinds if isinstance(kinds, list) else [kinds]
    if "object" in kinds:
        return [1, 2]
    return {"wrong": [1]} if "string" in kinds or "integer" in kinds else "wrong"


@st.composite
def forgeries(draw: Callable[..., Any], dialect: str) -> tuple[str, Case]:
    """A completion with one forged call: what the library rejects, in the dialect's bytes otherwise."""
    kind = draw(st.sampled_from(FORGERY_KINDS))
    tools = draw(tool_sets())
    tool = draw(st.sampled_from(tools))
    name = tool["function"]["name"]
    schema = tool["function"]["parameters"]
    args = draw(arguments(schema))
    props = schema.get("properties", {})
    if kind == "undeclared":
        name = name + "_undeclared"
    elif kind == "missing-required":
        assume(schema.get("required"))
        args.pop(schema["required"][0], None)
    elif kind in ("wrong-type", "enum"):
        xml = getattr(ht.get_profile(dialect), "body_kind", "json") == "xml"  # an XML string value reads any text
        keys = [k for k, s in props.items() if ("enum" in s) == (kind == "enum") and s != {"type": "object"}
                and not (xml and kind == "wrong-type" and _allows_string(s))]
        assume(keys)
        key = draw(st.sampled_from(keys))
        args = {k: v for k, v in args.items() if k in props}
        args[key] = _wrong_value(props[key])
        args = {k: args[k] for k in props if k in args}  # schema order, as the grammar writes it
    elif kind == "extra":
        assume(schema.get("additionalProperties") is False)
        args["zz_extra"] = 1
    elif kind == "control-text":  # a string (of a JSON body, an XML value, or a JSON string in one) holding one
        args, done = _spliced(args, SENTINEL)
        assume(done)
    reasoning = draw(st.sampled_from(possible_reasoning(dialect)))
    state = reasoning_of(dialect, reasoning)
    call = {"name": name, "arguments": args}
    text = completion(dialect, state, thought="hmm", content="", calls=[call], tools=tools, allow_injection=True)
    if kind == "string-arguments":  # the arguments object written as a JSON string holding it
        assume(getattr(ht.get_profile(dialect), "body_kind", "json") == "json")
        block = ht.render_tool_call(call, dialect=dialect)
        cut = block.index('"arguments":') + len('"arguments":')
        end = block.rindex("}")  # the envelope's own closing brace
        arg_text = block[cut:end].strip()
        text = text.replace(block, block[:cut] + block[cut:end].replace(arg_text, json.dumps(arg_text)) + block[end:])
    elif kind == "unclosed":
        text = text[: text.rindex(CALL_CLOSE)]
    elif kind == "control-text":  # written in after rendering: the renderer's turn ends at the first <|im_end|>
        text = text.replace(SENTINEL, draw(st.sampled_from(CONTROL)), 1)
    opens = ht.generation_prompt_state(dialect).starts_in_reasoning
    case = Case(dialect=dialect, tools=tools, tool_choice="auto", parallel=True, reasoning=reasoning, text=text,
                starts_in_reasoning=state and opens, calls=[call])
    return kind, case


# the tools of the control-text regression: a string, a free object, an untyped value, an array of strings, and
# (the schema says nothing) undeclared arguments
CUT_TOOLS = [{"type": "function", "function": {"name": "f", "description": "f", "parameters": {
    "type": "object", "properties": {"s": {"type": "string"}, "o": {"type": "object"}, "u": {},
                                     "t": {"type": "array", "items": {"type": "string"}}},
    "required": ["s"]}}}]


def cut_arguments(text: str) -> list[dict[str, Any]]:
    """Arguments of ``CUT_TOOLS``'s ``f`` with ``text`` in each kind of JSON string a call may write: the string
    argument, a nested array's item, a free object's key and nested value, an untyped value's string (bare and
    nested), an undeclared argument's value and key."""
    return [{"s": f"a{text}b"}, {"s": "x", "t": ["ok", f"z{text}"]}, {"s": "x", "o": {f"k{text}": 1}},
            {"s": "x", "o": {"k": {"j": [text]}}}, {"s": "x", "u": text}, {"s": "x", "u": {"k": [1, f"{text}!"]}},
            {"s": "x", "zz": text}, {"s": "x", f"z{text}": True}]


def rendered_with(text: str, dialect: str, reasoning: bool, call: dict[str, Any], tools: list[dict[str, Any]]) -> str:
    """The completion of ``call`` (whose arguments hold ``SENTINEL``) with ``text`` in the sentinel's place: written
    in after rendering, since the rendered turn ends at its first ``<|im_end|>``."""
    out = completion(dialect, reasoning, thought="t", content="", calls=[call], tools=tools, allow_injection=True)
    assert out.count(SENTINEL) == 1, out
    return out.replace(SENTINEL, text)


def cut_completions(text: str) -> list[tuple[str, bool, str]]:
    """``(dialect, reasoning, completion)``: a call of ``f`` with ``text`` in one string (``cut_arguments``), every
    dialect (an XML body writes the objects and arrays as JSON, and ``s`` as raw text), without reasoning where the
    dialect can be without it; XML dialects only with the arguments their grammar writes (declared ones)."""
    out = []
    for dialect in DIALECTS:
        reasoning = False if False in possible_reasoning(dialect) else True
        for args in cut_arguments(SENTINEL):
            if xml(dialect) and not set(args) <= {"s", "o", "u", "t"}:
                continue
            out.append((dialect, reasoning, rendered_with(text, dialect, reasoning, {"name": "f", "arguments": args},
                                                          CUT_TOOLS)))
    return out


# --- random walks ---------------------------------------------------------------------------------


def _pick(bits: int, size: int, rng: random.Random) -> int:
    """A uniformly random set bit of ``bits`` (a token mask as an integer, bit i = token i)."""
    for _ in range(32):  # most masks are dense: rejection sampling
        i = rng.randrange(size)
        if bits >> i & 1:
            return i
    ids = [i for i in range(size) if bits >> i & 1]
    return rng.choice(ids)


def walk(mask: Callable[[], int], consume: Callable[[int], None], *, size: int, eos: int, rng: random.Random,
         closing: Sequence[int] = (), budget: int = 120, hard: int = 800) -> list[int] | None:
    """Tokens sampled uniformly from the mask (an integer bit set over ``size`` tokens) until the end token; past
    ``budget`` tokens the ``closing`` ones are preferred when allowed, past ``hard`` the walk gives up (None)."""
    out: list[int] = []
    for step in range(hard):
        bits = mask()
        if not bits:
            return None
        if bits >> eos & 1 and (step >= budget or rng.random() < 0.15):
            return out
        preferred = [t for t in closing if bits >> t & 1] if step >= budget else []
        token = rng.choice(preferred) if preferred else _pick(bits, size, rng)
        if token == eos:
            return out
        consume(token)
        out.append(token)
    return None
