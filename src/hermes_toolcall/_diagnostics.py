"""The diagnostics catalogue: every code the library reports, its severity, an example and the fix.

Codes are stable: tests and users match on them. ``docs/diagnostics.md`` is generated from this
table by ``scripts/gen_docs.py``. A *recoverable* code is a warning in lenient mode (the named
recovery was applied) and an error in strict mode (it was not).
"""

from __future__ import annotations

from collections.abc import Iterable

from ._dataset_codes import ENTRIES as _DATASET_ENTRIES
from ._entry import Entry, Kind
from ._model import Diagnostic, Severity, Span
from ._training_codes import ENTRIES as _TRAINING_ENTRIES
from ._validation_codes import ENTRIES as _VALIDATION_ENTRIES
from .errors import UsageError

__all__ = ["CATALOGUE", "MESSAGES", "Entry", "Kind", "assemble", "entry", "make", "message", "severity_of"]

def _e(code: str, name: str, kind: Kind, group: str, summary: str, example: str, fix: str) -> Entry:
    return Entry(code=code, name=name, kind=kind, group=group, summary=summary, example=example, fix=fix)


_ENVELOPE = "envelope"
_BLOCKS = "blocks"
_JSON = "json body"
_VALIDATE = "validation"
_COERCE = "argument coercion"
_XML = "xml body"

_ENTRIES: tuple[Entry, ...] = (
    # ---- envelope ---------------------------------------------------------------------------
    _e(
        "HT001",
        "turn-missing-end",
        "error",
        _ENVELOPE,
        "`<|im_start|>` inside an open turn: the turn ended without `<|im_end|>`.",
        "<|im_start|>user\\nhi<|im_start|>assistant\\nhello<|im_end|>",
        "End every turn with `<|im_end|>` before the next `<|im_start|>`.",
    ),
    _e(
        "HT002",
        "turn-unclosed",
        "warning",
        _ENVELOPE,
        "The last turn has a body but no `<|im_end|>` (the transcript was cut off).",
        "<|im_start|>user\\nhi<|im_end|>\\n<|im_start|>assistant\\nHel",
        "Finish the turn with `<|im_end|>`, or treat the transcript as still generating.",
    ),
    _e(
        "HT003",
        "header-unterminated",
        "error",
        _ENVELOPE,
        "`<|im_start|>` is not followed by a role and a newline.",
        "<|im_start|>assistant<|im_end|>",
        "Write `<|im_start|>ROLE` followed by a newline.",
    ),
    _e(
        "HT004",
        "unknown-role",
        "warning",
        _ENVELOPE,
        "The role is not system, user, assistant, tool or developer; its body is kept as plain text.",
        "<|im_start|>robot\\nbeep<|im_end|>",
        "Use one of the ChatML roles the dialect knows (a header ends at its first line end: `\\r\\n`, `\\n` "
        "or a lone `\\r`, so CRLF files read as LF ones).",
    ),
    _e(
        "HT005",
        "text-outside-turn",
        "warning",
        _ENVELOPE,
        "Non-whitespace text between turns (kept as text outside any turn).",
        "<|im_start|>user\\nhi<|im_end|>\\nstray<|im_start|>assistant\\nok<|im_end|>",
        "Put all text inside `<|im_start|>…<|im_end|>` turns.",
    ),
    _e(
        "HT006",
        "text-after-end",
        "warning",
        _ENVELOPE,
        "A completion continues after `<|im_end|>`, or contains `<|im_start|>`; the rest is not part of the message.",
        "Done.<|im_end|>\\n<|im_start|>user\\nthanks",
        "Stop generation at `<|im_end|>` (add it as a stop sequence).",
    ),
    # ---- blocks -----------------------------------------------------------------------------
    _e(
        "HT101",
        "call-unterminated",
        "recoverable",
        _BLOCKS,
        "A `<tool_call>` whose JSON is complete has no `</tool_call>` before the end of its turn or input "
        "(lenient: the call is kept; strict: it is not).",
        '<tool_call>{"name": "f", "arguments": {}}',
        "Close every call with `</tool_call>`.",
    ),
    _e(
        "HT102",
        "call-incomplete",
        "error",
        _BLOCKS,
        "A `<tool_call>` was cut off inside its JSON; the call is reported with its raw text and never executed.",
        '<tool_call>{"name": "get_weather", "arguments": {"loc',
        "Raise max_tokens, or re-ask the model; the call must not run.",
    ),
    _e(
        "HT103",
        "call-invalid-json",
        "error",
        _BLOCKS,
        "The body of a `<tool_call>` is not JSON (nor a recoverable near-JSON).",
        "<tool_call>Sure! get_weather(NYC)</tool_call>",
        'Write one JSON object `{"name": …, "arguments": {…}}` per block.',
    ),
    _e(
        "HT104",
        "call-missing-name",
        "error",
        _BLOCKS,
        "The call object has no non-empty string `name`.",
        '<tool_call>{"arguments": {"location": "NYC"}}</tool_call>',
        "Give every call a `name`.",
    ),
    _e(
        "HT105",
        "call-bad-arguments",
        "error",
        _BLOCKS,
        "`arguments` is not a JSON object (after decoding a stringified object in lenient mode).",
        '<tool_call>{"name": "f", "arguments": [1, 2]}</tool_call>',
        "Pass arguments as an object keyed by parameter name.",
    ),
    _e(
        "HT106",
        "call-empty",
        "error",
        _BLOCKS,
        "A `<tool_call>` block with an empty (or whitespace-only) body.",
        "<tool_call></tool_call>",
        "Remove the empty block or write the call.",
    ),
    _e(
        "HT107",
        "call-not-object",
        "error",
        _BLOCKS,
        "The body decodes to JSON that is not a call object (a string, number, or list of non-objects).",
        '<tool_call>"get_weather"</tool_call>',
        'Write `{"name": …, "arguments": {…}}`.',
    ),
    _e(
        "HT108",
        "call-extra-keys",
        "warning",
        _BLOCKS,
        "The call object has keys other than `name`, `arguments` (and their aliases); they are ignored.",
        '<tool_call>{"name": "f", "arguments": {}, "id": 7}</tool_call>',
        "Keep only `name` and `arguments` in the call object.",
    ),
    _e(
        "HT109",
        "arguments-before-name",
        "warning",
        _BLOCKS,
        "`arguments` comes before `name`: the call is valid, but a stream cannot announce it early.",
        '<tool_call>{"arguments": {"symbol": "TSLA"}, "name": "quote"}</tool_call>',
        "Write `name` first.",
    ),
    _e(
        "HT111",
        "reasoning-unclosed",
        "recoverable",
        _BLOCKS,
        "`<think>` or `<scratch_pad>` is not closed before the end of the turn or input; it is closed there.",
        "<think>Let me see",
        "Close reasoning with `</think>` / `</scratch_pad>`.",
    ),
    _e(
        "HT112",
        "response-unterminated",
        "recoverable",
        _BLOCKS,
        "`<tool_response>` is not closed before the end of its turn or input.",
        "<|im_start|>tool\\n<tool_response>\\n42<|im_end|>",
        "Close every result with `</tool_response>`.",
    ),
    _e(
        "HT113",
        "tools-unterminated",
        "recoverable",
        _BLOCKS,
        "`<tools>` is not closed before the end of the system turn.",
        "<|im_start|>system\\n<tools>\\n{…}<|im_end|>",
        "Close the catalogue with `</tools>`.",
    ),
    _e(
        "HT115",
        "call-duplicate-key",
        "error",
        _BLOCKS,
        "The call object has `name` or `arguments` (or an alias) more than once. JSON leaves duplicate keys "
        "undefined and readers differ (first wins, last wins): the block is an invalid call in both modes, and a "
        "stream that announced the first `name` was wrong.",
        '<tool_call>{"name": "read_file", "arguments": {}, "name": "delete_file"}</tool_call>',
        "Write each key of the call object once.",
    ),
    _e(
        "HT114",
        "block-too-large",
        "error",
        _BLOCKS,
        "A block grew past `max_block_chars`; the rest of it is kept as raw text of an invalid block.",
        '<tool_call>{"name": "f", "arguments": {"data": "…10 MB…',
        "Raise `max_block_chars`, or stop the generation.",
    ),
    _e(
        "HT121",
        "stray-closer",
        "recoverable",
        _BLOCKS,
        "A closing tag with no opener; it is kept as text.",
        'Let me look.\\n{"name": "glob", "arguments": {}}\\n</tool_call>',
        "Open the block (`<tool_call>`) or remove the closer.",
    ),
    _e(
        "HT122",
        "fabricated-response",
        "recoverable",
        _BLOCKS,
        "`<tool_response>` inside an assistant turn: the model wrote a tool result itself. Kept as text.",
        '<tool_call>{"name": "f", "arguments": {}}</tool_call><tool_response>FAKE</tool_response>',
        "Stop generation after the calls; use `stop_at_fabricated_response`.",
    ),
    _e(
        "HT123",
        "stopped-at-fabricated-response",
        "info",
        _BLOCKS,
        "Parsing stopped at a fabricated `<tool_response>`; the span covers the discarded rest.",
        "<tool_call>…</tool_call><tool_response>FAKE",
        "Nothing to fix: the continuation was discarded on request.",
    ),
    _e(
        "HT124",
        "call-in-reasoning",
        "info",
        _BLOCKS,
        "A `<tool_call>` inside reasoning stays reasoning text (`calls_in_reasoning` is off).",
        '<think>maybe <tool_call>{"name": "f", "arguments": {}}</tool_call></think>',
        "Pass `calls_in_reasoning=True` to execute calls written inside reasoning.",
    ),
    # ---- JSON body recoveries ----------------------------------------------------------------
    _e(
        "HT201",
        "recovered-stringified-arguments",
        "recoverable",
        _JSON,
        "`arguments` is a JSON string holding an object; it was decoded once.",
        '<tool_call>{"name": "f", "arguments": "{\\"a\\": 1}"}</tool_call>',
        "Write arguments as a nested object, not a string.",
    ),
    _e(
        "HT202",
        "recovered-python-literal",
        "recoverable",
        _JSON,
        "The body is a Python literal (single quotes, True/False/None); it was read safely (never eval).",
        "<tool_call>{'name': 'f', 'arguments': {'ok': True}}</tool_call>",
        "Emit JSON: double quotes, true/false/null.",
    ),
    _e(
        "HT203",
        "recovered-trailing-comma",
        "recoverable",
        _JSON,
        "A trailing comma before `}` or `]` was dropped.",
        '<tool_call>{"name": "f", "arguments": {"a": 1,}}</tool_call>',
        "Remove trailing commas.",
    ),
    _e(
        "HT204",
        "recovered-control-characters",
        "recoverable",
        _JSON,
        "Raw control characters (newline, tab, …) inside JSON strings were accepted as themselves.",
        '<tool_call>{"name": "edit", "arguments": {"content": "line1\\nline2"}}</tool_call> (raw newline)',
        "Escape control characters in strings (`\\n`).",
    ),
    _e(
        "HT205",
        "recovered-key-alias",
        "recoverable",
        _JSON,
        "`parameters` or `args` was read as `arguments`.",
        '<tool_call>{"name": "f", "parameters": {"a": 1}}</tool_call>',
        "Use the key `arguments`.",
    ),
    _e(
        "HT206",
        "recovered-call-array",
        "recoverable",
        _JSON,
        "One block holds a JSON array of calls; each element became a call.",
        '<tool_call>[{"name": "a", "arguments": {}}, {"name": "b", "arguments": {}}]</tool_call>',
        "Write one `<tool_call>` block per call.",
    ),
    _e(
        "HT207",
        "recovered-missing-arguments",
        "recoverable",
        _JSON,
        "The call has a name but no `arguments`; it was read as `{}`.",
        '<tool_call>{"name": "now"}</tool_call>',
        'Always write `"arguments": {}`.',
    ),
    _e(
        "HT208",
        "recovered-concatenated-objects",
        "recoverable",
        _JSON,
        "Several JSON objects follow each other in one block; each became a call.",
        '<tool_call>{"name": "a", "arguments": {}}{"name": "b", "arguments": {}}</tool_call>',
        "Write one `<tool_call>` block per call.",
    ),
    # ---- argument coercion (coerce_arguments=True, with tools=) ----------------------------------
    _e(
        "HT210",
        "coerced-string-to-integer",
        "recoverable",
        _COERCE,
        "The schema says integer and the value is a string holding exactly a JSON integer; it was converted.",
        '{"name": "forecast", "arguments": {"days": "7"}} with days: {"type": "integer"}',
        'Write numbers unquoted (`"days": 7`). `"7.5"` and `"07"` are never converted.',
    ),
    _e(
        "HT211",
        "coerced-string-to-number",
        "recoverable",
        _COERCE,
        "The schema says number and the value is a string holding exactly a JSON number that a float "
        "holds without loss; it was converted.",
        '{"name": "pay", "arguments": {"amount": "12.5"}} with amount: {"type": "number"}',
        "Write numbers unquoted.",
    ),
    _e(
        "HT212",
        "coerced-string-to-boolean",
        "recoverable",
        _COERCE,
        'The schema says boolean and the value is the string `"true"` or `"false"`; it was converted.',
        '{"name": "search", "arguments": {"exact": "true"}} with exact: {"type": "boolean"}',
        'Write `true`/`false` unquoted. `"yes"`, `"True"` and `"1"` are never converted.',
    ),
    _e(
        "HT213",
        "coerced-number-to-string",
        "recoverable",
        _COERCE,
        "The schema says string and the value is a number; its JSON text became the string.",
        '{"name": "lookup", "arguments": {"zip": 10001}} with zip: {"type": "string"}',
        'Quote values the schema declares as strings (`"zip": "10001"`).',
    ),
    _e(
        "HT214",
        "coerced-string-to-null",
        "recoverable",
        _COERCE,
        'The schema allows only null here and the value is the string `"null"`; it was converted.',
        '{"name": "f", "arguments": {"cursor": "null"}} with cursor: {"type": "null"}',
        "Write `null` unquoted.",
    ),
    # ---- XML bodies (`<function=…><parameter=…>`: Qwen3-Coder, Qwen3.5+, Nemotron 3, Step 3.5) ---------------
    _e(
        "HT230",
        "xml-parameter-unclosed",
        "recoverable",
        _XML,
        "A parameter has no `</parameter>`: its value ends at the next `<parameter=` that starts a line, or at the "
        "`</function>` that ends the call.",
        "<tool_call>\\n<function=book>\\n<parameter=room>\\nB12\\n<parameter=hours>\\n2\\n</parameter>\\n"
        "</function>\\n</tool_call>",
        "Close every parameter with `</parameter>`.",
    ),
    _e(
        "HT231",
        "xml-closer-drifted",
        "recoverable",
        _XML,
        "A drifted parameter closer (`</parameter1>`, `</parameter_x>`, `</parameter` without `>`) where a closer "
        "may stand was read as `</parameter>`.",
        "<tool_call>\\n<function=open>\\n<parameter=path>\\na.py\\n</parameter2>\\n</function>\\n</tool_call>",
        "Write `</parameter>` exactly.",
    ),
    _e(
        "HT232",
        "xml-tag-unterminated",
        "recoverable",
        _XML,
        "`<function=NAME` or `<parameter=KEY` has no `>`: the name ends at the end of its line.",
        "<tool_call>\\n<function=book\\n<parameter=room>\\nB12\\n</parameter>\\n</function>\\n</tool_call>",
        "Close the tag: `<function=NAME>`, `<parameter=KEY>`.",
    ),
    _e(
        "HT233",
        "xml-function-unclosed",
        "recoverable",
        _XML,
        "A function has no `</function>` before `</tool_call>` (or before the next `<function=`); it ends there. "
        "A body that stops inside a function without `</tool_call>` was cut off (`HT102`).",
        "<tool_call>\\n<function=f>\\n<parameter=a>\\n1\\n</parameter>\\n</tool_call>",
        "Close every function with `</function>`.",
    ),
    _e(
        "HT234",
        "xml-bare-function",
        "recoverable",
        _XML,
        "A bare `<function=NAME>…</function>` in assistant text, outside any `<tool_call>`, was read as a call "
        "(every dialect; in a JSON-body dialect with `HT238` too). Only a complete one counts: its tags whole, "
        "nothing but parameters inside, its `</function>` before any `<function=`, `<tool_call>` or control "
        "token, within `max_block_chars`; a `</tool_call>` after it (and whitespace) is part of it. Anything "
        "else, such as prose that mentions `<function=`, stays text.",
        "<function=book>\\n<parameter=room>\\nB12\\n</parameter>\\n</function>",
        "Wrap each call in `<tool_call>`…`</tool_call>`.",
    ),
    _e(
        "HT235",
        "xml-closer-repeated",
        "recoverable",
        _XML,
        "A `</parameter>` or `</function>` where nothing is open (a duplicate closer) was dropped.",
        "<tool_call>\\n<function=w>\\n<parameter=city>\\nParis\\n</parameter>\\n</parameter>\\n</function>\\n"
        "</tool_call>",
        "Write each closer once.",
    ),
    _e(
        "HT236",
        "xml-stray-text",
        "recoverable",
        _XML,
        "Text inside a function, or after it inside the block, that is in no parameter was ignored (it is kept in "
        "the call's `raw`).",
        "<tool_call>\\n<function=f>\\nLet me think.\\n<parameter=a>\\n1\\n</parameter>\\n</function>\\n</tool_call>",
        "Write only parameters inside a function.",
    ),
    _e(
        "HT237",
        "xml-several-functions",
        "recoverable",
        _XML,
        "One `<tool_call>` block holds several `<function=…>`; each became a call.",
        "<tool_call>\\n<function=a>\\n</function>\\n<function=b>\\n</function>\\n</tool_call>",
        "Write one `<tool_call>` block per call.",
    ),
    _e(
        "HT238",
        "body-kind-mismatch",
        "recoverable",
        _XML,
        "A `<tool_call>` body is not of the dialect's kind (an XML body in a JSON-body dialect, or JSON in an "
        "XML-body one); it was read by what it starts with (`{` JSON, `<function=` XML).",
        '<tool_call>\\n{"name": "f", "arguments": {}}\\n</tool_call> with dialect="qwen3.5"',
        "Pick the dialect the model was trained on (`detect_dialect`), or keep the model to its format.",
    ),
    _e(
        "HT239",
        "xml-value-untyped",
        "warning",
        _XML,
        "The schema of a parameter allows no type that reads its value (`abc` for an integer); the value is kept "
        "as the string, as written, and the message names the parameter.",
        '<parameter=days>\\nthree\\n</parameter> with days: {"type": "integer"}',
        "Write the value as the type the schema declares (`True`/`False`/`None` and JSON are read).",
    ),
    _e(
        "HT240",
        "xml-value-repaired",
        "recoverable",
        _XML,
        "An object or array value was written as a Python literal (`{'k': True}`) or near-JSON (a trailing comma); "
        "it was read safely (never eval).",
        '<parameter=opts>\\n{\'recursive\': True}\\n</parameter> with opts: {"type": "object"}',
        "Write objects and arrays as JSON.",
    ),
    _e(
        "HT242",
        "call-in-unclosed-reasoning",
        "recoverable",
        _XML,
        "The output ended inside a reasoning block never closed, with call blocks after its last text (the "
        "model ended its turn with the call and never wrote `</think>`): each block closed and holding a call "
        "was read as a call, and the reasoning ends before them, when the run from the first block's tag to "
        "the end fits in one block's room, `max_block_chars` plus the two tags (every dialect, "
        "`calls_in_reasoning` off; with it on they are calls anyway). A call inside a closed reasoning "
        "block stays reasoning (`HT124`).",
        "<think>\\nI will look it up.\\n<tool_call>\\n<function=search>\\n</function>\\n</tool_call>",
        "Close reasoning before calling, or stop generation at `</tool_call>`.",
    ),
    _e(
        "HT243",
        "xml-literal-closer",
        "info",
        _XML,
        "A `</parameter>` or `</function>` inside a value, where no closer may stand (what follows it is not a "
        "parameter, a function end or the block end), is value text: code that contains these strings survives.",
        '<parameter=code>\\nprint("</parameter>")\\n</parameter>',
        "Nothing to fix; the value is read as written.",
    ),
)



def assemble(*tables: Iterable[Entry]) -> dict[str, Entry]:
    """The catalogue of the declared tables, by code.

    Raises:
        UsageError: two different entries have one code (the same entry twice is fine).

    >>> len(assemble(_ENTRIES, _ENTRIES)) == len(_ENTRIES)
    True
    """
    out: dict[str, Entry] = {}
    for table in tables:
        for e in table:
            if out.setdefault(e.code, e) != e:
                raise UsageError(f"diagnostic code {e.code} declared twice")
    return out


#: Every code, from the tables that declare them: the parsing engines' (here), validation's
#: (``_validation_codes``), the dataset tools' (``_dataset_codes``) and training's (``_training_codes``).
CATALOGUE: dict[str, Entry] = assemble(_ENTRIES, _VALIDATION_ENTRIES, _DATASET_ENTRIES, _TRAINING_ENTRIES)

#: Message texts of the diagnostics both parsing engines write themselves (the JSON-body module writes
#: its own): code, or ``code:variant``, -> ``str.format`` template. One table, so the engines' messages
#: cannot drift apart (the agreement tests compare whole diagnostics).
MESSAGES: dict[str, str] = {
    "HT001": "<|im_start|> inside an open turn: the turn has no <|im_end|>",
    "HT002": "the last turn has no <|im_end|> (cut off?)",
    "HT003": "<|im_start|> is not followed by a role and a newline",
    "HT004": "unknown role {role!r}; its body is plain text",
    "HT005": "text outside any turn",
    "HT006": "the completion continues after <|im_end|> or contains <|im_start|>",
    "HT101": "<tool_call> has no </tool_call> before the end of its body",
    "HT111": "<{kind}> is not closed before the end of the body",
    "HT112": "<tool_response> has no </tool_response> before the end of its body",
    "HT113": "<tools> has no </tools> before the end of the system turn",
    "HT114": "<{tag}> block longer than max_block_chars ({limit}); cut here",
    "HT121": "stray {tag} with no opener (kept as text)",
    "HT122": "fabricated <tool_response> in an assistant body (kept as text)",
    "HT122:stop": "fabricated <tool_response> in an assistant body",
    "HT123": "parsing stopped at a fabricated <tool_response>",
    "HT124": "<tool_call> inside reasoning stays reasoning text",
    "HT234": "a complete <function=…> outside any <tool_call> block, read as a call",
    "HT242": "the output ends with a complete call inside <{kind}>, which is never closed: read as a call",
    "no-call": "no call in the block",
    # HT301 is validation's code (_validation_codes.py); the parse-time tools policy words it the same way
    "HT301": "tool {name!r} is not declared (declared: {known})",
    "HT301:text": "tool {name!r} is not declared (declared: {known}); the block is kept as text",
    "HT301:drop": "tool {name!r} is not declared (declared: {known}); the call is dropped",
    "HT21x": "{tool}: arguments{path}: {what} (schema type {want})",
}


def message(key: str, **fields: object) -> str:
    """The message text of an engine diagnostic (``key`` is a code or ``code:variant``).

    >>> message("HT121", tag="</think>")
    'stray </think> with no opener (kept as text)'
    """
    return MESSAGES[key].format(**fields)


def entry(code: str) -> Entry:
    """The catalogue row of ``code``.

    Raises:
        UsageError: the code is not in the catalogue.

    >>> entry("HT102").name
    'call-incomplete'
    """
    try:
        return CATALOGUE[code]
    except KeyError:
        raise UsageError(f"unknown diagnostic code {code!r}") from None


def severity_of(code: str, *, strict: bool) -> Severity:
    """Severity of ``code``: recoverable codes are warnings in lenient mode and errors in strict mode.

    >>> severity_of("HT203", strict=False), severity_of("HT203", strict=True)
    ('warning', 'error')
    """
    kind = entry(code).kind
    if kind == "recoverable":
        return "error" if strict else "warning"
    return kind


def make(code: str, message: str, span: Span, *, strict: bool, hint: str | None = None) -> Diagnostic:
    """Build a diagnostic with the catalogue severity for the mode.

    >>> make("HT121", "stray </tool_call>", Span(start=0, end=12, line=1, column=1), strict=False).severity
    'warning'
    """
    return Diagnostic(code=code, severity=severity_of(code, strict=strict), message=message, span=span, hint=hint)
