"""hermes-toolcall: read, stream, write, validate and convert the Hermes tool-calling format.

The public API is what this module re-exports (see ``__all__``).
"""

from __future__ import annotations

from ._detect import DialectGuess, detect_dialect
from ._ids import IdFactory, openai_ids, sequential_ids
from ._model import (
    Completion,
    Diagnostic,
    FunctionCall,
    InvalidToolCall,
    Message,
    Part,
    Reasoning,
    Span,
    Text,
    ToolCall,
    ToolResponse,
    ToolsBlock,
    Transcript,
    Turn,
    as_dict,
    public_fields,
)
from ._openai import messages_from_openai, messages_to_openai
from ._openai_chunks import OpenAIChunker
from ._options import ParseOptions
from ._parse import parse_completion, parse_completion_with, parse_transcript, parse_transcript_with
from ._profiles import DIALECTS, DialectProfile, get_profile
from ._prompt_state import GenerationPromptState, generation_prompt_state

# datasets (issue 16): the optional dependencies are imported on first use
from .dataio._convert import Converted, convert_records
from .dataio._hf import DatasetReport, DatasetSummary, summarize_dataset, validate_dataset
from .errors import (
    CallerError,
    ConformanceError,
    DecodeError,
    HermesError,
    InputError,
    InternalError,
    ParseError,
    RenderError,
    StreamError,
    StreamStateError,
    UsageError,
    ValidationError,
)
from .grammar_export import llguidance_grammar, outlines_regex, xgrammar_structural_tag
from .render import (
    load_special_tokens,
    render,
    render_system_prompt,
    render_tool_call,
    render_tool_calls,
    render_tool_response,
    render_tool_responses,
)
from .statemachine import (
    ArgumentsDelta,
    DiagnosticEvent,
    Event,
    GapText,
    ReasoningDelta,
    ReasoningEnd,
    ReasoningStart,
    StreamParser,
    TextDelta,
    ToolCallEnd,
    ToolCallStart,
    ToolResponseEvent,
    ToolsEvent,
    TurnEnd,
    TurnStart,
)

# training data (issue 25): spans, masks, labels, generation templates, the train/serve skew check
from .training import (
    Rendered,
    RenderedSpan,
    TemplateSourceWarning,
    TokenBoundaryWarning,
    TokenLabels,
    TrainingFinding,
    TrainingReport,
    check_training_render,
    generation_template,
    token_labels,
    train_mask,
)
from .validate import Selector, ValidationReport, validate, validate_record

__version__ = "0.1.0"

__all__ = [
    "DIALECTS",
    "ArgumentsDelta",
    "CallerError",
    "Completion",
    "ConformanceError",
    "Converted",
    "DatasetReport",
    "DatasetSummary",
    "DecodeError",
    "Diagnostic",
    "DiagnosticEvent",
    "DialectGuess",
    "DialectProfile",
    "Event",
    "FunctionCall",
    "GapText",
    "GenerationPromptState",
    "HermesError",
    "IdFactory",
    "InputError",
    "InternalError",
    "InvalidToolCall",
    "Message",
    "OpenAIChunker",
    "ParseError",
    "ParseOptions",
    "Part",
    "Reasoning",
    "ReasoningDelta",
    "ReasoningEnd",
    "ReasoningStart",
    "RenderError",
    "Rendered",
    "RenderedSpan",
    "Selector",
    "Span",
    "StreamError",
    "StreamParser",
    "StreamStateError",
    "TemplateSourceWarning",
    "Text",
    "TextDelta",
    "TokenBoundaryWarning",
    "TokenLabels",
    "ToolCall",
    "ToolCallEnd",
    "ToolCallStart",
    "ToolResponse",
    "ToolResponseEvent",
    "ToolsBlock",
    "ToolsEvent",
    "TrainingFinding",
    "TrainingReport",
    "Transcript",
    "Turn",
    "TurnEnd",
    "TurnStart",
    "UsageError",
    "ValidationError",
    "ValidationReport",
    "__version__",
    "as_dict",
    "check_training_render",
    "convert_records",
    "detect_dialect",
    "generation_prompt_state",
    "generation_template",
    "get_profile",
    "llguidance_grammar",
    "load_special_tokens",
    "messages_from_openai",
    "messages_to_openai",
    "openai_ids",
    "outlines_regex",
    "parse_completion",
    "parse_completion_with",
    "parse_transcript",
    "parse_transcript_with",
    "public_fields",
    "render",
    "render_system_prompt",
    "render_tool_call",
    "render_tool_calls",
    "render_tool_response",
    "render_tool_responses",
    "sequential_ids",
    "summarize_dataset",
    "token_labels",
    "train_mask",
    "validate",
    "validate_dataset",
    "validate_record",
    "xgrammar_structural_tag",
]
