"""Conformance cases: the JSON schema of one case, loading a corpus directory, and checking it.

A corpus is a directory of ``*.jsonl`` files (one case object per line) and ``*.json`` files (one
case object, or a list of them). Each case names its input, the entry level, the dialect, the parse
options, optional chunks (how a streaming parser is fed), what a conforming parser returns, and
``why``: the rule of ``format.md`` / ``docs/parsing.md`` or the public report the case comes from.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from .. import _jsonio as jsonio
from .._profiles import DIALECTS
from ..errors import ConformanceError, DecodeError

__all__ = ["OPTION_KEYS", "Case", "Expected", "ExpectedCall", "ExpectedMessage", "case_from_dict", "load_cases"]

Level = Literal["completion", "transcript"]

#: The parse options a case may set (the keyword arguments of both engines).
OPTION_KEYS: frozenset[str] = frozenset(
    {"strict", "calls_in_reasoning", "stop_at_fabricated_response", "max_block_chars"}
)

_CASE_KEYS = frozenset({"id", "group", "input", "level", "dialect", "options", "chunks", "expect", "why"})
_EXPECT_KEYS = frozenset(
    {"calls", "content", "reasoning", "diagnostics", "diagnostics_include", "error", "messages", "positions"}
)
_POSITION_KEYS = ("code", "start", "end", "line", "column")


@dataclass(frozen=True, slots=True, kw_only=True)
class ExpectedCall:
    """A tool call a parser must return: its name and decoded arguments (ids are not compared)."""

    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True, slots=True, kw_only=True)
class ExpectedMessage:
    """One OpenAI message of a transcript-level expectation (``None`` fields are not compared)."""

    role: str
    content: str | None = None
    reasoning: str | None = None
    calls: tuple[ExpectedCall, ...] | None = None
    check_content: bool = True


@dataclass(frozen=True, slots=True, kw_only=True)
class Expected:
    """What a conforming parser returns for a case.

    Attributes:
        calls: every valid tool call in order (transcript level: over all assistant turns).
        content: the assistant ``content`` (completion level; ``None`` = not compared; ``""`` and
            ``null`` are equal).
        reasoning: the ``reasoning_content`` (completion level; same conventions).
        diagnostics: the exact multiset of diagnostic codes, or ``None`` = not compared.
        diagnostics_include: codes that must be among the diagnostics.
        error: the parse must fail (strict mode); ``diagnostics`` then lists the error codes.
        messages: transcript level: the OpenAI messages (role, content, reasoning, calls).
        positions: diagnostics that must be reported at exactly these places (R8):
            ``(code, start, end, line, column)`` with half-open character offsets and 1-based line:column.
    """

    calls: tuple[ExpectedCall, ...] = ()
    content: str | None = None
    reasoning: str | None = None
    diagnostics: tuple[str, ...] | None = None
    diagnostics_include: tuple[str, ...] = ()
    error: bool = False
    messages: tuple[ExpectedMessage, ...] | None = None
    positions: tuple[tuple[str, int, int, int, int], ...] = ()
    content_given: bool = False
    reasoning_given: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class Case:
    """One conformance case.

    >>> c = case_from_dict({"id": "x", "group": "g", "input": "hi", "why": "R1", "expect": {"content": "hi"}})
    >>> c.level, c.dialect, c.expect.content
    ('completion', 'hermes', 'hi')
    """

    id: str
    group: str
    input: str
    level: Level
    dialect: str
    options: Mapping[str, Any]
    chunks: tuple[str, ...] | None
    expect: Expected
    why: str
    source: str = ""


def _fail(where: str, message: str) -> ConformanceError:
    return ConformanceError(f"{where}: {message}")


def _str(obj: Mapping[str, Any], key: str, where: str, *, required: bool = True, default: str = "") -> str:
    if key not in obj:
        if required:
            raise _fail(where, f"missing key {key!r}")
        return default
    value = obj[key]
    if not isinstance(value, str):
        raise _fail(where, f"{key!r} must be a string")
    return value


def _call(obj: Any, where: str) -> ExpectedCall:
    if not isinstance(obj, dict) or set(obj) != {"name", "arguments"}:
        raise _fail(where, "an expected call is an object with exactly 'name' and 'arguments'")
    if not isinstance(obj["name"], str) or not isinstance(obj["arguments"], dict):
        raise _fail(where, "an expected call has a string 'name' and an object 'arguments'")
    return ExpectedCall(name=obj["name"], arguments=obj["arguments"])


def _calls(obj: Any, where: str) -> tuple[ExpectedCall, ...]:
    if not isinstance(obj, list):
        raise _fail(where, "'calls' must be a list")
    return tuple(_call(c, where) for c in obj)


def _opt_text(obj: Mapping[str, Any], key: str, where: str) -> str | None:
    value = obj.get(key)
    if value is not None and not isinstance(value, str):
        raise _fail(where, f"{key!r} must be a string or null")
    return value


def _codes(obj: Any, key: str, where: str) -> tuple[str, ...]:
    if not isinstance(obj, list) or not all(isinstance(c, str) for c in obj):
        raise _fail(where, f"{key!r} must be a list of diagnostic codes")
    return tuple(obj)


def _message(obj: Any, where: str) -> ExpectedMessage:
    if not isinstance(obj, dict) or "role" not in obj:
        raise _fail(where, "an expected message is an object with a 'role'")
    unknown = set(obj) - {"role", "content", "reasoning", "calls"}
    if unknown:
        raise _fail(where, f"unknown message keys {sorted(unknown)}")
    calls = _calls(obj["calls"], where) if "calls" in obj else None
    return ExpectedMessage(
        role=_str(obj, "role", where),
        content=_opt_text(obj, "content", where),
        reasoning=_opt_text(obj, "reasoning", where),
        calls=calls,
        check_content="content" in obj,
    )


def _position(obj: Any, where: str) -> tuple[str, int, int, int, int]:
    if not isinstance(obj, dict) or set(obj) != set(_POSITION_KEYS):
        raise _fail(where, f"a position is an object with exactly {list(_POSITION_KEYS)}")
    code, start, end, line, column = (obj[k] for k in _POSITION_KEYS)
    if not isinstance(code, str) or not all(isinstance(v, int) for v in (start, end, line, column)):
        raise _fail(where, "a position has a string code and integer start, end, line, column")
    return (code, start, end, line, column)


def _expected(obj: Any, where: str, level: str) -> Expected:
    if not isinstance(obj, dict):
        raise _fail(where, "'expect' must be an object")
    unknown = set(obj) - _EXPECT_KEYS
    if unknown:
        raise _fail(where, f"unknown 'expect' keys {sorted(unknown)}")
    if level == "transcript" and ("content" in obj or "reasoning" in obj):
        raise _fail(where, "transcript cases state content and reasoning per message under 'messages'")
    if level == "completion" and "messages" in obj:
        raise _fail(where, "'messages' is for transcript cases")
    error = obj.get("error", False)
    if not isinstance(error, bool):
        raise _fail(where, "'error' must be a boolean")
    messages = obj.get("messages")
    if messages is not None and not isinstance(messages, list):
        raise _fail(where, "'messages' must be a list")
    return Expected(
        calls=_calls(obj.get("calls", []), where),
        content=_opt_text(obj, "content", where),
        reasoning=_opt_text(obj, "reasoning", where),
        diagnostics=_codes(obj["diagnostics"], "diagnostics", where) if "diagnostics" in obj else None,
        diagnostics_include=_codes(obj.get("diagnostics_include", []), "diagnostics_include", where),
        error=error,
        messages=tuple(_message(m, where) for m in messages) if messages is not None else None,
        positions=tuple(_position(p, where) for p in obj.get("positions", [])),
        content_given="content" in obj,
        reasoning_given="reasoning" in obj,
    )


def case_from_dict(obj: Any, *, source: str = "<dict>") -> Case:
    """Check one case object and build a ``Case``.

    Args:
        obj: the decoded JSON object.
        source: where it came from (file:line), for error messages.

    Returns:
        The case.

    Raises:
        ConformanceError: the object does not follow the case schema.

    >>> case_from_dict({"id": "a", "group": "g", "input": "", "why": "R1", "expect": {}}).expect.calls
    ()
    """
    if not isinstance(obj, dict):
        raise _fail(source, "a case is a JSON object")
    where = f"{source} ({obj.get('id', '?')})"
    unknown = set(obj) - _CASE_KEYS
    if unknown:
        raise _fail(where, f"unknown keys {sorted(unknown)}")
    level = _str(obj, "level", where, required=False, default="completion")
    if level not in ("completion", "transcript"):
        raise _fail(where, "'level' is 'completion' or 'transcript'")
    dialect = _str(obj, "dialect", where, required=False, default="hermes")
    if dialect not in DIALECTS:
        raise _fail(where, f"unknown dialect {dialect!r}")
    options = obj.get("options", {})
    if not isinstance(options, dict) or not set(options) <= OPTION_KEYS:
        raise _fail(where, f"'options' is an object with keys among {sorted(OPTION_KEYS)}")
    text = _str(obj, "input", where)
    chunks = obj.get("chunks")
    if chunks is not None:
        if not isinstance(chunks, list) or not all(isinstance(c, str) for c in chunks):
            raise _fail(where, "'chunks' must be a list of strings")
        if "".join(chunks) != text:
            raise _fail(where, "'chunks' must concatenate to 'input'")
    why = _str(obj, "why", where)
    if not why.strip():
        raise _fail(where, "'why' must name the rule or report the case comes from")
    expect = _expected(obj.get("expect", {}), where, level)
    if expect.error and not options.get("strict", False):
        raise _fail(where, "'error' cases run in strict mode (options.strict = true)")
    return Case(
        id=_str(obj, "id", where),
        group=_str(obj, "group", where),
        input=text,
        level=level,  # type: ignore[arg-type]  # checked above
        dialect=dialect,
        options=options,
        chunks=tuple(chunks) if chunks is not None else None,
        expect=expect,
        why=why,
        source=source,
    )


def _objects(path: Path) -> Iterable[tuple[Any, str]]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConformanceError(f"cannot read {path}: {exc}") from exc
    try:
        if path.suffix == ".jsonl":
            for number, line in enumerate(text.splitlines(), 1):
                if line.strip():
                    yield jsonio.loads(line), f"{path.name}:{number}"
            return
        data = jsonio.loads(text)
    except DecodeError as exc:
        raise ConformanceError(f"{path}: invalid JSON ({exc.message})") from exc
    for k, obj in enumerate(data if isinstance(data, list) else [data]):
        yield obj, f"{path.name}[{k}]"


def load_cases(directory: str | Path) -> tuple[Case, ...]:
    """Load and check every case of a corpus directory (``*.json`` and ``*.jsonl``, sorted by name).

    Args:
        directory: the corpus directory.

    Returns:
        The cases in file order.

    Raises:
        ConformanceError: the directory is missing or empty, a file is not valid JSON, a case does
            not follow the schema, or two cases share an id.

    >>> load_cases("/nonexistent")
    Traceback (most recent call last):
    ...
    hermes_toolcall.errors.ConformanceError: no conformance cases in /nonexistent
    """
    root = Path(directory)
    files = sorted(p for p in root.glob("*") if p.suffix in (".json", ".jsonl")) if root.is_dir() else []
    cases: list[Case] = []
    seen: dict[str, str] = {}
    for path in files:
        for obj, source in _objects(path):
            case = case_from_dict(obj, source=source)
            if case.id in seen:
                raise ConformanceError(f"{source}: duplicate case id {case.id!r} (first in {seen[case.id]})")
            seen[case.id] = source
            cases.append(case)
    if not cases:
        raise ConformanceError(f"no conformance cases in {directory}")
    return tuple(cases)
