"""``integrations.session`` without a server: the hot path (``Session.step``) against ``feed`` and ``complete``.

The servers' adapters feed ``step()`` (plain tuples, issue 14's second pass); ``feed()`` is the same
result as ``Delta`` values. Both must accumulate, on every chunking and in both modes (calls sent
whole, or announced with argument deltas), to the non-streaming ``complete()``.
"""

from __future__ import annotations

import doctest
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hermes_toolcall import OpenAIChunker
from hermes_toolcall.integrations import _session as session_module
from hermes_toolcall.integrations._session import Bookkeeping, Policy, Session, as_delta, complete, stream_parser
from hermes_toolcall.testing import adversarial_texts, chunkings

TEXTS = [
    'Let me check. <tool_call>\n{"name": "f", "arguments": {"city": "Paris", "n": [1, {"a": "}]"}]}}\n'
    "</tool_call>\nDone.",
    '<tool_call>\n{"name": "f", "arguments": {"q": "a </tool_call> \\" b"}}\n</tool_call>',
    '<tool_call>\n{"name": "f", "arguments": {"a": 1}}\n</tool_call>\n'
    '<tool_call>\n{"name": "f", "arguments": {"b":',
    '<think>\nhm\n</think>\n\nHi <tool_call>{"arguments": {"x": {}}, "name": "g"}</tool_call> after',
    '<tool_call>\n{"name": "f", "arguments": {"items": ['
    + ", ".join(f'{{"k": {k}, "v": "w"}}' for k in range(300))
    + "]}}\n</tool_call>",
    "plain text, no calls at all",
]


def _ids(n: int) -> str:
    return f"call_{n}"


def _cuts(text: str, rng: random.Random) -> list[str]:
    cuts = sorted(rng.sample(range(1, len(text)), min(len(text) - 1, rng.randint(1, 40))))
    return [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]


def _accumulate(policy: Policy, pieces: list[str], *, use_step: bool) -> tuple[str, str, dict[int, list[str]]]:
    s = Session(policy)
    content: list[str] = []
    reasoning: list[str] = []
    calls: dict[int, list[str]] = {}
    steps = [s.step(p) if use_step else s.feed(p) for p in pieces] + [s.finish() if use_step else s.close()]
    for step in steps:
        delta = as_delta(step) if isinstance(step, tuple) else step
        content.append(delta.content)
        reasoning.append(delta.reasoning)
        for c in delta.calls:
            entry = calls.setdefault(c.index, ["", "", ""])
            if c.id is not None:
                assert not entry[0], "a call's id and name come in its first piece only"
                entry[0], entry[1] = c.id, c.name or ""
            entry[2] += c.arguments
    return "".join(content), "".join(reasoning), calls


def _check_accumulation(text: str, pieces: list[str], eager: bool) -> None:
    """``step`` and ``feed`` give the same deltas, which accumulate to ``complete(text)``."""
    policy = Policy(ids=_ids, eager=eager)
    whole = complete(text, policy)
    by_step = _accumulate(policy, pieces, use_step=True)
    assert by_step == _accumulate(policy, pieces, use_step=False)
    content, reasoning, calls = by_step
    assert content == (whole.content or "")
    assert reasoning == (whole.reasoning or "")
    valid = {c.index: [c.id, c.name, c.arguments] for c in whole.calls}
    if not eager:
        assert calls == valid
        return
    # Eager: a sent delta cannot be taken back, so the client keeps each announced call as streamed. The
    # calls beyond complete()'s are exactly those the eager chunker's last chunk lists as rejected (cut off,
    # invalid), and a valid call's streamed arguments differ from complete()'s only when it lists the call as
    # corrected, with complete()'s arguments. Calls are matched by id (a rejected call keeps its index).
    rejected, corrected = _eager_verdicts(text, policy)
    streamed = {c[0]: c for c in calls.values()}
    final = {c[0]: c for c in valid.values()}
    assert set(streamed) == set(final) | (rejected & set(streamed)), (streamed, final, rejected)
    assert not set(final) & rejected
    for call_id, (_, name, arguments) in final.items():
        assert streamed[call_id][1] == name
        if streamed[call_id][2] != arguments:
            assert corrected.get(call_id) == arguments, (call_id, streamed[call_id][2], arguments)


def _eager_verdicts(text: str, policy: Policy) -> tuple[set[str], dict[str, str]]:
    """The ids of the calls the eager chunker rejects, and the corrected calls' final arguments by id."""
    parser = stream_parser(policy)
    chunker = OpenAIChunker(eager=True)
    chunks = [*chunker.start(), *chunker.feed(parser.feed(text)), *chunker.feed(parser.close()), *chunker.finish()]
    last = chunks[-1]
    rejected = {r["id"] for r in last.get("rejected_tool_calls", [])}
    corrected = {c["id"]: c["function"]["arguments"] for c in last.get("corrected_tool_calls", [])}
    return rejected, corrected


@pytest.mark.parametrize("text", TEXTS)
@pytest.mark.parametrize("eager", [False, True])
def test_step_and_feed_accumulate_to_complete_on_every_chunking(text: str, eager: bool) -> None:
    rng = random.Random(text)
    for _ in range(25):
        _check_accumulation(text, _cuts(text, rng), eager)


@settings(max_examples=150, deadline=None)
@given(data=st.data(), text=st.one_of(adversarial_texts(), st.sampled_from(TEXTS)), eager=st.booleans())
def test_step_and_feed_accumulate_to_complete_on_generated_inputs(data: st.DataObject, text: str, eager: bool) -> None:
    """The same on generated and adversarial completions (huge numbers, duplicate keys, CRLF, cuts, ...), cut
    into chunks of every size, 1-char included."""
    _check_accumulation(text, data.draw(chunkings(text)), eager)


class _General(Session):
    """A session without ``step``'s fast paths: every feed's events go through the chunker's chunks."""

    def step(self, text: str) -> session_module.Step:
        events = self._feed(text)
        if self._verbatim:
            return (text, "", ())
        chunks, ended = self._chunks(events)
        if not chunks and not ended:
            return session_module.NO_STEP
        return session_module._merge(chunks)


POLICIES = st.builds(
    Policy,
    tools=st.sampled_from([None, ({"type": "function", "function": {"name": "f"}},)]),
    undeclared=st.sampled_from(["keep", "text", "drop"]),
    reasoning_as_content=st.booleans(),
    starts_in_reasoning=st.booleans(),
    eager=st.booleans(),
    ids=st.just(_ids),
)


@settings(max_examples=200, deadline=None)
@given(
    data=st.data(),
    text=st.one_of(adversarial_texts(), st.sampled_from(TEXTS), st.sampled_from(TEXTS).map(lambda t: t + "\n" + t)),
    policy=POLICIES,
)
def test_step_fast_paths_give_the_chunkers_steps(data: st.DataObject, text: str, policy: Policy) -> None:
    """Every ``step`` (lone name, lone argument piece, text and whole calls read from the chunker's records
    without chunks: ``sent_text``, ``sent_call``, ``sent_arguments``) equals the step the chunker's chunks give,
    feed by feed, with the same bookkeeping, on every chunking (1-char included) and request policy."""
    pieces = data.draw(chunkings(text))
    fast, general = Session(policy), _General(policy)
    books = _Books()
    for piece in pieces:
        step = fast.step(piece)
        assert step == general.step(piece)
        if step is not session_module.NO_STEP:
            books._book(fast, step[2], final=False)
        # the bookkeeping is exact after every step (a lone argument piece skips it: nothing to write)
        for i, call in enumerate(fast.calls):
            assert books.prev_tool_call_arr[i]["name"] == call.name
            if call.valid is not None:
                assert books.streamed_args_for_tool[i] == call.arguments
    last = fast.finish()
    assert last == general.finish()
    assert [(c.index, c.id, c.name, c.arguments, c.valid) for c in fast.calls] == [
        (c.index, c.id, c.name, c.arguments, c.valid) for c in general.calls
    ]
    books._book(fast, last[2], final=True)
    assert books.streamed_args_for_tool == [c.arguments for c in fast.calls]


def test_step_in_tool_choice_none_gives_the_text_as_content() -> None:
    s = Session(Policy(tool_choice="none"))
    assert s.step("<tool_call>{") == ("<tool_call>{", "", ())
    assert s.finish() == ("", "", ())


class _Books(Bookkeeping):
    def __init__(self) -> None:
        self.prev_tool_call_arr = []
        self.streamed_args_for_tool = []
        self.current_tool_id = -1
        self.current_tool_name_sent = False


@pytest.mark.parametrize("eager", [False, True])
def test_bookkeeping_from_steps_holds_what_was_sent(eager: bool) -> None:
    text = TEXTS[0] + TEXTS[1]
    s = Session(Policy(ids=_ids, eager=eager))
    books = _Books()
    sent: dict[int, str] = {}
    for piece in [*_cuts(text, random.Random(3)), None]:
        step = s.step(piece) if piece is not None else s.finish()
        books._book(s, step[2], final=piece is None)
        for index, _, _, arguments in step[2]:
            sent[index] = sent.get(index, "") + arguments
    assert books.streamed_args_for_tool == [sent[i] for i in sorted(sent)]
    assert [c["arguments"] for c in books.prev_tool_call_arr] == books.streamed_args_for_tool
    assert [c["name"] for c in books.prev_tool_call_arr] == ["f", "f"]


@pytest.mark.parametrize(
    "text",
    [
        '<tool_call>\n{"name": "f", "arguments": {"v": "\x00"}}\n</tool_call>',  # a raw NUL: re-encoded at the end
        '<tool_call>{"name": "g", "arguments": {"_" null}}</tool_call>'
        '<tool_call>{"name": "f", "arguments": {}}</tool_call>',
    ],
)
def test_regression_eager_keeps_rejected_and_corrected_calls_as_streamed(text: str) -> None:
    """Found by hypothesis: in eager mode a call announced and then rejected kept its index (so the valid call
    after it is index 1, complete() says 0), and a body re-encoded by a recovery (a raw NUL) streamed its raw
    text. Both are what eager means (a sent delta cannot be taken back); the property now checks them against
    the eager chunker's rejected/corrected lists instead of complete()'s numbering."""
    for eager in (False, True):
        _check_accumulation(text, list(text), eager)


def test_doctests() -> None:
    assert doctest.testmod(session_module).failed == 0
