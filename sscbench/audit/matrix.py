"""The defect-injection matrix: probe, detection per class and check, and ablation.

For each (variant, target) a *differential probe* first grades a fixed battery of episodes
with the unmodified grader and with the variant, recording everything observable (verdict
or exception, the live state and trajectory after each call, behaviour under an injected
failure at every probe point, both scoring orders). A combination is *distinguishable*
when some observation differs; otherwise it is *unresolved* — never counted as
equivalent, because the battery is finite. Detection then runs the eight checks on the
variant: a check detects it when it reports a violation the unmodified grader does not
have on that target and task. A check is *necessary* for a class when removing it leaves
some detected combination of that class undetected.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from sscbench.audit.checks import CHECKS, CheckContext, CheckResult, run_checks
from sscbench.audit.defects import (
    DEFECT_CLASSES,
    VARIANTS,
    Defective,
    clear_module_caches,
    injector,
)
from sscbench.audit.records import ClassRow, CombinationRecord, MatrixRecord
from sscbench.audit.scenarios import EpisodeKind, GraderFactory, available, build, call_grader
from sscbench.audit.session import Tripwire
from sscbench.audit.target import Target

PROBE_KINDS: tuple[EpisodeKind, ...] = (
    "gold",
    "paraphrase",
    "idle",
    "say_only",
    "gold_write_fault",
    "gold_read_fault",
)
MAX_PROBE_POINTS = 40


def partners(tasks: list[str]) -> dict[str, str]:
    """Each task's INV-3 partner: the next task of the list (wrapping round)."""
    return {t: tasks[(i + 1) % len(tasks)] for i, t in enumerate(tasks)}


def context(target: Target, grader: GraderFactory, tasks: list[str]) -> CheckContext:
    """A check context whose fresh-process hook clears the defect module caches."""
    return CheckContext(target, grader, clear_module_caches, partners(tasks))


def probe(target: Target, grader: GraderFactory, tasks: list[str]) -> list[str]:
    """Everything observable about ``grader`` on the probe battery, one line each."""
    lines: list[str] = []
    pair = partners(tasks)
    for task in tasks:
        for kind in (k for k in PROBE_KINDS if available(target, task, k)):
            clear_module_caches()
            session, g = build(target, task, kind), grader()
            for n in (1, 2):
                out = call_grader(g, session)
                lines.append(
                    f"{task}/{kind} call {n}: {out.label}; state {session.peek().digest[:12]}; "
                    f"{len(session.actions)} actions"
                )
            dry = build(target, task, kind)
            dry.tripwire = Tripwire()
            clear_module_caches()
            call_grader(grader(), dry)
            count = min(dry.tripwire.count, MAX_PROBE_POINTS)
            lines.append(f"{task}/{kind}: {dry.tripwire.count} probe points")
            for k in range(1, count + 1):
                clear_module_caches()
                s = build(target, task, kind)
                s.tripwire = Tripwire(fire_at=k)
                out = call_grader(grader(), s)
                lines.append(
                    f"{task}/{kind} failure at {k}: {out.label} (propagated {out.injected}); "
                    f"state {s.peek().digest[:12]}; {len(s.actions)} actions"
                )
        order: list[tuple[str, EpisodeKind]] = [
            (task, "gold"),
            (task, "idle"),
            (pair[task], "gold"),
            (pair[task], "idle"),
        ]
        for name, seq in (("forward", order), ("reversed", order[::-1])):
            clear_module_caches()
            g = grader()
            labels = [call_grader(g, build(target, t, k)).label for t, k in seq]
            lines.append(f"{task} order {name}: {labels}")
    return lines


def _first_difference(base: list[str], other: list[str]) -> str:
    for a, b in zip(base, other, strict=False):
        if a != b:
            return f"{a}  ≠  {b}"
    if len(base) != len(other):
        return f"{len(base)} observations ≠ {len(other)}"
    return ""


@dataclass(frozen=True)
class TargetRun:
    """A target with the tasks the matrix uses on it."""

    key: str
    target: Target
    tasks: list[str]


def _violations(results: list[CheckResult]) -> set[tuple[str, str]]:
    return {(r.check, r.task_id) for r in results if r.status == "violated"}


def run_matrix(
    runs: list[TargetRun],
    variants: tuple[type[Defective], ...] = VARIANTS,
    on_progress: Callable[[str], None] | None = None,
) -> MatrixRecord:
    """Inject every variant into every target's grader; probe, check and tabulate."""
    combos: list[CombinationRecord] = []
    base_violations: dict[str, list[str]] = {}
    for run in runs:
        base_factory = run.target.grader
        base_results = run_checks(context(run.target, base_factory, run.tasks), run.tasks)
        base_bad = _violations(base_results)
        base_violations[run.key] = sorted({f"{c} ({t})" for c, t in base_bad})
        base_probe = probe(run.target, base_factory, run.tasks)
        for variant in variants:
            if on_progress is not None:
                on_progress(f"{run.key} × {variant.variant}")
            factory = injector(variant, base_factory)
            evidence = _first_difference(base_probe, probe(run.target, factory, run.tasks))
            results = run_checks(context(run.target, factory, run.tasks), run.tasks)
            new = [
                r
                for r in results
                if r.status == "violated" and (r.check, r.task_id) not in base_bad
            ]
            detail: dict[str, str] = {}
            for r in new:
                detail.setdefault(r.check, f"task {r.task_id}: {r.detail}")
            combos.append(
                CombinationRecord(
                    variant=variant.variant,
                    defect_class=variant.defect_class,
                    target=run.key,
                    distinguishable="distinguishable" if evidence else "unresolved",
                    probe_evidence=evidence,
                    detected_by=[c for c in CHECKS if c in detail],
                    detail=detail,
                )
            )
    return tabulate(runs, combos, base_violations, len(variants))


def tabulate(
    runs: list[TargetRun],
    combos: list[CombinationRecord],
    base_violations: dict[str, list[str]],
    variants: int,
) -> MatrixRecord:
    """Per-class rows, both denominators, unique detections and the ablation."""
    classes = []
    for name, text in DEFECT_CLASSES.items():
        mine = [c for c in combos if c.defect_class == name]
        dist = [c for c in mine if c.distinguishable == "distinguishable"]
        detected = [c for c in mine if c.detected_by]
        triggered = sorted({k for c in mine for k in c.detected_by}, key=CHECKS.index)
        necessary: list[str] = [k for k in CHECKS if any(c.detected_by == [k] for c in detected)]
        classes.append(
            ClassRow(
                defect_class=name,
                description=text,
                combinations=len(mine),
                distinguishable=len(dist),
                detected=len(detected),
                detected_of_distinguishable=sum(1 for c in dist if c.detected_by),
                triggered_by=triggered,
                necessary=necessary,
            )
        )
    dist_all = [c for c in combos if c.distinguishable == "distinguishable"]
    return MatrixRecord(
        targets=[r.key for r in runs],
        tasks={r.key: r.tasks for r in runs},
        variants=variants,
        base_violations=base_violations,
        combinations=combos,
        classes=classes,
        detected_of_distinguishable=(sum(1 for c in dist_all if c.detected_by), len(dist_all)),
        detected_of_all=(sum(1 for c in combos if c.detected_by), len(combos)),
        unique_detections={k: sum(1 for c in combos if c.detected_by == [k]) for k in CHECKS},
        missed=[f"{c.variant} on {c.target}" for c in dist_all if not c.detected_by],
    )
