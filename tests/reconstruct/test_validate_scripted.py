"""Reconstruction against the scripted agents' private ground truth, end to end.

Real faulted episodes (gold, careful, hasty and mixed p=0.5 with seeds 0 and 1 on three
shipped cases per operator plus one control; see ``conftest.E2E_CASES``) are labelled from
their ledgers and compared with ``truth.jsonl``: no quantity may disagree, and the batch
must contain both adopted and non-adopted runs, so agreement is not vacuous.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from sscbench.reconstruct import label_dir, label_run
from sscbench.reconstruct.validate import QUANTITIES, ground_truth, validate_dir


def test_scripted_runs_reconstruct_without_mismatch(
    scripted_runs: Path, scripted_run_count: int
) -> None:
    agreement, runs = validate_dir(scripted_runs)
    assert runs == scripted_run_count
    assert agreement.mismatches == []
    for quantity in QUANTITIES:
        assert agreement.compared[quantity] > 0, quantity
    assert sum(agreement.undecidable.values()) <= agreement.compared["triggered"] // 10


def test_scripted_batch_is_not_vacuous(scripted_runs: Path, scripted_run_count: int) -> None:
    labels = label_dir(scripted_runs)
    assert len(labels) == scripted_run_count
    triggered = [x for x in labels if x.triggered]
    adopted = Counter(x.adopted for x in triggered if not x.control)
    assert adopted[True] >= 5 and adopted[False] >= 5, adopted
    assert any(x.triggered is False for x in labels)  # PaySource 12 is never delivered
    arrival = Counter(x.z_s for x in triggered)
    assert {"before", "absent", "none"} <= set(arrival), arrival
    assert {x.operator for x in triggered if x.adopted} == {
        "return_date",
        "item_option",
        "write_effect",
    }
    stances = Counter(x.y_end for x in triggered if x.adopted)
    assert set(stances) == {"endorse", "retract"}, stances


def test_careful_agent_never_adopts_and_sees_write_refutations_first(scripted_runs: Path) -> None:
    labels = [x for x in label_dir(scripted_runs) if x.agent == "scripted:careful"]
    assert not any(x.adopted for x in labels)
    write_effect = [x for x in labels if x.operator == "write_effect"]
    assert len(write_effect) == 3
    for x in write_effect:  # read back after the suppressed write, retried, then reported
        assert x.t_e.status == "found" and x.t_f.step is not None and x.t_e.step is not None
        assert x.t_e.step > x.t_f.step
        assert x.z_s == "before"


def test_ground_truth_agrees_with_hidden_trigger(scripted_runs: Path) -> None:
    for run_dir in sorted(p for p in scripted_runs.iterdir() if p.is_dir()):
        truth = ground_truth(run_dir)
        assert truth is not None
        labels = label_run(run_dir)
        assert labels.triggered == truth.triggered
        if truth.triggered:
            assert labels.t_f.step == truth.t_f
