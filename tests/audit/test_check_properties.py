"""Each of the eight checks against graders that break exactly its property.

The oracle-integrity study defines each check by a property (INV-1: a call does not change
the scored state; INV-2: two calls agree in verdict and state; INV-3: no order dependence;
INV-4: an injected failure propagates and the state is restored; INV-5: after the end
step the environment keeps the agent's state and no action is appended; CTL-1: a run that
did nothing, only said the outputs or whose write had no effect is not solved; CTL-2: the
reference solution is solved; CTL-3: an accepted paraphrase is accepted). Each test below
builds, on the synthetic target, a grader that is wrong in one of those ways on one
episode, and asserts that the check reports a violation naming that episode; where the
wrong behaviour touches no other property, it asserts that no other check is blamed. One
grader per check raises: an exception is not a verdict.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Literal, cast

import pytest

from sscbench.audit.checks import (
    CHECKS,
    CheckContext,
    CheckId,
    CheckResult,
    ctl1,
    ctl2,
    ctl3,
    inv1,
    inv2,
    inv3,
    inv4,
    inv5,
    run_checks,
)
from sscbench.audit.matrix import PROBE_KINDS, context, partners
from sscbench.audit.scenarios import IDLE_TEXT, EpisodeKind, gold_text
from sscbench.audit.session import Session, Signature, Verdict
from sscbench.audit.synthetic import SyntheticSession, SyntheticTarget
from sscbench.audit.target import AuditGrader
from sscbench.envs.calls import ToolCall

TARGET = SyntheticTarget()
TASK = "s0"  # a write, a write fault, a read fault and one required output ("1250")
NOTE = ToolCall(id="grader-note", name="add_note", arguments={"account_id": "A1", "text": "x"})
EVERY = PROBE_KINDS


def kind_of(session: Session) -> EpisodeKind:
    """Which known-answer episode a synthetic session is (as built by the audit)."""
    fault = cast(SyntheticSession, session).fault
    if fault is not None:
        return "gold_write_fault" if fault.kind == "write" else "gold_read_fault"
    first = session.texts[0]
    if not session.calls:
        return "idle" if first == IDLE_TEXT else "say_only"
    verbatim = gold_text(TARGET.required_outputs(session.task_id))
    return "gold" if first == verbatim else "paraphrase"


class Wrong(AuditGrader):
    """The synthetic grader, with :meth:`wrong` instead of it on the episodes in ``on``."""

    name = "tests.audit.Wrong"

    def __init__(self, on: Collection[EpisodeKind] = EVERY) -> None:
        super().__init__(TARGET)
        self.base = TARGET.grader()
        self.on = set(on)
        self.calls: dict[Session, int] = {}  # holds the sessions, so no id is reused

    def graded_state(self, session: Session) -> Signature:
        return self.base.graded_state(session)

    def grade(self, session: Session) -> Verdict:
        self.calls[session] = n = self.calls.get(session, 0) + 1
        if kind_of(session) in self.on:
            return self.wrong(session, n)
        return self.base.grade(session)

    def wrong(self, session: Session, n: int) -> Verdict:
        raise NotImplementedError


def _factory(cls: type[Wrong], *args: object, **kwargs: object) -> Callable[[], AuditGrader]:
    return lambda: cls(*args, **kwargs)  # type: ignore[arg-type]


def _ctx(grader: Callable[[], AuditGrader]) -> CheckContext:
    return context(TARGET, grader, TARGET.tasks())


def _violated(grader: Callable[[], AuditGrader], task: str = TASK) -> set[CheckId]:
    return {r.check for r in run_checks(_ctx(grader), [task]) if r.status == "violated"}


def _names(result: CheckResult, *episodes: tuple[str, EpisodeKind]) -> None:
    assert result.status == "violated", result
    assert result.episodes == episodes, result.detail


# -- graders that are wrong in one way ----------------------------------------------------
class LeavesATrace(Wrong):
    """Grades, then leaves a trace — a note written into the live state, or a message of its
    own in the agent's trajectory — and then raises, if asked."""

    def __init__(
        self,
        on: Collection[EpisodeKind],
        *,
        trace: Literal["state", "trajectory"],
        then_raise: bool = False,
    ) -> None:
        super().__init__(on)
        self.trace, self.then_raise = trace, then_raise

    def wrong(self, session: Session, n: int) -> Verdict:
        verdict = self.base.grade(session)
        if self.trace == "state":
            session.replay([NOTE], faults=False)
        else:
            session.say("(graded)")
        if self.then_raise:
            raise RuntimeError("grader bug after grading")
        return verdict


class FlipsOnSecondCall(Wrong):
    def wrong(self, session: Session, n: int) -> Verdict:
        v = self.base.grade(session)
        return v if n == 1 else Verdict(not v.solved, v.state_ok, v.outputs_ok)


class RaisesOnSecondCall(Wrong):
    def wrong(self, session: Session, n: int) -> Verdict:
        if n > 1:
            raise RuntimeError("a cache filled by the first call is stale")
        return self.base.grade(session)


class WritesOnSecondCall(Wrong):
    def wrong(self, session: Session, n: int) -> Verdict:
        verdict = self.base.grade(session)
        if n > 1:
            session.replay([NOTE], faults=False)
        return verdict


class ReferenceOfFirstTask(Wrong):
    """Keeps the first reference it builds for every later task (an instance cache)."""

    first: Signature | None = None

    def wrong(self, session: Session, n: int) -> Verdict:
        if self.first is None:
            self.first = self.base.reference(session)
        state_ok = self.graded_state(session) == self.first
        outputs_ok = self.base.outputs_ok(session)
        return Verdict(state_ok and outputs_ok, state_ok, outputs_ok)


class RaisesOnASecondTask(Wrong):
    """Sized for the first task it grades: any other task raises."""

    task: str | None = None

    def wrong(self, session: Session, n: int) -> Verdict:
        self.task = self.task or session.task_id
        if session.task_id != self.task:
            raise KeyError(session.task_id)
        return self.base.grade(session)


MODULE_VERDICTS: dict[str, Verdict] = {}


class VerdictInModule(Wrong):
    """Caches verdicts per task in module state, which only a new process clears."""

    def wrong(self, session: Session, n: int) -> Verdict:
        if session.task_id not in MODULE_VERDICTS:
            MODULE_VERDICTS[session.task_id] = self.base.grade(session)
        return MODULE_VERDICTS[session.task_id]


class Swallows(Wrong):
    def wrong(self, session: Session, n: int) -> Verdict:
        try:
            return self.base.grade(session)
        except Exception:
            return Verdict(solved=True, state_ok=True, outputs_ok=True)


class ReplacesTheFailure(Wrong):
    """Catches the failure, then raises an error of its own that does not carry it."""

    def wrong(self, session: Session, n: int) -> Verdict:
        failed = False
        try:
            return self.base.grade(session)
        except Exception:
            failed = True
        if failed:
            raise RuntimeError("grading failed")
        raise AssertionError("unreachable")


class WrapsTheFailure(Wrong):
    """Lets failures out wrapped in two exceptions of its own: still a propagated failure."""

    def wrong(self, session: Session, n: int) -> Verdict:
        try:
            try:
                return self.base.grade(session)
            except Exception as exc:
                raise RuntimeError("reading the state failed") from exc
        except RuntimeError as exc:
            raise ValueError("grading failed") from exc


class RebuildsReferenceLive(Wrong):
    """Rebuilds the reference by reset and replay on the live state, then puts the state
    back — in ``finally`` if asked, else only when nothing raised."""

    def __init__(self, on: Collection[EpisodeKind], *, in_finally: bool) -> None:
        super().__init__(on)
        self.in_finally = in_finally

    def wrong(self, session: Session, n: int) -> Verdict:
        handle = session.reset()
        try:
            session.replay(TARGET.gold_calls(session.task_id), faults=False)
            reference = session.signature()
        finally:
            if self.in_finally:
                session.restore(handle)
        if not self.in_finally:
            session.restore(handle)
        state_ok = session.signature() == reference
        outputs_ok = self.base.outputs_ok(session)
        return Verdict(state_ok and outputs_ok, state_ok, outputs_ok)


class SaysSolved(Wrong):
    """Returns ``solved`` (as given) whatever its pieces say."""

    def __init__(self, on: Collection[EpisodeKind], *, solved: bool) -> None:
        super().__init__(on)
        self.solved = solved

    def wrong(self, session: Session, n: int) -> Verdict:
        v = self.base.grade(session)
        return Verdict(self.solved, v.state_ok, v.outputs_ok)


class Raises(Wrong):
    def wrong(self, session: Session, n: int) -> Verdict:
        raise RuntimeError("grader bug")


class GradesACleanReplay(Wrong):
    """τ²'s way: replays the recorded calls on a new environment without the fault plan."""

    def wrong(self, session: Session, n: int) -> Verdict:
        replay = TARGET.fresh(session.task_id)
        for call in session.calls:
            replay.execute(call)
        state_ok = replay.peek() == self.base.reference(session)
        outputs_ok = self.base.outputs_ok(session)
        return Verdict(state_ok and outputs_ok, state_ok, outputs_ok)


class ChecksStateOnlyAfterACall(Wrong):
    """Compares the state only when the agent called a tool ("nothing to check" otherwise)."""

    def wrong(self, session: Session, n: int) -> Verdict:
        state_ok = not session.calls or self.graded_state(session) == self.base.reference(session)
        outputs_ok = self.base.outputs_ok(session)
        return Verdict(state_ok and outputs_ok, state_ok, outputs_ok)


class ChecksRecordedObservations(Wrong):
    """τ²'s other way: re-runs each recorded call and raises when an observation differs."""

    def wrong(self, session: Session, n: int) -> Verdict:
        replay = TARGET.fresh(session.task_id)
        for action in session.actions:
            if action.call is not None and replay.execute(action.call) != action.observation:
                raise ValueError(f"observation of {action.call.name} differs from a fresh one")
        return self.base.grade(session)


class MatchesOutputs(Wrong):
    """Matches required outputs after its own normalisation (``lower``, ``commas``)."""

    def __init__(self, on: Collection[EpisodeKind], *, lower: bool, commas: bool) -> None:
        super().__init__(on)
        self.lower, self.commas = lower, commas

    def _norm(self, text: str) -> str:
        text = text.lower() if self.lower else text
        return text.replace(",", "") if self.commas else text

    def wrong(self, session: Session, n: int) -> Verdict:
        v = self.base.grade(session)
        said = [self._norm(t) for t in session.texts]
        outputs_ok = all(
            any(self._norm(o) in t for t in said) for o in TARGET.required_outputs(session.task_id)
        )
        return Verdict(v.state_ok and outputs_ok, v.state_ok, outputs_ok)


# -- INV-1 ----------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["gold", "idle", "gold_write_fault", "gold_read_fault"])
@pytest.mark.parametrize("then_raise", [False, True], ids=["returns", "raises"])
def test_inv1_names_the_episode_whose_grading_changed_the_state(
    kind: EpisodeKind, then_raise: bool
) -> None:
    result = inv1(_ctx(_factory(LeavesATrace, [kind], trace="state", then_raise=then_raise)), TASK)
    _names(result, (TASK, kind))
    assert "changed the live state" in result.detail


# -- INV-2 ----------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["gold", "idle", "gold_write_fault"])
@pytest.mark.parametrize("grader", [FlipsOnSecondCall, RaisesOnSecondCall])
def test_inv2_names_the_episode_whose_verdict_changed_on_the_second_call(
    kind: EpisodeKind, grader: type[Wrong]
) -> None:
    factory = _factory(grader, [kind])
    result = inv2(_ctx(factory), TASK)
    _names(result, (TASK, kind))
    assert " then " in result.detail
    assert _violated(factory) == {"INV-2"}  # one call per session everywhere else


@pytest.mark.parametrize("kind", ["gold", "idle", "gold_write_fault"])
def test_inv2_names_the_episode_whose_second_call_changed_the_state(kind: EpisodeKind) -> None:
    factory = _factory(WritesOnSecondCall, [kind])
    result = inv2(_ctx(factory), TASK)
    _names(result, (TASK, kind))
    assert result.detail == f"{kind}: the second call left a different state"
    assert _violated(factory) == {"INV-2"}


# -- INV-3 ----------------------------------------------------------------------------------
def test_inv3_names_the_episodes_whose_verdict_depends_on_the_order() -> None:
    other = partners(TARGET.tasks())[TASK]
    factory = _factory(ReferenceOfFirstTask)
    result = inv3(_ctx(factory), TASK)
    # Forward, the first reference is s0's: s1's gold is wrongly unsolved; reversed, s1's.
    _names(result, (TASK, "gold"), (other, "gold"))
    assert _violated(factory) == {"INV-3"}
    raising = inv3(_ctx(_factory(RaisesOnASecondTask)), TASK)
    _names(raising, (TASK, "gold"), (TASK, "idle"), (other, "gold"), (other, "idle"))
    assert "raised KeyError" in raising.detail


def test_inv3_runs_each_order_as_a_new_process() -> None:
    ctx = CheckContext(TARGET, VerdictInModule, MODULE_VERDICTS.clear, partners(TARGET.tasks()))
    result = inv3(ctx, TASK)
    assert result.status == "violated", result  # hidden if the cache outlived the first order
    assert (TASK, "idle") in result.episodes


# -- INV-4 ----------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["gold", "gold_write_fault"])
@pytest.mark.parametrize("grader", [Swallows, ReplacesTheFailure])
def test_inv4_names_the_episode_whose_failure_was_swallowed(
    kind: EpisodeKind, grader: type[Wrong]
) -> None:
    factory = _factory(grader, [kind])
    result = inv4(_ctx(factory), TASK)
    _names(result, (TASK, kind))
    assert "swallowed" in result.detail
    assert _violated(factory) == {"INV-4"}


@pytest.mark.parametrize("kind", ["gold", "gold_write_fault"])
def test_inv4_names_the_episode_left_unrestored_after_a_failure(kind: EpisodeKind) -> None:
    factory = _factory(RebuildsReferenceLive, [kind], in_finally=False)
    result = inv4(_ctx(factory), TASK)
    _names(result, (TASK, kind))
    assert "state not restored" in result.detail and "swallowed" not in result.detail
    assert _violated(factory) == {"INV-4"}
    fixed = _factory(RebuildsReferenceLive, [kind], in_finally=True)
    assert inv4(_ctx(fixed), TASK).status == "pass"
    assert _violated(fixed) == set()


def test_inv4_accepts_a_failure_wrapped_on_its_way_out() -> None:
    result = inv4(_ctx(_factory(WrapsTheFailure)), TASK)
    assert result.status == "pass", result.detail


# -- INV-5 ----------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["gold", "idle", "gold_write_fault"])
@pytest.mark.parametrize("then_raise", [False, True], ids=["returns", "raises"])
def test_inv5_names_the_episode_whose_trajectory_grew(kind: EpisodeKind, then_raise: bool) -> None:
    factory = _factory(LeavesATrace, [kind], trace="trajectory", then_raise=then_raise)
    result = inv5(_ctx(factory), TASK)
    _names(result, (TASK, kind))
    assert result.detail == f"{kind}: the trajectory changed after termination (+1)"
    if not then_raise:
        assert _violated(factory) == {"INV-5"}


@pytest.mark.parametrize("kind", ["gold", "idle", "gold_write_fault"])
@pytest.mark.parametrize("then_raise", [False, True], ids=["returns", "raises"])
def test_inv5_names_the_episode_whose_final_state_changed(
    kind: EpisodeKind, then_raise: bool
) -> None:
    result = inv5(_ctx(_factory(LeavesATrace, [kind], trace="state", then_raise=then_raise)), TASK)
    _names(result, (TASK, kind))
    assert result.detail == f"{kind}: the environment no longer holds the agent's final state"


# -- CTL-1 ----------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["idle", "say_only", "gold_write_fault"])
@pytest.mark.parametrize("how", ["solved", "raises"])
def test_ctl1_names_the_episode_wrongly_solved(kind: EpisodeKind, how: str) -> None:
    factory = (
        _factory(SaysSolved, [kind], solved=True) if how == "solved" else _factory(Raises, [kind])
    )
    result = ctl1(_ctx(factory), TASK)
    _names(result, (TASK, kind))
    assert result.detail.startswith(
        f"{kind}: solved=1" if how == "solved" else f"{kind}: the grader raised RuntimeError"
    )
    assert _violated(factory) == {"CTL-1"}


@pytest.mark.parametrize(
    ("grader", "kind"),
    [(GradesACleanReplay, "gold_write_fault"), (ChecksStateOnlyAfterACall, "say_only")],
)
def test_ctl1_catches_graders_that_look_at_the_wrong_state(
    grader: type[Wrong], kind: EpisodeKind
) -> None:
    factory = _factory(grader)
    _names(ctl1(_ctx(factory), TASK), (TASK, kind))
    assert _violated(factory) == {"CTL-1"}


def test_ctl1_idle_counts_on_a_task_that_only_asks_for_outputs() -> None:
    task = "s2"  # a read and a required output: no write, so there is no say-only episode
    assert TARGET.reference(task) == TARGET.fresh(task).peek()
    _names(ctl1(_ctx(_factory(SaysSolved, ["idle"], solved=True)), task), (task, "idle"))


# -- CTL-2 ----------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["gold", "gold_read_fault"])
@pytest.mark.parametrize("how", ["unsolved", "raises"])
def test_ctl2_names_the_episode_wrongly_unsolved(kind: EpisodeKind, how: str) -> None:
    factory = (
        _factory(SaysSolved, [kind], solved=False)
        if how == "unsolved"
        else _factory(Raises, [kind])
    )
    result = ctl2(_ctx(factory), TASK)
    _names(result, (TASK, kind))
    assert _violated(factory) == {"CTL-2"}


def test_ctl2_catches_a_grader_that_raises_on_a_rewritten_read() -> None:
    factory = _factory(ChecksRecordedObservations)
    result = ctl2(_ctx(factory), TASK)
    _names(result, (TASK, "gold_read_fault"))
    assert result.detail == "gold_read_fault: the grader raised ValueError"
    assert _violated(factory) == {"CTL-2"}


# -- CTL-3 ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("task", "lower", "commas"),
    [("s3", False, True), ("s0", True, False)],  # BOB for Bob; 1,250 for 1250
    ids=["case-sensitive", "separators-kept"],
)
def test_ctl3_names_the_rejected_paraphrase(task: str, lower: bool, commas: bool) -> None:
    factory = _factory(MatchesOutputs, EVERY, lower=lower, commas=commas)
    result = ctl3(_ctx(factory), task)
    _names(result, (task, "paraphrase"))
    assert _violated(factory, task) == {"CTL-3"}
    raising = ctl3(_ctx(_factory(Raises, ["paraphrase"])), task)
    _names(raising, (task, "paraphrase"))


# -- an exception is not a verdict ------------------------------------------------------------
def test_an_exception_is_not_a_verdict() -> None:
    """A grader that always raises keeps every state invariant and fails every control."""
    results = {r.check: r for r in run_checks(_ctx(_factory(Raises)), [TASK])}
    assert set(results) == set(CHECKS)
    _names(results["CTL-1"], (TASK, "idle"), (TASK, "say_only"), (TASK, "gold_write_fault"))
    _names(results["CTL-2"], (TASK, "gold"), (TASK, "gold_read_fault"))
    _names(results["CTL-3"], (TASK, "paraphrase"))
    for check in ("CTL-1", "CTL-2", "CTL-3"):
        assert all(
            p.endswith("the grader raised RuntimeError") for p in results[check].detail.split("; ")
        )
    assert {c: r.status for c, r in results.items() if not c.startswith("CTL")} == {
        "INV-1": "pass",
        "INV-2": "pass",
        "INV-3": "pass",
        "INV-4": "not_applicable",  # it raises before any state operation
        "INV-5": "pass",
    }
