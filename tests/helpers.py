"""Helpers shared by the tests (merging adjacent deltas, reading shared files)."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import SHARED, TEMPLATES


def template_source(name: str) -> str:
    """The text of an official template from ``shared/conformance/templates``; skips when absent."""
    path = TEMPLATES / name
    if not path.exists():
        pytest.skip(f"{path} is absent: the official templates live in ../shared beside the repository")
    return path.read_text(encoding="utf-8")


def shared_file(relative: str) -> Path:
    """A file under ``../shared``; skips the test when the folder is absent."""
    path = SHARED / relative
    if not path.exists():
        pytest.skip(f"{path} is absent: ../shared is not beside the repository")
    return path


def _jinja_environment() -> object:
    """The transformers-like Jinja environment of official-templates.md §11 (built once)."""
    import json
    from datetime import datetime

    import jinja2.ext
    from jinja2.exceptions import TemplateError
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    cached = _JINJA.get("env")
    if cached is not None:
        return cached

    def _tojson(x: object, ensure_ascii: bool = False, indent: int | None = None,
                separators: tuple[str, str] | None = None, sort_keys: bool = False) -> str:
        return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)

    def _raise(message: str) -> None:
        raise TemplateError(message)

    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[jinja2.ext.loopcontrols])
    env.filters["tojson"] = _tojson
    env.globals.update(raise_exception=_raise, strftime_now=lambda fmt: datetime.now().strftime(fmt))
    _JINJA["env"] = env
    return env


_JINJA: dict[str, object] = {}


def jinja_render(
    source: str,
    messages: list[dict[str, object]],
    tools: list[dict[str, object]] | None = None,
    add_generation_prompt: bool = False,
    special_tokens: dict[str, str] | None = None,
    **kwargs: object,
) -> str:
    """Render a chat template the way transformers does (recipe of official-templates.md §11)."""
    template = _JINJA.get(source)
    if template is None:
        template = _JINJA[source] = _jinja_environment().from_string(source)  # type: ignore[attr-defined]
    msgs = []
    for m in messages:
        m = {k: v for k, v in m.items() if v is not None}
        r = next((m[k] for k in ("reasoning_content", "thinking", "reasoning") if k in m), None)
        msgs.append({"thinking": r, **m, "reasoning_content": r} if r is not None else m)
    tokens = {k: v for k, v in (special_tokens or {}).items() if v is not None}
    rendered: str = template.render(  # type: ignore[attr-defined]
        messages=msgs, tools=tools, documents=None, add_generation_prompt=add_generation_prompt, **{**tokens, **kwargs}
    )
    return rendered


def merge_events(events: list[object]) -> list[object]:
    """Merge adjacent text, reasoning and argument deltas of one element and drop empty ones.

    The merged list does not depend on the chunking (format.md §4); same rules as
    ``hermes_toolcall.testing.merge_deltas``.
    """
    from hermes_toolcall.testing.helpers import merge_deltas

    merged: list[object] = merge_deltas(events)
    return merged
