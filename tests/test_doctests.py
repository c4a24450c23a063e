"""The ``>>>`` examples in the library's docstrings run and hold."""

from __future__ import annotations

import doctest
import importlib
import pkgutil
import warnings

import pytest

import hermes_toolcall
from hermes_toolcall.integrations import ExtraMissing

MODULES = sorted(
    m.name
    for m in pkgutil.walk_packages(hermes_toolcall.__path__, "hermes_toolcall.")
    if not m.name.endswith("__main__")  # running it would start the command line
)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    try:
        module = importlib.import_module(name)
    except ExtraMissing as exc:  # an integration whose server is not installed here (tests/integrations/ run it)
        pytest.skip(str(exc))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # hypothesis warns about .example() outside tests
        result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} docstring example(s) failed in {name}"
