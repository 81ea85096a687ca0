"""Real scripted runs for oracle tests: faulted runs plus clean runs of the same tasks."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from sscbench.agents.registry import make_agent
from sscbench.runs.episode import EpisodeSpec, run_episode
from sscbench.runs.layout import run_id_for
from sscbench.users import make_user

RECONSTRUCT_CONFTEST = Path(__file__).parents[1] / "reconstruct" / "conftest.py"


def _reconstruct_helpers() -> object:
    spec = importlib.util.spec_from_file_location("oracle_scripted_runs", RECONSTRUCT_CONFTEST)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def oracle_runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``faulted/``: 13 cases × 5 scripted configurations; ``clean/``: the gold agent on
    each of those cases' tasks without a fault."""
    root = tmp_path_factory.mktemp("oracle_runs")
    helpers = _reconstruct_helpers()
    helpers.run_scripted_cases(root / "faulted")  # type: ignore[attr-defined]
    tasks = sorted(
        {(c.split("/")[1], c.split("/")[2]) for c in helpers.E2E_CASES}  # type: ignore[attr-defined]
    )
    for domain, task_id in tasks:
        run_id = run_id_for(domain, task_id, "scripted:gold", 0)
        run_episode(
            EpisodeSpec(domain=domain, task_id=task_id),
            make_agent("scripted:gold"),
            make_user("scripted"),
            root / "clean" / run_id,
            run_id=run_id,
        )
    return root
