"""Replay re-scoring of our own ledgers (faulted, clean, step-limited) and of τ² imports."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from sscbench.audit.rescore import rescore_directory
from sscbench.cli.main import main

CORPUS = Path(__file__).parents[1] / "fixtures" / "reconstruction_corpus" / "runs"


def _runs(out: Path) -> None:
    case = "write_effect/airline/12/4"
    for agent in ("scripted:hasty", "scripted:careful"):
        assert main(["run", "--case", case, "--agent", agent, "--out", str(out)]) == 0
    args = ["run", "--domain", "airline", "--tasks", "4", "--max-steps", "9", "--out", str(out)]
    assert main(args) == 0


def test_rescore_reproduces_our_runs_and_writes_a_new_file(tmp_path: Path) -> None:
    out = tmp_path / "runs"
    _runs(out)
    ledgers = {p: p.read_bytes() for p in out.rglob("*.jsonl")}
    assert main(["rescore", str(out)]) == 0
    record = json.loads((out / "rescore.json").read_text())
    runs = {r["run"].split("-scripted")[0]: r for r in record["runs"]}
    hasty = next(r for r in record["runs"] if "hasty" in r["run"])
    assert hasty["faulted"] and hasty["archived_success"] is False
    assert hasty["replayed_success"] is False  # replayed under the same fault plan
    assert record["unfaulted_hash_reproduced"] == [1, 1]
    assert record["step_limit_as_recorded"] == [1, 1] and "airline-4" in runs
    assert record["fidelity_failures"] == 0 and record["successes_changed"] == 0
    assert all(p.read_bytes() == b for p, b in ledgers.items())  # nothing recorded touched
    first = (out / "rescore.json").read_bytes()
    assert main(["rescore", str(out)]) == 0 and (out / "rescore.json").read_bytes() == first


def test_rescore_never_overwrites_a_different_file(tmp_path: Path) -> None:
    out = tmp_path / "runs"
    _runs(out)
    (out / "rescore.json").write_text("{}")
    assert main(["rescore", str(out)]) == 2
    assert (out / "rescore.json").read_text() == "{}"
    assert main(["rescore", str(tmp_path / "missing")]) == 2


def test_imported_tau2_runs_keep_their_archived_label_beside_the_replay(tmp_path: Path) -> None:
    for run in ("tau2.airline.19.trial0", "tau2.retail.0.trial0"):
        shutil.copytree(CORPUS / run, tmp_path / run)
    record = rescore_directory(tmp_path)
    assert {r.source for r in record.runs} == {"tau2-import"}
    by = {r.run: r for r in record.runs}
    mismatch = by["tau2.retail.0.trial0"]  # τ² recorded a pass; the replay is task 89's state
    assert mismatch.archived_success and not mismatch.replayed_success
    assert mismatch.changed and mismatch.other_task_state
    assert all(r.observations == r.observations_identical for r in record.runs)


CLOCKED = """name = "clocked"
repetitions = 1
[cases]
operators = ["expiry", "transport"]
[[configurations]]
id = "hasty"
agent = "scripted:hasty"
"""


def test_clocked_runs_replay_on_the_clock_their_ledger_records(tmp_path: Path) -> None:
    """Expiry and Transport contracts run on the virtual clock: the replay charges every
    visible item in order, as the episode did, so artifacts expire at the same steps, every
    observation and final state comes out as recorded, and no label flips. A ledger whose
    recorded times disagree with the replayed clock fails the fidelity check."""
    experiment = tmp_path / "exp.toml"
    experiment.write_text(CLOCKED, encoding="utf-8")
    out = tmp_path / "runs"
    assert main(["run", "--config", str(experiment), "--out", str(out)]) == 0
    record = rescore_directory(out)
    expiry = [r for r in record.runs if r.faulted and "/expiry" in f"/{r.run}"]
    assert len(expiry) == 30
    clocked = [r for r in record.runs if r.faulted]
    assert record.fidelity_failures == 0, [r.fidelity for r in record.runs if r.fidelity][:3]
    assert all(r.observations_identical == r.observations for r in clocked)
    assert record.successes_changed == record.failures_changed == 0
    assert sum(r.archived_success is False for r in expiry) > 0  # hasty fails some of them

    ledger = next(
        p for p in sorted(out.rglob("ledger.jsonl")) if '"vt":' in p.read_text(encoding="utf-8")
    )
    lines = ledger.read_text(encoding="utf-8").splitlines()
    at = next(i for i, line in enumerate(lines) if '"vt":' in line and '"vt":0.0' not in line)
    event = json.loads(lines[at])
    lines[at] = json.dumps({**event, "vt": event["vt"] + 1.0}, separators=(",", ":"))
    ledger.write_text("\n".join(lines) + "\n", encoding="utf-8")
    (run,) = [r for r in rescore_directory(out).runs if r.fidelity]
    assert run.fidelity == [
        f"the replayed virtual clock differs from the recorded one at step {event['step']}"
    ]
