"""Wilson against published values; the cluster bootstrap's determinism, edges and coverage."""

from __future__ import annotations

import random
import time

import numpy as np
import pytest

from sscbench.analysis.intervals import cluster_bootstrap, proportion, wilson

# Newcombe (1998), "Two-sided confidence intervals for the single proportion: comparison of
# seven methods", Stat. Med. 17:857–872, Table I, method 3 (Wilson score, no continuity
# correction), plus the textbook 0/10, 5/10 and 10/10 values (z = 1.959964).
PUBLISHED = [
    (81, 263, 0.2553, 0.3662),
    (15, 148, 0.0624, 0.1605),
    (0, 20, 0.0, 0.1611),
    (1, 29, 0.0061, 0.1718),
    (0, 10, 0.0, 0.2775),
    (5, 10, 0.2366, 0.7634),
    (10, 10, 0.7225, 1.0),
]


@pytest.mark.parametrize(("k", "n", "low", "high"), PUBLISHED)
def test_wilson_matches_published_values(k: int, n: int, low: float, high: float) -> None:
    got = wilson(k, n)
    assert got == pytest.approx((low, high), abs=5e-5)


def test_wilson_boundaries_are_exact_and_symmetric() -> None:
    assert wilson(0, 7)[0] == 0.0
    assert wilson(7, 7)[1] == 1.0
    low, high = wilson(3, 11)
    mirror = wilson(8, 11)
    assert (low, high) == pytest.approx((1 - mirror[1], 1 - mirror[0]))


@pytest.mark.parametrize(("k", "n"), [(0, 0), (-1, 5), (6, 5)])
def test_wilson_rejects_impossible_counts(k: int, n: int) -> None:
    with pytest.raises(ValueError):
        wilson(k, n)


def test_wilson_other_levels() -> None:
    # 90% Wilson for 5/10, by hand with z = 1.644854: 0.5 ± z·√(0.025 + z²/400) / (1 + z²/10).
    assert wilson(5, 10, level=0.90) == pytest.approx((0.2693, 0.7307), abs=5e-5)


def _rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


def test_bootstrap_is_deterministic_for_a_seed() -> None:
    nums, dens = [0, 1, 2, 3, 1], [1, 2, 3, 3, 2]
    a = cluster_bootstrap(nums, dens, rng=_rng(7))
    b = cluster_bootstrap(nums, dens, rng=_rng(7))
    c = cluster_bootstrap(nums, dens, rng=_rng(8))
    assert a == b
    assert a != c
    assert a[0] < 7 / 11 < a[1]


def test_bootstrap_degenerate_cases() -> None:
    assert cluster_bootstrap([0, 0, 0], [2, 1, 3], rng=_rng(0)) == (0.0, 0.0)
    assert cluster_bootstrap([2, 1, 3], [2, 1, 3], rng=_rng(0)) == (1.0, 1.0)
    # One cluster: every replicate is that cluster.
    assert cluster_bootstrap([1], [3], rng=_rng(0)) == pytest.approx((1 / 3, 1 / 3))


@pytest.mark.parametrize(
    ("nums", "dens"),
    [([], []), ([1], [0]), ([3], [2]), ([-1], [2]), ([1, 2], [2])],
)
def test_bootstrap_rejects_bad_input(nums: list[int], dens: list[int]) -> None:
    with pytest.raises(ValueError):
        cluster_bootstrap(nums, dens, rng=_rng(0))


def test_bootstrap_of_singletons_approximates_the_binomial_interval() -> None:
    # 100 clusters of one run, 50 successes: close to the Wald/Wilson half-width 0.098.
    low, high = cluster_bootstrap([1] * 50 + [0] * 50, [1] * 100, rng=_rng(1))
    assert low == pytest.approx(0.402, abs=0.02)
    assert high == pytest.approx(0.598, abs=0.02)


def test_bootstrap_is_vectorised() -> None:
    nums = list(range(30))
    dens = [30] * 30
    started = time.perf_counter()
    for seed in range(50):
        cluster_bootstrap(nums, dens, rng=_rng(seed), replicates=2000)
    assert time.perf_counter() - started < 2.0  # ~1 ms each; a Python loop would be ~100×


def test_bootstrap_coverage_on_clustered_data() -> None:
    """Clusters with their own success probability (beta-distributed around 0.3), three
    runs each: the cluster bootstrap should cover the true mean about 95% of the time,
    while the naive Wilson interval that treats runs as independent covers less."""
    rng = np.random.default_rng(2024)
    truth = 0.3
    sims, k, m = 300, 30, 3
    covered = wilson_covered = 0
    for _ in range(sims):
        p = rng.beta(truth * 2, (1 - truth) * 2, size=k)
        nums = rng.binomial(m, p)
        low, high = cluster_bootstrap(nums, [m] * k, rng=rng, replicates=1000)
        covered += low <= truth <= high
        wl, wh = wilson(int(nums.sum()), k * m)
        wilson_covered += wl <= truth <= wh
    assert 0.88 <= covered / sims <= 0.99
    assert wilson_covered < covered


def test_proportion_chooses_the_method_by_cluster_structure() -> None:
    singletons = proportion([("a", True), ("b", False), ("c", True)])
    assert (singletons.numerator, singletons.denominator, singletons.clusters) == (2, 3, 3)
    assert singletons.interval.method == "wilson"
    assert (singletons.interval.low, singletons.interval.high) == pytest.approx(wilson(2, 3))
    repeated = proportion([("a", True), ("a", False), ("c", True)])
    assert repeated.interval.method == "cluster_bootstrap"
    assert repeated.clusters == 2
    assert repeated.value == pytest.approx(2 / 3)


def test_empty_proportion_is_a_zero_row() -> None:
    empty = proportion([])
    assert (empty.numerator, empty.denominator, empty.clusters, empty.value) == (0, 0, 0, None)
    assert empty.interval.method == "none"
    assert (empty.interval.low, empty.interval.high) == (None, None)


def test_proportion_interval_depends_on_seed_and_data_only() -> None:
    draw = random.Random(11)
    outcomes = [(f"c{draw.randrange(12)}", draw.random() < 0.4) for _ in range(60)]
    shuffled = outcomes[:]
    random.Random(3).shuffle(shuffled)
    a = proportion(outcomes, seed=5)
    assert a == proportion(shuffled, seed=5)
    assert a != proportion(outcomes, seed=6)
    assert proportion(outcomes, seed=5, replicates=500).interval != a.interval
