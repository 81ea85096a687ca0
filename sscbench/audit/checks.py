"""The eight oracle-integrity checks: five state invariants and three known-answer controls.

Each check grades its own fresh episodes and returns ``pass``, ``violated`` or
``not_applicable``. "Not applicable" is reserved for a task that offers nothing to probe
(no required output to paraphrase, no probe point the grader ever reaches); anything the
grader *did* — raising on a known answer, swallowing an injected failure, leaving state
behind — is a violation. A check never lets an exception escape: it is evidence.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from sscbench.audit.scenarios import (
    EpisodeKind,
    GraderFactory,
    Outcome,
    available,
    build,
    call_grader,
)
from sscbench.audit.session import Tripwire
from sscbench.audit.target import Target

CheckId = Literal["INV-1", "INV-2", "INV-3", "INV-4", "INV-5", "CTL-1", "CTL-2", "CTL-3"]
CHECKS: tuple[CheckId, ...] = (
    "INV-1",
    "INV-2",
    "INV-3",
    "INV-4",
    "INV-5",
    "CTL-1",
    "CTL-2",
    "CTL-3",
)
CHECK_TEXT: dict[CheckId, str] = {
    "INV-1": "a direct call does not change the scored state",
    "INV-2": "two calls on one environment give the same verdict and leave the same state",
    "INV-3": "the verdict does not depend on the order episodes are scored in",
    "INV-4": "if the grader fails midway, state is restored and the exception propagates",
    "INV-5": "after the session ends the environment holds the agent's final state and "
    "no action was appended",
    "CTL-1": "a run that did nothing, only said the outputs, or whose write had no effect "
    "is not solved",
    "CTL-2": "the reference solution is solved (also under a read fault)",
    "CTL-3": "an accepted paraphrase of a required output is accepted",
}
Status = Literal["pass", "violated", "not_applicable"]
MAX_PROBE_POINTS = 8


@dataclass(frozen=True)
class CheckContext:
    """What every check needs: the target, a grader factory and a fresh-process hook.

    ``fresh_process`` clears module-level state registered with the audit, so that INV-3
    compares two orders as if each ran in a new process (a cache that outlives one order
    would otherwise hide the other).
    """

    target: Target
    grader: GraderFactory
    fresh_process: Callable[[], None]
    partner: dict[str, str]


Episode = tuple[str, EpisodeKind]
"""One episode a check grades: (task id, kind)."""
Problem = tuple[Episode, str]


@dataclass(frozen=True)
class CheckResult:
    """One check on one task.

    ``episodes`` names, in the order found, the episodes a violation was seen on, so that a
    test (or a reader) can tell *which* known answer the grader got wrong, not only that
    one of them was.
    """

    check: CheckId
    task_id: str
    status: Status
    detail: str
    episodes: tuple[Episode, ...] = ()


def _result(
    check: CheckId, task: str, problems: list[Problem], probed: bool, ok: str
) -> CheckResult:
    if problems:
        episodes = tuple(dict.fromkeys(e for e, _ in problems))
        return CheckResult(check, task, "violated", "; ".join(p for _, p in problems), episodes)
    if not probed:
        return CheckResult(check, task, "not_applicable", ok)
    return CheckResult(check, task, "pass", ok)


def _kinds(ctx: CheckContext, task: str, kinds: tuple[EpisodeKind, ...]) -> list[EpisodeKind]:
    return [k for k in kinds if available(ctx.target, task, k)]


def inv1(ctx: CheckContext, task: str) -> CheckResult:
    problems: list[Problem] = []
    for kind in _kinds(ctx, task, ("gold", "idle", "gold_write_fault", "gold_read_fault")):
        session = build(ctx.target, task, kind)
        before = session.peek()
        call_grader(ctx.grader(), session)
        if session.peek() != before:
            problems.append(((task, kind), f"grading the {kind} episode changed the live state"))
    return _result("INV-1", task, problems, True, "live state unchanged by grading")


def inv2(ctx: CheckContext, task: str) -> CheckResult:
    problems: list[Problem] = []
    for kind in _kinds(ctx, task, ("gold", "idle", "gold_write_fault")):
        session = build(ctx.target, task, kind)
        grader = ctx.grader()
        first = call_grader(grader, session)
        after_first = session.peek()
        second = call_grader(grader, session)
        if first.label != second.label:
            problems.append(((task, kind), f"{kind}: {first.label} then {second.label}"))
        if session.peek() != after_first:
            problems.append(((task, kind), f"{kind}: the second call left a different state"))
    return _result("INV-2", task, problems, True, "repeat calls agree")


def inv3(ctx: CheckContext, task: str) -> CheckResult:
    other = ctx.partner.get(task, task)
    episodes: list[tuple[str, EpisodeKind]] = [
        (task, "gold"),
        (task, "idle"),
        (other, "gold"),
        (other, "idle"),
    ]
    runs: list[dict[int, str]] = []
    for order in (range(4), range(3, -1, -1)):
        ctx.fresh_process()
        grader = ctx.grader()
        labels = {}
        for i in order:
            t, kind = episodes[i]
            labels[i] = call_grader(grader, build(ctx.target, t, kind)).label
        runs.append(labels)
    problems: list[Problem] = [
        (
            episodes[i],
            f"{episodes[i][1]} of task {episodes[i][0]}: {runs[0][i]} forward, "
            f"{runs[1][i]} reversed",
        )
        for i in range(4)
        if runs[0][i] != runs[1][i]
    ]
    return _result("INV-3", task, problems, True, f"same verdicts in both orders (with {other})")


def _probe_indices(count: int) -> list[int]:
    if count <= MAX_PROBE_POINTS:
        return list(range(1, count + 1))
    step = (count - 1) / (MAX_PROBE_POINTS - 1)
    return sorted({1 + round(i * step) for i in range(MAX_PROBE_POINTS)})


def inv4(ctx: CheckContext, task: str) -> CheckResult:
    problems: list[Problem] = []
    fired_any = False
    for kind in _kinds(ctx, task, ("gold", "gold_write_fault")):
        dry = build(ctx.target, task, kind)
        dry.tripwire = Tripwire()
        call_grader(ctx.grader(), dry)
        for k in _probe_indices(dry.tripwire.count):
            session = build(ctx.target, task, kind)
            before, steps = session.peek(), len(session.actions)
            wire = Tripwire(fire_at=k)
            session.tripwire = wire
            outcome = call_grader(ctx.grader(), session)
            session.tripwire = None
            if not wire.fired:
                continue  # this path no longer reaches point k: nothing was probed here
            fired_any = True
            where = f"{kind}, failure at operation {k} ({wire.points[k - 1]})"
            if not outcome.injected:
                instead = (
                    f"returned {outcome.label}"
                    if outcome.verdict is not None
                    else f"raised {outcome.error} without the injected failure as its cause"
                )
                problems.append(((task, kind), f"{where}: swallowed, the grader {instead}"))
            if session.peek() != before or len(session.actions) != steps:
                problems.append(((task, kind), f"{where}: state not restored"))
    return _result(
        "INV-4",
        task,
        problems,
        fired_any,
        "failures propagated with state restored" if fired_any else "no probe point reached",
    )


def inv5(ctx: CheckContext, task: str) -> CheckResult:
    problems: list[Problem] = []
    for kind in _kinds(ctx, task, ("gold", "idle", "gold_write_fault")):
        session = build(ctx.target, task, kind)
        final, trajectory = session.peek(), list(session.actions)
        call_grader(ctx.grader(), session)  # the harness's end-of-session step
        if session.peek() != final:
            text = f"{kind}: the environment no longer holds the agent's final state"
            problems.append(((task, kind), text))
        if session.actions != trajectory:
            extra = len(session.actions) - len(trajectory)
            text = f"{kind}: the trajectory changed after termination ({extra:+d})"
            problems.append(((task, kind), text))
    return _result("INV-5", task, problems, True, "final state and trajectory kept")


def _expect(ctx: CheckContext, task: str, kind: EpisodeKind, solved: bool) -> Problem | None:
    """The problem with the grader's answer on a known answer, if any.

    An exception is not a verdict: a grader that raises on a known answer violates the
    control whichever way the answer goes (for CTL-1 too, where "not solved" is expected).
    """
    outcome: Outcome = call_grader(ctx.grader(), build(ctx.target, task, kind))
    if outcome.verdict is None:
        return (task, kind), f"{kind}: the grader raised {outcome.error}"
    if outcome.solved != solved:
        return (task, kind), f"{kind}: {outcome.label}"
    return None


def ctl1(ctx: CheckContext, task: str) -> CheckResult:
    target = ctx.target
    kinds: list[EpisodeKind] = []
    if target.needs_action(task):
        kinds.append("idle")
        if target.fresh(task).peek() != target.reference(task):
            kinds.append("say_only")
    kinds += _kinds(ctx, task, ("gold_write_fault",))
    problems = [p for k in kinds if (p := _expect(ctx, task, k, solved=False))]
    return _result("CTL-1", task, problems, bool(kinds), "not solved without the effect")


def ctl2(ctx: CheckContext, task: str) -> CheckResult:
    kinds = _kinds(ctx, task, ("gold", "gold_read_fault"))
    problems = [p for k in kinds if (p := _expect(ctx, task, k, solved=True))]
    return _result("CTL-2", task, problems, True, "reference solution solved")


def ctl3(ctx: CheckContext, task: str) -> CheckResult:
    kinds = _kinds(ctx, task, ("paraphrase",))
    problems = [p for k in kinds if (p := _expect(ctx, task, k, solved=True))]
    return _result(
        "CTL-3",
        task,
        problems,
        bool(kinds),
        "paraphrase accepted" if kinds else "no required output has an accepted paraphrase",
    )


CHECK_FUNCTIONS: dict[CheckId, Callable[[CheckContext, str], CheckResult]] = {
    "INV-1": inv1,
    "INV-2": inv2,
    "INV-3": inv3,
    "INV-4": inv4,
    "INV-5": inv5,
    "CTL-1": ctl1,
    "CTL-2": ctl2,
    "CTL-3": ctl3,
}


def run_checks(
    ctx: CheckContext, tasks: list[str], checks: tuple[CheckId, ...] = CHECKS
) -> list[CheckResult]:
    """Every check on every task, each check starting from a fresh process state."""
    results = []
    for task in tasks:
        for check in checks:
            ctx.fresh_process()
            results.append(CHECK_FUNCTIONS[check](ctx, task))
    return results
