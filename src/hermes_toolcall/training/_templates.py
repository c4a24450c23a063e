"""Official chat templates with ``{% generation %}`` blocks: ``generation_template``.

transformers' ``apply_chat_template(..., return_assistant_tokens_mask=True)`` (and so TRL's
``assistant_only_loss``) masks the tokens a template writes inside ``{% generation %}`` …
``{% endgeneration %}``; none of the official templates has those tags. ``generation_template`` puts
them into the official template around exactly what ``train_mask`` trains with its defaults: in every
assistant turn, everything after ``<|im_start|>assistant\\n`` up to and including ``<|im_end|>``.

The library ships no template: the tags go into the template text you give (``tokenizer.chat_template``)
or, when none is given, the official template file read as the Jinja oracle reads it
(``$HERMES_TOOLCALL_TEMPLATES`` or ``../shared/conformance/templates`` beside a checkout). Each
dialect's insertions are a few exact text edits of its official template, each found exactly once;
where a block must start after a header the template writes in one expression with the text that
follows, the expression is split in two (``'a' + b`` becomes ``'a'`` then ``'' + b``, so a value
the template cannot add still fails). With the tags removed, the result renders byte for byte what
the official template renders (``tests/test_training_templates.py`` checks it with the Jinja oracle
on generated conversations, and checks transformers' mask against ``train_mask``). A text that is not
the official template (its sha256 differs) is accepted when every edit applies, with a
``TemplateSourceWarning``; when one does not, ``UsageError``.
"""

from __future__ import annotations

import hashlib
import re
import warnings
from dataclasses import dataclass

from .._profiles import DialectProfile, get_profile
from ..errors import UsageError
from ..render import TEMPLATES_ENV, template_path

__all__ = ["GENERATION_DIALECTS", "TemplateSourceWarning", "generation_template", "strip_generation_tags"]

GEN = "{% generation %}"
END = "{% endgeneration %}"
_TAGS = re.compile(r"\{%-?\s*(?:end)?generation\s*-?%\}")


class TemplateSourceWarning(UserWarning):
    """The template text given to ``generation_template`` is not the official one the edits were made for."""


@dataclass(frozen=True, slots=True, kw_only=True)
class _Edit:
    old: str
    new: str


@dataclass(frozen=True, slots=True, kw_only=True)
class _Recipe:
    sha256: str
    edits: tuple[_Edit, ...]


def _nl(text: str) -> str:
    """The edits of templates whose string literals hold real newlines are written with ``⏎``."""
    return text.replace("⏎", "\n")


# the plain turn (user, system, assistant without calls) written in one expression
_PLAIN_ESC = "{{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>' + '\\n' }}"
_PLAIN_ESC_GEN = (
    "{%- if message.role == \"assistant\" %}"
    "{{- '<|im_start|>' + message.role + '\\n' }}" + GEN + "{{- '' + message.content + '<|im_end|>' }}" + END
    + "{{- '\\n' }}{%- else %}" + _PLAIN_ESC + "{%- endif %}"
)
_PLAIN_RAW = _nl("{{- '<|im_start|>' + message.role + '⏎' + message.content + '<|im_end|>' + '⏎' }}")
_PLAIN_RAW_GEN = _nl(
    "{%- if message.role == \"assistant\" %}"
    "{{- '<|im_start|>' + message.role + '⏎' }}" + GEN + "{{- '' + message.content + '<|im_end|>' }}" + END
    + "{{- '⏎' }}{%- else %}" + _PLAIN_RAW + "{%- endif %}"
)
# the end of an assistant turn with calls, before the tool branch
_END_ESC = "{{- '<|im_end|>\\n' }}\n    {%- elif message.role == \"tool\" %}"
_END_ESC_GEN = "{{- '<|im_end|>' }}" + END + "{{- '\\n' }}\n    {%- elif message.role == \"tool\" %}"

_QWEN_CALLS_OLD = """        {{- '<|im_start|>' + message.role }}
        {%- if message.content %}
            {{- '\\n' + CONTENT }}
        {%- endif %}
        {%- for tool_call in message.tool_calls %}
            {%- if tool_call.function is defined %}
                {%- set tool_call = tool_call.function %}
            {%- endif %}
            {{- '\\n<tool_call>\\n{"name": "' }}"""
_QWEN_CALLS_NEW = """        {{- '<|im_start|>' + message.role + '\\n' }}""" + GEN + """
        {%- if message.content %}
            {{- '' + CONTENT }}
        {%- endif %}
        {%- for tool_call in message.tool_calls %}
            {%- if tool_call.function is defined %}
                {%- set tool_call = tool_call.function %}
            {%- endif %}
            {{- ('\\n' if (message.content or not loop.first) else '') + '<tool_call>\\n{"name": "' }}"""

_RECIPES: dict[str, _Recipe] = {
    "NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use.jinja": _Recipe(
        sha256="7ce09d55d3690e06c70b5c07228cc7e8c99c43a23cdc027762be4011efcdea6c",
        edits=(
            _Edit(old=_PLAIN_RAW, new=_PLAIN_RAW_GEN),
            _Edit(
                old=_nl("{{- '<|im_start|>' + message.role }}⏎    {%- for tool_call in message.tool_calls %}⏎"
                        "       {{- '⏎<tool_call>⏎' }}"),
                new=_nl("{{- '<|im_start|>' + message.role }}{%- if message.tool_calls %}{{- '⏎' }}{%- endif %}"
                        + GEN + "⏎    {%- for tool_call in message.tool_calls %}⏎"
                        "       {{- ('' if loop.first else '⏎') + '<tool_call>⏎' }}"),
            ),
            _Edit(
                old=_nl("    {%- endfor %}⏎        {{- '<|im_end|>⏎' }}⏎    {%- elif message.role == \"tool\" %}"),
                new=_nl("    {%- endfor %}⏎        {{- '<|im_end|>' }}" + END + "{{- '⏎' }}⏎"
                        "    {%- elif message.role == \"tool\" %}"),
            ),
        ),
    ),
    "tool_chat_template_hermes.jinja": _Recipe(
        sha256="9d08161b0665b9d3459943bb57c7a680f42e77cdbc97d4f87b9426b03c8bab89",
        edits=(
            _Edit(old=_PLAIN_ESC, new=_PLAIN_ESC_GEN),
            _Edit(
                old="{{- '<|im_start|>' + message.role }}\n        {%- for tool_call in message.tool_calls %}\n"
                    "            {{- '\\n<tool_call>\\n' }}",
                new="{{- '<|im_start|>' + message.role }}{%- if message.tool_calls %}{{- '\\n' }}{%- endif %}"
                    + GEN + "\n        {%- for tool_call in message.tool_calls %}\n"
                    "            {{- ('' if loop.first else '\\n') + '<tool_call>\\n' }}",
            ),
            _Edit(old=_END_ESC, new=_END_ESC_GEN),
        ),
    ),
    "Qwen-Qwen3-0.6B.jinja": _Recipe(
        sha256="87a2728cb8dc9fe424d624542f6060ec05a1d285ebbec578bb078900e33396b5",
        edits=(
            _Edit(
                old="""        {%- if loop.index0 > ns.last_query_index %}
            {%- if loop.last or (not loop.last and reasoning_content) %}
                {{- '<|im_start|>' + message.role + '\\n<think>\\n' + reasoning_content.strip('\\n') + '\\n</think>\\n\\n' + content.lstrip('\\n') }}
            {%- else %}
                {{- '<|im_start|>' + message.role + '\\n' + content }}
            {%- endif %}
        {%- else %}
            {{- '<|im_start|>' + message.role + '\\n' + content }}
        {%- endif %}""",  # noqa: E501
                new="""        {{- '<|im_start|>' + message.role + '\\n' }}""" + GEN + """
        {%- if loop.index0 > ns.last_query_index %}
            {%- if loop.last or (not loop.last and reasoning_content) %}
                {{- '<think>\\n' + reasoning_content.strip('\\n') + '\\n</think>\\n\\n' + content.lstrip('\\n') }}
            {%- else %}
                {{- '' + content }}
            {%- endif %}
        {%- else %}
            {{- '' + content }}
        {%- endif %}""",
            ),
            _Edit(old=_END_ESC, new=_END_ESC_GEN),
        ),
    ),
    "Qwen-Qwen2.5-7B-Instruct.jinja": _Recipe(
        sha256="cd8e9439f0570856fd70470bf8889ebd8b5d1107207f67a5efb46e342330527f",
        edits=(
            _Edit(old=_PLAIN_ESC, new=_PLAIN_ESC_GEN),
            _Edit(old=_QWEN_CALLS_OLD.replace("CONTENT", "message.content"),
                  new=_QWEN_CALLS_NEW.replace("CONTENT", "message.content")),
            _Edit(old=_END_ESC, new=_END_ESC_GEN),
        ),
    ),
    "Qwen-QwQ-32B.jinja": _Recipe(
        sha256="16488ad69d85833e5f66c50174f39834b688343337e9337f018deaa21b354117",
        edits=(
            _Edit(
                old="        {{- '<|im_start|>' + message.role + '\\n' + content + '<|im_end|>' + '\\n' }}",
                new="        {{- '<|im_start|>' + message.role + '\\n' }}" + GEN
                    + "{{- '' + content + '<|im_end|>' }}" + END + "{{- '\\n' }}",
            ),
            _Edit(old=_QWEN_CALLS_OLD.replace("CONTENT", "content"), new=_QWEN_CALLS_NEW.replace("CONTENT", "content")),
            _Edit(old=_END_ESC, new=_END_ESC_GEN),
        ),
    ),
    # the XML-body templates (chatml-family.md): recipes ready for the dialects as their render lands
    "Qwen3-Coder.jinja": _Recipe(
        sha256="d287fb2edf144207f868ae1b282755dc19db2a3f1c5b3a3d57e9e5abffa98392",
        edits=(
            _Edit(
                old="""        {{- '<|im_start|>' + message.role }}
        {%- if message.content is defined and message.content is string and message.content | trim | length > 0 %}
            {{- '\\n' + message.content | trim + '\\n' }}
        {%- endif %}
        {%- for tool_call in message.tool_calls %}
            {%- if tool_call.function is defined %}
                {%- set tool_call = tool_call.function %}
            {%- endif %}
            {{- '\\n<tool_call>\\n<function=' + tool_call.name + '>\\n' }}""",
                new="""        {{- '<|im_start|>' + message.role + '\\n' }}""" + GEN + """
        {%- if message.content is defined and message.content is string and message.content | trim | length > 0 %}
            {{- message.content | trim + '\\n' }}
        {%- endif %}
        {%- for tool_call in message.tool_calls %}
            {%- if tool_call.function is defined %}
                {%- set tool_call = tool_call.function %}
            {%- endif %}
            {{- ('\\n' if (not loop.first or (message.content is defined and message.content is string and """
                """message.content | trim | length > 0)) else '') + '<tool_call>\\n<function=' + tool_call.name + """
                """'>\\n' }}""",
            ),
            _Edit(old="{{- '<|im_end|>\\n' }}\n    {%- elif message.role == \"user\" or message.role == \"system\" or "
                      "message.role == \"assistant\" %}",
                  new="{{- '<|im_end|>' }}" + END + "{{- '\\n' }}\n    {%- elif message.role == \"user\" or "
                      "message.role == \"system\" or message.role == \"assistant\" %}"),
            _Edit(old=_PLAIN_ESC, new=_PLAIN_ESC_GEN),
        ),
    ),
    "Qwen3.5-4B.jinja": _Recipe(
        sha256="a4aee8afcf2e0711942cf848899be66016f8d14a889ff9ede07bca099c28f715",
        edits=(
            _Edit(
                old="""        {%- if loop.index0 > ns.last_query_index %}
            {{- '<|im_start|>' + message.role + '\\n<think>\\n' + reasoning_content + '\\n</think>\\n\\n' + content }}
        {%- else %}
            {{- '<|im_start|>' + message.role + '\\n' + content }}
        {%- endif %}""",
                new="""        {{- '<|im_start|>' + message.role + '\\n' }}""" + GEN + """
        {%- if loop.index0 > ns.last_query_index %}
            {{- '<think>\\n' + reasoning_content + '\\n</think>\\n\\n' + content }}
        {%- else %}
            {{- '' + content }}
        {%- endif %}""",
            ),
            _Edit(old=_END_ESC, new=_END_ESC_GEN),
        ),
    ),
    "NVIDIA-Nemotron-3-Nano-30B-A3B-BF16.jinja": _Recipe(
        sha256="ab7813c3abdd9cb655905a410728b26c7884eca45ddfab8d9f931553485a7862",
        edits=(
            _Edit(old="            {{- '<|im_start|>assistant\\n' }}\n                {%- set include_content",
                  new="            {{- '<|im_start|>assistant\\n' }}" + GEN
                      + "\n                {%- set include_content"),
            _Edit(old="                {{- '<|im_end|>\\n' }}\n        {%- else %}",
                  new="                {{- '<|im_end|>' }}" + END + "{{- '\\n' }}\n        {%- else %}"),
            _Edit(old="{{- '<|im_start|>assistant\\n' ~ (content | default('', true) | string | trim) ~ "
                      "'<|im_end|>\\n' }}",
                  new="{{- '<|im_start|>assistant\\n' }}" + GEN + "{{- (content | default('', true) | string | trim) ~ "
                      "'<|im_end|>' }}" + END + "{{- '\\n' }}"),
            _Edit(old="{{- '<|im_start|>assistant\\n' ~ c ~ '<|im_end|>\\n' }}",
                  new="{{- '<|im_start|>assistant\\n' }}" + GEN + "{{- c ~ '<|im_end|>' }}" + END + "{{- '\\n' }}"),
            _Edit(old="{{- '<|im_start|>assistant\\n<|im_end|>\\n' }}",
                  new="{{- '<|im_start|>assistant\\n' }}" + GEN + "{{- '<|im_end|>' }}" + END + "{{- '\\n' }}"),
        ),
    ),
    "StepFun3.5-Flash.jinja": _Recipe(
        sha256="b18b99dff7261214c43e0402cba9f573e3240be6f9bb7ccaa54bb8df97e49dca",
        edits=(
            _Edit(
                old="""        {%- if loop.index0 > ns.last_query_index %}
            {{- '<|im_start|>' + message.role + '\\n<think>\\n' + reasoning_content + '\\n</think>\\n' + content }}
        {%- else %}
            {{- '<|im_start|>' + message.role + '\\n' + content }}
        {%- endif %}""",
                new="""        {{- '<|im_start|>' + message.role + '\\n' }}""" + GEN + """
        {%- if loop.index0 > ns.last_query_index %}
            {{- '<think>\\n' + reasoning_content + '\\n</think>\\n' + content }}
        {%- else %}
            {{- '' + content }}
        {%- endif %}""",
            ),
            _Edit(old="        {{- '<|im_end|>\\n' }}\n    {%- elif message.role == \"tool\" %}",
                  new="        {{- '<|im_end|>' }}" + END + "{{- '\\n' }}\n    {%- elif message.role == \"tool\" %}"),
        ),
    ),
}

#: The dialects ``generation_template`` knows (an official template, a recipe, and transformers' mask checked
#: against ``train_mask``).
GENERATION_DIALECTS: tuple[str, ...] = ("hermes", "hermes-vllm", "qwen3", "qwen2.5", "qwq", "qwen3-coder", "qwen3.5",
                                       "nemotron-3", "step-3.5")


def generation_template(dialect: str | DialectProfile, source: str | None = None, *,
                        templates: str | None = None) -> str:
    """The dialect's official chat template with ``{% generation %}`` blocks around what ``train_mask`` trains.

    Args:
        dialect: a dialect with an official template (``GENERATION_DIALECTS``).
        source: the official template's text, e.g. ``tokenizer.chat_template`` (for the Hermes
            tokenizers, whose ``chat_template`` is a dict, its ``"tool_use"`` entry); default: the file
            the Jinja oracle reads.
        templates: the folder of the official templates (default ``$HERMES_TOOLCALL_TEMPLATES``, else
            ``../shared/conformance/templates`` beside a checkout); only when ``source`` is None.

    Returns:
        The template text, to set as ``tokenizer.chat_template``.

    Raises:
        UsageError: the dialect has no template or recipe, the template file cannot be read, or an
            edit does not apply to ``source`` (it is not the official template).

    Warns:
        TemplateSourceWarning: ``source`` is not byte-identical to the official template, but every
            edit applied.

    >>> t = generation_template("qwen2.5")
    >>> t.count("{% generation %}"), t.count("{% endgeneration %}")
    (2, 2)
    """
    profile = get_profile(dialect)
    recipe = _RECIPES.get(profile.template or "")
    if recipe is None or profile.name not in GENERATION_DIALECTS:
        known = ", ".join(GENERATION_DIALECTS)
        raise UsageError(f"no generation template for dialect {profile.name!r} (known: {known})")
    if source is None:
        assert profile.template is not None
        path = template_path(profile.template, templates)
        try:
            source = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise UsageError(
                f"cannot read the official {profile.name} template {path}: {exc} (pass its text as source=, e.g. "
                f"tokenizer.chat_template, or set {TEMPLATES_ENV} to the folder of the official templates)"
            ) from exc
    if not isinstance(source, str):
        raise UsageError(f"source must be the template's text, got {type(source).__name__} (for a dict of named "
                         "templates, pass the entry the conversation uses: 'tool_use' for the Hermes tokenizers)")
    if _TAGS.search(source):
        raise UsageError("the template already has {% generation %} tags")
    official = hashlib.sha256(source.encode("utf-8")).hexdigest() == recipe.sha256
    out = source
    for k, edit in enumerate(recipe.edits):
        count = out.count(edit.old)
        if count != 1:
            raise UsageError(
                f"this is not the official {profile.name} template (sha256 {recipe.sha256[:16]}…): edit {k + 1} of "
                f"{len(recipe.edits)} finds its text {count} times, not once, so the tags cannot be placed exactly")
        out = out.replace(edit.old, edit.new)
    if not official:
        warnings.warn(TemplateSourceWarning(
            f"HT705 the {profile.name} template given is not the official one (sha256 {recipe.sha256[:16]}…); every "
            "edit applied, but the masks were checked only on the official template"), stacklevel=2)
    return out


def strip_generation_tags(source: str) -> str:
    """The template with its ``{% generation %}`` / ``{% endgeneration %}`` tags removed.

    >>> strip_generation_tags("a{% generation %}b{%- endgeneration %}c")
    'abc'
    """
    return _TAGS.sub("", source)
