"""One-call entry points: audit a target's grader, run the defect matrix.

Inputs are validated before anything runs (unknown target, domain or task: one
:class:`~sscbench.errors.ConfigError` line).
"""

from __future__ import annotations

from collections.abc import Callable

from sscbench.audit.checks import CHECKS, run_checks
from sscbench.audit.defects import VARIANTS
from sscbench.audit.matrix import TargetRun, context, run_matrix
from sscbench.audit.records import AuditRecord, CheckRecord, MatrixRecord
from sscbench.audit.synthetic import SyntheticTarget
from sscbench.audit.target import Target
from sscbench.errors import ConfigError

TARGETS = ("sscbench", "tau2", "synthetic")

AUDITED_DOMAINS = ("airline", "retail")
"""The domains whose grader the audit's scenarios are written for (telecom's reward bases —
environment assertions, gold actions — have no audit scenarios yet)."""


def make_target(name: str, domain: str | None) -> Target:
    """The named target on ``domain`` (ignored for ``synthetic``)."""
    if name == "synthetic":
        if domain not in (None, "synthetic"):
            raise ConfigError(
                f"--domain {domain} does not apply to the synthetic target; drop --domain"
            )
        return SyntheticTarget()
    if name not in TARGETS:
        raise ConfigError(f"unknown audit target {name!r}: choose one of {', '.join(TARGETS)}")
    domain = domain or "airline"
    if domain not in AUDITED_DOMAINS:
        raise ConfigError(f"unknown domain {domain!r} for target {name}: choose airline or retail")
    from sscbench.audit.targets import SSCBenchTarget, Tau2Target

    return SSCBenchTarget(domain) if name == "sscbench" else Tau2Target(domain)


def select_tasks(target: Target, spec: str | None) -> list[str]:
    """The tasks named in ``spec`` (comma-separated ids) or the target's defaults."""
    if spec is None:
        return target.default_tasks()
    known = target.tasks()
    tasks = [t.strip() for t in spec.split(",") if t.strip()]
    for t in tasks:
        if t not in known:
            raise ConfigError(
                f"unknown {target.domain} task {t!r} in --tasks: ids run {known[0]}..{known[-1]}"
            )
    if not tasks:
        raise ConfigError("--tasks is empty: name task ids separated by commas, e.g. 7,11")
    return list(dict.fromkeys(tasks))


def audit_grader(target: Target, tasks: list[str]) -> AuditRecord:
    """The eight checks of ``target``'s own grader on ``tasks``."""
    results = run_checks(context(target, target.grader, tasks), tasks)
    summary: dict[str, dict[str, int]] = {}
    for check in CHECKS:
        counts = {"pass": 0, "violated": 0, "not_applicable": 0}
        for r in results:
            if r.check == check:
                counts[r.status] += 1
        summary[check] = counts
    return AuditRecord(
        target=target.name,
        domain=target.domain,
        grader=target.grader().name,
        tasks=tasks,
        fault_plans={t: [p.source for p in target.fault_plans(t)] for t in tasks},
        results=[
            CheckRecord(check=r.check, task_id=r.task_id, status=r.status, detail=r.detail)
            for r in results
        ],
        summary=summary,
    )


def default_matrix_runs(domain: str, tau2_domain: str, tasks: int) -> list[TargetRun]:
    """The three targets of the matrix with the first ``tasks`` default tasks of each."""
    runs = []
    for key, name, dom in (
        (f"sscbench/{domain}", "sscbench", domain),
        (f"tau2/{tau2_domain}", "tau2", tau2_domain),
        ("synthetic", "synthetic", None),
    ):
        target = make_target(name, dom)
        runs.append(TargetRun(key=key, target=target, tasks=target.default_tasks()[:tasks]))
    return runs


def injection_matrix(
    runs: list[TargetRun], on_progress: Callable[[str], None] | None = None
) -> MatrixRecord:
    """The full matrix: every variant of the catalogue on every target run."""
    return run_matrix(runs, VARIANTS, on_progress)
