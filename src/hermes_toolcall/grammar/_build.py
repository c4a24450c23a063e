"""From the grammar's tokens to the data model: parts, turns, diagnostics (docs/parsing.md §3–§7).

The parse tree of ``hermes.lark`` is read in document order as ``(terminal, start, end)`` tokens,
one batch at a time (``_parser.token_batches``: the tokens of the whole input are never held at once);
the terminal says what each piece is, because the contextual lexer already chose it by context
(role of the turn, inside or outside reasoning, JSON-aware or plain block). This module adds what a
context-free grammar cannot say: the size cut of §5.4 (an oversize block is cut and the rest of
the input is parsed again from the cut with a ``resume_*`` start rule), the body decoding (§5.5,
via ``_body.py``), call ids and indices, and the diagnostics.
"""

from __future__ import annotations

from collections.abc import Iterator

from .._construct import new_completion, new_reasoning, new_text, new_turn
from .._diagnostics import message
from .._model import (
    Completion,
    Diagnostic,
    ReasoningKind,
    Span,
    Text,
    Transcript,
    Turn,
)
from .._options import ParseOptions
from .._positions import LineIndex
from ..tags import CALL_CLOSE, CLOSE, IM_END, IM_START, RESP_CLOSE, RESP_OPEN, ROLES, TOOLS_CLOSE
from ._blocks import BlockReader, Body, Segment
from ._parser import Variant, token_batches

__all__ = ["build_completion", "build_transcript"]

_WS = " \t\n\r"
_HEADS = frozenset({"A_HEAD", "U_HEAD", "S_HEAD", "O_HEAD", "HEAD_UNTERM"})
# a *_LINK token is `<|im_end|>` + gap + the header of the next turn: its header terminal
_LINKS = {"A_LINK": "A_HEAD", "U_LINK": "U_HEAD", "S_LINK": "S_HEAD", "O_LINK": "O_HEAD", "UNTERM_LINK": "HEAD_UNTERM"}
_CONTROL = _HEADS | {"IM_END"} | set(_LINKS)
_KNOWN_ROLES = frozenset(ROLES)
# one str object per known role for every turn (a slice of the header would be a new string per turn)
_ROLE_STRINGS = {role: role for role in _KNOWN_ROLES}
_STRAY = {
    "STRAY_CALL": CALL_CLOSE,
    "STRAY_THINK": CLOSE["think"],
    "STRAY_SCRATCH": CLOSE["scratch_pad"],
    "STRAY_RESP": RESP_CLOSE,
    "STRAY_TOOLS": TOOLS_CLOSE,
}
_HEAD = len(IM_START)  # a header token starts with <|im_start|>, a *_LINK or IM_END token with <|im_end|>
_END = len(IM_END)
_SEG_KIND: dict[str, ReasoningKind] = {
    "THINK_OPEN": "think",
    "THINK_TEXT": "think",
    "THINK_CLOSE": "think",
    "SCRATCH_OPEN": "scratch_pad",
    "SCRATCH_TEXT": "scratch_pad",
    "SCRATCH_CLOSE": "scratch_pad",
}
_CALLS = frozenset({"CALL_DONE", "CALL_JSON", "CALL_PLAIN", "CALL_XML"})
_REST: dict[ReasoningKind, str] = {"think": "THINK_REST", "scratch_pad": "SCRATCH_REST"}
_A_STOP = _CONTROL | {"AFTER"}

Tok = tuple[str, int, int]
_NO_TOKENS: list[Tok] = []
_VARIANTS: dict[tuple[object, bool, bool], Variant] = {}  # (reasoning kinds, calls_in_reasoning, stop_at_fabricated)


class _Builder(BlockReader):
    """Reads the token stream of one input and builds the model values."""

    def __init__(self, source: str, options: ParseOptions, level: str) -> None:
        super().__init__(source, options)
        self.level = level  # "t" (transcript) or "c" (completion)
        self.stopped_at: int | None = None
        key = (options.profile.reasoning_kinds, options.calls_in_reasoning, options.stop_at_fabricated_response)
        variant = _VARIANTS.get(key)
        if variant is None:  # one value per option variant: the driver's cache finds it by identity
            kinds, calls, stop = key
            variant = _VARIANTS[key] = Variant(kinds=tuple(kinds), calls_in_reasoning=calls, stop_at_fabricated=stop)
        self.variant = variant
        # the tokens are read one batch at a time (``toks``, read up to ``pos``), never held whole
        self.batches: Iterator[list[Tok]] = iter(())
        self.toks: list[Tok] = _NO_TOKENS
        self.pos = 0
        self.reach = 0  # end offset of the last token consumed (or of the last cut)
        # (offset of the `<|im_end|>` of a *_LINK token, end of that `<|im_end|>`): the int object
        # the turn's span ends with, which the gap after it starts with
        self.link: tuple[int, int] = (-1, -1)

    # ------------------------------------------------------------------ token stream
    def load(self, start_rule: str, offset: int) -> None:
        """Parse ``source[offset:]`` from ``start_rule`` and read its tokens from now on."""
        self.batches = token_batches(self.src, start_rule, self.variant, offset)
        self.toks = _NO_TOKENS
        self.pos = 0

    def fill(self) -> bool:
        """Read the next batch of tokens (``pos`` back to 0); False at the end of the tokens."""
        self.toks = next(self.batches, _NO_TOKENS)
        self.pos = 0
        return self.toks is not _NO_TOKENS

    def peek(self) -> Tok | None:
        if self.pos < len(self.toks) or self.fill():
            return self.toks[self.pos]
        return None

    def take(self, tok: Tok) -> None:
        """Consume ``tok`` (the one ``peek`` returned)."""
        self.pos += 1
        self.reach = tok[2]

    def resume(self, context: str, cut: int) -> None:
        """Continue after a size cut at ``cut``, in ``context`` (a, u, s, think, scratch)."""
        rule = "completion" if (self.level, context) == ("c", "a") else f"resume_{context}_{self.level}"
        self.reach = cut
        self.load(rule, cut)

    # ------------------------------------------------------------------ helpers
    def gap(self, gaps: list[Text], s: int, e: int) -> None:
        """Text outside any turn (§3.1): kept, and ``HT005`` unless it is whitespace."""
        if e > s:
            text = self.src[s:e]
            gaps.append(new_text(text, s, e, self.index))
            if text != "\n" and text.strip(_WS):
                self.diag("HT005", message("HT005"), s, e)

    def sorted_diagnostics(self) -> tuple[Diagnostic, ...]:
        if not self.diags:
            return ()
        return tuple(sorted(self.diags, key=lambda d: d.span.start))

    # ------------------------------------------------------------------ text runs
    def add_text(self, body: Body, start: int, end: int) -> None:
        if body.text_start < 0:
            body.text_start = start
        body.text_end = end

    def flush_text(self, body: Body) -> None:
        if body.text_start >= 0:
            s, e = body.text_start, body.text_end
            body.parts.append(new_text(self.src[s:e], s, e, self.index))
            body.text_start = -1

    # ------------------------------------------------------------------ bodies
    def assistant_body(self, body: Body) -> None:
        """Read an assistant body up to a control token or the end of the input."""
        toks, pos = self.toks, self.pos
        while True:
            if pos >= len(toks):
                if not self.fill():
                    pos = 0
                    break
                toks, pos = self.toks, 0
            typ, s, e = toks[pos]
            if typ in _A_STOP:
                break
            pos += 1
            if typ == "A_TEXT":  # the common token: extend the pending text run
                if body.text_start < 0:
                    body.text_start = s
                body.text_end = e
                self.reach = e
                continue
            self.pos = pos
            self.reach = e
            if typ in _STRAY:
                self.add_text(body, s, e)
                self.diag("HT121", message("HT121", tag=_STRAY[typ]), s, e)
            elif typ == "FAB":
                if self.variant.stop_at_fabricated:
                    self.flush_text(body)
                    self.diag("HT122", message("HT122:stop"), s, s + len(RESP_OPEN))
                    self.diag("HT123", message("HT123"), s, len(self.src))
                    self.stopped_at = self.reach = s
                    return
                self.add_text(body, s, e)
                self.diag("HT122", message("HT122"), s, e)
            elif typ in _CALLS:
                if body.text_start >= 0:
                    self.flush_text(body)
                if body.segment is not None:
                    self.segment_call(body, typ, s, e)
                elif (cut := self.call_block(body, typ, s, e)) is not None:
                    self.resume("a", cut)
            elif typ == "FUNC_OPEN":  # a complete bare function is a call (HT234), else the tag is text
                if (bare := self.bare_probe(s)) is None:
                    self.add_text(body, s, e)
                else:
                    self.flush_text(body)
                    self.resume("a", self.bare_function(body, s, bare))
            elif typ in ("THINK_BLOCK", "SCRATCH_BLOCK"):
                self.flush_text(body)
                self.reasoning_block("think" if typ == "THINK_BLOCK" else "scratch_pad", body, s, e)
            else:
                self.segment_token(body, typ, s, e)
            toks, pos = self.toks, self.pos  # a size cut resumes with new tokens
        self.pos = pos
        seg = body.segment
        if seg is not None:
            seg.text_end = stop = max(self.reach, seg.text_end)
            self.end_segment(body, stop, closed=False)
            self.diag("HT111", message("HT111", kind=seg.kind), seg.start, stop)
        self.flush_text(body)

    def segment_token(self, body: Body, typ: str, s: int, e: int) -> None:
        """A reasoning token of the calls_in_reasoning grammar."""
        kind = _SEG_KIND[typ]
        if typ.endswith("_OPEN"):
            self.flush_text(body)
            body.segment = Segment(kind=kind, start=s, opened=True, text_start=e, text_end=e)
            return
        seg = body.segment
        if seg is None:  # pragma: no cover - a segment is always open here (grammar)
            seg = body.segment = Segment(kind=kind, start=s, opened=False, text_start=s, text_end=s)
        if typ.endswith("_TEXT"):
            seg.text_end = e
            return
        seg.text_end = s
        self.end_segment(body, e, closed=True)

    def end_segment(self, body: Body, end: int, *, closed: bool) -> None:
        seg = body.segment
        assert seg is not None
        body.segment = None
        text = self.src[seg.text_start : seg.text_end]
        if text or seg.opened or closed:
            body.parts.append(new_reasoning(seg.kind, text, seg.start, end, self.index, seg.opened, closed))

    def segment_call(self, body: Body, typ: str, s: int, e: int) -> None:
        """A call block inside reasoning (calls_in_reasoning=True): split the segment around it."""
        seg = body.segment
        assert seg is not None
        seg.text_end = s
        self.end_segment(body, s, closed=False)
        cut = self.call_block(body, typ, s, e)
        after = self.reach
        body.segment = Segment(kind=seg.kind, start=after, opened=False, text_start=after, text_end=after)
        if cut is not None:
            self.resume("think" if seg.kind == "think" else "scratch", cut)

    def result_body(self, body: Body) -> None:
        """A user or tool body: text, results, stray ``</tool_response>``."""
        toks, pos = self.toks, self.pos
        while True:
            if pos >= len(toks):
                if not self.fill():
                    pos = 0
                    break
                toks, pos = self.toks, 0
            typ, s, e = toks[pos]
            if typ in _CONTROL:
                break
            pos += 1
            self.reach = e
            if typ == "U_TEXT":
                if body.text_start < 0:
                    body.text_start = s
                body.text_end = e
                continue
            self.pos = pos
            if typ == "STRAY_RESP":
                self.add_text(body, s, e)
                self.diag("HT121", message("HT121", tag=RESP_CLOSE), s, e)
            else:
                if body.text_start >= 0:
                    self.flush_text(body)
                cut = self.response_block(body, typ, s, e)
                if cut is not None:
                    self.resume("u", cut)
            toks, pos = self.toks, self.pos  # a size cut resumes with new tokens
        self.pos = pos
        self.flush_text(body)

    def system_body(self, body: Body) -> None:
        """A system or developer body: text, tool catalogues, stray ``</tools>``."""
        while (tok := self.peek()) is not None and tok[0] not in _CONTROL:
            typ, s, e = tok
            self.take(tok)
            if typ == "S_TEXT":
                self.add_text(body, s, e)
            elif typ == "STRAY_TOOLS":
                self.add_text(body, s, e)
                self.diag("HT121", message("HT121", tag=TOOLS_CLOSE), s, e)
            else:
                self.flush_text(body)
                cut = self.tools_block(body, s, e)
                if cut is not None:
                    self.resume("s", cut)
        self.flush_text(body)

    def other_body(self, body: Body) -> None:
        """The body of an unknown role: all text."""
        tok = self.peek()
        if tok is not None and tok[0] == "O_TEXT":
            self.take(tok)
            body.parts.append(new_text(self.src[tok[1] : tok[2]], tok[1], tok[2], self.index))

    # ------------------------------------------------------------------ envelope
    def turn(self, typ: str, s: int, e: int) -> Turn:
        """One turn from its header token ``typ`` at ``[s, e)`` to its end."""
        src = self.src
        body = Body()
        if typ == "HEAD_UNTERM":
            role = src[s + _HEAD : e]
            self.diag("HT003", message("HT003"), s, e)
        else:
            head_end = e - 2 if src[e - 1] == "\n" and src[e - 2] == "\r" else e - 1  # the line end is 1 or 2 chars
            role = src[s + _HEAD : head_end]
            role = _ROLE_STRINGS.get(role, role)
            if typ == "A_HEAD":
                self.assistant_body(body)
            elif typ == "U_HEAD":
                self.result_body(body)
            elif typ == "S_HEAD":
                self.system_body(body)
            else:
                if role not in _KNOWN_ROLES:
                    self.diag("HT004", message("HT004", role=role), s + _HEAD, head_end)
                self.other_body(body)
        last = self.reach
        end: int | None = None  # where the turn's end (``<|im_end|>`` or the link) starts
        nxt = self.peek()
        if self.stopped_at is not None:
            pass
        elif nxt is not None and nxt[0] == "IM_END":
            self.take(nxt)
            end = nxt[1]
            last = nxt[2]
        elif nxt is not None and nxt[0] in _LINKS:  # read by the caller: it opens the next turn
            last = nxt[1] + _END
            end = nxt[1]
            self.link = (nxt[1], last)
        elif typ != "HEAD_UNTERM":
            if nxt is not None:
                self.diag("HT001", message("HT001"), nxt[1], nxt[1] + _HEAD)
            elif last > e:
                n = len(src)
                self.diag("HT002", message("HT002"), n, n)
        # the spans on demand: the turn [s, last), its header [s, e), its end [end, last) when closed
        return new_turn(role, tuple(body.parts), s, last, e, end, self.index)


def build_transcript(text: str, options: ParseOptions) -> Transcript:
    """Parse a ChatML transcript with the grammar (lenient or strict values; never raises in lenient).

    >>> from hermes_toolcall._options import ParseOptions
    >>> t = build_transcript("<|im_start|>user\\nhi<|im_end|>\\n", ParseOptions.make())
    >>> [turn.role for turn in t.turns], len(t.gaps)
    (['user'], 1)
    """
    b = _Builder(text, options, "t")
    b.load("transcript", 0)
    turns: list[Turn] = []
    gaps: list[Text] = []
    while (tok := b.peek()) is not None:
        typ, s, e = tok
        b.pos += 1
        b.reach = e
        if typ in _LINKS:  # the previous turn took `<|im_end|>`; here: the gap, then the next turn
            head = text.rfind(IM_START, s, e)
            b.gap(gaps, b.link[1] if b.link[0] == s else s + _END, head)
            turns.append(b.turn(_LINKS[typ], head, e))
        elif typ == "GAP":
            b.gap(gaps, s, e)
        else:
            turns.append(b.turn(typ, s, e))
    return Transcript(
        turns=tuple(turns), gaps=tuple(gaps), diagnostics=b.sorted_diagnostics(), source=text, stopped_at=b.stopped_at
    )


def _open_reasoning(b: _Builder, body: Body, kind: ReasoningKind) -> None:
    """Start a completion inside a reasoning block of ``kind`` whose opener was in the prompt."""
    short = "think" if kind == "think" else "scratch"
    if b.opts.calls_in_reasoning:  # as after a size cut inside reasoning: an open, continued segment
        b.load(f"resume_{short}_c", 0)
        body.segment = Segment(kind=kind, start=0, opened=False, text_start=0, text_end=0)
        return
    b.load(f"open_{short}_c", 0)
    tok = b.peek()
    if tok is not None and tok[0] == _REST[kind]:
        b.take(tok)
        b.reasoning_block(kind, body, 0, tok[2], opened=False)
    else:  # empty, or a control token first: the block is not closed and gives no part
        b.diag("HT111", message("HT111", kind=kind), 0, 0)


def build_completion(text: str, options: ParseOptions) -> Completion:
    """Parse one assistant completion with the grammar.

    >>> from hermes_toolcall._options import ParseOptions
    >>> c = build_completion("Hi<|im_end|>", ParseOptions.make())
    >>> c.parts[0].text, c.end.start
    ('Hi', 2)
    """
    kind = options.reasoning_at_start
    if kind is None and "<" not in text:  # the guard: every marker starts with "<", so this is one text run
        return new_completion((new_text(text, 0, len(text), LineIndex(text)),) if text else (), (), text, None, None)
    return _read_completion(text, options, kind)


def _read_completion(text: str, options: ParseOptions, kind: ReasoningKind | None) -> Completion:
    """``build_completion`` without its guard: the grammar's tokens, read by the builder."""
    b = _Builder(text, options, "c")
    body = Body()
    if kind is None or text.startswith(f"<{kind}>"):  # a completion that repeats the opener: read as written
        b.load("completion", 0)
    else:
        _open_reasoning(b, body, kind)
    b.assistant_body(body)
    end: Span | None = None
    tok = b.peek()
    if tok is not None and b.stopped_at is None:
        p = tok[1]
        n = len(text)
        end = b.span(p, n)
        if tok[0] != "IM_END" or text[p + _END :].strip(_WS):
            b.diag("HT006", message("HT006"), p, n)
    return new_completion(tuple(body.parts), b.sorted_diagnostics(), text, end, b.stopped_at)
