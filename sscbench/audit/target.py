"""The audit's target interface: what any grader must expose to be audited.

Four operations, nothing specific to τ²: make a fresh environment for a task
(:meth:`Target.fresh`), take a comparable signature of the state being graded
(:meth:`Session.signature`), call the grader (:meth:`AuditGrader.grade`) and name it
(:attr:`AuditGrader.name`). The rest of :class:`Target` is the task knowledge the
known-answer controls need: the reference solution, the required outputs and an accepted
paraphrase of them, and the fault plans available for a task.

Graders are split into overridable pieces (graded state, reference, outputs) so that the
defect catalogue (:mod:`sscbench.audit.defects`) can change exactly one of them.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Literal

from sscbench.audit.session import Session, Signature, Verdict
from sscbench.envs.calls import ToolCall

FaultKind = Literal["write", "read"]


@dataclass(frozen=True)
class FaultPlan:
    """A deterministic fault for a task: a suppressed write or a rewritten read.

    ``trigger`` is a call that makes a read fault fire (``None`` for write faults: the gold
    write itself is suppressed). ``source`` names where the plan comes from (a case id).
    """

    kind: FaultKind
    source: str
    trigger: ToolCall | None = None


class AuditGrader(ABC):
    """A grader under audit: one verdict per session, built from overridable pieces."""

    name: str

    def __init__(self, target: Target) -> None:
        self.target = target

    @abstractmethod
    def grade(self, session: Session) -> Verdict:
        """Grade the session's episode (the interface's "call the grader")."""

    @abstractmethod
    def graded_state(self, session: Session) -> Signature:
        """The signature of the state this grader compares with the reference."""

    def reference(self, session: Session) -> Signature:
        """The reference (gold) signature of the session's task."""
        session.probe("reference")
        return self.target.reference(session.task_id)

    def outputs_ok(self, session: Session) -> bool:
        """Whether every required output appears, normalised, in the agent's messages."""
        return communicated_normalised(self.target.required_outputs(session.task_id), session)


def communicated_normalised(required: list[str], session: Session) -> bool:
    """τ²'s rule: lower-case, commas removed, substring of some agent message."""
    texts = [t.lower().replace(",", "") for t in session.texts]
    return all(any(info.lower() in t for t in texts) for info in required)


class Target(ABC):
    """One audited grader on one domain, with the task knowledge the controls need."""

    name: str
    domain: str

    @abstractmethod
    def tasks(self) -> list[str]:
        """Every task id of the domain, in order."""

    @abstractmethod
    def fresh(self, task_id: str, fault: FaultPlan | None = None) -> Session:
        """A fresh environment of the task (with the fault plan armed, if given)."""

    @abstractmethod
    def grader(self) -> AuditGrader:
        """A new instance of the target's own grader."""

    @abstractmethod
    def gold_calls(self, task_id: str) -> list[ToolCall]:
        """The reference solution's tool calls."""

    @abstractmethod
    def required_outputs(self, task_id: str) -> list[str]:
        """The strings the agent must communicate."""

    @abstractmethod
    def reference(self, task_id: str) -> Signature:
        """The gold signature: the reference solution run on a separate fresh environment."""

    def fault_plans(self, task_id: str) -> list[FaultPlan]:
        """Fault plans available for the task (none by default)."""
        return []

    def default_tasks(self) -> list[str]:
        """The tasks an audit covers when none are named."""
        return self.tasks()[:3]

    def needs_action(self, task_id: str) -> bool:
        """Whether doing nothing must fail: the gold state differs or outputs are required."""
        fresh = self.fresh(task_id).peek()
        return fresh != self.reference(task_id) or bool(self.required_outputs(task_id))


_NUMBER = re.compile(r"^(\d+)(\.\d+)?$")


def paraphrase(output: str) -> str | None:
    """An accepted paraphrase of a required output, or ``None`` when it has none.

    The normalisation the communicate rule specifies (case and thousands separators) is
    exactly what a paraphrase may change: ``1628`` → ``1,628``; ``camera`` → ``CAMERA``.
    """
    m = _NUMBER.match(output)
    if m is not None:
        whole = int(m.group(1))
        if whole < 1000:
            return None
        return f"{whole:,}{m.group(2) or ''}"
    upper = output.upper()
    return upper if upper != output else None
