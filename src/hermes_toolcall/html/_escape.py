"""Escaping: every character of the input becomes text, never markup, and shows as one visible character.

A transcript is attacker-controlled text. Everything this package writes from it goes through `text`
(element content) or `attr` (a double-quoted attribute value): ``& < > " '`` become entities, so no
character of the input can open an element, close an attribute or start a script.

Characters that HTML cannot carry faithfully or that a reader would not see are shown as one
visible stand-in each, so a highlighted span still has the length of the source slice:

* C0 controls other than tab and newline (``\\x00``, ``\\r``, ``\\x1b`` …): the Control Pictures
  glyph (``␀``, ``␍``, ``␛``); DEL: ``␡``. (An HTML parser drops or rewrites NUL and CR.)
* C1 controls, lone surrogates (which UTF-8 cannot encode), bidirectional controls (which reorder
  what is shown: "Trojan source") and the byte-order mark: ``�`` (U+FFFD).

In element content the stand-in is wrapped in ``<span class="cc" title="U+…">`` naming the real
code point; `shown` gives the text a browser displays for a string.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["attr", "shown", "text"]

_BASIC = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"})
_SPECIAL = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]"
)


def _stand_in(ch: str) -> str:
    code = ord(ch)
    if code < 0x20:
        return chr(0x2400 + code)
    if code == 0x7F:
        return "\u2421"
    return "\ufffd"


def _name(ch: str) -> str:
    code = ord(ch)
    if 0xD800 <= code <= 0xDFFF:
        return f"U+{code:04X} (a lone surrogate)"
    name = unicodedata.name(ch, "")
    return f"U+{code:04X} {name}" if name else f"U+{code:04X}"


def shown(value: str) -> str:
    """The text a browser shows for ``value`` written by `text` or `attr`: one character for each.

    >>> shown("a\\rb\\x00\\ud800\\u202e")
    'a␍b␀��'
    """
    if _SPECIAL.search(value) is None:
        return value
    return _SPECIAL.sub(lambda m: _stand_in(m.group()), value)


def text(value: str) -> str:
    """``value`` as element content: entities for the markup characters, visible stand-ins for the rest.

    >>> text('<script>alert("x")</script>\\x1b')
    '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;<span class="cc" title="U+001B">␛</span>'
    """
    out = value.translate(_BASIC)
    if _SPECIAL.search(out) is None:
        return out
    return _SPECIAL.sub(lambda m: f'<span class="cc" title="{_name(m.group())}">{_stand_in(m.group())}</span>', out)


def attr(value: str) -> str:
    """``value`` inside a double-quoted attribute: entities for the markup characters, stand-ins for the rest.

    >>> attr('" onmouseover="x')
    '&quot; onmouseover=&quot;x'
    """
    return shown(value).translate(_BASIC)
