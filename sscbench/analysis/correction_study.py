"""The simulation study of the corrected adoption: does its interval cover the truth?

Synthetic run sets with a known true adoption per arrival stratum, labelled by a simulated
reconstructor with known error rates, a validation sample drawn as ``review export`` draws
it (equal numbers per automatic arrival class, at random within each), and the estimator
of :mod:`sscbench.analysis.correction` — the same array functions the analysis calls —
against the uncorrected interval the report prints. ``benchmarks/correction_coverage.py``
runs it at realistic sizes; a test runs it small.

Runs of one entity cluster are correlated: each run copies its cluster's first run's true
cell with probability ``within_cluster``, else draws its own, so every run's marginal
distribution — and so the true ``a_s`` — is exactly the scenario's.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
import numpy.typing as npt

from sscbench.analysis.correction import (
    CELLS,
    O_CELLS,
    Design,
    FloatArray,
    IntArray,
    effective_wilson,
    percentile,
    stratum_clusters,
    stratum_rate,
    sufficiency,
    total_replicates,
    totals,
)
from sscbench.analysis.intervals import LEVEL, wilson

STRATA = ("before", "after", "absent")


INTERVAL = effective_wilson


@dataclass(frozen=True)
class Scenario:
    """One simulated group (an operator × configuration) and its labeller."""

    name: str
    runs: int
    validated: int
    shares: tuple[float, float, float, float] = (0.25, 0.45, 0.2, 0.1)
    """True before / after / absent / out-of-P shares."""
    adoption: tuple[float, float, float, float] = (0.3, 0.6, 0.85, 0.2)
    """True P(A = 1 | Z_S) per class (the last: among runs outside P)."""
    z_accuracy: float = 0.93
    sensitivity: float = 0.93
    specificity: float = 0.95
    undecidable: float = 0.03
    coupled: bool = True
    """A's error rates double on runs whose Z_S the labeller misread."""
    cluster_size: int = 2
    within_cluster: float = 0.5
    allocation: str = "cell"
    """``cell``: equal numbers per automatic cell (what ``review plan`` draws); ``arrival``:
    equal numbers per automatic arrival class (``review export``'s default)."""


def _z_confusion(accuracy: float) -> FloatArray:
    """P(automatic Z | true Z): errors mostly to the neighbouring class, some out of P."""
    miss = 1 - accuracy
    m = np.array(
        [
            [accuracy, 0.7 * miss, 0.0, 0.3 * miss],  # true before
            [0.45 * miss, accuracy, 0.25 * miss, 0.3 * miss],  # true after
            [0.0, 0.7 * miss, accuracy, 0.3 * miss],  # true absent
            [miss / 3, miss / 3, miss / 3, accuracy],  # true out of P
        ]
    )
    return m


def _truth(s: Scenario, rng: np.random.Generator) -> tuple[IntArray, IntArray]:
    """True (Z, A) per run and each run's cluster."""
    shares = np.asarray(s.shares)
    adoption = np.asarray(s.adoption)
    clusters = np.arange(s.runs) // s.cluster_size
    z = rng.choice(4, size=s.runs, p=shares / shares.sum())
    a = (rng.random(s.runs) < adoption[z]).astype(np.int64)
    first = np.searchsorted(clusters, clusters)  # index of each cluster's first run
    copy = rng.random(s.runs) < s.within_cluster
    z = np.where(copy, z[first], z)
    a = np.where(copy, a[first], a)
    return z * 3 + a, clusters


def _label(s: Scenario, truth: IntArray, rng: np.random.Generator) -> tuple[IntArray, IntArray]:
    """The simulated reconstructor's automatic cell (of :data:`OBSERVED`) and automatic
    arrival class (0–3, 3 out of P) per run."""
    tz, ta = truth // 3, truth % 3
    confusion = _z_confusion(s.z_accuracy)
    u = rng.random(truth.size)
    oz = (u[:, None] > np.cumsum(confusion[tz], axis=1)).sum(axis=1)
    oz = np.minimum(oz, 3)
    boost = np.where(s.coupled & (oz != tz), 2.0, 1.0)
    miss = np.where(ta == 1, 1 - s.sensitivity, 1 - s.specificity) * boost
    v = rng.random(truth.size)
    undecided = v < s.undecidable
    wrong = (v >= s.undecidable) & (v < s.undecidable + miss)
    oa = np.where(wrong, 1 - ta, ta)
    decided_cell = oz * 2 + oa
    cells = np.where((oz == 3) | undecided, O_CELLS - 1, decided_cell)
    return cells, oz


def _sample(s: Scenario, stratum: IntArray, rng: np.random.Generator) -> npt.NDArray[np.bool_]:
    """Which runs are validated: round-robin over the strata (automatic cells or arrival
    classes), at random within each, until ``s.validated`` are drawn."""
    mask = np.zeros(stratum.size, dtype=bool)
    order = [rng.permutation(np.flatnonzero(stratum == h)) for h in range(int(stratum.max()) + 1)]
    sizes = np.array([o.size for o in order])
    per = np.zeros(sizes.size, dtype=np.int64)
    left = min(s.validated, int(sizes.sum()))
    while left > 0:
        open_ = np.flatnonzero(per < sizes)
        take = min(left, open_.size)
        per[open_[:take]] += 1
        left -= take
    for h, members in enumerate(order):
        mask[members[: per[h]]] = True
    return mask


@dataclass(frozen=True)
class Replication:
    """One replication's intervals per stratum: corrected (or None when too small) and
    uncorrected."""

    corrected: list[tuple[float | None, float | None, float | None]]
    naive: list[tuple[float | None, float | None, float | None]]
    too_small: bool


def replicate(
    s: Scenario, rng: np.random.Generator, replicates: int = 1000, level: float = LEVEL
) -> Replication:
    """Simulate one run set, label it, draw the validation sample, estimate."""
    truth, clusters = _truth(s, rng)
    observed, arrival = _label(s, truth, rng)
    validated = _sample(s, observed if s.allocation == "cell" else arrival, rng)
    k = int(clusters.max()) + 1
    design = np.zeros((k, O_CELLS, CELLS + 1), dtype=np.int64)
    np.add.at(design, (clusters[validated], observed[validated], truth[validated]), 1)
    last = np.full(int((~validated).sum()), CELLS, dtype=np.int64)
    np.add.at(design, (clusters[~validated], observed[~validated], last), 1)
    d = Design(design, np.zeros(O_CELLS, dtype=np.int64), np.arange(O_CELLS), 1)
    v_cells = np.bincount(observed[validated], minlength=O_CELLS)
    u_cells = np.bincount(observed[~validated], minlength=O_CELLS)
    problem = sufficiency(
        int(validated.sum()), dict(enumerate(v_cells.tolist())), dict(enumerate(u_cells.tolist()))
    )
    point = totals(d)[0]
    reps = total_replicates(d, rng, replicates)[:, 0]
    corrected: list[tuple[float | None, float | None, float | None]] = []
    naive: list[tuple[float | None, float | None, float | None]] = []
    for si in range(3):
        value, size = stratum_rate(point, si)
        low, high = INTERVAL(
            float(value), stratum_rate(reps, si)[0], float(size), stratum_clusters(d, 0, si), level
        )
        ok = problem is None and np.isfinite(value)
        corrected.append((float(value), low, high) if ok else (None, None, None))
        yes = int((observed == si * 2 + 1).sum())
        n = yes + int((observed == si * 2).sum())
        if n and s.cluster_size == 1:
            lo, hi = wilson(yes, n, level)
            naive.append((yes / n, lo, hi))
        elif n:
            naive.append((yes / n, *_naive_bootstrap(clusters, observed, si, rng, replicates)))
        else:
            naive.append((None, None, None))
    return Replication(corrected, naive, problem is not None)


def _naive_bootstrap(
    clusters: IntArray, observed: IntArray, si: int, rng: np.random.Generator, replicates: int
) -> tuple[float | None, float | None]:
    """The report's cluster bootstrap on the automatic labels of one stratum."""
    k = int(clusters.max()) + 1
    yes = np.bincount(clusters, weights=observed == si * 2 + 1, minlength=k)
    den = yes + np.bincount(clusters, weights=observed == si * 2, minlength=k)
    keep = den > 0
    yes, den = yes[keep], den[keep]
    draws = rng.integers(0, yes.size, size=(replicates, yes.size))
    share = yes[draws].sum(axis=1) / den[draws].sum(axis=1)
    return percentile(share)


@dataclass(frozen=True)
class CoverageRow:
    """One scenario × stratum over every replication."""

    scenario: str
    stratum: str
    truth: float
    replications: int
    corrected_replications: int
    """Replications where the sample sufficed (the others show the uncorrected figure)."""
    corrected_coverage: float | None
    naive_coverage: float
    corrected_width: float | None
    naive_width: float
    corrected_bias: float | None
    naive_bias: float


def coverage(
    s: Scenario, replications: int, seed: int = 0, replicates: int = 1000
) -> list[CoverageRow]:
    """Coverage of the corrected and the uncorrected 95% interval per stratum."""
    rng = np.random.default_rng(np.random.SeedSequence([seed, replications, s.runs, s.validated]))
    results = [replicate(s, rng, replicates) for _ in range(replications)]
    rows = []
    for si, stratum in enumerate(STRATA):
        truth = s.adoption[si]
        fixed = [r.corrected[si] for r in results if r.corrected[si][0] is not None]
        plain = [r.naive[si] for r in results if r.naive[si][0] is not None]

        def cover(
            xs: list[tuple[float | None, float | None, float | None]], truth: float = truth
        ) -> list[bool]:
            return [lo is not None and hi is not None and lo <= truth <= hi for _, lo, hi in xs]

        def width(xs: list[tuple[float | None, float | None, float | None]]) -> float:
            return float(
                np.mean([hi - lo for _, lo, hi in xs if lo is not None and hi is not None])
            )

        def bias(
            xs: list[tuple[float | None, float | None, float | None]], truth: float = truth
        ) -> float:
            return float(np.mean([v - truth for v, _, _ in xs if v is not None]))

        rows.append(
            CoverageRow(
                scenario=s.name,
                stratum=stratum,
                truth=truth,
                replications=replications,
                corrected_replications=len(fixed),
                corrected_coverage=float(np.mean(cover(fixed))) if fixed else None,
                naive_coverage=float(np.mean(cover(plain))),
                corrected_width=width(fixed) if fixed else None,
                naive_width=width(plain),
                corrected_bias=bias(fixed) if fixed else None,
                naive_bias=bias(plain),
            )
        )
    return rows


def scenario_dict(s: Scenario) -> dict[str, object]:
    """The scenario's parameters (for the results file)."""
    return asdict(s)
