"""The defect matrix on a small slice: the synthetic target with every variant."""

from __future__ import annotations

from sscbench.audit.defects import VARIANTS, variant_infos
from sscbench.audit.matrix import TargetRun, run_matrix
from sscbench.audit.synthetic import SyntheticTarget


def test_catalogue_has_seven_classes_and_at_least_21_variants() -> None:
    infos = variant_infos()
    assert len(infos) == len(VARIANTS) >= 21
    assert len({i.defect_class for i in infos}) == 7
    assert len({i.variant for i in infos}) == len(infos)


def test_synthetic_matrix_detects_every_distinguishable_combination() -> None:
    target = SyntheticTarget()
    record = run_matrix([TargetRun("synthetic", target, target.default_tasks())])
    by = {c.variant: c for c in record.combinations}
    assert record.base_violations == {"synthetic": []}  # specificity: the base is clean
    assert record.missed == []
    d, n = record.detected_of_distinguishable
    assert d == n >= 20
    # Unresolved is never counted as equivalent: it stays in the conservative denominator.
    unresolved = [c for c in record.combinations if c.distinguishable == "unresolved"]
    assert record.detected_of_all == (d, len(VARIANTS)) and len(unresolved) == len(VARIANTS) - n
    assert by["solved-when-grading-raises"].detected_by == ["INV-4"]
    assert by["verdict-cached-per-task"].detected_by == ["INV-3"]
    assert by["raw-substring"].detected_by == ["CTL-3"]
    assert "INV-5" in by["replay-recorded-as-agent-actions"].detected_by
    rows = {r.defect_class: r for r in record.classes}
    assert rows["module_cache"].necessary == ["INV-3"]
    assert "INV-4" in rows["always_pass"].necessary
