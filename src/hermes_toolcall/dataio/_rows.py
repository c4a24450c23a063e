"""Rows of Arrow-backed datasets (Parquet, Hugging Face ``datasets``) as the records ``validate`` reads.

Arrow stores a list of objects as a list of structs with one schema for the whole column, so a row
read back carries ``None`` for every key that *another* row had: a user message gets
``"tool_calls": None``, a tool schema gets ``"properties": {"city": …, "pattern": None}``. The rule
(the *Arrow-None rule*): in a row read from Arrow, a key whose value is ``None`` is absent. It is
exact wherever the format gives ``null`` and a missing key one meaning (every message field:
``content``, ``tool_calls``, ``tool_call_id``, ``name``, ``reasoning_content``); inside arguments or
schemas stored as structs, Arrow itself cannot tell ``"days": null`` from a missing ``days``, so such
a null reads as missing (store arguments as JSON strings, the OpenAI wire form, to keep it).
"""

from __future__ import annotations

import base64
import datetime
import decimal
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .. import _jsonio as jsonio
from ..errors import UsageError
from ..validate import RawRecord

__all__ = ["NO_MAPPING", "Columns", "drop_nulls", "row_record", "row_text"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Columns:
    """Which columns hold what, for datasets whose columns are not ``messages``/``conversations``/``tools``.

    ``messages``: the column with the list of messages (OpenAI ``role``/``content`` items or ShareGPT
    ``from``/``value`` items: the items decide); ``tools``: the column with the tools (a list or its
    JSON text). A mapped record is ``{"messages": …, "tools": …}`` plus the record's own id (the ``id``
    column, kept under any mapping so that findings can name the record); other columns are dropped. With
    no mapping, a row is read as it is. ``text``: the column holding a whole ChatML transcript as text
    (checked as a transcript: ``validate.Options.text_column``); it excludes the other two.

    >>> Columns(messages="dialog").apply({"dialog": [], "id": 3, "category": "x"})
    {'messages': [], 'id': 3}
    """

    messages: str | None = None
    tools: str | None = None
    text: str | None = None
    id: str = "id"

    def __post_init__(self) -> None:
        if self.text is not None and (self.messages is not None or self.tools is not None):
            raise UsageError("--text-column (ChatML transcripts) excludes --messages-column and --tools-column")

    @property
    def mapped(self) -> bool:
        """True when a column is mapped."""
        return self.messages is not None or self.tools is not None or self.text is not None

    def check(self, names: list[str] | tuple[str, ...], where: str) -> None:
        """Raise ``UsageError`` when a mapped column is not among ``names``."""
        for option, column in (("messages", self.messages), ("tools", self.tools), ("text", self.text)):
            if column is not None and column not in names:
                raise UsageError(f"{where}: no column {column!r} for --{option}-column (columns: {', '.join(names)})")

    def needed(self, names: list[str] | tuple[str, ...] = ()) -> list[str] | None:
        """The columns to read (None: all); the id column too when it is among ``names``."""
        if not self.mapped:
            return None
        wanted = [c for c in (self.messages, self.tools, self.text) if c is not None]
        return [*wanted, self.id] if self.id in names and self.id not in wanted else wanted

    def apply(self, row: Mapping[str, Any]) -> Any:
        """The record of ``row`` under this mapping (``text``: only that column, under its own name).

        >>> Columns(text="chatml").apply({"chatml": "<|im_start|>…", "id": 3, "n": 1})
        {'chatml': '<|im_start|>…', 'id': 3}
        """
        if not self.mapped:
            return row
        out: dict[str, Any] = {}
        if self.text is not None:
            out[self.text] = row.get(self.text)
            if row.get(self.id) is not None and self.id != self.text:
                out[self.id] = row[self.id]
            return out
        if self.messages is not None and row.get(self.messages) is not None:
            out["messages"] = row[self.messages]
        else:
            for key in ("messages", "conversations"):
                if key in row:
                    out[key] = row[key]
        if self.tools is not None:
            if row.get(self.tools) is not None:
                out["tools"] = row[self.tools]
        elif "tools" in row:
            out["tools"] = row["tools"]
        if row.get(self.id) is not None and self.id not in out:
            out[self.id] = row[self.id]
        return out


def drop_nulls(value: Any) -> Any:
    """The Arrow-None rule: ``value`` with every ``None``-valued key removed, at every depth.

    Values JSON has no type for are made JSON: bytes (UTF-8 text, else base64), dates and times (ISO
    8601), decimals (numbers); map keys become strings. ``None`` items of lists stay.

    >>> drop_nulls({"role": "user", "content": "hi", "tool_calls": None, "x": [None, {"a": None}]})
    {'role': 'user', 'content': 'hi', 'x': [None, {}]}
    """
    kind = type(value)
    if kind is dict:
        return {
            (k if type(k) is str else str(k)): (v if type(v) in _PLAIN else drop_nulls(v))
            for k, v in value.items()
            if v is not None
        }
    if kind is list:
        return [v if type(v) in _PLAIN else drop_nulls(v) for v in value]
    if kind in _PLAIN or value is None:
        return value
    return _json_value(value)


_PLAIN = frozenset({str, int, float, bool})


def _json_value(value: Any) -> Any:
    """A value of another type as JSON (subclasses, tuples, bytes, dates, decimals, numpy values)."""
    if isinstance(value, Mapping):
        return drop_nulls(dict(value))
    if isinstance(value, list | tuple):
        return drop_nulls(list(value))
    if isinstance(value, str | int | float | bool):
        return value
    if isinstance(value, bytes | bytearray | memoryview):
        data = bytes(value)
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            return base64.b64encode(data).decode("ascii")
    if isinstance(value, datetime.date | datetime.time):
        return value.isoformat()
    if isinstance(value, datetime.timedelta):
        return value.total_seconds()
    if isinstance(value, decimal.Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if hasattr(value, "tolist"):  # numpy scalars and arrays (datasets' numpy formats)
        return drop_nulls(value.tolist())
    return str(value)


def row_text(row: Mapping[str, Any], columns: Columns) -> str:
    """The JSON line of an Arrow row: the column mapping applied, then the Arrow-None rule.

    >>> row_text({"a": None, "b": [None, {"c": None, "d": "x:null,"}], "e": None}, NO_MAPPING)
    '{"b":[null,{"d":"x:null,"}]}'
    """
    return jsonio.dumps_fast(drop_nulls(columns.apply(row)))


def row_record(number: int, row: Mapping[str, Any], columns: Columns, end: int = 0) -> RawRecord:
    """The record of row ``number`` (1-based): a JSONL record whose line is the row number.

    A finding's column points into this JSON line (the snippet shows it).

    >>> row_record(2, {"messages": [{"role": "user", "content": "hi", "name": None}]}, Columns()).text
    '{"messages":[{"role":"user","content":"hi"}]}'
    """
    return RawRecord(number=number, line=number, text=row_text(row, columns), kind="jsonl", end=end)


NO_MAPPING = Columns()
"""Rows read as they are."""
