"""The records of ``training-data`` and ``check-training``: the readers ``validate`` uses, then the
conversation of each record (OpenAI records as they are; ShareGPT and ChatML converted to OpenAI)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from .. import _jsonio as jsonio
from .._profiles import DIALECTS
from ..dataio import NO_MAPPING, convert_record, drop_nulls, iter_input, parse_shape, sniff
from ..errors import DecodeError

__all__ = ["TrainingRecord", "add_record_arguments", "template_kwargs", "training_records"]


def add_record_arguments(p: argparse.ArgumentParser) -> None:
    """The options both commands share: dialect, record shape, columns, template options."""
    p.add_argument("--dialect", "-d", default="hermes", choices=sorted(DIALECTS), help="dialect (default hermes)")
    p.add_argument("--from", dest="source", default="openai", metavar="SHAPE",
                   help="record shape: openai (default; messages and tools as they are), sharegpt or chatml[:D] "
                   "(converted to OpenAI messages first, as convert-dataset does)")
    p.add_argument("--messages-column", metavar="COL", help="the column (key) holding the messages (default messages)")
    p.add_argument("--tools-column", metavar="COL", help="the column (key) holding the tools (default tools)")
    p.add_argument("--bos-token", default=None, metavar="TOK", help="the bos_token (Hermes templates write it first)")
    p.add_argument("--enable-thinking", action=argparse.BooleanOptionalAction, default=None,
                   help="pass enable_thinking to the template")


def template_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    """The template options of the command line, as ``render`` takes them."""
    kwargs: dict[str, Any] = {}
    if args.bos_token is not None:
        kwargs["bos_token"] = args.bos_token
    if args.enable_thinking is not None:
        kwargs["enable_thinking"] = args.enable_thinking
    return kwargs


@dataclass(frozen=True, slots=True, kw_only=True)
class TrainingRecord:
    """One record: its number and line, its conversation (or why there is none), its whole row."""

    path: str
    number: int
    line: int
    messages: list[Any]
    tools: list[Any]
    row: Any
    error: str | None = None

    def report(self, why: str) -> int:
        """Print the record's HT704 line; returns 1 (a skipped record)."""
        print(f"{self.path}:{self.line}: HT704 error: record {self.number}: {why}", file=sys.stderr)
        return 1


def training_records(args: argparse.Namespace) -> Iterator[TrainingRecord]:
    """The records of ``args.input`` with their conversations, streaming."""
    shape, _ = parse_shape(args.source)
    path = args.input
    chatml = shape == "chatml" and sniff(path) not in ("parquet", "dataset", "hub")
    messages_key = args.messages_column or "messages"
    tools_key = args.tools_column or "tools"
    for raw in iter_input(path, "chatml" if chatml else "auto", NO_MAPPING):
        base = {"path": path, "number": raw.number, "line": raw.line}
        if raw.kind == "chatml":
            row: Any = raw.text
        elif raw.error is not None:
            yield TrainingRecord(**base, messages=[], tools=[], row=None, error=raw.error)
            continue
        else:
            try:
                row = jsonio.loads(raw.text)
            except DecodeError as exc:
                yield TrainingRecord(**base, messages=[], tools=[], row=None, error=f"invalid JSON: {exc.message}")
                continue
        if shape == "openai":
            record = drop_nulls(row) if isinstance(row, dict) else row
            messages = record.get(messages_key) if isinstance(record, dict) else None
            tools = record.get(tools_key) if isinstance(record, dict) else None
        else:
            source = row
            if isinstance(row, dict) and (args.messages_column or args.tools_column):
                source = {"conversations" if shape == "sharegpt" else "text": row.get(messages_key),
                          "tools": row.get(tools_key)}
            converted = convert_record(source, source=args.source, target="openai", number=raw.number)
            if not converted.ok or not isinstance(converted.record, dict):
                yield TrainingRecord(**base, messages=[], tools=[], row=row, error=converted.error or "not a record")
                continue
            messages, tools = converted.record.get("messages"), converted.record.get("tools")
        if isinstance(tools, str):  # Arrow stores tools as their JSON text
            try:
                tools = jsonio.loads(tools)
            except DecodeError as exc:
                yield TrainingRecord(**base, messages=[], tools=[], row=row,
                                     error=f"tools: invalid JSON: {exc.message}")
                continue
        if not isinstance(messages, list):
            why = f"no `{messages_key}` list" + (" (the record shape is --from openai)" if shape == "openai" else "")
            yield TrainingRecord(**base, messages=[], tools=[], row=row, error=why)
            continue
        if tools is not None and not isinstance(tools, list):
            yield TrainingRecord(**base, messages=[], tools=[], row=row, error=f"`{tools_key}` is not a list")
            continue
        yield TrainingRecord(**base, messages=messages, tools=tools or [], row=row)

