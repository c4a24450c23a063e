"""The completion a request allows, as one tree: the dialect's bytes, the tools, the choice, the reasoning state."""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from .._profiles import DialectProfile, get_profile
from ..errors import InternalError, UsageError
from ..tags import CLOSE, assistant_markers, reasoning_markers
from ._ir import CUT, Block, Free, Json, Lit, Node, Rep, alt, literal, seq
from ._shape import BodyShape, CompletionShape, body_shape, check_name, completion_shape, xml_shape

__all__ = ["Request", "ToolDecl", "build", "request"]

Choice = Literal["auto", "required", "none", "named"]

# keywords whose value is a subschema, a list of subschemas, or a map of subschemas (Draft 2020-12 and older)
_ONE = ("items", "additionalItems", "contains", "not", "if", "then", "else", "propertyNames", "unevaluatedItems",
        "unevaluatedProperties")
_MANY = ("allOf", "anyOf", "oneOf", "prefixItems")
_MAP = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolDecl:
    """A declared tool: its name and the schema its arguments object must satisfy."""

    name: str
    schema: Any


@dataclass(frozen=True, slots=True, kw_only=True)
class Request:
    """What the grammar must allow: the tools callable, the choice and the completion's shape."""

    tools: tuple[ToolDecl, ...]
    choice: Choice
    max_calls: int | None
    shape: CompletionShape
    body: BodyShape
    profile: DialectProfile


def _open_objects(schema: Any) -> Any:
    """``schema`` with ``additionalProperties: true`` written out where an object schema leaves it unsaid.

    JSON Schema admits extra keys unless the schema forbids them; xgrammar's compiler forbids them
    unless told (its strict mode), so the default is made explicit for every engine alike.
    """
    if not isinstance(schema, dict):
        return schema
    out = dict(schema)
    if ("properties" in out or out.get("type") == "object") and "additionalProperties" not in out \
            and "unevaluatedProperties" not in out:
        out["additionalProperties"] = True
    for key in _ONE:
        if key in out:
            out[key] = _open_objects(out[key])
    if isinstance(out.get("additionalProperties"), dict):
        out["additionalProperties"] = _open_objects(out["additionalProperties"])
    for key in _MANY:
        if isinstance(out.get(key), list):
            out[key] = [_open_objects(s) for s in out[key]]
    for key in _MAP:
        if isinstance(out.get(key), dict):
            out[key] = {k: _open_objects(s) for k, s in out[key].items()}
    return out


def _arguments_schema(parameters: Any, name: str) -> Any:
    """The schema of a call's ``arguments`` object: the tool's ``parameters``, always an object."""
    if parameters is None:
        return {"type": "object", "additionalProperties": True}
    if isinstance(parameters, bool):
        return {"type": "object"} if parameters else False
    if not isinstance(parameters, Mapping):
        raise UsageError(f"tool {name!r}: parameters must be a JSON Schema object, got {type(parameters).__name__}")
    schema = copy.deepcopy(dict(parameters))
    kind = schema.get("type", "object")
    if kind != "object" and not (isinstance(kind, list) and "object" in kind):
        raise UsageError(f"tool {name!r}: parameters must describe an object (the call's arguments), not {kind!r}")
    schema["type"] = "object"
    return _open_objects(schema)


def _declarations(tools: Sequence[Any], profile: DialectProfile) -> tuple[ToolDecl, ...]:
    if isinstance(tools, (str, bytes)) or not isinstance(tools, Sequence):
        raise UsageError(f"tools must be a list of tool objects, got {type(tools).__name__}")
    out: list[ToolDecl] = []
    seen: set[str] = set()
    for i, tool in enumerate(tools):
        if not isinstance(tool, Mapping):
            raise UsageError(f"tool {i}: expected a tool object, got {type(tool).__name__}")
        fn = tool.get("function", tool) if tool.get("type", "function") == "function" else None
        if not isinstance(fn, Mapping):
            raise UsageError(f"tool {i}: expected {{'type': 'function', 'function': {{...}}}}, got {dict(tool)!r}")
        name = fn.get("name")
        if not isinstance(name, str) or not name:
            raise UsageError(f"tool {i}: the function has no name")
        if name in seen:
            raise UsageError(f"tool {i}: the name {name!r} is declared twice")
        seen.add(name)
        check_name(name, profile)
        out.append(ToolDecl(name=name, schema=_arguments_schema(fn.get("parameters"), name)))
    return tuple(out)


def _choice(tool_choice: Any, tools: tuple[ToolDecl, ...]) -> tuple[Choice, tuple[ToolDecl, ...]]:
    if tool_choice in ("auto", "required", "none"):
        if tool_choice == "required" and not tools:
            raise UsageError("tool_choice='required' with no tools: no call can be made")
        return tool_choice, tools
    if isinstance(tool_choice, Mapping) and tool_choice.get("type") == "function":
        fn = tool_choice.get("function")
        name = fn.get("name") if isinstance(fn, Mapping) else None
        if isinstance(name, str):
            chosen = tuple(t for t in tools if t.name == name)
            if not chosen:
                names = ", ".join(t.name for t in tools) or "none"
                raise UsageError(f"tool_choice names {name!r}, which the tools do not declare (declared: {names})")
            return "named", chosen
    raise UsageError(
        "tool_choice must be 'auto', 'required', 'none' or {'type': 'function', 'function': {'name': ...}}, "
        f"got {tool_choice!r}"
    )


def request(
    tools: Sequence[Any],
    *,
    dialect: str | DialectProfile,
    tool_choice: Any,
    parallel_tool_calls: bool,
    reasoning: bool | None,
) -> Request:
    """Check the arguments and gather what the grammar depends on.

    Raises:
        UsageError: an unknown dialect, malformed tools, a tool name the dialect cannot write, an unknown
            choice, or a reasoning state the dialect cannot be in.
    """
    profile = get_profile(dialect)  # its body kind is one of BODY_KINDS (the profile refuses any other)
    if not isinstance(parallel_tool_calls, bool):
        raise UsageError(f"parallel_tool_calls must be True or False, got {parallel_tool_calls!r}")
    if reasoning is not None and not isinstance(reasoning, bool):
        raise UsageError(f"reasoning must be True, False or None, got {reasoning!r}")
    decls = _declarations(tools, profile)
    choice, callable_tools = _choice(tool_choice, decls)
    return Request(
        tools=callable_tools,
        choice=choice,
        max_calls=1 if (choice == "named" or not parallel_tool_calls) else None,
        shape=completion_shape(profile, reasoning),
        body=body_shape(profile),
        profile=profile,
    )


def _call(tool: ToolDecl, body: BodyShape, profile: DialectProfile) -> Node:
    if body.kind == "json":
        return Block(name=tool.name, head=literal(body.head + tool.name + body.mid),
                     arguments=Json.of(tool.schema, item_sep=body.item_sep, key_sep=body.key_sep, excludes=CUT),
                     tail=literal(body.tail))
    if body.kind == "xml":
        from ._xml import xml_call

        return xml_call(tool.name, tool.schema, xml_shape(profile))
    raise InternalError(f"no grammar for the call body kind {body.kind!r} (a DialectProfile holds no other)")


def build(req: Request) -> Node:
    """The tree of every completion the request allows.

    A completion is an optional reasoning block (opener, free reasoning text, closer) and then one frame:
    calls alone; content then calls, where the template renders content beside calls; or content alone,
    where the choice allows no call. Every literal between them comes from the dialect's renderer.
    """
    shape, f = req.shape, req.shape.frames
    content = Free(assistant_markers(req.profile.reasoning_kinds), "content")
    frames: list[Node] = []
    if req.choice != "none" and req.tools:
        one = alt(_call(t, req.body, req.profile) for t in req.tools)
        more = Rep(seq([literal(f.between), one]), 0, None if req.max_calls is None else req.max_calls - 1)
        calls = seq([one, more]) if req.max_calls != 1 else one
        lead = literal(f.calls_lead)
        if f.content_lead is not None and f.content_sep is not None:  # content may come first: one prefix or other
            prose = seq([literal(f.content_lead), content, literal(f.content_sep)])
            lead = Rep(prose, 0, 1) if not f.calls_lead else alt([lead, prose])
        frames.append(seq([lead, calls, literal(f.calls_tail)]))
    if req.choice in ("auto", "none"):
        prose = seq([literal(f.text_lead), content, literal(f.text_tail)])
        if f.empty == f.text_lead + f.text_tail:
            frames.append(prose)
        else:  # an empty turn is written apart (Nemotron trims the newline after its reasoning block)
            frames.append(Rep(prose, 0, 1) if not f.empty else alt([prose, literal(f.empty)]))
    body = alt(frames)
    if not shape.reasoning or shape.kind is None:
        return body
    after: list[Node] = [Rep(Lit("\n"), 0, None)] if shape.newlines_after_closer else []
    # validate() reports a reasoning closer of either kind inside a reasoning block (HT502)
    thought = Free(tuple(dict.fromkeys((*reasoning_markers(shape.kind), *CLOSE.values()))), "reasoning")
    return seq([literal(shape.opener), thought, literal(shape.closer), *after, body])
