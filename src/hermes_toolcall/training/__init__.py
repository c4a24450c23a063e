"""Training data: exact spans and loss masks of rendered conversations, templates with ``{% generation %}``,
and the train/serve skew check (docs/training.md).

- ``render(..., return_spans=True)`` gives a ``Rendered``: the text and spans that partition it
  (``RenderedSpan``: ``start``/``end``, ``kind``, ``role``, ``message_index``).
- ``train_mask`` gives the trained character intervals; ``token_labels`` the tokenizer's ids with
  ``-100`` labels where nothing is trained (a token straddling a boundary warns, ``TokenBoundaryWarning``).
- ``generation_template`` puts ``{% generation %}`` blocks into an official template around exactly what
  ``train_mask`` trains, for transformers' ``return_assistant_tokens_mask`` and TRL's ``assistant_only_loss``.
- ``check_training_render`` finds where the training text and the served prompt disagree.

Nothing here needs an optional dependency, except reading a ``tokenizer.json`` by path (the
``training`` extra: ``tokenizers``).
"""

from __future__ import annotations

from ..render import SPAN_KINDS, Rendered, RenderedSpan, SpanKind, render
from ._check import FINDING_CODES, FindingKind, TrainingFinding, TrainingReport, check_training_render
from ._mask import POLICIES, MaskPolicy, train_mask
from ._templates import GENERATION_DIALECTS, TemplateSourceWarning, generation_template, strip_generation_tags
from ._tokens import IGNORE_INDEX, StraddlePolicy, TokenBoundaryWarning, TokenLabels, load_tokenizer, token_labels

__all__ = [
    "FINDING_CODES",
    "GENERATION_DIALECTS",
    "IGNORE_INDEX",
    "POLICIES",
    "SPAN_KINDS",
    "FindingKind",
    "MaskPolicy",
    "Rendered",
    "RenderedSpan",
    "SpanKind",
    "StraddlePolicy",
    "TemplateSourceWarning",
    "TokenBoundaryWarning",
    "TokenLabels",
    "TrainingFinding",
    "TrainingReport",
    "check_training_render",
    "generation_template",
    "load_tokenizer",
    "render",
    "strip_generation_tags",
    "token_labels",
    "train_mask",
]
