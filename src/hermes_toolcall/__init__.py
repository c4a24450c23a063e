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
# --- grammar (issue: grammar) ---
# --- statemachine (issue: statemachine) ---
# --- validate (issue: validation) ---

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
    # --- grammar names ---
    # --- statemachine names ---
    # --- validate names ---
]
