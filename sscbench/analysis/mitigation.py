"""Mitigations compared with their absence, on the same cases and seeds.

A mitigated configuration is named ``BASE+MITIGATION`` (:mod:`sscbench.agents.mitigations`;
the experiment's ``mitigations`` list and ``sscbench run --mitigation`` name it so). Each of
its runs is paired with the base configuration's run of the same case and seed, and three
things are compared pair by pair: adoption (pairs where both runs were triggered and have a
decided ``A``), task success (both graded) and cost in steps (both finished, with steps
recorded), with the provider tokens and USD the runs' ledgers record beside the steps
(:mod:`.mitigation_cost`; scripted runs make no provider calls). Each difference is
with − without, averaged over the pairs, with a percentile
interval from resampling entity clusters whole (:func:`.task_success.paired_difference`).
The discordant pairs (adopted on one side only) are given too: a paired comparison rests on
them.

Every repetition counts (pairs are matched seed by seed). Triggering can differ between the
two sides — a mitigation that reads more triggers more faults — so the adoption pairs are
fewer than the runs, and the table says how many.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from sscbench.analysis.intervals import DEFAULT_REPLICATES, LEVEL, proportion
from sscbench.analysis.mitigation_cost import RunUsage, usage_of
from sscbench.analysis.passk import mean_with_interval
from sscbench.analysis.population import CONTROL_SUFFIX, harness_error
from sscbench.analysis.results import ALL_OPERATORS, Interval, MitigationRow, Rate
from sscbench.analysis.task_success import STATUS_FILE, paired_difference
from sscbench.cases.caseset import CaseSet
from sscbench.fault_contracts.variants import split_variants
from sscbench.reconstruct.labels import LabelView
from sscbench.records.ledger import iter_jsonl

SEPARATOR = "+"

Pair = tuple[LabelView, LabelView]
"""(without, with) for one case and seed."""


def read_run_steps(run_dirs: Iterable[Path]) -> dict[str, int]:
    """Each observed run's step count by run id, from the directories' ``schedule.jsonl``
    (the latest record per run)."""
    out: dict[str, int] = {}
    for run_dir in run_dirs:
        path = run_dir / STATUS_FILE
        if not path.is_file():
            continue
        for _, record in iter_jsonl(path):
            run_id, steps = record.get("run_id"), record.get("steps")
            if record.get("kind") == "run" and isinstance(run_id, str):
                if record.get("state") == "observed" and isinstance(steps, int):
                    out[run_id] = steps
                else:
                    out.pop(run_id, None)
    return out


def split_configuration(configuration: str, known: Iterable[str]) -> tuple[str, str] | None:
    """``(base, mitigation)`` of a mitigated configuration's id, else None."""
    base, sep, name = configuration.rpartition(SEPARATOR)
    if sep and base and name in set(known):
        return base, name
    return None


def _usable(label: LabelView) -> bool:
    return label.finished and not harness_error(label) and not label.control


def mitigation_pairs(
    labels: Iterable[LabelView], known: Iterable[str]
) -> dict[tuple[str, str, str], list[Pair]]:
    """Pairs per (operator, base configuration, mitigation)."""
    names = list(known)
    runs: dict[tuple[str, str, int], LabelView] = {}
    mitigated: list[tuple[str, str, LabelView]] = []
    for label in labels:
        if label.case_id is None or label.operator is None or split_variants(label.case_id)[1]:
            continue
        if not _usable(label) or label.case_id.endswith(CONTROL_SUFFIX):
            continue
        configuration = label.configuration or label.agent
        split = split_configuration(configuration, names)
        if split is None:
            runs[(label.case_id, configuration, label.seed)] = label
        else:
            mitigated.append((*split, label))
    out: dict[tuple[str, str, str], list[Pair]] = defaultdict(list)
    for base, name, label in mitigated:
        assert label.case_id is not None and label.operator is not None
        without = runs.get((label.case_id, base, label.seed))
        if without is not None:
            out[(label.operator, base, name)].append((without, label))
    return dict(out)


def mitigation_row(
    operator: str,
    configuration: str,
    mitigation: str,
    pairs: Sequence[Pair],
    clusters: Mapping[str, str],
    steps: Mapping[str, int],
    *,
    usage: Mapping[str, RunUsage] | None = None,
    seed: int = 0,
    replicates: int = DEFAULT_REPLICATES,
    level: float = LEVEL,
) -> MitigationRow:
    """One row; ``clusters`` maps a case id to its entity cluster (operator-prefixed for
    the pooled rows)."""
    key = f"mitigation/{operator}/{configuration}/{mitigation}"

    def cluster(label: LabelView) -> str:
        assert label.case_id is not None
        return clusters.get(label.case_id, label.case_id)

    def rate(chosen: Sequence[LabelView], good: Callable[[LabelView], bool]) -> Rate:
        return proportion(
            [(cluster(x), good(x)) for x in chosen], seed=seed, replicates=replicates, level=level
        )

    def diff(values: list[tuple[str, int]], what: str) -> tuple[float | None, Interval]:
        return paired_difference(
            values, seed=seed, key=f"{key}/{what}", replicates=replicates, level=level
        )

    decided = [
        (a, b)
        for a, b in pairs
        if a.triggered and b.triggered and a.adopted is not None and b.adopted is not None
    ]
    graded = [(a, b) for a, b in pairs if a.success is not None and b.success is not None]
    timed = [(a, b) for a, b in pairs if a.run_id in steps and b.run_id in steps]
    adoption, adoption_ci = diff(
        [(cluster(a), int(bool(b.adopted)) - int(bool(a.adopted))) for a, b in decided],
        "adoption",
    )
    success, success_ci = diff(
        [(cluster(a), int(bool(b.success)) - int(bool(a.success))) for a, b in graded],
        "success",
    )
    step_diffs = [(cluster(a), steps[b.run_id] - steps[a.run_id]) for a, b in timed]
    steps_difference, steps_ci = diff(step_diffs, "steps")
    without_steps = mean_with_interval(
        [(cluster(a), float(steps[a.run_id])) for a, _ in timed], seed=seed, key=key, replicates=1
    )[0]
    with_steps = mean_with_interval(
        [(cluster(a), float(steps[b.run_id])) for a, b in timed], seed=seed, key=key, replicates=1
    )[0]
    cost = _cost(
        []
        if usage is None  # not read: the table claims nothing either way
        else [(cluster(a), usage_of(usage, a.run_id), usage_of(usage, b.run_id)) for a, b in pairs],
        key=key,
        seed=seed,
        replicates=replicates,
        level=level,
    )
    return MitigationRow(
        operator=operator,
        configuration=configuration,
        mitigation=mitigation,
        adoption_pairs=len(decided),
        adopted_without=rate([a for a, _ in decided], lambda x: x.adopted is True),
        adopted_with=rate([b for _, b in decided], lambda x: x.adopted is True),
        adoption_difference=adoption,
        adoption_interval=adoption_ci,
        adopted_without_only=sum(a.adopted is True and b.adopted is False for a, b in decided),
        adopted_with_only=sum(a.adopted is False and b.adopted is True for a, b in decided),
        success_pairs=len(graded),
        success_without=rate([a for a, _ in graded], lambda x: x.success is True),
        success_with=rate([b for _, b in graded], lambda x: x.success is True),
        success_difference=success,
        success_interval=success_ci,
        steps_pairs=len(timed),
        steps_without=without_steps,
        steps_with=with_steps,
        steps_difference=steps_difference,
        steps_interval=steps_ci,
        **cost,
    )


def _cost(
    costed: Sequence[tuple[str, RunUsage, RunUsage]],
    *,
    key: str,
    seed: int,
    replicates: int,
    level: float,
) -> dict[str, Any]:
    """The cost columns of a row from its pairs' usage (cluster, without, with)."""
    tokens = [(c, a.tokens, b.tokens) for c, a, b in costed]
    counted = [(c, a, b) for c, a, b in tokens if a is not None and b is not None]
    usd = [(c, a.usd, b.usd) for c, a, b in costed]
    priced = [(c, a, b) for c, a, b in usd if a is not None and b is not None]
    tokens_difference, tokens_ci = paired_difference(
        [(c, b - a) for c, a, b in counted],
        seed=seed,
        key=f"{key}/tokens",
        replicates=replicates,
        level=level,
    )
    usd_difference, _, usd_ci = mean_with_interval(
        [(c, b - a) for c, a, b in priced],
        seed=seed,
        key=f"{key}/usd",
        replicates=replicates,
        level=level,
    )

    def mean(values: Sequence[float]) -> float | None:
        return sum(values) / len(values) if values else None

    return {
        "cost_pairs": len(costed),
        "provider_calls_without": sum(a.calls for _, a, _ in costed),
        "provider_calls_with": sum(b.calls for _, _, b in costed),
        "tokens_without": mean([float(a) for _, a, _ in counted]),
        "tokens_with": mean([float(b) for _, _, b in counted]),
        "tokens_difference": tokens_difference,
        "tokens_interval": tokens_ci,
        "usd_without": mean([a for _, a, _ in priced]),
        "usd_with": mean([b for _, _, b in priced]),
        "usd_difference": usd_difference,
        "usd_interval": usd_ci,
    }


def mitigation_rows(
    labels: Iterable[LabelView],
    case_set: CaseSet,
    known: Iterable[str],
    steps: Mapping[str, int] | None = None,
    *,
    usage: Mapping[str, RunUsage] | None = None,
    seed: int = 0,
    replicates: int = DEFAULT_REPLICATES,
    level: float = LEVEL,
) -> tuple[MitigationRow, ...]:
    """Per (operator, configuration, mitigation), then per (configuration, mitigation)
    with every operator pooled."""
    clusters = {c.entry.case_id: c.entry.cluster for c in case_set.cases}
    groups = mitigation_pairs(labels, known)
    steps = steps or {}
    rows = [
        mitigation_row(
            op,
            conf,
            name,
            pairs,
            clusters,
            steps,
            usage=usage,
            seed=seed,
            replicates=replicates,
            level=level,
        )
        for (op, conf, name), pairs in sorted(groups.items())
    ]
    pooled: dict[tuple[str, str], list[Pair]] = defaultdict(list)
    for (_, conf, name), pairs in groups.items():
        pooled[(conf, name)].extend(pairs)
    prefixed = {c.entry.case_id: f"{c.entry.operator}/{c.entry.cluster}" for c in case_set.cases}
    rows += [
        mitigation_row(
            ALL_OPERATORS,
            conf,
            name,
            pairs,
            prefixed,
            steps,
            usage=usage,
            seed=seed,
            replicates=replicates,
            level=level,
        )
        for (conf, name), pairs in sorted(pooled.items())
    ]
    return tuple(rows)
