"""The training codes (HT700–HT719), declared here and read by ``_diagnostics.CATALOGUE``."""

from __future__ import annotations

from ._entry import Entry

__all__ = ["ENTRIES", "TRAINING"]

TRAINING = "training data"

ENTRIES: tuple[Entry, ...] = (
    Entry(
        code="HT700",
        name="prompt-not-prefix",
        kind="error",
        group=TRAINING,
        summary="The inference prompt of an assistant turn (the conversation before it, with the generation prompt) "
        "is not a prefix of the turn's training rendering: the model is trained to continue a prompt it is never "
        "served (`check_training_render`, `check-training`).",
        example="hermes: a tool result, then an assistant turn (`</tool_response>\\n<|im_end|>` when trained, "
        "`</tool_response><|im_end|>` when served); qwq: a final turn without `<think>\\n`",
        fix="Train on what serving renders: mask the turn from the end of the inference prompt, drop the turn, or "
        "fix the data (QwQ: start the final content with `<think>\\n`).",
    ),
    Entry(
        code="HT701",
        name="history-rewritten",
        kind="error",
        group=TRAINING,
        summary="The rendering of a conversation up to an assistant turn is not a prefix of the whole rendering: a "
        "later turn rewrites an earlier one, so the turn is trained after a history it is never served with.",
        example="qwen3: user, assistant, user, assistant (the first assistant turn loses its empty think block once "
        "a later query exists; reasoning before the last query is dropped)",
        fix="Split the conversation into one sample per assistant turn (each rendered up to its turn), or train only "
        "the last turn (`train_mask(..., policy=\"last_assistant\")`).",
    ),
    Entry(
        code="HT702",
        name="text-differs",
        kind="error",
        group=TRAINING,
        summary="A rendering of a conversation made elsewhere (LLaMA-Factory, torchtune, one's own) differs from the "
        "bytes of the dialect's official template.",
        example="a Qwen3 text with `<|im_end|>` and no newline before the next `<|im_start|>`",
        fix="Render with `hermes_toolcall.render` (byte-identical to the official template), or fix the other "
        "renderer at the offset given.",
    ),
    Entry(
        code="HT703",
        name="token-straddles-span",
        kind="warning",
        group=TRAINING,
        summary="A token straddles the boundary of the trained text (part of its characters trained, part not); it "
        "is labelled by the `straddle` policy of `token_labels` (`train`, as transformers does, or `ignore`).",
        example="a BPE merge of `assistant\\n` with the first characters of the reply",
        fix="Nothing to fix when the policy is what you want; a tokenizer whose special tokens and newlines do not "
        "merge with text avoids it.",
    ),
    Entry(
        code="HT704",
        name="prompt-not-renderable",
        kind="error",
        group=TRAINING,
        summary="The conversation before an assistant turn cannot be rendered as an inference prompt (the template "
        "refuses it), so the turn is trained on a prefix no server renders; in `training-data`, a record that "
        "cannot be rendered at all (skipped).",
        example="qwen3.5: an assistant turn before any user message",
        fix="Fix the record as the message says.",
    ),
    Entry(
        code="HT705",
        name="template-not-official",
        kind="warning",
        group=TRAINING,
        summary="`generation_template` was given a template text that is not the official one; every edit applied, "
        "but the masks were checked only on the official template.",
        example="a copy of the Qwen3 template with a changed default system prompt",
        fix="Check the masks on a few samples (`train_mask` against `assistant_masks`), or pass the official text.",
    ),
)
