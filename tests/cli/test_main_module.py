"""``python -m sscbench`` runs the same command line as the ``sscbench`` script, and both end
through ``entry``."""

from __future__ import annotations

import gc
import subprocess
import sys

import pytest

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


def test_the_script_and_python_dash_m_end_through_entry() -> None:
    """Both ways in end the process through ``entry``, which freezes what the finished
    command holds so the exit does not walk it again."""
    from importlib.metadata import entry_points
    from pathlib import Path

    import sscbench

    scripts = entry_points(group="console_scripts", name="sscbench")
    assert [e.value for e in scripts] == ["sscbench.cli.main:entry"]
    assert "sys.exit(entry())" in (Path(sscbench.__file__).parent / "__main__.py").read_text()


def test_entry_returns_mains_code_and_leaves_what_is_alive_frozen(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from sscbench.cli import main as cli_main

    monkeypatch.setattr(cli_main, "main", lambda: 3)
    gc.unfreeze()
    try:
        assert gc.get_freeze_count() == 0
        assert cli_main.entry() == 3
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
