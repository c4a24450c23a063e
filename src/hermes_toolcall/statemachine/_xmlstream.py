"""The streaming engine's reader of an XML call body: the block's extent, its name and argument deltas, chunk by chunk.

``XmlStream`` is fed the text of a ``<tool_call>`` block's body (after the opener) as it arrives and
says, as soon as the input decides it and never before:

- where the body ends and what ends it (``end``, ``how``: its ``</tool_call>``, a ``<tool_call>`` or
  a control token where one may stand, or the end of the input): the extent that
  ``_xmlbody.scan_xml_block`` finds in the whole text;
- the first function's name once its ``>`` is read (``name``, ``name_end``): ``ToolCallStart``;
- the first function's ``arguments`` JSON text in append-only pieces (``take_arguments()``) that add up
  to the decoded call's ``arguments_json``: a value that can only be a string is streamed as it arrives
  (JSON-escaped), any other value when it ends.

It implements the rules of docs/parsing.md §8.2 on its own (the grammar engine reads a block with
``_xmlbody``); the agreement tests compare the two on every chunking. It holds back only what is
undecided (a tag cut by a chunk, a closer and the whitespace after it until what follows decides, a
name until its end, a value's last newline) and keeps long runs as lists of pieces, so each character
is read a bounded number of times: the cost is linear in the body whatever the chunking.

``bare=True`` reads a function outside any block (``<function=`` in text): it ends after its
``</function>`` (and a ``</tool_call>`` that follows after whitespace), or is given up (``how ==
"none"``) as soon as the text cannot be a complete bare function.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from json.encoder import encode_basestring  # what json.dumps(ensure_ascii=False) writes, as _xmlbody
from typing import Any

from .._xmlbody import CLOSER_PATTERN
from .._xmltypes import allowed_types, parameter_schema, type_value
from ..tags import CALL_CLOSE, CALL_OPEN, CONTROL, FUNCTION_CLOSE, FUNCTION_OPEN, PARAMETER_CLOSE, PARAMETER_OPEN

__all__ = ["XmlStream"]

_WS = " \t\n\r"
_NOT_WS = re.compile(r"[^ \t\n\r]")
_NAME_END = re.compile(r"[>\r\n<]")
_CLOSER = re.compile(CLOSER_PATTERN)
_STEM = "</parameter"
_DRIFT_OPEN = re.compile(r"</parameter[0-9_-][A-Za-z0-9_-]*\Z")  # a drifted closer cut before its `>`
_STOPS = re.compile(
    "|".join(re.escape(t) for t in (_STEM, FUNCTION_CLOSE, *CONTROL))
    + "|[\r\n](?:"
    + "|".join(re.escape(t) for t in (PARAMETER_OPEN, FUNCTION_OPEN))
    + ")"
)
_BARE_STOPS = re.compile(_STOPS.pattern + "|" + re.escape(FUNCTION_OPEN) + "|" + re.escape(CALL_OPEN))
_VALUE_TAGS = (
    *(nl + tag for nl in ("\n", "\r") for tag in (PARAMETER_OPEN, FUNCTION_OPEN)),
    _STEM,
    FUNCTION_CLOSE,
    *CONTROL,
)
_BARE_VALUE_TAGS = (*_VALUE_TAGS, FUNCTION_OPEN, CALL_OPEN)
_ENDERS: tuple[tuple[str, str], ...] = (
    (CALL_CLOSE, "closed"),
    (CALL_OPEN, "opener"),
    *((c, "control") for c in CONTROL),
)
_BETWEEN_TAGS = (PARAMETER_OPEN, FUNCTION_CLOSE, FUNCTION_OPEN, CALL_CLOSE, CALL_OPEN, *CONTROL, _STEM)
_AFTER_FUNCTION_TAGS = (FUNCTION_OPEN, CALL_CLOSE, CALL_OPEN, *CONTROL)
_LONGEST = max(len(t) for t in (*_BARE_VALUE_TAGS, *_BETWEEN_TAGS))
_NUMBER_CHARS = frozenset("0123456789+-.eE")
_LITERALS = {"null": ("null", "None"), "boolean": ("true", "false", "True", "False")}
_SCHEMALESS = frozenset({"null", "boolean", "number", "object", "array"})

HEAD, NAME, FN, KEY, VALUE, AFTER_PARAMETER, AFTER_FUNCTION, AF, TAIL, DONE = range(10)
# what a value may still be, while it is read (``_kind``)
K_EMPTY, K_NUMBER, K_LITERAL, K_HELD, K_STRING = range(5)

Step = int | tuple[str, int] | None


# Parameters as the templates write them, read in one step between parameters when nothing of them
# is streamed (``_params_in_bulk``): a key closed by ``>``, a value in which no ``<`` starts a tag that
# a value's reading stops at (``_STOPS``: a parameter closer, ``</function>``, a control token, a
# ``<parameter=`` or ``<function=``, line-initial or not), ``</parameter>``, then, after whitespace,
# what makes that closer end the value: ``</function>`` or a ``<parameter=`` whose key (group 2) is
# not given yet.
_BULK_PARAMETER = re.compile(
    r"[ \t\n\r]*+"
    + re.escape(PARAMETER_OPEN)
    + r"([^>\r\n<]*)>(?:[^<]++|<(?!"
    + "|".join(re.escape(t[1:]) for t in (_STEM, FUNCTION_CLOSE, *CONTROL, PARAMETER_OPEN, FUNCTION_OPEN))
    + "))*+"
    + re.escape(PARAMETER_CLOSE)
    + r"(?=[ \t\n\r]*+(?:"
    + re.escape(FUNCTION_CLOSE)
    + "|"
    + re.escape(PARAMETER_OPEN)
    + r"([^>\r\n<]*)>))"
).match

_PREFIXES: dict[tuple[str, ...], frozenset[str]] = {}
_TAG_START = re.compile(r"[<\r\n]")  # every tag starts with one of these


def _prefixes(tags: tuple[str, ...]) -> frozenset[str]:
    """The proper prefixes of ``tags`` (made once per tuple)."""
    got = _PREFIXES.get(tags)
    if got is None:
        got = _PREFIXES[tags] = frozenset(t[:j] for t in tags for j in range(1, len(t)))
    return got


def _cut(w: str, start: int, tags: tuple[str, ...]) -> int:
    """The first index ``>= start`` from which ``w`` is a proper prefix of one of ``tags``, else ``len(w)``."""
    n = len(w)
    prefixes = _prefixes(tags)
    m = _TAG_START.search(w, max(start, n - _LONGEST))
    while m is not None:
        k = m.start()
        if w[k:] in prefixes:
            return k
        m = _TAG_START.search(w, k + 1)
    return n


def _may_be_tag(rest: str, tags: tuple[str, ...]) -> bool:
    return len(rest) < _LONGEST and rest in _prefixes(tags)


class XmlStream:
    """Incremental reader of one XML body (see the module doc): ``feed`` it, read its fields."""

    def __init__(self, base: int, *, tools: Mapping[str, Any] | None, bare: bool = False, args: bool = True) -> None:
        self.tools = tools
        self.bare = bare
        self.args = args  # the arguments are streamed (else only the extent and the name are read)
        self.state = HEAD
        self.carry = ""  # the undecided text, from absolute offset `at`
        self.at = base
        self.end = -1  # where the body ends (absolute), once known
        self.how = ""  # closed | opener | control | end; "none": a bare function given up
        self.name: str | None = None  # the first function's name, once its `>` is read
        self.name_end = -1
        self.functions = 0
        self._out: list[str] = []  # argument pieces of the first function not taken yet
        self._first = False  # reading the first function, its arguments streamed
        self._params = 0  # parameters of the first function so far
        self._buf: list[str] = []  # a name or key being read
        self._fn_params: Any = None  # the current function's `parameters` schema (or None)
        self._keys: set[str] = set()  # parameter names given in the current function
        self._held: list[str] = []  # whitespace after a closer, until what follows decides
        self._closer = ""  # that closer
        self._fn_end = -1  # a bare function: where its `</function>` ends
        # the value being read
        self._skip = 0  # characters of its leading newline still to leave out of the text
        self._lead: str | None = None  # that newline ("" when none), once known
        self._parts: list[str] = []  # its text (after the leading newline), unless streamed
        self._tail = ""  # streamed: the last characters not sent yet (they may be the last newline)
        self._kind = K_EMPTY
        self._lit = ""
        self._ws_after = False
        self._types: frozenset[str] = _SCHEMALESS
        self._schema: Any = None
        self._found = False
        self._np = 0  # literal parameters open in the value
        self._nf = 0  # literal functions open in the value

    # ------------------------------------------------------------------ results
    @property
    def done(self) -> bool:
        """Whether the body's end is known."""
        return self.state == DONE

    @property
    def function_end(self) -> int:
        """A bare function: where its ``</function>`` ends (absolute), once read; else -1."""
        return self._fn_end

    def take_arguments(self) -> str:
        """The first function's ``arguments`` JSON pieces read since the last call (append-only)."""
        out = "".join(self._out)
        self._out.clear()
        return out

    def value_run(self, text: str) -> str | None:
        """The guard of ``feed`` inside a value whose text is streamed (a string) or kept until its end
        (an object or array, or a function's after the first): ``text``, after the undecided text held
        back, taken in bulk when no tag starts or may start in it (``_STOPS``, ``_cut``: what ``feed``
        would read as the value's text in one step); the ``arguments`` pieces read since the last take,
        as ``take_arguments()`` after ``feed`` would give them. None: ``feed`` it."""
        if self.state != VALUE or self._skip or self._lead is None:
            return None
        kind = self._kind
        if self._first and kind != K_STRING and kind != K_HELD:  # (what it may be is still being read)
            return None
        w = self.carry + text if self.carry else text
        if not w:
            return None
        if "<" in w or w[-1] in "\r\n":  # (a line end may start a tag)
            if self.bare:
                stops, tags = _BARE_STOPS, _BARE_VALUE_TAGS
            else:
                stops, tags = _STOPS, _VALUE_TAGS
            if stops.search(w) is not None or _cut(w, 0, tags) < len(w):
                return None
        self.carry = ""
        self.at += len(w)
        piece = ""
        if self._first:
            if kind == K_STRING:
                piece = self._encode_run(w)
            else:
                self._parts.append(w)
        return self.take_arguments() + piece if self._out else piece

    # ------------------------------------------------------------------ the loop
    def feed(self, chunk: str, *, final: bool = False) -> None:
        """Read ``chunk``, the next text of the body; ``final``: the input ends after it."""
        if self.state == DONE:
            return
        w = self.carry + chunk if self.carry else chunk
        base = self.at
        i = 0
        while self.state != DONE:
            state = self.state
            r = self._step(w, i, base, final)
            if r is None or (r == i and self.state == state):
                break  # more input is needed
            if isinstance(r, tuple):  # read held text again, in the new state, before w[k:]
                again, k = r
                base = base + k - len(again)
                w = again + w[k:]
                i = 0
            else:
                i = r
        if self.state == DONE:
            self.carry = ""
            return
        self.carry = w[i:]
        self.at = base + i
        if final:
            self._done(base + len(w), "end")

    def _done(self, at: int, how: str) -> None:
        if self.bare and how != "closed":
            how = "none"
        if how == "closed" and self._first:  # `</tool_call>` ended the first function (no `</function>`)
            self._close_arguments()
        self.state = DONE
        self.end = at
        self.how = how
        self.carry = ""

    def _step(self, w: str, i: int, base: int, final: bool) -> Step:
        state = self.state
        if state == VALUE:
            return self._value(w, i, base, final)
        if state == FN or state == AF:
            return self._between(w, i, base, final)
        if state == NAME or state == KEY:
            return self._name(w, i, base, final)
        if state == AFTER_PARAMETER or state == AFTER_FUNCTION:
            return self._after_closer(w, i, base, final)
        if state == TAIL:
            return self._bare_tail(w, i, base, final)
        return self._head(w, i, base, final)

    # ------------------------------------------------------------------ structure
    def _head(self, w: str, i: int, base: int, final: bool) -> Step:
        m = _NOT_WS.search(w, i)
        if m is None:
            return None if not final else self._give_up(base + len(w))
        k = m.start()
        if w.startswith(FUNCTION_OPEN, k):
            return self._open_function(k)
        if not final and _may_be_tag(w[k:], (FUNCTION_OPEN,)):
            return None
        return self._give_up(base + k)

    def _give_up(self, at: int) -> int:
        self._done(at, "end")
        return at

    def _open_function(self, k: int) -> int:
        if self._first:
            self._close_arguments()
        self.functions += 1
        self._first = self.functions == 1 and self.args
        self.state = NAME
        self._buf = []
        self._keys = set()
        return k + len(FUNCTION_OPEN)

    def _close_arguments(self) -> None:
        self._out.append("}" if self._params else "{}")
        self._first = False

    def _name(self, w: str, i: int, base: int, final: bool) -> Step:
        """A function name (NAME) or parameter key (KEY), up to ``>`` (or a line end, or ``<``)."""
        m = _NAME_END.search(w, i)
        if m is None:
            self._buf.append(w[i:])
            if final:
                self._done(base + len(w), "end")
            return len(w)
        k = m.start()
        self._buf.append(w[i:k])
        text = "".join(self._buf)
        gt = w[k] == ">"
        if not gt:
            if self.bare:
                return self._give_up(base + k)
            text = text.rstrip(" \t")
        after = k + 1 if gt else k
        if self.state == NAME:
            if self.functions == 1 and gt and text:
                self.name = text
                self.name_end = base + after
            self._fn_params = self.tools.get(text) if self.tools is not None else None
            self.state = FN
        else:
            self._start_value(text)
        return after

    def _between(self, w: str, i: int, base: int, final: bool) -> Step:
        """Between parameters (FN) or after the function (AF)."""
        if self.state == FN and not self._first and not self.bare:
            i = self._params_in_bulk(w, i)
        m = _NOT_WS.search(w, i)
        if m is None:
            if final:
                self._done(base + len(w), "end")
            return len(w)
        k = m.start()
        if not final and _may_be_tag(w[k:], _BETWEEN_TAGS):
            return k if k > i else None
        for tag, how in _ENDERS:
            if w.startswith(tag, k):
                if self.bare:
                    return self._give_up(base + k)
                self._done(base + k, how)
                return k
        fn = self.state == FN
        if fn and w.startswith(PARAMETER_OPEN, k):
            self.state = KEY
            self._buf = []
            return k + len(PARAMETER_OPEN)
        if w.startswith(FUNCTION_CLOSE, k):
            return self._function_close(k, base, fn)
        if w.startswith(FUNCTION_OPEN, k):
            return self._give_up(base + k) if self.bare else self._open_function(k)
        return self._between_closer(w, i, k, base, final)

    def _params_in_bulk(self, w: str, i: int) -> int:
        """The guard of ``_between``: parameters from ``i`` whose reading, tag by tag, would only add
        their keys (``_BULK_PARAMETER``: nothing streamed, every tag whole, each closer followed by what
        makes it end the value) are read in one step; where the reading goes on, in FN."""
        keys = self._keys
        while (m := _BULK_PARAMETER(w, i)) is not None:
            key, following = m.group(1, 2)
            if following is not None and (following == key or following in keys):
                break  # that closer would be text of the value (the key may not start again)
            keys.add(key)
            i = m.end()
        return i

    def _function_close(self, k: int, base: int, fn: bool) -> int:
        """A ``</function>`` at ``k`` between parameters (``fn``) or after the function."""
        if not fn:
            return self._give_up(base + k) if self.bare else k + len(FUNCTION_CLOSE)
        if self._first:
            self._close_arguments()
        if self.bare:
            self._fn_end = base + k + len(FUNCTION_CLOSE)
            self._held = []
            self.state = TAIL
        else:
            self.state = AF
        return k + len(FUNCTION_CLOSE)

    def _between_closer(self, w: str, i: int, k: int, base: int, final: bool) -> Step:
        """A parameter closer where nothing is open (dropped), or stray text (skipped), at ``k``."""
        e = self._closer_end(w, k, final)
        if e is None:
            return k if k > i else None
        if self.bare:
            return self._give_up(base + k)
        if e > 0:
            return e  # a closer where nothing is open: dropped
        return self._stray(w, k)

    def _closer_end(self, w: str, k: int, final: bool) -> int | None:
        """The end of a parameter closer at ``w[k]``; 0 when there is none; None: the chunk cuts it."""
        c = _CLOSER.match(w, k)
        if c is not None:
            if c.end() == len(w) and c.end() - k == len(_STEM) and not final:
                return None  # a bare `</parameter` at the chunk's end: a `>` may follow
            return c.end()
        if not final and (_DRIFT_OPEN.match(w, k) or _may_be_tag(w[k:], (_STEM,))):
            return None
        return 0

    def _stray(self, w: str, k: int) -> int:
        """Text outside any parameter: skipped up to the next ``<`` that starts (or may start) a tag."""
        at = k
        while True:
            at = w.find("<", at + 1)
            if at < 0:
                return len(w)
            rest = w[at : at + _LONGEST]
            if rest.startswith(_BETWEEN_TAGS) or _may_be_tag(w[at:], _BETWEEN_TAGS) or _CLOSER.match(w, at):
                return at

    # ------------------------------------------------------------------ values
    def _start_value(self, key: str) -> None:
        self.state = VALUE
        self._keys.add(key)
        self._lead = None
        self._skip = 0
        self._parts = []
        self._tail = ""
        self._np = self._nf = 0
        self._lit = ""
        self._ws_after = False
        if self._first:
            found, schema = parameter_schema(self._fn_params, key) if self._fn_params is not None else (False, None)
            types = allowed_types(schema) if found else None
            self._found, self._schema = found, schema
            self._types = _SCHEMALESS if types is None else types
            self._kind = K_STRING if self._types == frozenset({"string"}) else K_EMPTY
            self._out.append(("{" if not self._params else ", ") + encode_basestring(key) + ": ")
            self._params += 1
            if self._kind == K_STRING:
                self._out.append('"')

    def _value(self, w: str, i: int, base: int, final: bool) -> Step:
        if self._lead is None and not self._leading(w, i, final):
            return None
        stops = _BARE_STOPS if self.bare else _STOPS
        m = stops.search(w, i)
        if m is None:
            hold = len(w) if final else _cut(w, i, _BARE_VALUE_TAGS if self.bare else _VALUE_TAGS)
            self._text(w[i:hold])
            if final:
                self._done(base + len(w), "end")
            return hold if hold > i else None
        p = m.start()
        if w[p] == "\r" or w[p] == "\n":  # a line-initial <parameter= or <function=
            return self._line_tag(w, i, p + 1, base, final)
        self._text(w[i:p])
        if w.startswith("<|", p):  # a control token ends the block, wherever it stands
            self._done(base + p, "control")
            return p
        if w.startswith(FUNCTION_CLOSE, p):
            return self._value_function_close(p)
        if w.startswith(_STEM, p):
            return self._value_closer(w, i, p, final)
        return self._give_up(base + p)  # a bare function meets <function= or <tool_call> in a value

    def _leading(self, w: str, i: int, final: bool) -> bool:
        """Read the value's leading newline (``\\r\\n``, ``\\n``, ``\\r`` or none); False: the chunk cuts it."""
        if i >= len(w):
            if not final:
                return False
            self._lead = ""
        elif w[i] == "\r":
            if i + 1 >= len(w) and not final:
                return False
            self._lead = "\r\n" if w.startswith("\r\n", i) else "\r"
        else:
            self._lead = "\n" if w[i] == "\n" else ""
        self._skip = len(self._lead)
        return True

    def _line_tag(self, w: str, i: int, q: int, base: int, final: bool) -> Step:
        """A ``<parameter=`` or ``<function=`` at the line start ``w[q]`` inside a value."""
        if w.startswith(FUNCTION_OPEN, q):
            if self.bare:
                return self._give_up(base + q)
            self._nf += 1
            self._text(w[i : q + len(FUNCTION_OPEN)])
            return q + len(FUNCTION_OPEN)
        if self._np or self._nf:
            self._np += 1
            self._text(w[i : q + len(PARAMETER_OPEN)])
            return q + len(PARAMETER_OPEN)
        key = self._key_at(w, q, final)
        if key is None:  # the key is cut by the chunk: wait, from the newline
            self._text(w[i : q - 1])
            return q - 1 if q - 1 > i else None
        self._text(w[i:q])
        if key not in self._keys:  # a parameter starts: this value was never closed
            self._end_value()
            self.state = FN
            return q
        self._np += 1
        self._text(PARAMETER_OPEN)
        return q + len(PARAMETER_OPEN)

    def _value_function_close(self, p: int) -> int:
        """A ``</function>`` at ``p`` inside a value: closes a literal function, or may end the value."""
        end = p + len(FUNCTION_CLOSE)
        if self._nf:
            self._nf -= 1
        elif not self._np:
            self.state = AFTER_FUNCTION
            self._closer = FUNCTION_CLOSE
            self._held = []
            return end
        self._text(FUNCTION_CLOSE)
        return end

    def _value_closer(self, w: str, i: int, p: int, final: bool) -> Step:
        """A ``</parameter`` at ``p`` inside a value: closes a literal parameter, or may end the value."""
        e = self._closer_end(w, p, final)
        if e is None:
            return p if p > i else None
        if e == 0:  # `</parameters>` and the like: text
            self._text("<")
            return p + 1
        if self._np:
            self._np -= 1
        elif not self._nf:
            self.state = AFTER_PARAMETER
            self._closer = w[p:e]
            self._held = []
            return e
        self._text(w[p:e])
        return e

    def _key_at(self, w: str, q: int, final: bool) -> str | None:
        """The key of the ``<parameter=`` at ``w[q]`` (None when the chunk ends inside it)."""
        m = _NAME_END.search(w, q + len(PARAMETER_OPEN))
        if m is None and not final:
            return None
        key = w[q + len(PARAMETER_OPEN) : m.start() if m else len(w)]
        return key if m is not None and w[m.start()] == ">" else key.rstrip(" \t")

    def _after_closer(self, w: str, i: int, base: int, final: bool) -> Step:
        """After a closer in a value: the first thing past the whitespace says whether it closes."""
        m = _NOT_WS.search(w, i)
        if m is None:
            self._held.append(w[i:])
            return self._decide(True, len(w)) if final else len(w)
        k = m.start()
        self._held.append(w[i:k])
        rest = w[k:]
        parameter = self.state == AFTER_PARAMETER
        if not final and _may_be_tag(rest, _BETWEEN_TAGS if parameter else _AFTER_FUNCTION_TAGS):
            return k if k > i else None
        if not parameter:
            return self._decide(rest.startswith(_AFTER_FUNCTION_TAGS), k)
        if rest.startswith(PARAMETER_OPEN):
            key = self._key_at(w, k, final)
            if key is None:
                return k if k > i else None
            return self._decide(key not in self._keys, k)
        if rest.startswith(_AFTER_FUNCTION_TAGS) or rest.startswith(FUNCTION_CLOSE):
            return self._decide(True, k)
        e = self._closer_end(w, k, final)
        if e is None:
            return k if k > i else None
        return self._decide(e > 0, k)

    def _decide(self, closes: bool, k: int) -> tuple[str, int]:
        """The closer ends the value (``closes``) or is text of it; the whitespace after it is read again."""
        held = "".join(self._held)
        self._held = []
        if closes:
            self._end_value()
            if self.state == AFTER_FUNCTION:  # the `</function>` that ended the value closes the function too
                held = FUNCTION_CLOSE + held
            self.state = FN
        else:
            self.state = VALUE
            self._text(self._closer)
        return held, k

    def _bare_tail(self, w: str, i: int, base: int, final: bool) -> Step:
        """After a bare function's ``</function>``: a ``</tool_call>`` after whitespace is part of it."""
        m = _NOT_WS.search(w, i)
        if m is None and not final:
            return len(w)
        k = m.start() if m else len(w)
        if not final and _may_be_tag(w[k:], (CALL_CLOSE,)):
            return k if k > i else None
        if w.startswith(CALL_CLOSE, k):
            self._done(base + k + len(CALL_CLOSE), "closed")
        else:
            self._done(self._fn_end, "closed")
        return k

    # ------------------------------------------------------------------ a value's text
    def _text(self, text: str) -> None:
        """More text of the value (the leading newline still to skip is left out)."""
        if self._skip:
            cut = min(self._skip, len(text))
            self._skip -= cut
            text = text[cut:]
        if not text or not self._first:
            return
        if self._kind == K_STRING:
            self._send(text)
            return
        self._parts.append(text)
        if self._kind != K_HELD and self._rules_out(text):
            self._kind = K_STRING
            self._out.append('"')
            self._tail = ""
            parts = self._parts
            self._parts = []
            self._send("".join(parts))

    def _send(self, text: str) -> None:
        """Stream string text, holding its last two characters (they may be the value's last newline)."""
        piece = self._encode_run(text)
        if piece:
            self._out.append(piece)

    def _encode_run(self, text: str) -> str:
        """The JSON-escaped piece of string text to send now (``_send``'s), its last two characters held."""
        text = self._tail + text
        if len(text) > 2:
            self._tail = text[-2:]
            return encode_basestring(text[:-2])[1:-1]
        self._tail = text
        return ""

    def _rules_out(self, text: str) -> bool:
        """Whether, with ``text`` read, the value can only be a string (no other allowed type reads it)."""
        types = self._types
        for ch in text:
            kind = self._kind
            if kind == K_EMPTY:
                if ch in _WS:
                    continue
                if ch in "{[":
                    if ("object" if ch == "{" else "array") in types:
                        self._kind = K_HELD  # read when it ends
                        return False
                    return True
                if ch in _NUMBER_CHARS and ("number" in types or "integer" in types):
                    self._kind = K_NUMBER
                    continue
                self._kind = K_LITERAL
                self._lit = ""
            if self._kind == K_NUMBER:
                if ch in _NUMBER_CHARS and not self._ws_after:
                    continue
                if ch in _WS:
                    self._ws_after = True
                    continue
                return True
            # a literal: null/None, true/false/True/False
            if ch in _WS:
                self._ws_after = True
                continue
            if self._ws_after:
                return True
            self._lit += ch
            if not any(lit.startswith(self._lit) for t in types for lit in _LITERALS.get(t, ())):
                return True
        return False

    def _end_value(self) -> None:
        """The value is complete: the rest of its JSON (first function only)."""
        if not self._first:
            return
        tail = self._lead or "\n"
        if self._kind == K_STRING:
            text = self._tail[: -len(tail)] if self._tail.endswith(tail) else self._tail
            self._out.append(encode_basestring(text)[1:-1] + '"')
            self._tail = ""
            return
        text = "".join(self._parts)
        text = text[: -len(tail)] if text.endswith(tail) else text
        self._out.append(type_value(text, self._schema, found=self._found).json)
        self._parts = []
