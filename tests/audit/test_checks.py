"""The eight checks on real graders: SSCBench's passes, τ²'s fails under faults, and a
grader that swallows its own failure is a violation of INV-4, never "not applicable"."""

from __future__ import annotations

import pytest

from sscbench.audit.checks import CHECKS, CheckContext, inv4, inv5, run_checks
from sscbench.audit.defects import AlwaysPass, SwallowsException, clear_module_caches, injector
from sscbench.audit.known_defect import NeverRestoredReset, rescored_after_reward
from sscbench.audit.matrix import context
from sscbench.audit.scenarios import build, call_grader
from sscbench.audit.synthetic import SyntheticTarget
from sscbench.audit.target import Target
from sscbench.audit.targets import SSCBenchTarget, Tau2Target


def _statuses(target: Target, tasks: list[str], grader=None) -> dict[tuple[str, str], str]:  # type: ignore[no-untyped-def]
    ctx = context(target, grader or target.grader, tasks)
    return {(r.check, r.task_id): r.status for r in run_checks(ctx, tasks)}


def test_synthetic_grader_passes_every_check_on_every_task() -> None:
    target = SyntheticTarget()
    statuses = _statuses(target, target.tasks())
    assert len(statuses) == len(CHECKS) * 4
    assert statuses.pop(("CTL-3", "s1")) == "not_applicable"  # s1 requires no output
    assert set(statuses.values()) == {"pass"}


def test_sscbench_grader_passes_on_a_task_with_both_faults() -> None:
    statuses = _statuses(SSCBenchTarget("airline"), ["11"])  # write + read fault, output
    assert set(statuses.values()) == {"pass"}


def test_tau2_evaluator_scores_a_suppressed_write_and_raises_on_a_read_fault() -> None:
    airline = Tau2Target("airline")
    verdict = call_grader(airline.grader(), build(airline, "12", "gold_write_fault"))
    assert verdict.solved  # CTL-1 violated: the live write never happened
    retail = Tau2Target("retail")
    raised = call_grader(retail.grader(), build(retail, "0", "gold_read_fault"))
    assert raised.error == "ValueError"  # CTL-2 violated: the reference solution raises
    ours = SSCBenchTarget("airline")
    assert not call_grader(ours.grader(), build(ours, "12", "gold_write_fault")).solved


def test_a_grader_that_swallows_its_own_failure_violates_inv4() -> None:
    target = SyntheticTarget()
    ctx = context(target, injector(SwallowsException, target.grader), ["s0"])
    result = inv4(ctx, "s0")
    assert result.status == "violated" and "swallowed" in result.detail
    assert inv4(context(target, target.grader, ["s0"]), "s0").status == "pass"


def test_not_applicable_only_when_no_probe_point_is_reached() -> None:
    target = SyntheticTarget()
    statuses = _statuses(target, ["s0"], injector(AlwaysPass, target.grader))
    assert statuses[("INV-4", "s0")] == "not_applicable"  # it reads no state at all...
    assert statuses[("CTL-1", "s0")] == "violated"  # ...and is still caught


@pytest.mark.parametrize("target", [SyntheticTarget(), SSCBenchTarget("airline")])
def test_inv5_flags_the_never_restored_reset(target: Target) -> None:
    task = target.default_tasks()[0]
    ctx = CheckContext(target, lambda: NeverRestoredReset(target.grader()), clear_module_caches, {})
    result = inv5(ctx, task)
    assert result.status == "violated"
    assert "final state" in result.detail and "trajectory changed" in result.detail
    assert inv5(context(target, target.grader, [task]), task).status == "pass"


def test_an_idle_run_reads_as_solved_after_the_never_restored_reset() -> None:
    target = SSCBenchTarget("airline")
    session = build(target, "12", "idle")  # no write, no output required
    reward, later = rescored_after_reward(target.grader(), session)
    assert not reward.solved  # the value it returns is right...
    assert later.solved  # ...but a later read of the environment finds the reference state
