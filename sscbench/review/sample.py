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

from sscbench.reconstruct.labels import RunLabels

Stratum = tuple[str, str, str]


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
