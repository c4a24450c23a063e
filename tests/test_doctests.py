"""The ``>>>`` examples in the library's docstrings run and hold."""

from __future__ import annotations

import doctest
import importlib
import pkgutil
import warnings

import pytest

import hermes_toolcall
from helpers import GRAMMAR_EXTRA, extra_param, skip_without
from hermes_toolcall.integrations import ExtraMissing

MODULES = sorted(
    m.name
    for m in pkgutil.walk_packages(hermes_toolcall.__path__, "hermes_toolcall.")
    if not m.name.endswith("__main__")  # running it would start the command line
)


#: modules whose examples need an extra that the README's ``[test]`` does not install: the newcomer's run
#: (``.ci/newcomer.sh``) skips them; under CI, where ``.ci/run`` installs every extra, a skip fails (``ci_required``)
EXTRA_MODULES = {"hermes_toolcall.grammar_export": GRAMMAR_EXTRA}


@pytest.mark.parametrize("name", [extra_param(m, EXTRA_MODULES.get(m), m) for m in MODULES])
def test_docstring_examples(name: str) -> None:
    skip_without(EXTRA_MODULES.get(name))
    try:
        module = importlib.import_module(name)
    except ExtraMissing as exc:  # an integration whose server is not installed here (tests/integrations/ run it)
        pytest.skip(str(exc))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # hypothesis warns about .example() outside tests
        result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} docstring example(s) failed in {name}"
