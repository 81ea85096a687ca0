"""The misclassification-aware estimates: error rates, the corrected a_s, and refusal.

The synthetic run set (``sscbench.analysis.synthetic``) plays the *truth*; the automatic
labels the analysis reads are a corrupted copy (A flipped on chosen runs), and the
validation sample gives the truth of some runs. The numbers are hand-countable: flip
exactly ``k`` adopted runs and the sensitivity is ``1 − k / positives``.
"""

from __future__ import annotations

import random
from functools import cache

import numpy as np
import pytest

from sscbench.analysis.correction import (
    CELLS,
    MIN_PER_OPERATOR,
    Design,
    ValidationSample,
    cell,
    observed_cell,
    ppv,
    stratum_rate,
    totals,
)
from sscbench.analysis.correction_view import correction_section
from sscbench.analysis.quantities import analyze
from sscbench.analysis.results import ALL_OPERATORS, AnalysisResult
from sscbench.analysis.synthetic import synthetic_labels
from sscbench.cases.caseset import CaseSet, load_case_set
from sscbench.reconstruct.labels import RunLabels

OP = "return_date"


@cache
def _case_set() -> CaseSet:
    return load_case_set(None)


@cache
def _truth() -> tuple[RunLabels, ...]:
    return tuple(synthetic_labels(_case_set(), runs=1191, seed=3))


def _ref(label: RunLabels) -> tuple[str, str]:
    z = label.z_s if label.z_s in ("before", "after", "absent") else "out"
    a = "undecidable" if label.adopted is None else ("yes" if label.adopted else "no")
    return str(z), a


def _in_p(label: RunLabels) -> bool:
    return label.triggered is True and label.z_s in ("before", "after", "absent")


def _flip(labels: tuple[RunLabels, ...], ids: set[str]) -> list[RunLabels]:
    return [
        lab.model_copy(update={"adopted": not lab.adopted}) if lab.run_id in ids else lab
        for lab in labels
    ]


def _analyze(
    labels: list[RunLabels], refs: dict[str, tuple[str, str]], every: bool = False
) -> AnalysisResult:
    sample = ValidationSample("review", "test sample", refs)
    variant = "all_repetitions" if every else "primary"
    return analyze(labels, _case_set(), validation=sample, replicates=400, sensitivity=variant)


def _row(result: AnalysisResult, op: str, conf: str, stratum: str):  # type: ignore[no-untyped-def]
    return next(
        r
        for r in result.corrected
        if r.operator == op and r.configuration == conf and r.stratum == stratum
    )


def test_cells_are_distinct_and_cover_every_label() -> None:
    refs = {cell(z, a) for z in ("before", "after", "absent", "out") for a in (True, False, None)}
    assert refs == set(range(CELLS))
    auto = {observed_cell(z, a) for z in ("before", "after", "absent", None) for a in (True, False)}
    assert len(auto) == 7  # six decided cells of P and "other"
    assert observed_cell("before", None) == observed_cell(None, True) == 6


def test_double_sampling_by_hand() -> None:
    # One configuration, one cluster. Unvalidated: 100 runs labelled before/yes, 50
    # before/no. Validated: in before/yes 8 truly before/yes and 2 truly before/no; in
    # before/no 10 truly before/no.
    by, bn = observed_cell("before", True), observed_cell("before", False)
    x = np.zeros((1, 2, CELLS + 1), dtype=np.int64)
    x[0, 0, cell("before", True)] = 8
    x[0, 0, cell("before", False)] = 2
    x[0, 0, CELLS] = 100
    x[0, 1, cell("before", False)] = 10
    x[0, 1, CELLS] = 50
    design = Design(x, np.zeros(2, dtype=np.int64), np.array([by, bn]), 1)
    table = ppv(design.clusters.sum(axis=0).astype(np.float64), design.cells)
    assert table[by, cell("before", True)] == pytest.approx(0.8)
    assert table[observed_cell("after", True)].sum() == 0
    share, den = stratum_rate(totals(design)[0], 0)
    # before/yes: 8 + 100·0.8 = 88; before/no: 2 + 10 + 100·0.2 + 50 = 82
    assert float(den) == pytest.approx(170)
    assert float(share) == pytest.approx(88 / 170)


def test_weights_undo_an_uneven_sample() -> None:
    # Two configurations share cell before/yes: in "a" 10 of 100 runs are validated (5
    # truly yes), in "b" 10 of 10 (all yes). Unweighted, the PPV would be 15/20; weighted
    # by N/m it is (10·5 + 1·10) / (10·10 + 1·10) = 60/110.
    by = observed_cell("before", True)
    x = np.zeros((1, 2, CELLS + 1), dtype=np.int64)
    x[0, 0, cell("before", True)] = 5
    x[0, 0, cell("before", False)] = 5
    x[0, 0, CELLS] = 90
    x[0, 1, cell("before", True)] = 10
    table = ppv(x.sum(axis=0).astype(np.float64), np.array([by, by]))
    assert table[by, cell("before", True)] == pytest.approx(60 / 110)


def test_error_rates_count_the_flips() -> None:
    truth = _truth()
    ops = [lab for lab in truth if lab.operator == OP and _in_p(lab) and lab.adopted is not None]
    positives = [lab.run_id for lab in ops if lab.adopted]
    negatives = [lab.run_id for lab in ops if not lab.adopted]
    flipped = set(positives[:3]) | set(negatives[:1])
    refs = {lab.run_id: _ref(lab) for lab in truth}
    result = _analyze(_flip(truth, flipped), refs, every=True)
    row = next(r for r in result.error_rates if r.operator == OP)
    assert row.sufficient
    # every run is validated: all weights are 1, so the shares are the counts
    assert row.sensitivity.denominator >= 3 and row.sensitivity.numerator == (
        row.sensitivity.denominator - 3
    )
    assert row.specificity.numerator == row.specificity.denominator - 1
    assert row.sensitivity.value == pytest.approx(
        row.sensitivity.numerator / row.sensitivity.denominator
    )


def test_fully_validated_runs_report_their_reference() -> None:
    truth = _truth()
    adopted = [lab.run_id for lab in truth if _in_p(lab) and lab.adopted]
    flipped = set(random.Random(1).sample(adopted, len(adopted) // 3))
    corrupted = _flip(truth, flipped)
    result = _analyze(corrupted, {lab.run_id: _ref(lab) for lab in truth})
    plain = analyze(list(truth), _case_set(), replicates=50)
    checked = 0
    for row in plain.adoption:
        for stratum, rate in (("before", row.a_before), ("after", row.a_after)):
            got = _row(result, row.operator, row.configuration, stratum)
            if rate.value is None:
                continue
            assert got.status == "corrected"
            assert got.value == pytest.approx(rate.value)
            assert got.low is not None and got.high is not None
            assert got.low <= got.value <= got.high
            checked += 1
    assert checked > 10
    # ...while the uncorrected figure is the corrupted labels' own, lower
    pooled = [r for r in result.corrected if r.operator == ALL_OPERATORS and r.value]
    assert any(r.uncorrected is not None and r.uncorrected < r.value - 0.05 for r in pooled)


def test_a_validated_half_pulls_the_estimate_to_the_truth() -> None:
    truth = _truth()
    rnd = random.Random(7)
    in_p = [lab for lab in truth if _in_p(lab) and lab.adopted is not None]
    flipped = {lab.run_id for lab in in_p if lab.adopted and rnd.random() < 0.3}
    refs = {lab.run_id: _ref(lab) for lab in truth if rnd.random() < 0.5}
    result = _analyze(_flip(truth, flipped), refs, every=True)
    plain = analyze(list(truth), _case_set(), replicates=50, sensitivity="all_repetitions")
    errors_corrected, errors_naive = [], []
    for row in plain.adoption:
        for stratum, rate in (("before", row.a_before), ("after", row.a_after)):
            got = _row(result, row.operator, row.configuration, stratum)
            if got.status != "corrected" or rate.value is None or got.value is None:
                continue
            assert got.uncorrected is not None
            errors_corrected.append(abs(got.value - rate.value))
            errors_naive.append(abs(got.uncorrected - rate.value))
    assert len(errors_corrected) >= 4
    assert np.mean(errors_corrected) < 0.5 * np.mean(errors_naive)


def test_a_small_sample_is_said_and_the_uncorrected_figure_kept() -> None:
    truth = _truth()
    refs = {lab.run_id: _ref(lab) for lab in truth if lab.operator == OP and _in_p(lab)}
    refs = dict(list(refs.items())[: MIN_PER_OPERATOR - 1])
    result = _analyze(list(truth), refs)
    rows = [r for r in result.corrected if r.operator == OP]
    assert rows and all(r.status == "too_small" and r.value is None for r in rows)
    assert all(r.warning and "too small" in r.warning for r in rows)
    assert any(r.uncorrected is not None for r in rows)
    assert not next(r for r in result.error_rates if r.operator == OP).sufficient
    html = correction_section(result)
    assert "too small" in html and "uncorrected figure shown" in html


def test_without_a_sample_nothing_is_corrected_and_the_report_says_so() -> None:
    result = analyze(list(_truth()), _case_set(), replicates=50)
    assert result.validation is None and result.corrected == () and result.error_rates == ()
    assert "no validation sample was given" in correction_section(result)


def test_the_correction_is_seeded() -> None:
    truth = _truth()
    refs = {lab.run_id: _ref(lab) for lab in truth if random.Random(lab.run_id).random() < 0.5}
    a = _analyze(list(truth), refs)
    b = _analyze(list(truth), refs)
    assert a.model_dump_json() == b.model_dump_json()


def test_a_sample_of_the_least_confident_runs_corrects_nothing() -> None:
    truth = _truth()
    refs = {lab.run_id: _ref(lab) for lab in truth}
    sample = ValidationSample("review", "least confident", refs, random=False)
    result = analyze(list(truth), _case_set(), validation=sample, replicates=50)
    # a stratum without runs (InvariantBreak's single case) has nothing to correct either
    rows = [r for r in result.corrected if r.status != "no_runs"]
    assert rows and all(r.status == "too_small" for r in rows)
    assert all(r.warning and "not a random sample" in r.warning for r in rows)
    assert all(r.value is None for r in result.corrected)
