"""Fixtures for the managed local server: a stand-in server script (no extra needed) and,
for the ``local_server`` tests, the real llama.cpp server with the packaged SmolLM2."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from sscbench.llm import local_server

STAND_IN = Path(__file__).with_name("stand_in_server.py")


@pytest.fixture
def logs(tmp_path: Path) -> Iterator[Path]:
    """Server logs go here; every server the test started is stopped afterwards."""
    directory = tmp_path / "server-logs"
    local_server.keep_logs_in(directory)
    yield directory
    local_server.stop_all()
    local_server.keep_logs_in(None)


@pytest.fixture
def stand_in(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, logs: Path) -> Path:
    """Managed servers run the stand-in script; returns a (fake) .gguf file to serve."""
    monkeypatch.setattr(local_server, "SERVER_MODULE", str(STAND_IN))
    model = tmp_path / "tiny.gguf"
    model.write_bytes(b"GGUF")
    return model
