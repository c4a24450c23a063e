"""``hermes-toolcall parse``: parse a transcript or a completion; JSON on stdout, diagnostics on stderr."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .. import _jsonio as jsonio
from .._ids import sequential_ids
from .._model import Completion, Diagnostic, Part, Span, Transcript, Turn, public_fields
from .._parse import parse_completion, parse_transcript
from ..errors import ParseError
from ._common import add_parse_options, print_diagnostics, read_input
from ._parse_flags import add_start_flags, add_tools_flags, start_kwargs, tools_kwargs

__all__ = ["parse_text", "register", "to_json"]

_PART_TYPES = {
    "Text": "text",
    "Reasoning": "reasoning",
    "ToolCall": "tool_call",
    "InvalidToolCall": "invalid_tool_call",
    "ToolResponse": "tool_response",
    "ToolsBlock": "tools",
}


def _span(span: Span | None) -> dict[str, int] | None:
    if span is None:
        return None
    return {"start": span.start, "end": span.end, "line": span.line, "column": span.column}


def _part(part: Part) -> dict[str, Any]:
    out: dict[str, Any] = {"type": _PART_TYPES[type(part).__name__]}
    for name in public_fields(part):  # the spans are properties (positions on demand, _model)
        value = getattr(part, name)
        out[name] = _span(value) if isinstance(value, Span) else value
    return out


def _diagnostic(d: Diagnostic) -> dict[str, Any]:
    return {"code": d.code, "severity": d.severity, "message": d.message, "span": _span(d.span), "hint": d.hint}


def _turn(turn: Turn) -> dict[str, Any]:
    return {
        "role": turn.role,
        "span": _span(turn.span),
        "header": _span(turn.header),
        "end": _span(turn.end),
        "parts": [_part(p) for p in turn.parts],
    }


def to_json(result: Completion | Transcript) -> dict[str, Any]:
    """The parse result as plain JSON data (every part and diagnostic with its span).

    >>> from hermes_toolcall import parse_completion
    >>> to_json(parse_completion("hi"))["parts"][0]["text"]
    'hi'
    """
    if isinstance(result, Completion):
        return {
            "kind": "completion",
            "finish_reason": result.finish_reason,
            "parts": [_part(p) for p in result.parts],
            "end": _span(result.end),
            "stopped_at": result.stopped_at,
            "diagnostics": [_diagnostic(d) for d in result.diagnostics],
        }
    return {
        "kind": "transcript",
        "turns": [_turn(t) for t in result.turns],
        "gaps": [_part(g) for g in result.gaps],
        "stopped_at": result.stopped_at,
        "diagnostics": [_diagnostic(d) for d in result.diagnostics],
    }


def parse_text(args: argparse.Namespace, text: str, *, completion: bool) -> Completion | Transcript:
    """Parse ``text`` with the options of ``args``.

    Raises:
        ParseError: ``--strict`` and errors were found.
    """
    kw: dict[str, Any] = {
        "dialect": args.dialect,
        "strict": args.strict,
        "calls_in_reasoning": args.calls_in_reasoning,
        "stop_at_fabricated_response": args.stop_at_fabricated_response,
        "max_block_chars": args.max_block_chars,
        "ids": sequential_ids() if args.sequential_ids else None,
    }
    kw.update(start_kwargs(args, completion=completion))
    kw.update(tools_kwargs(args))
    if completion:
        return parse_completion(text, **kw)
    return parse_transcript(text, **kw)


def register(subparsers: Any) -> None:
    """Add the ``parse`` subcommand."""
    p: argparse.ArgumentParser = subparsers.add_parser(
        "parse",
        help="parse a transcript or a completion",
        description="Parse a ChatML transcript (or, with --completion, one assistant completion). The result "
        "is printed as JSON on stdout; diagnostics go to stderr as FILE:LINE:COL: CODE severity: message. "
        "Exit status 1 when --strict found errors.",
    )
    p.add_argument("file", metavar="FILE", help="input file, or - for standard input")
    p.add_argument("--completion", action="store_true", help="the input is a completion, not a transcript")
    p.add_argument(
        "--jsonl",
        metavar="FIELD",
        help="the input is JSON lines, each holding a completion at FIELD (a dotted path: output, "
        "choices.0.text): one result per line on stdout (null for a line without one, reported on stderr)",
    )
    p.add_argument(
        "--format",
        choices=("json", "openai"),
        default="json",
        help="json: every part with spans; openai: the OpenAI message(s)",
    )
    add_parse_options(p)
    add_start_flags(p)
    add_tools_flags(p)
    p.set_defaults(func=_run)


def _field(record: Any, path: str) -> Any:
    """The value at a dotted path (``choices.0.text``), or None."""
    value = record
    for step in path.split("."):
        if isinstance(value, dict):
            value = value.get(step)
        elif isinstance(value, list) and step.isdigit() and int(step) < len(value):
            value = value[int(step)]
        else:
            return None
    return value


def _run_jsonl(args: argparse.Namespace, text: str, filename: str) -> int:
    """``--jsonl FIELD``: one completion per line, one result per line (diagnostics name the line)."""
    from .._excerpt import sanitize
    from ..errors import DecodeError

    status = 0
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    for number, line in enumerate(lines, 1):
        if not line.strip():
            sys.stdout.write("null\n")
            continue
        try:
            record = jsonio.loads(line)
        except DecodeError as exc:
            record, why = None, f"not JSON: {exc.message}"
        else:
            why = f"no string at {args.jsonl!r}"
        completion = _field(record, args.jsonl)
        if not isinstance(completion, str):
            print(sanitize(f"{filename}:{number}: error: {why}"), file=sys.stderr)
            sys.stdout.write("null\n")
            status = 1
            continue
        try:
            result = parse_text(args, completion, completion=True)
        except ParseError as exc:
            print_diagnostics(exc.diagnostics, filename=f"{filename}:{number}:{args.jsonl}", text=completion)
            sys.stdout.write("null\n")
            status = 1
            continue
        print_diagnostics(result.diagnostics, filename=f"{filename}:{number}:{args.jsonl}", text=completion)
        assert isinstance(result, Completion)
        data = result.to_openai() if args.format == "openai" else to_json(result)
        sys.stdout.write(jsonio.dumps_report(data) + "\n")
    return status


def _run(args: argparse.Namespace) -> int:
    text = read_input(args.file)
    if args.jsonl is not None:
        return _run_jsonl(args, text, "<stdin>" if args.file == "-" else args.file)
    filename = "<stdin>" if args.file == "-" else args.file
    try:
        result = parse_text(args, text, completion=args.completion)
    except ParseError as exc:
        print_diagnostics(exc.diagnostics, filename=filename, text=text)
        return 1
    print_diagnostics(result.diagnostics, filename=filename, text=text)
    if args.format == "openai":
        data: Any = result.to_openai() if isinstance(result, Completion) else result.to_openai_messages()
    else:
        data = to_json(result)
    sys.stdout.write(jsonio.dumps_report(data, spaced=True) + "\n")
    return 0
