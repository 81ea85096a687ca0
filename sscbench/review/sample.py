"""Which runs go to human review: a seeded sample spread over the design's strata.

The review must speak for every operator, every configuration and every automatic arrival
class, including the rare ones (an ``after`` stratum of three runs matters more to the
validation than the hundredth ``absent`` WriteEffect run). So runs are grouped by
(operator, configuration, automatic Z_S) and drawn round-robin over those strata, in a
seeded random order that alternates operators (so any sample at least as large as the
number of operators covers every operator), until the sample is full. Stratifying on the
automatic labels only decides *which* runs are reviewed; the labels themselves never reach
the reviewers.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sscbench.fault_contracts.variants import split_variants
from sscbench.reconstruct.labels import RunLabels
from sscbench.records.ledger import iter_jsonl

Stratum = tuple[str, str, str]
SCHEDULE_FILE = "schedule.jsonl"


@dataclass(frozen=True)
class ReviewPopulation:
    """The runs a human reference speaks for: the main-interface runs of repetition r0 — the
    population of the primary analysis (docs/measurement.md §6.1) that the reference
    validates. Paired-check variant runs and arrival arms (a case id with a ``+…`` suffix)
    and later repetitions are left out, and counted, so the manifest says what the sample
    was drawn from."""

    runs: tuple[RunLabels, ...]
    first_seeds: dict[str, int]
    """Per configuration, the seed of its r0."""
    r0_from: str
    """Where r0 came from: the experiment's ``schedule.jsonl``, or the smallest seed."""
    left_out: dict[str, int] = field(default_factory=dict)

    def describe(self) -> dict[str, Any]:
        """The population as the export manifest records it."""
        return {
            "runs": "main-interface faulted runs of repetition r0",
            "r0_seeds": dict(sorted(self.first_seeds.items())),
            "r0_from": self.r0_from,
            "left_out": dict(sorted(self.left_out.items())),
        }


def _configuration(label: RunLabels) -> str:
    return label.configuration or label.agent


def schedule_first_seeds(path: Path) -> dict[str, int] | None:
    """Each configuration's r0 seed from an experiment's status file (``None`` without
    one): the seed of its faulted runs' repetition 0, as the analysis reads it."""
    if not path.is_file():
        return None
    seeds: dict[str, int] = {}
    for _, record in iter_jsonl(path):
        key, configuration = record.get("key"), record.get("configuration")
        if record.get("kind") != "run" or not isinstance(key, dict):
            continue
        seed, repetition = key.get("seed"), key.get("repetition")
        if isinstance(configuration, str) and type(seed) is int and repetition == 0:
            seeds[configuration] = seed
    return seeds


def review_population(labels: Sequence[RunLabels], root: Path) -> ReviewPopulation:
    """The main-interface r0 runs among ``labels`` (runs of ``root``). r0 is each
    configuration's first repetition from ``root/schedule.jsonl``; without a schedule, the
    smallest seed of the run set (as in the analysis: a later repetition never stands in for
    a missing r0)."""
    faulted = [x for x in labels if x.operator is not None]
    scheduled = schedule_first_seeds(root / SCHEDULE_FILE)
    smallest = min((x.seed for x in faulted), default=0)
    first = scheduled or {}
    seeds = {_configuration(x): first.get(_configuration(x), smallest) for x in faulted}
    kept: list[RunLabels] = []
    left_out = {"paired_check_or_arrival_variant": 0, "later_repetition": 0}
    for label in faulted:
        if label.case_id is not None and split_variants(label.case_id)[1]:
            left_out["paired_check_or_arrival_variant"] += 1
        elif label.seed != seeds[_configuration(label)]:
            left_out["later_repetition"] += 1
        else:
            kept.append(label)
    return ReviewPopulation(
        runs=tuple(kept),
        first_seeds=seeds,
        r0_from=SCHEDULE_FILE if scheduled else "the smallest seed of the run set",
        left_out=left_out,
    )


def stratum_of(label: RunLabels) -> Stratum:
    """(operator, configuration, automatic arrival class) of a faulted run."""
    return (
        label.operator or "clean",
        label.configuration or label.agent,
        label.z_s or "untriggered",
    )


def eligible(label: RunLabels, *, include_controls: bool) -> bool:
    """Reviewable: faulted, triggered (a fault-bearing observation reached the model),
    and — unless asked — not a target-value control (controls are not in the primary
    analysis of adoption, which the review validates)."""
    if label.operator is None or label.triggered is not True:
        return False
    return include_controls or not label.control


def stratified_sample(
    labels: Sequence[RunLabels], n: int, seed: int | str, *, include_controls: bool = False
) -> list[RunLabels]:
    """Up to ``n`` eligible runs, round-robin over shuffled strata (deterministic in
    ``seed``; the result is shuffled again so packet order carries no stratum)."""
    rng = random.Random(seed)
    strata: dict[Stratum, list[RunLabels]] = defaultdict(list)
    for label in sorted(labels, key=lambda x: x.run_id):
        if eligible(label, include_controls=include_controls):
            strata[stratum_of(label)].append(label)
    by_operator: dict[str, list[Stratum]] = defaultdict(list)
    for key in sorted(strata):
        by_operator[key[0]].append(key)
    for keys in by_operator.values():
        rng.shuffle(keys)
    operators = sorted(by_operator)
    rng.shuffle(operators)
    order = [
        by_operator[op][i]
        for i in range(max((len(v) for v in by_operator.values()), default=0))
        for op in operators
        if i < len(by_operator[op])
    ]
    for key in order:
        rng.shuffle(strata[key])
    chosen: list[RunLabels] = []
    while len(chosen) < n and any(strata[k] for k in order):
        for key in order:
            if strata[key] and len(chosen) < n:
                chosen.append(strata[key].pop())
    rng.shuffle(chosen)
    return chosen


def calibration_sample(
    labels: Sequence[RunLabels],
    chosen: Sequence[RunLabels],
    n: int,
    seed: int,
    *,
    include_controls: bool = False,
) -> list[RunLabels]:
    """Up to ``n`` calibration runs drawn like the main sample (same strata, operators
    alternating) from the eligible runs *not* in ``chosen``, with a seed of their own so
    that asking for calibration never changes the main sample."""
    taken = {x.run_id for x in chosen}
    rest = [x for x in labels if x.run_id not in taken]
    return stratified_sample(rest, n, f"calibration\x00{seed}", include_controls=include_controls)


def least_confident_sample(
    labels: Sequence[RunLabels], n: int, seed: int | str, *, include_controls: bool = False
) -> list[RunLabels]:
    """The ``n`` eligible runs whose adoption label is least confident
    (``sscbench.reconstruct.confidence``; an undecided ``A`` first), ties in a seeded
    order: human review where the reconstructor is least sure. Not a random sample, so it
    cannot serve as the correction's validation sample (docs/measurement.md §6.6)."""
    from sscbench.reconstruct.confidence import label_confidence

    rng = random.Random(f"confidence\x00{seed}")
    pool = [
        x
        for x in sorted(labels, key=lambda x: x.run_id)
        if eligible(x, include_controls=include_controls)
    ]
    rng.shuffle(pool)

    def value(label: RunLabels) -> float:
        conf = label_confidence(label)
        return 0.0 if conf is None else conf.value

    return sorted(pool, key=value)[:n]
