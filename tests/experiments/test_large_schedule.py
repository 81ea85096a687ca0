"""Large schedules: the engine starts runs a window at a time without deadlocking on
gates, records every run once, and resumes; simulated episodes (no τ²) keep it fast."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from sscbench.experiments import engine, load_experiment, plan_runs, run_experiment
from sscbench.experiments.executors import LocalExecutor
from sscbench.experiments.simulated import simulated_episode

Write = Callable[..., Path]


def test_a_narrow_window_gives_the_same_records_and_resumes(
    write: Write, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write(
        """
concurrency = 1
repetitions = 3
gate = "per_repetition"
[cases]
per_operator = 3
[[configurations]]
id = "hasty"
agent = "scripted:hasty"
[[configurations]]
id = "gold"
agent = "scripted:gold"
"""
    )
    experiment = load_experiment(path)
    runs = plan_runs(experiment)
    wide = run_experiment(experiment, tmp_path / "wide", executor=LocalExecutor(simulated_episode))
    monkeypatch.setattr(engine, "WINDOW_EXTRA", 0)  # 4 pending at once, ~100 runs
    narrow = run_experiment(
        experiment, tmp_path / "narrow", executor=LocalExecutor(simulated_episode)
    )
    assert len(runs) > 20 * (engine.WINDOW_PER_SLOT * experiment.concurrency)
    strip = {"ts", "ledger_sha256"}
    assert [r.model_dump(exclude=strip) for r in narrow.records] == [
        r.model_dump(exclude=strip) for r in wide.records
    ]
    states = {(r.condition, r.state, r.cause) for r in narrow.records}
    assert ("fault", "missing", "gated") in states and ("fault", "observed", None) in states
    again = run_experiment(
        experiment, tmp_path / "narrow", executor=LocalExecutor(simulated_episode)
    )
    assert again.executed == 0 and len(again.records) == len(runs)
