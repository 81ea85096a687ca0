"""The simulation study, small: the corrected interval covers the truth, the naive one not.

``benchmarks/correction_coverage.py`` runs it at 1,000 replications; here 150 keep it
fast, so the bounds are loose (a coverage of 0.95 over 150 replications has a standard
error near 0.018).
"""

from __future__ import annotations

from functools import cache

import numpy as np

from sscbench.analysis.correction_study import CoverageRow, Scenario, coverage, replicate

SCENARIO = Scenario("test", runs=240, validated=80)


@cache
def _rows() -> dict[str, CoverageRow]:
    return {r.stratum: r for r in coverage(SCENARIO, 150, seed=1, replicates=200)}


def test_the_corrected_interval_covers_and_is_unbiased() -> None:
    for row in _rows().values():
        assert row.corrected_replications == row.replications
        assert row.corrected_coverage is not None and row.corrected_coverage >= 0.9
        assert row.corrected_bias is not None and abs(row.corrected_bias) < 0.02


def test_the_naive_interval_does_not_where_the_labeller_errs() -> None:
    absent = _rows()["absent"]
    assert absent.naive_bias < -0.04  # adopters read as non-adopters, and strata mixed
    assert absent.corrected_coverage is not None
    assert absent.naive_coverage < absent.corrected_coverage - 0.05


def test_a_replication_is_seeded() -> None:
    a = replicate(SCENARIO, np.random.default_rng(9), 100)
    b = replicate(SCENARIO, np.random.default_rng(9), 100)
    assert a == b
