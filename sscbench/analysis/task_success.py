"""Task success under fault: τ²'s reward on each faulted run beside its task's clean run.

An agent that never adopts a fault because it fails every task is not robust, so adoption
is read beside task success. The reward is τ²'s basis for airline and retail (the live
final state matches the gold one and every required fact was communicated: 1, else 0),
as every run's ``run_end.success`` records it.

Which runs: the triggered, adoptable runs of the analysed population (the same runs as
``A_T``) whose success was graded. A faulted run is paired with the clean run of the same
configuration and task — the one at its own seed when there is one, else the task's clean
run at the smallest seed (the run a ``per_case`` gate read). Under a gate every faulted
run's clean twin was solved, so the clean column is 1 and the difference is the drop the
fault causes; under ``gate = "none"`` both sides vary.

The paired difference (faulted − clean, averaged over pairs) gets a percentile interval
from a bootstrap that resamples entity clusters whole, as the rates do: two cases on one
reservation are not independent pairs.

Clean outcomes come from the status files (``schedule.jsonl``) of the run directories that
hold the clean runs: the experiment's own directory, and for ``sscbench demo`` the
directory of its per-agent clean runs.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np

from sscbench.analysis.intervals import DEFAULT_REPLICATES, LEVEL, proportion, rate_rng
from sscbench.analysis.population import CONTROL_SUFFIX as CONTROL
from sscbench.analysis.population import Population, Run
from sscbench.analysis.results import ALL_OPERATORS, Interval, Rate, TaskSuccessRow
from sscbench.cases.caseset import CaseSet
from sscbench.errors import ConfigError
from sscbench.records.ledger import iter_jsonl

STATUS_FILE = "schedule.jsonl"

CleanKey = tuple[str, str, str]
"""(configuration, domain, task id)."""
CleanOutcomes = Mapping[CleanKey, Mapping[int, bool]]
"""Per configuration and task: each clean run's seed → its graded success."""


def read_clean_outcomes(run_dirs: Iterable[Path]) -> dict[CleanKey, dict[int, bool]]:
    """The graded clean runs recorded in each directory's ``schedule.jsonl`` (the latest
    record per run; a directory without one contributes nothing). Clean runs of an
    interface variant are left out: their faulted twins are not in the population."""
    out: dict[CleanKey, dict[int, bool]] = defaultdict(dict)
    for run_dir in run_dirs:
        path = run_dir / STATUS_FILE
        if not path.is_file():
            continue
        latest: dict[tuple[str, str, int], dict[str, object]] = {}
        for _, record in iter_jsonl(path):
            if record.get("kind") != "run" or record.get("condition") != "clean":
                continue
            key = record.get("key")
            configuration = record.get("configuration")
            if not isinstance(key, dict) or not isinstance(configuration, str):
                raise ConfigError(f"{path}: a run record without a key or configuration")
            seed = key.get("seed")
            if not isinstance(seed, int):
                raise ConfigError(f"{path}: a run key without an integer seed")
            latest[(str(key.get("case")), configuration, seed)] = record
        for (case, configuration, seed), record in latest.items():
            domain, task_id = record.get("domain"), record.get("task_id")
            success = record.get("success")
            if record.get("state") != "observed" or not isinstance(success, bool):
                continue
            if case != f"clean:{domain}/{task_id}":
                continue  # an interface variant's clean run
            out[(configuration, str(domain), str(task_id))][seed] = success
    return dict(out)


def clean_twin(outcomes: CleanOutcomes, key: CleanKey, seed: int) -> bool | None:
    """The success of a faulted run's clean twin: same seed, else the smallest seed."""
    seeds = outcomes.get(key)
    if not seeds:
        return None
    if seed in seeds:
        return seeds[seed]
    return seeds[min(seeds)]


def _graded(run: Run) -> bool:
    return (
        run.adoptable and run.triggered and run.label is not None and run.label.success is not None
    )


def _success(run: Run) -> bool:
    return run.label is not None and run.label.success is True


def paired_difference(
    pairs: Sequence[tuple[str, int]],
    *,
    seed: int,
    key: str,
    replicates: int = DEFAULT_REPLICATES,
    level: float = LEVEL,
) -> tuple[float | None, Interval]:
    """Mean of per-pair differences (``(cluster, faulted − clean)``, each −1, 0 or 1) with
    a cluster-bootstrap percentile interval (clusters resampled whole; the replicate
    estimator is Σ difference / Σ pairs, as the point value)."""
    if not pairs:
        return None, Interval(low=None, high=None, method="none")
    sums: dict[str, list[int]] = {}
    for cluster, diff in pairs:
        acc = sums.setdefault(cluster, [0, 0])
        acc[0] += diff
        acc[1] += 1
    names = sorted(sums)
    num = np.array([sums[c][0] for c in names], dtype=np.int64)
    den = np.array([sums[c][1] for c in names], dtype=np.int64)
    data_key = key + ";" + ";".join(f"{c}:{sums[c][0]}/{sums[c][1]}" for c in names)
    draws = rate_rng(seed, data_key).integers(0, len(names), size=(replicates, len(names)))
    estimates = num[draws].sum(axis=1) / den[draws].sum(axis=1)
    alpha = (1 - level) / 2
    low, high = np.quantile(estimates, [alpha, 1 - alpha])
    value = float(num.sum() / den.sum())
    return value, Interval(low=float(low), high=float(high), method="cluster_bootstrap")


def task_success_row(
    operator: str,
    configuration: str,
    runs: Sequence[Run],
    tasks: Mapping[str, tuple[str, str]],
    clean: CleanOutcomes,
    *,
    seed: int = 0,
    replicates: int = DEFAULT_REPLICATES,
    level: float = LEVEL,
) -> TaskSuccessRow:
    """One row: ``runs`` are one group's runs (any stage); ``tasks`` maps a case id to its
    (domain, task id)."""

    def rate(chosen: Sequence[Run], success: Callable[[Run], bool]) -> Rate:
        return proportion(
            [(r.cluster, success(r)) for r in chosen],
            seed=seed,
            replicates=replicates,
            level=level,
        )

    graded = [r for r in runs if _graded(r)]
    paired: list[tuple[Run, bool]] = []
    for run in graded:
        task = tasks.get(run.key.case_id) or tasks.get(run.key.case_id.removesuffix(CONTROL))
        if task is None:
            continue
        twin = clean_twin(clean, (run.key.configuration, *task), run.key.repetition)
        if twin is not None:
            paired.append((run, twin))
    clean_rate = proportion(
        [(run.cluster, twin) for run, twin in paired],
        seed=seed,
        replicates=replicates,
        level=level,
    )
    difference, interval = paired_difference(
        [(run.cluster, int(_success(run)) - int(twin)) for run, twin in paired],
        seed=seed,
        key=f"task_success/{operator}/{configuration}",
        replicates=replicates,
        level=level,
    )
    decided = [r for r in graded if r.adoption_decided]
    in_p = [r for r in graded if r.in_population and r.adoption_decided]

    def stratum(s: str) -> Rate:
        return rate([r for r in in_p if r.arrival == s], _success)

    return TaskSuccessRow(
        operator=operator,
        configuration=configuration,
        fault=rate(graded, _success),
        pairs=len(paired),
        unpaired=len(graded) - len(paired),
        fault_paired=rate([run for run, _ in paired], _success),
        clean=clean_rate,
        difference=difference,
        difference_interval=interval,
        fault_adopted=rate([r for r in decided if r.adopted], _success),
        fault_not_adopted=rate([r for r in decided if not r.adopted], _success),
        fault_before=stratum("before"),
        fault_after=stratum("after"),
        fault_absent=stratum("absent"),
    )


def task_success_rows(
    population: Population,
    case_set: CaseSet,
    clean: CleanOutcomes,
    *,
    seed: int = 0,
    replicates: int = DEFAULT_REPLICATES,
    level: float = LEVEL,
) -> tuple[TaskSuccessRow, ...]:
    """One row per (operator, configuration), then one per configuration with every
    operator pooled (clusters are an operator's entities, as in the pooled adoption)."""
    tasks = {c.entry.case_id: (c.entry.domain, c.entry.task_id) for c in case_set.cases}
    groups = list(population.groups())
    rows = [
        task_success_row(
            op, conf, runs, tasks, clean, seed=seed, replicates=replicates, level=level
        )
        for op, conf, runs in groups
    ]
    pooled: dict[str, list[Run]] = defaultdict(list)
    for op, conf, runs in groups:
        pooled[conf].extend(replace(run, cluster=f"{op}/{run.cluster}") for run in runs)
    rows.extend(
        task_success_row(
            ALL_OPERATORS, conf, runs, tasks, clean, seed=seed, replicates=replicates, level=level
        )
        for conf, runs in sorted(pooled.items())
    )
    return tuple(rows)
