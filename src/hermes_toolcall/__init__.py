"""hermes-toolcall: read, stream, write, validate and convert the Hermes tool-calling format.

The public API is what this module re-exports (see ``__all__``).
"""

from __future__ import annotations

from .errors import (
    ConformanceError,
    DecodeError,
    HermesError,
    ParseError,
    RenderError,
    StreamError,
    UsageError,
    ValidationError,
)
from .ids import IdFactory, openai_ids, sequential_ids
from .model import (
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
)
from .profiles import DIALECTS, DialectProfile, get_profile

# --- render (issue: foundation) ---
from .openai import messages_from_openai, messages_to_openai
from .render import (
    render,
    render_system_prompt,
    render_tool_call,
    render_tool_calls,
    render_tool_response,
    render_tool_responses,
)
# --- grammar (issue: grammar) ---
from .parse import parse_completion, parse_completion_with, parse_transcript, parse_transcript_with
# --- statemachine (issue: statemachine) ---
from .statemachine import StreamParser
from .statemachine.openai_chunks import OpenAIChunker
# --- validate (issue: validation) ---
from .validate import Selector, ValidationReport, validate, validate_record

__version__ = "0.1.0"

__all__ = [
    "DIALECTS",
    "Completion",
    "ConformanceError",
    "DecodeError",
    "Diagnostic",
    "DialectProfile",
    "FunctionCall",
    "HermesError",
    "IdFactory",
    "InvalidToolCall",
    "Message",
    "ParseError",
    "Part",
    "Reasoning",
    "RenderError",
    "Span",
    "StreamError",
    "Text",
    "ToolCall",
    "ToolResponse",
    "ToolsBlock",
    "Transcript",
    "Turn",
    "UsageError",
    "ValidationError",
    "__version__",
    "get_profile",
    "openai_ids",
    "sequential_ids",
    # --- render names ---
    "messages_from_openai",
    "messages_to_openai",
    "render",
    "render_system_prompt",
    "render_tool_call",
    "render_tool_calls",
    "render_tool_response",
    "render_tool_responses",
    # --- grammar names ---
    "parse_completion",
    "parse_completion_with",
    "parse_transcript",
    "parse_transcript_with",
    # --- statemachine names ---
    "OpenAIChunker",
    "StreamParser",
    # --- validate names ---
    "Selector",
    "ValidationReport",
    "validate",
    "validate_record",
]
