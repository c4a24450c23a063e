"""The Jinja oracle: an official chat template rendered exactly the way transformers renders it.

This is the reference renderer the conformance tests and ``bench/render.py`` compare against
(``official-templates.md`` §2 and §11). jinja2 is imported lazily: it is a test/bench dependency only.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from datetime import datetime
from functools import lru_cache
from pathlib import Path
from typing import Any

from .._profiles import DialectProfile, get_profile
from ..errors import HermesError, RenderError, UsageError

__all__ = ["TEMPLATES_ENV", "OracleCrash", "oracle_render", "oracle_render_dialect", "template_path"]

#: The environment variable naming the folder of the official templates (for an installed copy).
TEMPLATES_ENV = "HERMES_TOOLCALL_TEMPLATES"
# in a source checkout: ../shared/conformance/templates beside the repository
_CHECKOUT_TEMPLATES = Path(__file__).resolve().parents[3].parent / "shared" / "conformance" / "templates"


class OracleCrash(RenderError):
    """The template itself cannot render this input (it raised); ``__cause__`` is the template's error."""


def template_path(name: str, directory: str | Path | None = None) -> Path:
    """Where the template file ``name`` lives.

    The folder is ``directory`` when given, else ``$HERMES_TOOLCALL_TEMPLATES`` when set, else
    ``../shared/conformance/templates`` beside a source checkout.

    >>> template_path("Qwen-Qwen3-0.6B.jinja", "/opt/templates").as_posix()
    '/opt/templates/Qwen-Qwen3-0.6B.jinja'
    """
    if directory is None:
        directory = os.environ.get(TEMPLATES_ENV) or _CHECKOUT_TEMPLATES
    return Path(directory) / name


def _tojson(x: Any, ensure_ascii: bool = False, indent: Any = None, separators: Any = None,
            sort_keys: bool = False) -> str:
    return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)


@lru_cache(maxsize=1)
def _environment() -> Any:
    try:
        import jinja2.ext
        from jinja2.exceptions import TemplateError
        from jinja2.sandbox import ImmutableSandboxedEnvironment
    except ImportError as exc:  # pragma: no cover - depends on the installation
        raise HermesError("the Jinja oracle needs jinja2: pip install 'hermes-toolcall[test]'") from exc

    def raise_exception(message: str) -> None:
        raise TemplateError(message)

    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[jinja2.ext.loopcontrols])
    env.filters["tojson"] = _tojson
    env.globals.update(raise_exception=raise_exception, strftime_now=lambda fmt: datetime.now().strftime(fmt))
    return env


@lru_cache(maxsize=64)
def _compiled(source: str) -> Any:
    return _environment().from_string(source)


def _prepare(messages: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    msgs: list[dict[str, Any]] = []
    for message in messages:
        m = {k: v for k, v in message.items() if v is not None}
        r = next((m[k] for k in ("reasoning_content", "thinking", "reasoning") if k in m), None)
        msgs.append({"thinking": r, **m, "reasoning_content": r} if r is not None else m)
    return msgs


def oracle_render(
    source: str,
    messages: Sequence[Mapping[str, Any]],
    tools: Sequence[Mapping[str, Any]] | None = None,
    add_generation_prompt: bool = False,
    special_tokens: Mapping[str, str | None] | None = None,
    **kwargs: Any,
) -> str:
    """Render ``source`` (a chat template's text) as transformers' ``apply_chat_template(tokenize=False)``.

    Args:
        source: the template text.
        messages: OpenAI-shaped message dicts.
        tools: tool dicts, or None.
        add_generation_prompt: append the assistant header.
        special_tokens: e.g. ``{"bos_token": "<|begin_of_text|>"}`` (None values are left out).
        **kwargs: template options such as ``enable_thinking``.

    Returns:
        The rendered prompt.

    Raises:
        OracleCrash: the template raised (TemplateError, UndefinedError, TypeError, RecursionError, ...).
        HermesError: jinja2 is not installed.

    >>> oracle_render("{{ messages[0].content }}!", [{"role": "user", "content": "hi"}])
    'hi!'
    """
    template = _compiled(source)
    tokens = {k: v for k, v in (special_tokens or {}).items() if v is not None}
    try:
        result: str = template.render(
            messages=_prepare(messages),
            tools=tools,
            documents=None,
            add_generation_prompt=add_generation_prompt,
            **{**tokens, **kwargs},
        )
    except (RecursionError, TypeError, ValueError, AttributeError, KeyError, IndexError) as exc:
        raise OracleCrash(f"the template cannot render this input: {type(exc).__name__}: {exc}") from exc
    except Exception as exc:  # jinja2's TemplateError / UndefinedError, SecurityError
        if type(exc).__module__.startswith("jinja2"):
            raise OracleCrash(f"the template cannot render this input: {type(exc).__name__}: {exc}") from exc
        raise
    return result


def oracle_render_dialect(
    messages: Sequence[Mapping[str, Any]],
    *,
    tools: Sequence[Mapping[str, Any]] | None = None,
    dialect: str | DialectProfile = "hermes",
    add_generation_prompt: bool = False,
    templates: str | Path | None = None,
    **kwargs: Any,
) -> str:
    """Render with the dialect's official template (the reference ``render`` is compared against).

    Special tokens (``bos_token`` …) and template options pass as keyword arguments, as for ``render``.

    Raises:
        UsageError: the dialect has no template (omp) or the template file is absent.
        OracleCrash: the template raised.

    >>> oracle_render_dialect([{"role": "user", "content": "Hi"}], dialect="qwen3")
    '<|im_start|>user\\nHi<|im_end|>\\n'
    """
    profile = get_profile(dialect)
    if profile.template is None:
        raise UsageError(f"dialect {profile.name!r} has no Jinja template")
    path = template_path(profile.template, templates)
    try:
        source = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(
            f"cannot read the {profile.name} template {path}: {exc} "
            f"(pass templates=… or set {TEMPLATES_ENV} to the folder of the official templates)"
        ) from exc
    names = ("bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token")
    tokens = {k: kwargs.pop(k) for k in names if k in kwargs}
    return oracle_render(source, messages, tools, add_generation_prompt, tokens, **kwargs)
