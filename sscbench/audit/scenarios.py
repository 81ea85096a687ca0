"""The episodes the checks grade, built on a fresh session of a task.

Each is a known answer: the reference solution (solved), the same with an accepted
paraphrase of the required outputs (solved), an idle run and a run that only *says* the
required outputs (not solved when the task needs a write), and the reference solution
under a fault (a suppressed write must leave it unsolved; a rewritten read must not
change its verdict).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from sscbench.audit.session import InjectedFault, Session, Verdict
from sscbench.audit.target import AuditGrader, FaultPlan, Target, paraphrase

EpisodeKind = Literal[
    "gold", "paraphrase", "idle", "say_only", "gold_write_fault", "gold_read_fault"
]
IDLE_TEXT = "I'm sorry, I cannot help with that. Is there anything else?"


def gold_text(outputs: list[str]) -> str:
    """The reference solution's closing message: every required output, verbatim."""
    if not outputs:
        return "Your request is complete."
    return "Your request is complete. For your records: " + "; ".join(outputs) + "."


def fault_of(target: Target, task_id: str, kind: Literal["write", "read"]) -> FaultPlan | None:
    """The task's first fault plan of ``kind``, if any."""
    return next((p for p in target.fault_plans(task_id) if p.kind == kind), None)


def build(target: Target, task_id: str, kind: EpisodeKind) -> Session:
    """A fresh session of ``task_id`` driven through the episode ``kind``."""
    outputs = target.required_outputs(task_id)
    fault = None
    if kind == "gold_write_fault":
        fault = fault_of(target, task_id, "write")
    elif kind == "gold_read_fault":
        fault = fault_of(target, task_id, "read")
    session = target.fresh(task_id, fault)
    if kind == "idle":
        session.say(IDLE_TEXT)
        return session
    if kind == "say_only":
        session.say(gold_text(outputs))
        return session
    if fault is not None and fault.trigger is not None:
        session.execute(fault.trigger)
    for call in target.gold_calls(task_id):
        session.execute(call)
    if kind == "paraphrase":
        session.say(gold_text([paraphrase(o) or o for o in outputs]))
    else:
        session.say(gold_text(outputs))
    return session


def available(target: Target, task_id: str, kind: EpisodeKind) -> bool:
    """Whether the episode exists for the task (a fault or a paraphrase to use)."""
    if kind == "gold_write_fault":
        return fault_of(target, task_id, "write") is not None
    if kind == "gold_read_fault":
        return fault_of(target, task_id, "read") is not None
    if kind == "paraphrase":
        return any(paraphrase(o) is not None for o in target.required_outputs(task_id))
    return True


@dataclass(frozen=True)
class Outcome:
    """What one grader call did: its verdict, or the exception it raised."""

    verdict: Verdict | None
    error: str | None
    injected: bool = False

    @property
    def label(self) -> str:
        """Comparable text: the verdict, or ``raised <Exception>``."""
        return self.verdict.label() if self.verdict is not None else f"raised {self.error}"

    @property
    def solved(self) -> bool:
        """True only for a returned, solved verdict."""
        return self.verdict is not None and self.verdict.solved


def _caused_by_injection(exc: BaseException) -> bool:
    """Whether an injected failure is anywhere in ``exc``'s chain of causes.

    A grader that wraps the failure (once or several times) still lets it propagate: what
    INV-4 forbids is turning it into a verdict, not re-raising it as another exception.
    """
    seen: set[int] = set()
    link: BaseException | None = exc
    while link is not None and id(link) not in seen:
        if isinstance(link, InjectedFault):
            return True
        seen.add(id(link))
        link = link.__cause__ or link.__context__
    return False


def call_grader(grader: AuditGrader, session: Session) -> Outcome:
    """Call the grader; an exception becomes part of the outcome (never escapes)."""
    try:
        return Outcome(verdict=grader.grade(session), error=None)
    except InjectedFault:
        return Outcome(verdict=None, error="InjectedFault", injected=True)
    except Exception as exc:
        return Outcome(verdict=None, error=type(exc).__name__, injected=_caused_by_injection(exc))


GraderFactory = Callable[[], AuditGrader]
