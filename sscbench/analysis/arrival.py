"""Arrival interventions: adoption per arm, paired effects, and the observational contrast.

An experiment with ``arrival_arms`` (docs/arrival-interventions.md) assigns each unit —
(case, configuration, repetition) — one arm at random. Its main run is the unit's
unmanipulated *twin* (same seed); a unit under any arm but ``none`` has one more run, tagged
``<case>+arrival.<arm>``. This module computes, per arm and configuration (and pooled):

* **adoption per arm**: ``A = 1`` among the units assigned the arm (the twin stands for a
  ``none`` unit), on runs that were observed, triggered and have a decided ``A``;
* **paired effect**: for every manipulated run and its twin, ``A(arm) − A(twin)``; the
  mean difference with a cluster bootstrap over entity clusters (runs on one entity are
  not independent), and the discordant pairs;
* **causal vs descriptive**: the randomised contrast ``before_use − after_use`` (cells of
  one case and configuration that observed both arms) beside the contrast the paper reports
  descriptively on unmanipulated runs: adoption when ``Z_S = before`` minus adoption when
  ``Z_S = after``.

Runs whose replayed prefix diverged are never used; runs missing their delivery point are
counted, not analysed. Everything is computed from ``labels.jsonl``, the experiment's
``experiment.json`` (the recorded assignment) and the ledger headers (entity clusters).
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict

from sscbench.analysis.intervals import DEFAULT_REPLICATES, LEVEL, proportion, rate_rng
from sscbench.analysis.results import Rate
from sscbench.analysis.templating import render
from sscbench.fault_contracts.variants import ARRIVAL_TAG, split_variants
from sscbench.reconstruct.labels import LabelView
from sscbench.records.ledger import iter_jsonl
from sscbench.runs.arrival import ARMS

POOLED = "all"
EXPERIMENT_FILE = "experiment.json"
ARRIVAL_JSON = "tables/arrival.json"
"""The section's numbers beside the report's other tables (not part of ``analysis.json``)."""
Unit = tuple[str, str, int]
"""(base case id, configuration, seed)."""


class _Row(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Difference(_Row):
    """A mean paired difference with its 95% cluster-bootstrap interval."""

    pairs: int
    clusters: int
    value: float | None
    low: float | None
    high: float | None


class ArmRow(_Row):
    """Adoption under one arm for one configuration (or ``all``)."""

    arm: str
    configuration: str
    assigned: int
    analysed: int
    delivered: int
    adoption: Rate
    retraction: Rate
    """Among adopted runs with a decided ``Y_end``: the last stance retracts ``v′`` (later
    correction, which ``after_use`` can change when adoption cannot)."""


class PairedRow(_Row):
    """A manipulated arm against the units' unmanipulated twins."""

    arm: str
    configuration: str
    adopted_twin: int
    adopted_arm: int
    arm_only: int
    twin_only: int
    difference: Difference


class ContrastRow(_Row):
    """The randomised before/after contrast beside the observational one."""

    configuration: str
    causal: Difference
    descriptive_before: Rate
    descriptive_after: Rate
    descriptive: float | None


class ArrivalAnalysis(_Row):
    """The arrival-intervention section's numbers."""

    arms: tuple[str, ...]
    units: int
    excluded_diverged: int
    per_arm: tuple[ArmRow, ...]
    paired: tuple[PairedRow, ...]
    contrast: tuple[ContrastRow, ...]


def arm_of(case_id: str | None) -> tuple[str, str | None]:
    """(base case id, arm) of a label's case id (arm None: not a manipulated run)."""
    if case_id is None:
        return "", None
    base, variants = split_variants(case_id)
    arms = [v[len(ARRIVAL_TAG) :] for v in variants if v.startswith(ARRIVAL_TAG)]
    return base, arms[0] if arms else None


def _usable(label: LabelView | None) -> bool:
    return (
        label is not None
        and label.finished
        and label.termination not in ("harness_error", "replay_divergence")
        and label.triggered is True
        and label.adopted is not None
    )


def _units(run_root: Path, labels: Sequence[LabelView]) -> dict[Unit, str]:
    """Each unit's assigned arm: from ``experiment.json`` when there is one, else every
    main run of a case that has manipulated runs is taken for a ``none`` unit unless its
    own arm run exists."""
    path = run_root / EXPERIMENT_FILE
    if path.is_file():
        data = json.loads(path.read_text(encoding="utf-8"))
        recorded = (data.get("arrival") or {}).get("units")
        if recorded:
            return {
                (u["case"], u["configuration"], int(u["seed"])): str(u["arm"]) for u in recorded
            }
    out: dict[Unit, str] = {}
    bases: set[str] = set()
    for label in labels:
        base, arm = arm_of(label.case_id)
        if arm is not None:
            bases.add(base)
            out[(base, label.configuration or label.agent, label.seed)] = arm
    for label in labels:
        base, arm = arm_of(label.case_id)
        key = (base, label.configuration or label.agent, label.seed)
        if arm is None and base in bases:
            out.setdefault(key, "none")
    return out


def _clusters(run_root: Path, labels: Sequence[LabelView]) -> dict[str, str]:
    """Entity cluster per base case, from the ledger headers (fallback: the case itself)."""
    out: dict[str, str] = {}
    for label in labels:
        base, _ = arm_of(label.case_id)
        if base in out:
            continue
        path = run_root / label.run_id / "ledger.jsonl"
        try:
            header = next(iter_jsonl(path))[1]
            fault = header.get("fault") or {}
            out[base] = f"{fault['domain']}/{fault['cluster']}"
        except (OSError, StopIteration, KeyError, TypeError, ValueError):
            out[base] = base
    return out


def _delivered(run_root: Path, label: LabelView) -> bool:
    try:
        return any(
            obj.get("kind") == "arrival_delivery" and obj.get("status") == "delivered"
            for _, obj in iter_jsonl(run_root / label.run_id / "hidden.jsonl")
        )
    except (OSError, ValueError):
        return False


def mean_difference(
    diffs: Sequence[tuple[str, float]], *, seed: int, key: str, replicates: int = DEFAULT_REPLICATES
) -> Difference:
    """Mean of per-pair differences with a percentile cluster bootstrap (ratio of sums)."""
    if not diffs:
        return Difference(pairs=0, clusters=0, value=None, low=None, high=None)
    sums: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
    for cluster, d in diffs:
        sums[cluster][0] += d
        sums[cluster][1] += 1
    names = sorted(sums)
    num = np.array([sums[c][0] for c in names])
    den = np.array([sums[c][1] for c in names])
    value = float(num.sum() / den.sum())
    data_key = key + ";" + ";".join(f"{c}:{sums[c][0]}/{sums[c][1]}" for c in names)
    rng = rate_rng(seed, data_key)
    draws = rng.integers(0, len(names), size=(replicates, len(names)))
    estimates = num[draws].sum(axis=1) / den[draws].sum(axis=1)
    alpha = (1 - LEVEL) / 2
    low, high = np.quantile(estimates, [alpha, 1 - alpha])
    return Difference(
        pairs=len(diffs), clusters=len(names), value=value, low=float(low), high=float(high)
    )


def analyse_arrival(
    labels: Sequence[LabelView], run_root: Path, *, seed: int = 0
) -> ArrivalAnalysis | None:
    """The arrival section's numbers, or None when no run was manipulated."""
    if not any(arm_of(label.case_id)[1] is not None for label in labels):
        return None
    units = _units(run_root, labels)
    clusters = _clusters(run_root, labels)
    twins: dict[Unit, LabelView] = {}
    manipulated: dict[Unit, LabelView] = {}
    for label in labels:
        base, arm = arm_of(label.case_id)
        if label.case_id is None or (split_variants(label.case_id)[1] and arm is None):
            continue  # clean runs and paired interface checks
        key = (base, label.configuration or label.agent, label.seed)
        (twins if arm is None else manipulated)[key] = label
    diverged = sum(1 for lab in manipulated.values() if lab.termination == "replay_divergence")
    present = set(units.values())
    arms = tuple(a for a in ARMS if a in present)  # the design's order, none first
    configs = sorted({c for _, c, _ in units})
    per_arm: list[ArmRow] = []
    paired: list[PairedRow] = []
    for arm in arms:
        for config in [*configs, POOLED]:
            chosen = [u for u, a in units.items() if a == arm and config in (u[1], POOLED)]
            runs = [(u, twins.get(u) if arm == "none" else manipulated.get(u)) for u in chosen]
            used = [(u, lab) for u, lab in runs if lab is not None and _usable(lab)]
            outcomes = [(clusters.get(u[0], u[0]), lab.adopted is True) for u, lab in used]
            delivered = 0 if arm == "none" else sum(_delivered(run_root, lab) for _, lab in used)
            per_arm.append(
                ArmRow(
                    arm=arm,
                    configuration=config,
                    assigned=len(chosen),
                    analysed=len(used),
                    delivered=delivered,
                    adoption=proportion(outcomes, seed=seed),
                    retraction=proportion(
                        [
                            (clusters.get(u[0], u[0]), lab.y_end == "retract")
                            for u, lab in used
                            if lab.adopted is True and lab.y_end in ("endorse", "retract")
                        ],
                        seed=seed,
                    ),
                )
            )
            if arm == "none":
                continue
            pairs = [(u, twins[u], lab) for u, lab in used if u in twins and _usable(twins[u])]
            diffs = [
                (clusters.get(u[0], u[0]), float(b.adopted is True) - float(a.adopted is True))
                for u, a, b in pairs
            ]
            paired.append(
                PairedRow(
                    arm=arm,
                    configuration=config,
                    adopted_twin=sum(a.adopted is True for _, a, _ in pairs),
                    adopted_arm=sum(b.adopted is True for _, _, b in pairs),
                    arm_only=sum(d > 0 for _, d in diffs),
                    twin_only=sum(d < 0 for _, d in diffs),
                    difference=mean_difference(diffs, seed=seed, key=f"paired|{arm}|{config}"),
                )
            )
    contrast = [
        _contrast(config, units, twins, manipulated, clusters, seed)
        for config in [*configs, POOLED]
    ]
    return ArrivalAnalysis(
        arms=arms,
        units=len(units),
        excluded_diverged=diverged,
        per_arm=tuple(per_arm),
        paired=tuple(paired),
        contrast=tuple(contrast),
    )


def _contrast(
    config: str,
    units: dict[Unit, str],
    twins: dict[Unit, LabelView],
    manipulated: dict[Unit, LabelView],
    clusters: dict[str, str],
    seed: int,
) -> ContrastRow:
    """before_use − after_use per (case, configuration) cell, and the twins' strata."""
    cells: dict[tuple[str, str], dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for unit, arm in units.items():
        if arm not in ("before_use", "after_use") or config not in (unit[1], POOLED):
            continue
        label = manipulated.get(unit)
        if label is not None and _usable(label):
            cells[(unit[0], unit[1])][arm].append(float(label.adopted is True))
    diffs = [
        (clusters.get(case, case), float(np.mean(c["before_use"]) - np.mean(c["after_use"])))
        for (case, _), c in sorted(cells.items())
        if c["before_use"] and c["after_use"]
    ]
    strata: dict[str, list[tuple[str, bool]]] = {"before": [], "after": []}
    for unit, label in twins.items():
        if unit not in units or config not in (unit[1], POOLED) or not _usable(label):
            continue
        if label.z_s in strata:
            strata[label.z_s].append((clusters.get(unit[0], unit[0]), label.adopted is True))
    before = proportion(strata["before"], seed=seed)
    after = proportion(strata["after"], seed=seed)
    descriptive = (
        None if before.value is None or after.value is None else before.value - after.value
    )
    return ContrastRow(
        configuration=config,
        causal=mean_difference(diffs, seed=seed, key=f"contrast|{config}"),
        descriptive_before=before,
        descriptive_after=after,
        descriptive=descriptive,
    )


# ------------------------------------------------------------------------------- HTML


def _share(value: float | None) -> str:
    return "–" if value is None else f"{value:+.2f}"


def _rate(rate: Rate) -> dict[str, Any]:
    ci = None
    if rate.interval.low is not None and rate.interval.high is not None:
        ci = f"[{rate.interval.low:.2f}, {rate.interval.high:.2f}]"
    return {
        "kind": "rate",
        "value": None if rate.value is None else f"{rate.value:.2f}",
        "ci": ci,
        "counts": f"{rate.numerator}/{rate.denominator}/{rate.clusters}",
    }


def _diff(d: Difference) -> dict[str, Any]:
    if d.value is None:
        return {"kind": "diff", "value": None}
    return {
        "kind": "diff",
        "value": f"{d.value:+.2f}",
        "ci": f"[{d.low:+.2f}, {d.high:+.2f}]",
        "pairs": d.pairs,
        "clusters": d.clusters,
    }


def _table(ident: str, caption: str, head: list[str], rows: list[list[Any]]) -> dict[str, Any]:
    return {"id": ident, "caption": caption, "head": head, "rows": rows}


def arrival_section(result: ArrivalAnalysis) -> str:
    """The report's "Arrival intervention" section (``templates/arrival.html.j2``; every text
    escaped by the template)."""
    per_arm = _table(
        "arrival-arms",
        "Adoption per arm: units assigned the arm, analysed (observed, triggered, A decided),"
        " deliveries made, A = 1 with its 95% interval (counts n/d/clusters), and among adopted"
        " runs with a decided Y_end the share whose last stance retracts v′",
        ["arm", "configuration", "assigned", "analysed", "delivered", "adoption", "Y_end retract"],
        [
            [
                r.arm,
                r.configuration,
                str(r.assigned),
                str(r.analysed),
                "–" if r.arm == "none" else str(r.delivered),
                _rate(r.adoption),
                _rate(r.retraction),
            ]
            for r in result.per_arm
        ],
    )
    paired = _table(
        "arrival-paired",
        "Paired effect of each arm against the unit's unmanipulated twin (same case, "
        "configuration and seed): A(arm) − A(twin), cluster bootstrap over entity clusters",
        ["arm", "configuration", "A twin", "A arm", "arm only", "twin only", "difference"],
        [
            [
                r.arm,
                r.configuration,
                str(r.adopted_twin),
                str(r.adopted_arm),
                str(r.arm_only),
                str(r.twin_only),
                _diff(r.difference),
            ]
            for r in result.paired
        ],
    )
    contrast = _table(
        "arrival-contrast",
        "Causal vs descriptive: the randomised contrast before_use − after_use (cells of one "
        "case and configuration) beside adoption by arrival stratum among the twins",
        [
            "configuration",
            "causal (before_use − after_use)",
            "twins Z_S = before",
            "twins Z_S = after",
            "descriptive (before − after)",
        ],
        [
            [
                r.configuration,
                _diff(r.causal),
                _rate(r.descriptive_before),
                _rate(r.descriptive_after),
                _share(r.descriptive),
            ]
            for r in result.contrast
        ],
    )
    return render(
        "arrival.html.j2",
        units=result.units,
        arms=", ".join(result.arms),
        diverged=result.excluded_diverged,
        tables=[per_arm, paired, contrast],
    ).strip()


def arrival_report_section(
    labels: Sequence[LabelView], run_root: Path, seed: int, out_dir: Path | None = None
) -> str | None:
    """The rendered section, or None when the runs hold no arrival intervention; with
    ``out_dir`` (a report directory) its numbers are also written to ``tables/arrival.json``."""
    result = analyse_arrival(labels, run_root, seed=seed)
    if result is None:
        return None
    if out_dir is not None:
        path = out_dir / ARRIVAL_JSON
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(as_json(result), indent=1) + "\n", encoding="utf-8")
    return arrival_section(result)


def as_json(result: ArrivalAnalysis) -> dict[str, Any]:
    """The analysis as plain JSON."""
    return result.model_dump(mode="json")
