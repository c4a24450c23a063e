"""Engine helpers for tests: feed a text in chunks, enumerate chunkings, compare the two engines, check spans.

These need no third-party package. ``assert_engines_agree`` is the suite's central check: the grammar
engine (whole text) and the streaming engine (fed whole, one character at a time, and in any given
chunkings) must return equal results, or raise the same strict-mode diagnostics.
"""

from __future__ import annotations

import dataclasses
import difflib
import itertools
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import is_dataclass
from typing import Any

from .._ids import sequential_ids
from .._model import Completion, Diagnostic, Span, ToolCall, Transcript, Turn, public_fields
from ..conformance import grammar_parse
from ..errors import HermesError, ParseError, StreamError, UsageError
from ..statemachine import StreamParser
from ._invariants import check_events, check_openai_chunks

__all__ = [
    "all_chunkings",
    "assert_engines_agree",
    "assert_spans_tile",
    "check_argument_deltas",
    "chunk_at",
    "describe",
    "feed_in_chunks",
    "merge_deltas",
]

# delta event type name -> the fields two adjacent deltas must share to merge
_DELTAS: dict[str, tuple[str, ...]] = {
    "TextDelta": (),
    "ReasoningDelta": ("kind",),
    "ArgumentsDelta": ("ordinal", "id"),
}

Result = Completion | Transcript


def chunk_at(text: str, cuts: Iterable[int]) -> tuple[str, ...]:
    """Cut ``text`` at the given offsets (sorted, deduplicated, clamped to the text).

    >>> chunk_at("abcdef", [4, 2])
    ('ab', 'cd', 'ef')
    """
    points = sorted({min(max(c, 0), len(text)) for c in cuts} - {0, len(text)})
    bounds = [0, *points, len(text)]
    return tuple(text[a:b] for a, b in itertools.pairwise(bounds)) if text else ("",)


def all_chunkings(text: str) -> Iterator[tuple[str, ...]]:
    """Every way to cut ``text`` into non-empty chunks (``2**(len(text)-1)`` of them).

    >>> list(all_chunkings("abc"))
    [('abc',), ('a', 'bc'), ('ab', 'c'), ('a', 'b', 'c')]
    """
    if not text:
        yield ("",)
        return
    inner = range(1, len(text))
    for size in range(len(text)):
        for cuts in itertools.combinations(inner, size):
            yield chunk_at(text, cuts)


def _parser(factory_or_options: Callable[[], Any] | Mapping[str, Any]) -> Any:
    if callable(factory_or_options):
        return factory_or_options()
    options = dict(factory_or_options)
    options.setdefault("ids", sequential_ids())
    return StreamParser(**options)


def feed_in_chunks(
    factory_or_options: Callable[[], Any] | Mapping[str, Any],
    text: str,
    chunks: Sequence[str] | Sequence[int] | None = None,
) -> tuple[list[Any], Result]:
    """Feed ``text`` to a fresh streaming parser in chunks; return every event and the folded result.

    Args:
        factory_or_options: a zero-argument callable returning a ``StreamParser``, or the keyword
            arguments of ``StreamParser`` (``level``, ``dialect``, ``strict``…; ids default to
            ``sequential_ids()``).
        text: the input.
        chunks: the chunks (strings concatenating to ``text``), or chunk sizes (ints; the last chunk
            takes the rest), or None for one character at a time.

    Returns:
        ``(events, result)``: the events of every ``feed`` and of ``close``, and ``result()``.

    Raises:
        UsageError: string chunks that do not concatenate to ``text``.
        StreamError: strict mode found errors (raised by the parser).

    >>> events, result = feed_in_chunks({"level": "completion"}, "hi", [1, 1])
    >>> result.parts[0].text
    'hi'
    """
    if chunks is None:
        pieces: tuple[str, ...] = tuple(text)
    elif all(isinstance(c, str) for c in chunks):
        pieces = tuple(str(c) for c in chunks)
        if "".join(pieces) != text:
            raise UsageError("the chunks do not concatenate to the text")
    else:
        sizes = [int(c) for c in chunks]
        pieces = chunk_at(text, itertools.accumulate(sizes))
    parser = _parser(factory_or_options)
    events: list[Any] = []
    for piece in pieces:
        events.extend(parser.feed(piece))
    events.extend(parser.close())
    return events, parser.result()


def merge_deltas(events: Iterable[Any]) -> list[Any]:
    """Merge adjacent text, reasoning and argument deltas of one element; drop empty deltas.

    The merged list does not depend on the chunking (format.md §4).

    >>> from hermes_toolcall.statemachine import TextDelta
    >>> merge_deltas([TextDelta(text="a"), TextDelta(text=""), TextDelta(text="b")])
    [TextDelta(text='ab')]
    """
    out: list[Any] = []
    for event in events:
        keys = _DELTAS.get(type(event).__name__)
        if keys is None:
            out.append(event)
            continue
        if not event.text:
            continue
        last: Any = out[-1] if out else None
        if type(last) is type(event) and all(getattr(last, k) == getattr(event, k) for k in keys):
            out[-1] = dataclasses.replace(last, text=last.text + event.text)
        else:
            out.append(event)
    return out


def check_argument_deltas(events: Iterable[Any], result: Result) -> None:
    """Assert the argument deltas of each call whose body was strict JSON concatenate to its final
    ``function.arguments``.

    A call recovered by a lenient rule (an ``HT2xx`` diagnostic inside its block) is not checked: its
    ``arguments_json`` is re-serialised, and deltas already sent cannot be taken back
    (``_openai_chunks.py`` documents this limit).

    Raises:
        AssertionError: a call whose delta stream does not add up to its arguments.
    """
    streamed: dict[str, str] = {}
    for event in events:
        if type(event).__name__ == "ArgumentsDelta":
            streamed[event.id] = streamed.get(event.id, "") + event.text
    parts = result.parts if isinstance(result, Completion) else tuple(p for t in result.turns for p in t.parts)
    recovered = [d.span for d in result.diagnostics if d.code.startswith("HT2")]
    for part in parts:
        if not isinstance(part, ToolCall) or any(part.span.start <= s.start < part.span.end for s in recovered):
            continue
        sent = streamed.get(part.id, "")
        if sent != part.arguments_json:
            raise AssertionError(f"call {part.id}: streamed arguments {sent!r} != final {part.arguments_json!r}")


def _fmt_value(value: Any) -> str:
    if isinstance(value, Span):
        return f"[{value.start},{value.end}) {value.line}:{value.column}"
    return repr(value)


def describe(result: Result | Sequence[Diagnostic]) -> list[str]:
    """A result as lines of text (one part, turn or diagnostic a line), for readable diffs.

    >>> describe(Completion(parts=(), diagnostics=(), source="x"))
    ['Completion source=1 chars end=None stopped_at=None']
    """
    lines: list[str] = []

    def item(obj: Any, indent: str) -> None:
        if not is_dataclass(obj):
            lines.append(indent + repr(obj))
            return
        shown = ", ".join(f"{n}={_fmt_value(getattr(obj, n))}" for n in public_fields(obj) if n != "parts")
        lines.append(f"{indent}{type(obj).__name__}({shown})")

    if isinstance(result, Completion):
        lines.append(f"Completion source={len(result.source)} chars end={result.end} stopped_at={result.stopped_at}")
        for p in result.parts:
            item(p, "  ")
    elif isinstance(result, Transcript):
        lines.append(f"Transcript source={len(result.source)} chars stopped_at={result.stopped_at}")
        for t in result.turns:
            item(t, "  ")
            for p in t.parts:
                item(p, "    ")
        for g in result.gaps:
            item(g, "  gap ")
    diagnostics = result.diagnostics if isinstance(result, Completion | Transcript) else result
    for d in diagnostics:
        item(d, "  diag ")
    return lines


Outcome = tuple[Result | tuple[Diagnostic, ...], list[Any]]


def _run(label: str, fn: Callable[[], tuple[Result, list[Any]]]) -> Outcome:
    try:
        result, events = fn()
    except (ParseError, StreamError) as exc:
        return tuple(exc.diagnostics), []
    except HermesError as exc:
        raise AssertionError(f"{label}: unexpected {type(exc).__name__}: {exc}") from exc
    return result, merge_deltas(events)


def _same(a: Result | tuple[Diagnostic, ...], b: Result | tuple[Diagnostic, ...]) -> bool:
    if isinstance(a, tuple) or isinstance(b, tuple):
        return isinstance(a, tuple) and isinstance(b, tuple) and a == b
    return a == b


def _show(value: Result | tuple[Diagnostic, ...]) -> list[str]:
    if isinstance(value, tuple):
        return ["raised (strict) with:", *describe(value)]
    return describe(value)


def _disagree(
    text: str, level: str, options: Mapping[str, Any], left: str, a: list[str], right: str, b: list[str]
) -> str:
    diff = difflib.unified_diff(a, b, left, right, lineterm="", n=2)
    return f"engines disagree on {text!r} ({level}, {dict(options)}):\n" + "\n".join(diff)


def assert_engines_agree(
    text: str,
    *,
    level: str = "completion",
    chunkings: Iterable[Sequence[str]] = (),
    char_by_char: bool = True,
    compare_events: bool = True,
    check_chunks: bool = True,
    **options: Any,
) -> Result | None:
    """Assert that the grammar engine and the streaming engine agree on ``text``.

    The streaming engine (with ``stream_arguments``) is fed the whole text, one character at a time
    (``char_by_char``), and each of ``chunkings``: every run's result must equal the grammar
    engine's, every run's merged events must equal the whole run's, and argument deltas must add up
    to each call's arguments (``check_argument_deltas``), and every run's events must satisfy the event
    invariants (``check_events``). At completion level, every run is also streamed through
    ``OpenAIChunker`` in both modes and the accumulated chunks checked against ``to_openai()``
    (``check_openai_chunks``; openai-python's accumulator on the first chunked run). In strict mode
    both engines must return, or both raise with the same diagnostics.

    Args:
        text: the input.
        level: ``completion`` or ``transcript``.
        chunkings: more chunkings to try (each concatenates to ``text``).
        char_by_char: also feed one character at a time.
        compare_events: also compare the merged events and argument deltas of the machine runs, and
            check the event invariants.
        check_chunks: completion level: also check the OpenAI chunks of every run, both chunker modes.
        **options: parse options (``dialect``, ``strict``, ``calls_in_reasoning``,
            ``stop_at_fabricated_response``, ``max_block_chars``); ids are ``sequential_ids()``.

    Returns:
        The grammar engine's result, or None when strict mode rejected the input.

    Raises:
        AssertionError: the engines disagree (with a line diff of the two results or event lists).
        UsageError: a chunking does not concatenate to ``text``.

    >>> assert_engines_agree("Hello <tool_call>", level="completion").parts[0].text
    'Hello '
    """
    candidates: list[tuple[str, tuple[str, ...]]] = [("machine, whole", (text,))]
    if char_by_char and len(text) > 1:
        candidates.append(("machine, char by char", tuple(text)))
    candidates.extend((f"machine, chunks {list(c)!r}", tuple(c)) for c in chunkings)
    for label, chunks in candidates:
        if "".join(chunks) != text:
            raise UsageError(f"{label}: the chunks do not concatenate to the text")
    reference, _ = _run("grammar", lambda: (grammar_parse(text, level=level, **options), []))
    stream_options = {"level": level, "stream_arguments": True, **options}
    whole_events: list[Any] | None = None
    for label, chunks in candidates:
        got, events = _run(label, lambda chunks=chunks: _feed(stream_options, text, chunks))  # type: ignore[misc]
        if not _same(reference, got):
            raise AssertionError(_disagree(text, level, options, "grammar", _show(reference), label, _show(got)))
        if check_chunks and level == "completion":
            for eager in (False, True):
                oracle = not eager and len(chunks) > 1 and label.endswith("char by char")
                check_openai_chunks(chunks, eager=eager, options=stream_options, oracle=oracle)
        if isinstance(got, tuple) or not compare_events:
            continue
        if whole_events is None:
            whole_events = events
            check_argument_deltas(events, got)
        elif events != whole_events:
            a, b = [repr(e) for e in whole_events], [repr(e) for e in events]
            raise AssertionError(_disagree(text, level, options, "events, machine, whole", a, f"events, {label}", b))
        check_events(events, got)
    return None if isinstance(reference, tuple) else reference


def _feed(options: Mapping[str, Any], text: str, chunks: Sequence[str]) -> tuple[Result, list[Any]]:
    events, result = feed_in_chunks(options, text, chunks)
    return result, events


def _check_tiles(spans: Sequence[Span], start: int, end: int, where: str) -> None:
    position = start
    previous: Span | None = None
    for span in spans:
        if span == previous:  # several calls recovered from one block share its span
            continue
        if span.start != position:
            raise AssertionError(f"{where}: span {span} starts at {span.start}, expected {position}")
        if span.end < span.start:
            raise AssertionError(f"{where}: span {span} ends before it starts")
        position = span.end
        previous = span
    if position != end:
        raise AssertionError(f"{where}: spans end at {position}, expected {end}")


def _turn_spans(turn: Turn) -> list[Span]:
    spans = [turn.header, *(p.span for p in turn.parts)]
    return [*spans, turn.end] if turn.end is not None else spans


def assert_spans_tile(result: Result) -> None:
    """Assert that spans partition the input (R1, nothing lost) and that each part's text is its slice.

    Completion: parts tile ``[0, end.start)`` (or up to ``stopped_at``), ``end`` covers the rest.
    Transcript: turns and gaps tile ``[0, stopped_at or len)``; in each turn, header, parts and end
    tile the turn span.

    Raises:
        AssertionError: a gap, an overlap, or a part whose text is not its slice of the input.

    >>> assert_spans_tile(Completion(parts=(), diagnostics=(), source=""))
    """
    source = result.source
    if isinstance(result, Completion):
        stop = result.end.start if result.end is not None else len(source)
        if result.stopped_at is not None:
            stop = result.stopped_at
        _check_tiles([p.span for p in result.parts], 0, stop, "completion parts")
        if result.end is not None and result.end.end != len(source):
            raise AssertionError(f"completion end {result.end} does not reach the end of input {len(source)}")
        parts = result.parts
    else:
        stop = result.stopped_at if result.stopped_at is not None else len(source)
        pieces = sorted([t.span for t in result.turns] + [g.span for g in result.gaps], key=lambda s: s.start)
        _check_tiles(pieces, 0, stop, "turns and gaps")
        for t in result.turns:
            _check_tiles(_turn_spans(t), t.span.start, t.span.end, f"turn {t.role!r} at {t.span.start}")
        for g in result.gaps:
            if g.text != source[g.span.start : g.span.end]:
                raise AssertionError(f"gap text {g.text!r} is not its slice")
        parts = tuple(p for t in result.turns for p in t.parts)
    for p in parts:
        raw = getattr(p, "raw", None)
        text = getattr(p, "text", None) if type(p).__name__ == "Text" else None
        expected = source[p.span.start : p.span.end]
        if raw is not None and raw != expected:
            raise AssertionError(f"{type(p).__name__} raw {raw!r} is not its slice {expected!r}")
        if text is not None and text != expected:
            raise AssertionError(f"Text {text!r} is not its slice {expected!r}")
    for d in result.diagnostics:
        if not 0 <= d.span.start <= d.span.end <= len(source):
            raise AssertionError(f"diagnostic {d.code} span {d.span} lies outside the input")
