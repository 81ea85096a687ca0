"""Suite-wide settings."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _no_heartbeat(monkeypatch: pytest.MonkeyPatch) -> None:
    """No progress lines from the CLI under test (they would be a second line after a
    one-line error); tests/cli/test_terminal_output.py turns them back on."""
    monkeypatch.setenv("SSCBENCH_HEARTBEAT", "off")
