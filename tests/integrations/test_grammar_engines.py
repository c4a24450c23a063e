"""grammar_export's xgrammar structural tag against the real xgrammar, in vLLM's cached venv (vLLM depends on it).

``tests/integrations/inside/check_xgrammar.py`` runs there with this checkout's ``src/`` on ``PYTHONPATH``,
as the server tests do (test_servers.py); it also puts each export through vLLM's own request validators.
"""

from __future__ import annotations

import pytest
from test_servers import _run


@pytest.mark.ci_required("the xgrammar export must be proven against the real xgrammar")
def test_xgrammar_export_in_vllm_venv() -> None:
    _run("vllm-0.33.0", "check_xgrammar.py")
