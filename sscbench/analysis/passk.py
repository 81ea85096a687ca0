"""Trial reliability: τ²'s pass^k on clean and faulted runs, and adoption^k.

τ²-bench's headline is pass^k, the chance that k independent trials of a task all
succeed. With n ≥ k trials of a unit and c successes, C(c, k) / C(n, k) is an unbiased
estimate of that chance for the unit (the fraction of the k-subsets of its trials that
all succeed); pass^k is its mean over the units with at least k trials. pass^1 is the
plain success rate.

adoption^k reads the same estimator on adoption: the chance that all k repetitions of a
case *avoid* adopting the fault, C(n − a, k) / C(n, k) with a adopted out of n
repetitions whose ``A`` is decided. A configuration whose adoption^k falls fast with k
avoids the fault by luck of the draw, not reliably.

Units: a clean task of one configuration (trials: its clean runs' seeds), or a case of
one configuration (trials: its triggered repetitions — every repetition, whatever the
analysis variant, as for the noise floor). The 95% interval resamples entity clusters
whole (clean tasks are their own clusters), with the per-unit estimates fixed; it says how
much the set of units moves the mean, not how uncertain each unit's estimate is.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from math import comb
from typing import Literal

import numpy as np

from sscbench.analysis.intervals import DEFAULT_REPLICATES, LEVEL, rate_rng
from sscbench.analysis.population import Population, Run
from sscbench.analysis.results import ALL_OPERATORS, Interval, PassKRow
from sscbench.analysis.task_success import CleanOutcomes

Unit = tuple[str, int, int]
"""(cluster, trials n, successes c) of one unit."""


def unbiased_pass_k(n: int, c: int, k: int) -> float:
    """C(c, k) / C(n, k): the share of k-subsets of the n trials that all succeed."""
    if not 0 < k <= n or not 0 <= c <= n:
        raise ValueError(f"need 0 < k <= n and 0 <= c <= n, got n={n}, c={c}, k={k}")
    return comb(c, k) / comb(n, k)


def mean_with_interval(
    values: Sequence[tuple[str, float]],
    *,
    seed: int,
    key: str,
    replicates: int = DEFAULT_REPLICATES,
    level: float = LEVEL,
) -> tuple[float | None, int, Interval]:
    """Mean of per-unit values, its cluster count, and a percentile interval from
    resampling clusters (``(cluster, value)`` per unit; each replicate's estimate is the
    mean over the units its clusters bring, as the point value)."""
    if not values:
        return None, 0, Interval(low=None, high=None, method="none")
    sums: dict[str, list[float]] = {}
    for cluster, value in values:
        acc = sums.setdefault(cluster, [0.0, 0.0])
        acc[0] += value
        acc[1] += 1
    names = sorted(sums)
    num = np.array([sums[c][0] for c in names])
    den = np.array([sums[c][1] for c in names])
    data_key = key + ";" + ";".join(f"{c}:{sums[c][0]!r}/{sums[c][1]!r}" for c in names)
    draws = rate_rng(seed, data_key).integers(0, len(names), size=(replicates, len(names)))
    estimates = num[draws].sum(axis=1) / den[draws].sum(axis=1)
    alpha = (1 - level) / 2
    low, high = np.quantile(estimates, [alpha, 1 - alpha])
    interval = Interval(low=float(low), high=float(high), method="cluster_bootstrap")
    return float(num.sum() / den.sum()), len(names), interval


def _rows(
    metric: Literal["success", "no_adoption"],
    condition: Literal["clean", "fault"],
    operator: str,
    configuration: str,
    units: Sequence[Unit],
    seed: int,
    replicates: int,
    level: float,
) -> list[PassKRow]:
    """One row per k from 1 to the most trials any unit has."""
    most = max((n for _, n, _ in units), default=0)
    out = []
    for k in range(1, most + 1):
        values = [(cl, unbiased_pass_k(n, c, k)) for cl, n, c in units if n >= k]
        value, clusters, interval = mean_with_interval(
            values,
            seed=seed,
            key=f"{metric}/{condition}/{operator}/{configuration}/{k}",
            replicates=replicates,
            level=level,
        )
        out.append(
            PassKRow(
                metric=metric,
                condition=condition,
                operator=operator,
                configuration=configuration,
                k=k,
                units=len(values),
                clusters=clusters,
                value=value,
                interval=interval,
            )
        )
    return out


def _case_units(
    runs: Iterable[Run], keep: Callable[[Run], bool], good: Callable[[Run], bool]
) -> list[Unit]:
    """Per case (one configuration): trials are its runs passing ``keep``."""
    per_case: dict[str, list[Run]] = defaultdict(list)
    for run in runs:
        if keep(run):
            per_case[run.key.case_id].append(run)
    return [
        (trials[0].cluster, len(trials), sum(good(r) for r in trials))
        for _, trials in sorted(per_case.items())
    ]


def _graded(run: Run) -> bool:
    return (
        run.adoptable and run.triggered and run.label is not None and run.label.success is not None
    )


def _solved(run: Run) -> bool:
    return run.label is not None and run.label.success is True


def _decided(run: Run) -> bool:
    return run.adoptable and run.triggered and run.adoption_decided


def _avoided(run: Run) -> bool:
    return not run.adopted


def pass_k_rows(
    every_repetition: Population,
    clean: CleanOutcomes,
    *,
    seed: int = 0,
    replicates: int = DEFAULT_REPLICATES,
    level: float = LEVEL,
) -> tuple[PassKRow, ...]:
    """pass^k of the clean runs per configuration; pass^k under fault and adoption^k per
    (operator, configuration) and per configuration with every operator pooled."""
    rows: list[PassKRow] = []
    per_conf: dict[str, list[Unit]] = defaultdict(list)
    for (configuration, domain, task_id), seeds in sorted(clean.items()):
        per_conf[configuration].append((f"{domain}/{task_id}", len(seeds), sum(seeds.values())))
    options = (seed, replicates, level)
    for configuration, units in sorted(per_conf.items()):
        rows += _rows("success", "clean", ALL_OPERATORS, configuration, units, *options)
    pooled_success: dict[str, list[Unit]] = defaultdict(list)
    pooled_adoption: dict[str, list[Unit]] = defaultdict(list)
    for operator, configuration, runs in every_repetition.groups():
        success = _case_units(runs, _graded, _solved)
        avoided = _case_units(runs, _decided, _avoided)
        rows += _rows("success", "fault", operator, configuration, success, *options)
        rows += _rows("no_adoption", "fault", operator, configuration, avoided, *options)
        pooled_success[configuration] += [(f"{operator}/{c}", n, s) for c, n, s in success]
        pooled_adoption[configuration] += [(f"{operator}/{c}", n, s) for c, n, s in avoided]
    for configuration in sorted(pooled_success):
        rows += _rows(
            "success",
            "fault",
            ALL_OPERATORS,
            configuration,
            pooled_success[configuration],
            *options,
        )
        rows += _rows(
            "no_adoption",
            "fault",
            ALL_OPERATORS,
            configuration,
            pooled_adoption[configuration],
            *options,
        )
    return tuple(rows)
