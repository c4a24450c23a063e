"""The whole-text engine: the Lark LALR grammar ``hermes.lark`` and its tree-to-model builder.

``parser.py`` loads the grammar once and caches one parser per option variant; ``build.py`` turns
the tokens of the parse into the data model (docs/parsing.md). The public entry points are
``hermes_toolcall.parse_transcript`` and ``hermes_toolcall.parse_completion``.
"""

from __future__ import annotations

from .build import build_completion, build_transcript
from .parser import GRAMMAR, GrammarBug, Variant, parse_tree, tokens, tree_tokens

__all__ = [
    "GRAMMAR",
    "GrammarBug",
    "Variant",
    "build_completion",
    "build_transcript",
    "parse_tree",
    "tokens",
    "tree_tokens",
]
