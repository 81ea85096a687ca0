"""The synthetic paper-sized label set: seeded, well-formed, and analysable within budget."""

from __future__ import annotations

import time

import pytest

from sscbench.analysis.quantities import analyze_all
from sscbench.analysis.synthetic import PAPER_RUNS, synthetic_labels
from sscbench.cases.caseset import load_case_set


def test_synthetic_labels_are_seeded_and_well_formed() -> None:
    cases = load_case_set()
    labels = synthetic_labels(cases, seed=3)
    assert len(labels) == PAPER_RUNS
    assert labels == synthetic_labels(cases, seed=3)
    assert labels != synthetic_labels(cases, seed=4)
    known = {c.entry.case_id for c in cases.cases}
    assert {label.case_id for label in labels} <= known
    assert len({(x.case_id, x.agent, x.seed) for x in labels}) == PAPER_RUNS
    assert any(x.control for x in labels)
    for x in labels:
        if x.t_s.step is not None and x.t_f.step is not None:
            assert x.t_f.step < x.t_s.step
        if x.t_u.step is not None:
            assert x.t_s.step is not None and x.t_s.step <= x.t_u.step
            assert x.adopted is True
    with pytest.raises(ValueError, match="can be scheduled"):
        synthetic_labels(cases, runs=10_000)


def test_paper_sized_analysis_is_fast() -> None:
    cases = load_case_set()
    labels = synthetic_labels(cases)
    started = time.perf_counter()
    results = analyze_all(labels, cases)
    elapsed = time.perf_counter() - started
    assert sum(f.scheduled for f in results["all_repetitions"].funnel) == PAPER_RUNS
    # P5 target is 5 s for all of it; benchmarks/analysis.py measures it properly (~1 s).
    assert elapsed < 5.0
