"""Tool declarations and JSON-Schema checking of call arguments (``jsonschema``, Draft 2020-12 by default).

A tool is an OpenAI tool object ``{"type": "function", "function": {"name", "parameters"}}`` or a bare
function object ``{"name", "parameters"}`` (as some ``<tools>`` blocks write it). The schema's own
``$schema`` picks the draft; a boolean is never an integer or a number (jsonschema's type checker).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import jsonschema
from jsonschema.protocols import Validator

from . import _jsonio as jsonio
from ._fastschema import compile_fast, fast_valid

__all__ = ["ArgumentError", "ToolSet", "ToolSpec", "load_tools"]

_MAX_ERRORS = 20
_MAX_MESSAGE = 240


@dataclass(frozen=True, slots=True, kw_only=True)
class ArgumentError:
    """One schema violation: where in the arguments (``path`` from the arguments object) and why."""

    path: tuple[str | int, ...]
    json_path: str
    message: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolSpec:
    """A declared tool: its name and the checker of its parameters (None: no schema to check against)."""

    name: str
    schema: Mapping[str, Any] | None
    validator: Validator | None
    format_validator: Validator | None
    fast: Any = field(default=None, compare=False, repr=False)  # jsonschema-rs, same verdicts (fastschema)

    def check(self, arguments: Any, *, formats: bool = False) -> tuple[ArgumentError, ...]:
        """The schema violations of ``arguments`` (at most 20, ordered by path).

        >>> spec = load_tools([{"name": "f", "parameters": {"type": "object",
        ...     "properties": {"n": {"type": "integer"}}}}]).tools["f"]
        >>> [e.json_path for e in spec.check({"n": True})]
        ['$.n']
        """
        validator = self.format_validator if formats else self.validator
        if validator is None:
            return ()
        if not formats and self.fast is not None and fast_valid(self.fast, arguments):
            return ()  # valid by the fast checker: jsonschema would find nothing either
        try:
            errors = sorted(validator.iter_errors(arguments), key=lambda e: [str(p) for p in e.absolute_path])
        except Exception as exc:  # an unresolvable $ref, a bad pattern: the schema is at fault
            return (ArgumentError(path=(), json_path="$", message=f"the schema cannot be applied: {exc}"),)
        out = []
        for err in errors[:_MAX_ERRORS]:
            message = err.message if len(err.message) <= _MAX_MESSAGE else err.message[: _MAX_MESSAGE - 1] + "…"
            out.append(ArgumentError(path=tuple(err.absolute_path), json_path=err.json_path, message=message))
        return tuple(out)


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolProblem:
    """A declaration that could not be used as is: ``index`` in the tools list, code HT305 or HT306."""

    index: int
    code: str
    message: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolSet:
    """The declared tools by name, and the problems found in the declarations."""

    tools: Mapping[str, ToolSpec]
    problems: tuple[ToolProblem, ...] = ()

    @property
    def names(self) -> frozenset[str]:
        """The declared names."""
        return frozenset(self.tools)


def _function_of(tool: Any) -> Mapping[str, Any] | None:
    if not isinstance(tool, Mapping):
        return None
    fn = tool.get("function")
    if isinstance(fn, Mapping):
        return fn
    return tool if "name" in tool else None


def _compile(schema: Any) -> tuple[Validator, Validator]:
    if not isinstance(schema, Mapping) and not isinstance(schema, bool):
        raise jsonschema.SchemaError(f"parameters must be a JSON Schema object, not {type(schema).__name__}")
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    cls.check_schema(schema)  # type: ignore[arg-type]
    return cls(schema), cls(schema, format_checker=cls.FORMAT_CHECKER)


def _build(tools: Sequence[Any]) -> ToolSet:
    specs: dict[str, ToolSpec] = {}
    problems: list[ToolProblem] = []
    for i, tool in enumerate(tools):
        fn = _function_of(tool)
        name = fn.get("name") if fn is not None else None
        if not isinstance(name, str) or not name:
            problems.append(ToolProblem(index=i, code="HT305", message=f"tool #{i} has no name"))
            continue
        if name in specs:
            problems.append(ToolProblem(index=i, code="HT306", message=f"tool {name!r} is declared twice"))
            continue
        assert fn is not None
        schema = fn.get("parameters")
        plain: Validator | None = None
        formats: Validator | None = None
        if schema is not None:
            try:
                plain, formats = _compile(schema)
            except jsonschema.SchemaError as exc:
                message = f"tool {name!r}: invalid parameters schema: {exc.message}"
                problems.append(ToolProblem(index=i, code="HT305", message=message))
        specs[name] = ToolSpec(
            name=name,
            schema=schema if plain is not None else None,
            validator=plain,
            format_validator=formats,
            fast=compile_fast(schema) if plain is not None else None,
        )
    return ToolSet(tools=specs, problems=tuple(problems))


@functools.lru_cache(maxsize=512)
def _cached(key: str) -> ToolSet:
    return _build(jsonio.loads(key))


def load_tools(tools: Sequence[Any] | None) -> ToolSet:
    """Read tool declarations into a ``ToolSet`` (cached by content: datasets repeat their tools).

    Args:
        tools: OpenAI tool objects or bare function objects; None for no tools.

    Returns:
        The tools by name, with the declaration problems (HT305/HT306) found.

    >>> sorted(load_tools([{"type": "function", "function": {"name": "get_weather"}}]).names)
    ['get_weather']
    """
    if not tools:
        return ToolSet(tools={})
    try:
        key = jsonio.dumps_fast(tools if isinstance(tools, list) else list(tools))
    except (TypeError, ValueError):
        return _build(list(tools))
    return _cached(key)
