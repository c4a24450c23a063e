"""Reading the XML-like tools catalogue of Qwen3-Coder and Nemotron 3 back into tool objects.

The templates write each tool as ``<function>`` with ``<name>``, ``<description>`` (trimmed),
``<parameters>`` holding one ``<parameter>`` per property (``<name>``, ``<type>``, ``<description>``, then
every other key) and the other keys of ``parameters``, then the tool's other keys (chatml-family.md §2). A
key's value is ``tojson`` for mappings and lists and Python ``str()`` for the rest; it is read back as JSON,
else as a Python literal (``True``, ``None``, ``['string', 'null']``), else as the text. The catalogue is not
injective (the string ``"5"`` and the number ``5`` print alike; descriptions are trimmed), so what is read is
the best reading: names exactly, the rest as printed. ``convert`` and ``validate`` take the real tools with
``tools=`` when they have them.
"""

from __future__ import annotations

from typing import Any

from . import _jsonio as jsonio
from ._lenient_json import scan
from .tags import FUNCTION_CLOSE, PARAMETER_CLOSE

__all__ = ["decode_xml_catalogue", "looks_like_xml_catalogue"]

_FUNCTION = "\n<function>"
_LITERALS: dict[str, Any] = {"True": True, "False": False, "None": None}


def looks_like_xml_catalogue(inner: str) -> bool:
    """Whether a ``<tools>`` block body is the XML-like list (it starts with ``<function>``).

    >>> looks_like_xml_catalogue("\\n<function>\\n<name>ls</name>"), looks_like_xml_catalogue('\\n{"name": "ls"}')
    (True, False)
    """
    return inner.lstrip(" \t\r\n").startswith("<function>")


def _value(text: str) -> Any:
    """A printed value read back: JSON, else a Python literal, else the text."""
    decoded = jsonio.loads_or_none(text)
    if decoded is not None or text.strip() == "null":
        return decoded
    if text in _LITERALS:
        return _LITERALS[text]
    if text[:1] in ("[", "{", "("):
        result = scan(text, multiple=False)
        if result.error is None and not result.recoveries:
            return result.values[0].value
        if result.error is None and text[:1] != "(":
            return result.values[0].value
    return text


class _Reader:
    __slots__ = ("pos", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def at(self, marker: str) -> bool:
        if self.text.startswith(marker, self.pos):
            self.pos += len(marker)
            return True
        return False

    def leaf(self) -> tuple[str, str] | None:
        """``\\n<TAG>VALUE</TAG>`` at the cursor (the value ends at a ``</TAG>`` followed by ``\\n<`` or the end),
        or None without moving."""
        text = self.text
        if not text.startswith("\n<", self.pos) or text.startswith("\n</", self.pos):
            return None
        close = text.find(">", self.pos + 2)
        if close < 0:
            return None
        tag = text[self.pos + 2 : close]
        end_tag = f"</{tag}>"
        search = close + 1
        while True:
            end = text.find(end_tag, search)
            if end < 0:
                return None
            after = end + len(end_tag)
            if after == len(text) or text.startswith("\n<", after):
                self.pos = after
                return tag, text[close + 1 : end]
            search = end + 1


def _parameter(reader: _Reader) -> tuple[str, dict[str, Any]] | None:
    spec: dict[str, Any] = {}
    name: str | None = None
    while not reader.at("\n" + PARAMETER_CLOSE):  # the catalogue closes <parameter> as a body does
        leaf = reader.leaf()
        if leaf is None:
            return None
        tag, raw = leaf
        if tag == "name" and name is None:
            name = raw
        elif tag == "description":
            spec["description"] = raw
        elif tag == "type":
            spec["type"] = _value(raw) if raw[:1] == "[" else raw
        else:
            spec[tag] = _value(raw)
    return (name, spec) if name is not None else None


def _parameters(reader: _Reader) -> dict[str, Any] | None:
    properties: dict[str, Any] = {}
    params: dict[str, Any] = {"type": "object", "properties": properties}
    while not reader.at("\n</parameters>"):
        if reader.at("\n<parameter>"):
            found = _parameter(reader)
            if found is None:
                return None
            properties[found[0]] = found[1]
            continue
        leaf = reader.leaf()
        if leaf is None:
            return None
        params[leaf[0]] = _value(leaf[1])
    return params


def _function(reader: _Reader) -> dict[str, Any] | None:
    fn: dict[str, Any] = {}
    extra: dict[str, Any] = {}
    while not reader.at("\n" + FUNCTION_CLOSE):
        if reader.at("\n<parameters>"):
            params = _parameters(reader)
            if params is None:
                return None
            fn["parameters"] = params
            continue
        leaf = reader.leaf()
        if leaf is None:
            return None
        tag, raw = leaf
        if tag in ("name", "description") and tag not in fn:
            fn[tag] = raw
        else:
            extra[tag] = _value(raw)
    if "name" not in fn:
        return None
    return {"type": "function", "function": {**fn, **extra}}


def decode_xml_catalogue(inner: str) -> tuple[dict[str, Any], ...] | None:
    """The tools of an XML-like catalogue body (the text between ``<tools>`` and ``</tools>``), or None when
    the body does not have that shape.

    >>> tools = decode_xml_catalogue("\\n<function>\\n<name>ls</name>\\n<parameters>\\n<parameter>\\n<name>p</name>"
    ...     "\\n<type>['string', 'null']</type>\\n</parameter>\\n<required>[\\"p\\"]</required>\\n</parameters>"
    ...     "\\n</function>\\n")
    >>> tools[0]["function"]["name"], tools[0]["function"]["parameters"]["properties"]["p"]["type"]
    ('ls', ['string', 'null'])
    """
    text = inner.replace("\r\n", "\n").replace("\r", "\n").rstrip(" \t\n")  # CRLF and lone CR end lines too
    if not text.startswith(_FUNCTION):
        return None
    reader = _Reader(text)
    tools = []
    while reader.pos < len(text):
        if not reader.at(_FUNCTION):
            return None
        tool = _function(reader)
        if tool is None:
            return None
        tools.append(tool)
    return tuple(tools)
