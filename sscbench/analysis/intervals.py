"""95% intervals for proportions: Wilson, or a cluster bootstrap over entity clusters.

docs/measurement.md §6: Wilson when each contributing cluster gives one run, otherwise a cluster
bootstrap (B = 2000). Runs of one entity cluster (one reservation, one order item, one
user) are not independent — repetitions of a case, a case and its target-value control, two cases on
the same reservation — so their intervals must resample whole clusters; treating them as
independent Bernoulli draws would make the interval too narrow.

The Wilson interval needs only the normal quantile, which the standard library provides
(:class:`statistics.NormalDist`), so no statistics package is required; it is tested
against published values. The bootstrap is vectorised with numpy (one ``B × k`` index
draw, no Python loop over replicates) and seeded per rate: each rate gets its own
generator derived from the analysis seed and a stable key, so an interval does not depend
on which other rates were computed before it, or in which order.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from statistics import NormalDist

import numpy as np
import numpy.typing as npt

from sscbench.analysis.results import Interval, Rate

LEVEL = 0.95
DEFAULT_REPLICATES = 2000


def _z(level: float) -> float:
    """Two-sided standard normal quantile (1.959964 for 95%)."""
    if not 0.0 < level < 1.0:
        raise ValueError(f"confidence level must be in (0, 1), not {level}")
    return NormalDist().inv_cdf(0.5 + level / 2)


def wilson(successes: int, n: int, level: float = LEVEL) -> tuple[float, float]:
    """Wilson score interval for ``successes`` out of ``n`` independent trials.

    Chosen over the Wald interval because it keeps its coverage near 0 and 1 and never
    leaves [0, 1] — the rates reported here are often 0/k or k/k.
    """
    if n <= 0:
        raise ValueError("the Wilson interval needs at least one trial")
    if not 0 <= successes <= n:
        raise ValueError(f"successes must be in [0, {n}], not {successes}")
    z = _z(level)
    p = successes / n
    z2n = z * z / n
    centre = (p + z2n / 2) / (1 + z2n)
    half = z * math.sqrt(p * (1 - p) / n + z2n / (4 * n)) / (1 + z2n)
    # Exact 0 and 1 at the boundaries (the formula gives them up to rounding error).
    low = 0.0 if successes == 0 else max(0.0, float(centre - half))
    high = 1.0 if successes == n else min(1.0, float(centre + half))
    return low, high


def cluster_bootstrap(
    numerators: Sequence[int] | npt.NDArray[np.int64],
    denominators: Sequence[int] | npt.NDArray[np.int64],
    *,
    rng: np.random.Generator,
    replicates: int = DEFAULT_REPLICATES,
    level: float = LEVEL,
) -> tuple[float, float]:
    """Percentile interval of the pooled proportion Σnum / Σden, resampling clusters.

    ``numerators[i]`` / ``denominators[i]`` are the successes and runs of cluster ``i``.
    Each replicate draws k clusters with replacement and recomputes the ratio of sums
    (the estimator the point value uses), so clusters with more runs weigh more, exactly
    as in the point estimate. All-zero or all-one data give the degenerate interval at
    the boundary: it describes the observed clusters, not certainty about the population.
    """
    num = np.asarray(numerators, dtype=np.int64)
    den = np.asarray(denominators, dtype=np.int64)
    if num.shape != den.shape or num.ndim != 1 or num.size == 0:
        raise ValueError("need one numerator and one denominator per cluster, at least one")
    if np.any(den <= 0) or np.any(num < 0) or np.any(num > den):
        raise ValueError("every cluster needs 0 <= numerator <= denominator and denominator > 0")
    if replicates < 1:
        raise ValueError("replicates must be positive")
    alpha = (1 - level) / 2
    if not 0.0 < alpha < 0.5:
        raise ValueError(f"confidence level must be in (0, 1), not {level}")
    k = num.size
    draws = rng.integers(0, k, size=(replicates, k))
    estimates = num[draws].sum(axis=1) / den[draws].sum(axis=1)
    low, high = np.quantile(estimates, [alpha, 1 - alpha])
    return float(low), float(high)


BootstrapJob = tuple[int, str, tuple[int, ...], tuple[int, ...], int, float]
"""Everything a rate's bootstrap interval depends on: seed, data key, per-cluster
numerators and denominators, replicates, level."""


def bootstrap_job(job: BootstrapJob) -> tuple[float, float]:
    """One rate's cluster-bootstrap interval (a pure function of the job)."""
    seed, key, nums, dens, replicates, level = job
    return cluster_bootstrap(
        nums, dens, rng=rate_rng(seed, key), replicates=replicates, level=level
    )


def bootstrap_jobs(jobs: list[BootstrapJob]) -> list[tuple[float, float]]:
    """Several intervals (a Ray task's share when the bootstrap fans out)."""
    return [bootstrap_job(job) for job in jobs]


@dataclass
class BootstrapBook:
    """Intervals computed elsewhere, or (``collecting``) the jobs an analysis needs.

    An analysis run under a collecting book only notes its jobs (its intervals are
    placeholders, and the result is thrown away); the jobs are computed elsewhere, all at
    once, and the same analysis run again under the filled book takes them from it — the
    same numbers the local path computes, since each interval is a function of its job."""

    known: dict[BootstrapJob, tuple[float, float]] = field(default_factory=dict)
    wanted: dict[BootstrapJob, None] = field(default_factory=dict)
    collecting: bool = False

    def interval(self, job: BootstrapJob) -> tuple[float, float]:
        """The job's interval: known, a placeholder while collecting, else computed."""
        found = self.known.get(job)
        if found is not None:
            return found
        if self.collecting:
            self.wanted[job] = None
            return (0.0, 1.0)
        return bootstrap_job(job)


BOOK: ContextVar[BootstrapBook | None] = ContextVar("sscbench_bootstrap_book", default=None)
"""The book :func:`proportion` consults (None: compute every interval here)."""


def rate_rng(seed: int, key: str) -> np.random.Generator:
    """A generator from the analysis seed and a stable hash of ``key``.

    ``zlib.crc32`` rather than ``hash`` because string hashes are salted per process.
    """
    return np.random.default_rng(np.random.SeedSequence([seed, zlib.crc32(key.encode())]))


def proportion(
    outcomes: Sequence[tuple[str, bool]],
    *,
    seed: int = 0,
    replicates: int = DEFAULT_REPLICATES,
    level: float = LEVEL,
) -> Rate:
    """A :class:`Rate` from ``(cluster, success)`` per contributing run.

    Wilson when every contributing cluster gives exactly one run, otherwise the cluster
    bootstrap. Its generator is seeded by ``seed`` and the per-cluster counts themselves,
    so the interval is a function of the seed and the data alone: two rates on the same
    runs (``A_T`` and ``A_P`` when they coincide) get the same interval, whatever order
    rates are computed in. An empty denominator is a 0/0/0 row with no value and no
    interval — shown, never dropped.
    """
    n = len(outcomes)
    successes = sum(1 for _, ok in outcomes if ok)
    if n == 0:
        return Rate(
            numerator=0,
            denominator=0,
            clusters=0,
            value=None,
            interval=Interval(low=None, high=None, method="none"),
        )
    per_cluster: dict[str, list[int]] = {}
    for cluster, ok in outcomes:
        counts = per_cluster.setdefault(cluster, [0, 0])
        counts[0] += ok
        counts[1] += 1
    k = len(per_cluster)
    if k == n:
        low, high = wilson(successes, n, level)
        interval = Interval(low=low, high=high, method="wilson")
    else:
        # Sorted, so the interval does not depend on the order the runs came in.
        names = sorted(per_cluster)
        nums = [per_cluster[c][0] for c in names]
        dens = [per_cluster[c][1] for c in names]
        data_key = ";".join(f"{c}:{per_cluster[c][0]}/{per_cluster[c][1]}" for c in names)
        job: BootstrapJob = (seed, data_key, tuple(nums), tuple(dens), replicates, level)
        book = BOOK.get()
        low, high = bootstrap_job(job) if book is None else book.interval(job)
        interval = Interval(low=low, high=high, method="cluster_bootstrap")
    return Rate(
        numerator=successes,
        denominator=n,
        clusters=k,
        value=successes / n,
        interval=interval,
    )
