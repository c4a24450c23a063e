"""The command line on any input: a documented exit status, one line per failure, never a traceback.

Issue 10 (totality) covers the CLI too: whatever bytes arrive, each subcommand ends with one of the
statuses ``main`` documents (0 success, 1 errors found, 2 usage or input error, 3 the tool failed,
130 interrupted), and the status agrees with what the library says about the same text. Status 3 is
reserved for the tool's own failures (an ``InternalError``, a bug, output that cannot be written), so
it never comes from input.
"""

from __future__ import annotations

import contextlib
import io
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import given
from hypothesis import strategies as st

import hermes_toolcall as ht
from hermes_toolcall import _jsonio as jsonio
from hermes_toolcall import cli as cli_pkg
from hermes_toolcall.cli import EXIT_FAILED, EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, main
from hermes_toolcall.errors import GrammarBug, ParseError
from hermes_toolcall.testing import adversarial_texts, completions, rendered_transcripts


@contextlib.contextmanager
def _workdir() -> Iterator[Path]:
    with tempfile.TemporaryDirectory() as tmp:
        yield Path(tmp)


def _has_pyarrow() -> bool:
    """Whether Parquet can be read here (a [test]-only install, the README's set-up, has no pyarrow)."""
    try:
        import pyarrow.parquet  # noqa: F401
    except ImportError:
        return False
    return True


def run(argv: list[str], stdin: bytes = b"") -> tuple[int, str, str]:
    """``main(argv)`` in this process, with ``stdin`` as standard input; returns (status, out, err)."""
    out, err = io.StringIO(), io.StringIO()
    fake_in = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
    with mock.patch.object(sys, "stdin", fake_in), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(argv)
    return status, out.getvalue(), err.getvalue()


def _first_bad_byte(data: bytes) -> int | None:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return exc.start
    return None


def _texts() -> st.SearchStrategy[str]:
    return st.one_of(adversarial_texts(), completions(), rendered_transcripts(), st.text(max_size=60))


def _encode(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")  # a lone surrogate gives bytes that are not UTF-8


def _inputs() -> st.SearchStrategy[bytes]:
    """Bytes as they come: UTF-8 texts (CRLF too), cut anywhere, with a stray invalid byte, or noise."""

    @st.composite
    def cut(draw: st.DrawFn) -> bytes:
        data = _encode(draw(_texts()))
        if draw(st.booleans()):
            data = data.replace(b"\n", b"\r\n")
        if data and draw(st.booleans()):
            data = data[: draw(st.integers(0, len(data)))]  # may cut a multi-byte character
        if draw(st.integers(0, 4)) == 0:
            at = draw(st.integers(0, len(data)))
            data = data[:at] + draw(st.sampled_from([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\x00"])) + data[at:]
        return data

    array = st.sampled_from([b"[", b"[]", b' [\n  {"messages": []}\n]', b"[INST] hi [/INST]"])
    return st.one_of(cut(), st.binary(max_size=80), array)


def _assert_one_line_error(err: str) -> None:
    assert "Traceback" not in err, err
    last = err.rstrip("\n").rsplit("\n", 1)[-1]
    assert last.startswith("hermes-toolcall: error: "), err


def _check_parse(argv: list[str], data: bytes, strict_parse: Callable[[str], object]) -> list[str]:
    """Run ``argv`` lenient and ``--strict`` on ``data``; check the statuses against ``strict_parse``.

    Returns the standard output of the runs that exited 0."""
    bad = _first_bad_byte(data)
    ok_outs: list[str] = []
    for strict in (False, True):
        status, out, err = run([*argv, *(["--strict"] if strict else [])], data)
        if bad is not None:
            assert status == EXIT_USAGE and out == "", err
            _assert_one_line_error(err)
            assert f"is not UTF-8 (byte {bad})" in err
            continue
        assert "Traceback" not in err
        expected = EXIT_OK
        if strict:
            try:
                strict_parse(data.decode("utf-8"))
            except ParseError:
                expected = EXIT_FINDINGS
        assert status == expected, (strict, err)
        if status == EXIT_OK:
            ok_outs.append(out)
    return ok_outs


@given(data=_inputs(), use_stdin=st.booleans())
def test_parse_transcript_status_is_the_librarys_verdict(data: bytes, use_stdin: bool) -> None:
    """``parse``: 0 on any UTF-8 text, 1 under ``--strict`` exactly when the strict parse raises, 2 on bytes
    that are not UTF-8 (naming the first bad byte); never 3."""
    with _workdir() as tmp:
        path = tmp / "in.txt"
        path.write_bytes(data)
        _check_parse(["parse", "-" if use_stdin else str(path)], data, lambda t: ht.parse_transcript(t, strict=True))


@given(data=_inputs(), fmt=st.sampled_from(["json", "openai"]))
def test_parse_completion_status_is_the_librarys_verdict(data: bytes, fmt: str) -> None:
    """``parse --completion`` in every output format: the same rule as for transcripts, and the report is whole."""
    argv = ["parse", "-", "--completion", "--format", fmt]
    for out in _check_parse(argv, data, lambda t: ht.parse_completion(t, strict=True)):
        jsonio.loads(out)  # the report is whole


@given(data=_inputs(), openai=st.booleans())
def test_stream_status_and_lines(data: bytes, openai: bool) -> None:
    """``stream``: 0 on UTF-8 input, 2 on bytes that are not UTF-8 (the whole input's byte offset, as ``parse``
    gives); every line written is one JSON object, also before such an error."""
    argv = ["stream", "-", *(["--format", "openai"] if openai else [])]
    status, out, err = run(argv, data)
    for line in out.split("\n")[:-1]:  # not splitlines(): U+0085 and U+2028 inside a string are no line ends
        jsonio.loads(line)
    assert out.endswith("\n") or not out
    bad = _first_bad_byte(data)
    if bad is not None:
        assert status == EXIT_USAGE, err
        _assert_one_line_error(err)
        assert f"<stdin> is not UTF-8 (byte {bad})" in err
    else:
        assert status == EXIT_OK and "Traceback" not in err, err


@given(data=_inputs())
def test_validate_status_on_any_file(data: bytes) -> None:
    """``validate`` on any readable file: findings (1) or none (0), never a usage error or a crash; the JSON
    report is whole and its error count decides the status."""
    with _workdir() as tmp:
        path = tmp / "data.jsonl"
        path.write_bytes(data)
        status, out, err = run(["validate", str(path), "--format", "json"])
    assert "Traceback" not in err, err
    if status == EXIT_USAGE:  # a compressed input cut short or corrupt (HT611), or a JSON array: input errors
        _assert_one_line_error(err)
        assert out == "", out
        if data[:1] in (b"\x1f", b"B", b"\x28", b"\xfd"):
            assert "hermes-toolcall: error: HT611 " in err, err
        elif data.startswith(b"PAR1"):  # Parquet's magic: without a Parquet file behind it, or without pyarrow
            assert ("as Parquet" in err) if _has_pyarrow() else ("needs the `parquet` extra" in err), err
        else:
            rest = data.lstrip(b"\xef\xbb\xbf \t\r\n")
            assert rest[:1] == b"[" and rest[1:].lstrip(b" \t\r\n")[:1] in (b"", b"{", b"]"), err
            assert "is one JSON array" in err
        return
    assert status in (EXIT_OK, EXIT_FINDINGS), err
    doc = jsonio.loads(out)
    errors = [d for d in doc["diagnostics"] if d["severity"] == "error"]
    assert (status == EXIT_FINDINGS) == bool(errors), (status, errors)


@given(data=_inputs(), dialect=st.sampled_from(["hermes", "qwen3"]))
def test_render_and_convert_status_on_any_file(data: bytes, dialect: str) -> None:
    """``render`` (an OpenAI request body) and ``convert`` (a transcript): 0 or 2 with one error line."""
    with _workdir() as tmp:
        path = tmp / "in"
        path.write_bytes(data)
        render = ["render", str(path), "--dialect", dialect]
        for argv in (render, ["convert", "--from", "hermes", "--to", dialect, str(path)]):
            status, _out, err = run(argv)
            assert "Traceback" not in err, (argv, err)
            assert status in (EXIT_OK, EXIT_FINDINGS, EXIT_USAGE), (argv, status, err)
            if status == EXIT_USAGE:
                _assert_one_line_error(err)


@pytest.mark.parametrize(
    "data",
    [
        "<|im_start|>user\r\nhi<|im_end|>\r\n",  # CRLF line ends
        '<tool_call>{"name": "f", "arguments": {"n": ' + "1" * 5000 + "}}</tool_call>",  # a huge integer
        '<tool_call>{"name": "f", "arguments": ' + "[" * 3000 + "]" * 3000 + "}</tool_call>",  # deep nesting
        "\ufeff<|im_start|>assistant\n\x00\ud800<|im_end|>",  # BOM, NUL, a lone surrogate (surrogatepass)
    ],
)
def test_regression_cli_nasty_inputs_get_a_status_not_a_traceback(data: str) -> None:
    """The nasty inputs of issue 10, through every reading subcommand."""
    raw = _encode(data)
    commands = (
        ["parse", "-"],
        ["parse", "-", "--completion", "--format", "openai"],
        ["stream", "-", "--format", "openai"],
    )
    for argv in commands:
        status, _out, err = run(argv, raw)
        assert "Traceback" not in err, (argv, err)
        assert status in (EXIT_OK, EXIT_USAGE), (argv, status, err)


@pytest.mark.parametrize("number", ["1e400", "-1e400", "9" * 5000 + ".5", "9" * 5000])
def test_regression_cli_json_reports_stay_json_beyond_the_float_range(number: str) -> None:
    """A number beyond the float range (``±inf`` in ``arguments``) was written ``Infinity`` by ``parse --format
    json`` and ``null`` by ``stream``: neither is the value, the first is not JSON. Both now write ``±1e999``
    (valid JSON that decodes to ``±inf``), and integers keep every digit."""
    body = '<tool_call>\n{"name": "f", "arguments": {"v": ' + number + "}}\n</tool_call>"
    expected = ht.parse_completion(body).parts[0].arguments["v"]  # type: ignore[union-attr]
    status, out, _err = run(["parse", "-", "--completion", "--format", "json"], body.encode())
    assert status == EXIT_OK and "Infinity" not in out
    assert jsonio.loads(out)["parts"][0]["arguments"]["v"] == expected
    status, out, _err = run(["stream", "-"], body.encode())
    ends = [jsonio.loads(line) for line in out.split("\n")[:-1]]
    call = next(e["call"] for e in ends if e["event"] == "tool_call_end")
    assert status == EXIT_OK and call["arguments"]["v"] == expected


def test_regression_internal_error_exits_3_not_2(monkeypatch: pytest.MonkeyPatch) -> None:
    """An ``InternalError`` (the library's own bug) is the tool failing: status 3 and an "internal error" line,
    not the usage status 2 that an ordinary ``HermesError`` gets."""
    from hermes_toolcall.cli import _parse_cmd

    def broken(*_args: object, **_kwargs: object) -> object:
        raise GrammarBug("the parser's tables disagree (planted by the test)")

    monkeypatch.setattr(_parse_cmd, "parse_completion", broken)
    status, out, err = run(["parse", "-", "--completion"], b"hello")
    assert status == EXIT_FAILED and out == "", err
    assert "internal error: GrammarBug" in err and "Traceback" not in err
    monkeypatch.setenv("HERMES_TOOLCALL_TRACEBACK", "1")
    with pytest.raises(GrammarBug):
        run(["parse", "-", "--completion"], b"hello")


def test_exit_statuses_are_the_documented_ones() -> None:
    """The constants are the statuses the help text and the README state."""
    assert (EXIT_OK, EXIT_FINDINGS, EXIT_USAGE, EXIT_FAILED, cli_pkg.EXIT_INTERRUPTED) == (0, 1, 2, 3, 130)
    epilog = cli_pkg.build_parser().epilog or ""
    for status in ("0 success", "1 errors found", "2 usage or input error", "3 internal failure", "130 interrupted"):
        assert status in epilog


def test_regression_a_chatml_file_starting_with_a_bracket_is_not_a_json_array() -> None:
    """``[INST] …`` text was refused as "one JSON array": only ``[`` then ``{``, ``]`` or nothing is."""
    with _workdir() as tmp:
        path = tmp / "d.txt"
        path.write_bytes(b"[INST] hi [/INST]\n")
        status, _out, err = run(["validate", str(path)])
        assert status in (EXIT_OK, EXIT_FINDINGS) and "JSON array" not in err, err
        path.write_bytes(b'[\n  {"messages": []}\n]\n')
        status, _out, err = run(["validate", str(path)])
        assert status == EXIT_USAGE and "is one JSON array" in err, err


@given(data=_inputs(), block=st.integers(1, 9))
def test_stream_reader_decodes_across_reads_or_names_the_first_bad_byte(data: bytes, block: int) -> None:
    """``stream`` reads its input as it arrives, a few bytes at a time on a slow pipe (here 1 to 9): a UTF-8
    character split between reads is decoded whole, and bytes that are not UTF-8 give the offset of the first
    bad byte in the whole input (what ``parse`` says of the same bytes), whatever the read size."""
    from hermes_toolcall.cli._stream_cmd import read_chunks
    from hermes_toolcall.errors import UsageError

    bad = _first_bad_byte(data)
    pieces: list[str] = []
    try:
        for piece in read_chunks(io.BytesIO(data), block=block, name="<stdin>"):
            pieces.append(piece)
    except UsageError as exc:
        assert bad is not None and str(exc) == f"<stdin> is not UTF-8 (byte {bad})"
        assert data[:bad].decode("utf-8").startswith("".join(pieces))
    else:
        assert bad is None and "".join(pieces) == data.decode("utf-8")


def test_regression_parquet_magic_without_pyarrow_passes_the_any_file_property(monkeypatch: pytest.MonkeyPatch) -> None:
    """The README's test command on a `[test]`-only install failed here: the any-file property drew `PAR1` and
    expected pyarrow's "as Parquet" error, but without pyarrow the answer is the missing extra (status 2, one line).
    The property now expects what the install can do; the strategy still draws `PAR1`."""
    for name in ("pyarrow", "pyarrow.parquet"):
        monkeypatch.setitem(sys.modules, name, None)  # import fails as on a machine without the extra
    assert not _has_pyarrow()
    inner = test_validate_status_on_any_file.hypothesis.inner_test  # type: ignore[attr-defined]
    for data in (b"PAR1", b"PAR1\x00\x00junk", b"PAR1" + b"x" * 100):
        inner(data=data)


def test_regression_an_interrupted_main_gives_the_caller_its_ctrl_c_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An interrupted validate ignores a second Ctrl-C; called in-process, main() left SIGINT ignored, and every
    later child process inherited it (tests/test_validate_cli_io.py's Ctrl-C test then saw status 1)."""
    import signal

    from hermes_toolcall import dataio as hooks
    from hermes_toolcall.cli import main

    path = tmp_path / "d.jsonl"
    path.write_text('{"messages": [{"role": "user", "content": "hi"}]}\n', encoding="utf-8")

    def interrupted(*_a: object, **_k: object) -> Iterator[object]:
        raise KeyboardInterrupt
        yield

    monkeypatch.setattr(hooks, "results", interrupted)
    before = signal.getsignal(signal.SIGINT)
    assert main(["validate", str(path)]) == 130
    assert signal.getsignal(signal.SIGINT) is before
