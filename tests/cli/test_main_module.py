"""``python -m sscbench`` runs the same command line as the ``sscbench`` script."""

from __future__ import annotations

import subprocess
import sys

from sscbench import __version__


def test_python_dash_m_runs_the_cli() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "sscbench", "--version"], capture_output=True, text=True
    )
    assert done.returncode == 0 and done.stdout.strip() == f"sscbench {__version__}"
    bad = subprocess.run(
        [sys.executable, "-m", "sscbench", "no-such-command"], capture_output=True, text=True
    )
    assert bad.returncode == 2
