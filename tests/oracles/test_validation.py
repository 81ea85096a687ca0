"""Validation against the scripted truth: Table III(b) and offline Table V."""

from __future__ import annotations

from pathlib import Path

from sscbench.oracles.dataset import ledgers
from sscbench.oracles.validation import (
    COMPARISON_FILE,
    SHOWN,
    ComparisonRecord,
    truth_references,
    validate_against_truth,
)
from sscbench.reconstruct.label import label_dir
from sscbench.reconstruct.validate import validate_dir
from sscbench.review.compare import compare_with_reference


def test_comparison_matches_the_ground_truth_validation(oracle_runs: Path, tmp_path: Path) -> None:
    faulted = oracle_runs / "faulted"
    labels = label_dir(faulted)
    result = validate_against_truth(faulted, [oracle_runs / "clean"], labels, tmp_path / "eval")
    agreement, _ = validate_dir(faulted, labels)
    q = result.comparison.quantities
    assert list(q) == list(SHOWN), "no T_E row against the truth stand-in"
    # Status on every triggered run; adoption on every run whose truth decides it.
    assert q["T_U status"].compared == q["T_S status"].compared == agreement.compared["t_u"]
    assert q["A"].compared == agreement.compared["adopted"]
    assert q["A"].agree == agreement.agree["adopted"]
    # The reconstruction agrees with the scripted truth on these runs (as validate_dir
    # shows), so every shown quantity agrees in full.
    assert not agreement.mismatches
    for quantity in SHOWN:
        assert q[quantity].agree == q[quantity].compared > 0, quantity
    assert result.comparison.mismatches == []
    located = sum(1 for x in labels if x.t_u.status == "found")
    assert q["T_U step"].compared <= located
    assert [r.name for r in result.results] == [
        "anomaly_detector",
        "db_invariants",
        "reconstructor",
    ]
    assert "llm_judge_l1" in result.not_run and "attribution_all_at_once" in result.not_run
    assert (tmp_path / "eval" / "scores.json").is_file()
    saved = ComparisonRecord.model_validate_json((tmp_path / "eval" / COMPARISON_FILE).read_text())
    assert saved == result.comparison


def test_a_wrong_automatic_label_is_a_disagreement(oracle_runs: Path) -> None:
    faulted = oracle_runs / "faulted"
    labels = {x.run_id: x for x in label_dir(faulted)}
    refs = truth_references(ledgers([faulted]), labels)
    adopted = next(r for r in refs if r.adopted == "yes")
    label = labels[adopted.packet_id]
    assert label.t_u.step is not None
    wrong = label.model_copy(
        update={"t_u": label.t_u.model_copy(update={"step": label.t_u.step + 1})}
    )
    before = compare_with_reference(refs, labels)
    after = compare_with_reference(refs, {**labels, adopted.packet_id: wrong})
    assert after.agree["T_U step"] == before.agree["T_U step"] - 1
    assert after.agree["T_U status"] == before.agree["T_U status"]
