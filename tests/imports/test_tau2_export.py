"""Clean runs exported as τ² results: τ²'s own data models read the files, and
``sscbench import tau2`` replays every recorded call to the same observations and the same
grade (the round trip)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from sscbench.cases.caseset import load_case_set
from sscbench.cli.main import main
from sscbench.experiments.inline import run_case_set, run_clean_tasks

TASKS = [("airline", "7"), ("airline", "11"), ("retail", "0")]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("tau2-export") / "runs"
    run_clean_tasks(TASKS, "scripted:hasty", out)
    return out


def test_the_files_are_tau2_results_and_import_back_unchanged(
    runs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tau2.data_model.simulation import Results

    out = tmp_path / "tau2"
    assert main(["export", "tau2", str(runs), "--out", str(out)]) == 0
    files = sorted(out.glob("*.json"))
    assert [f.name for f in files] == ["scripted.hasty.airline.json", "scripted.hasty.retail.json"]
    airline = Results.model_validate_json(files[0].read_text())
    assert sorted(s.task_id for s in airline.simulations) == ["11", "7"]
    assert {t.id for t in airline.tasks} == {"7", "11"}
    ends = {
        json.loads(p.read_text().splitlines()[-1])["success"]
        for p in runs.glob("airline-*/ledger.jsonl")
    }
    assert {s.reward_info.reward == 1.0 for s in airline.simulations if s.reward_info} == ends
    imported = tmp_path / "imported"
    for path in files:
        assert main(["import", "tau2", str(path), "--out", str(imported)]) == 0
    records = [json.loads(p.read_text()) for p in imported.glob("*/import.json")]
    assert len(records) == len(TASKS)
    for record in records:
        assert record["differences"] == [] and record["identical"] == record["observations"] > 0
        assert record["replayed_success"] == (record["recorded_reward"] == 1.0)


def test_faulted_runs_are_left_out(tmp_path: Path) -> None:
    case_set = load_case_set(None)
    one = dataclasses.replace(case_set, cases=case_set.cases[:1])
    run_case_set(one, ["scripted:gold"], tmp_path)
    assert main(["export", "tau2", str(tmp_path), "--out", str(tmp_path / "out")]) == 2
