"""A known-defect fixture: the never-restored reset, re-created faithfully.

The original τ-bench reward function (as the oracle-integrity study describes it) hashes the
live data, *reloads the database* to replay the reference actions through the
environment's own ``step`` — which also appends each of them to the episode's action list
— hashes again, and returns. Nothing restores the database. The value it returns is
right; what is wrong is what it leaves behind: a harness that reads the environment after
the session (to score it, or to score it again) reads the reference solution's state.

INV-5 must flag this fixture on every target; the integration failure it causes (an idle
run that a later live-state read scores as solved) is shown by
:func:`rescored_after_reward`.
"""

from __future__ import annotations

from sscbench.audit.session import Session, Signature, Verdict
from sscbench.audit.target import AuditGrader, communicated_normalised


class NeverRestoredReset(AuditGrader):
    """``calculate_reward`` as it was: hash, reload, replay through ``step``, never restore."""

    def __init__(self, base: AuditGrader) -> None:
        super().__init__(base.target)
        self.name = f"{base.name}+never-restored-reset"

    def graded_state(self, session: Session) -> Signature:
        return session.signature()

    def grade(self, session: Session) -> Verdict:
        data_hash = session.signature()  # data_hash = self.get_data_hash()
        session.reset()  # self.data = self.data_load_func()
        gold = self.target.gold_calls(session.task_id)
        session.replay(gold, faults=False, record=True)  # self.step(action) appends
        gt_data_hash = session.signature()
        state_ok = data_hash == gt_data_hash
        outputs_ok = communicated_normalised(self.target.required_outputs(session.task_id), session)
        return Verdict(solved=state_ok and outputs_ok, state_ok=state_ok, outputs_ok=outputs_ok)


def rescored_after_reward(base: AuditGrader, session: Session) -> tuple[Verdict, Verdict]:
    """The reward the fixture returns, then a second, correct grader reading the session
    afterwards (a harness that scores the live state after the session ends)."""
    first = NeverRestoredReset(base).grade(session)
    return first, base.grade(session)
