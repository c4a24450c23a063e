"""TRL's ``assistant_only_loss`` with ``generation_template`` and the docs' PyTorch loop, against the real TRL
and torch (CPU) in their own cached venv (``.ci/heavy-venvs.sh`` builds ``trl-1.16.0`` with torch 2.13.0, the
CPU build on this machine's disk); ``tests/integrations/inside/check_trl.py`` runs there with this checkout's
``src/`` on ``PYTHONPATH``. It skips only when the venv is absent, and CI (``ci_required``) fails that skip.
"""

from __future__ import annotations

import pytest
from test_servers import _run


@pytest.mark.ci_required("TRL's assistant_only_loss must be tested with TRL itself")
def test_trl_labels_in_trl_venv() -> None:
    _run("trl-1.16.0", "check_trl.py")
