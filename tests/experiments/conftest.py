"""Fixtures for experiment tests: loopback model servers, a fake key, experiment files."""

from __future__ import annotations

import importlib.util
import sys
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent


def _load_loopback() -> types.ModuleType:
    name = "sscbench_tests_loopback"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, HERE / "loopback.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


@pytest.fixture(scope="session")
def lb() -> types.ModuleType:
    """The loopback helpers (test modules cannot import each other in importlib mode)."""
    return _load_loopback()


@pytest.fixture
def server(lb: types.ModuleType) -> Iterator[Any]:
    """A loopback server: ``/lazy/...`` only closes, ``/sim/...`` is a user simulator's model,
    everything else plays the task's gold actions."""
    routes = {"/lazy": lb.TextResponder(), "/sim": lb.UserResponder(), "": lb.GoldResponder()}
    srv = lb.serve(lb.Router(routes))
    yield srv
    srv.close()


@pytest.fixture
def key(lb: types.ModuleType, monkeypatch: pytest.MonkeyPatch) -> str:
    """A fake key in a test-only variable; real provider variables removed."""
    monkeypatch.setenv(lb.KEY_ENV, lb.SECRET)
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    return str(lb.KEY_ENV)


@pytest.fixture
def write(tmp_path: Path) -> Callable[[str, str], Path]:
    """Write an experiment file into the test's directory and return its path."""

    def _write(text: str, name: str = "exp.toml") -> Path:
        path = tmp_path / name
        path.write_text(text.lstrip("\n"), encoding="utf-8")
        return path

    return _write
