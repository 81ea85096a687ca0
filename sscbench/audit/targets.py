"""The two real audit targets: SSCBench's live-state grader and τ²'s own evaluator.

Both grade the same kind of session: a live :class:`~sscbench.envs.EpisodeEnvironment` of
an airline or retail task, with an optional fault from the shipped case set. They differ
only in the grader: SSCBench compares the live state hash with the gold hash
(:class:`~sscbench.envs.grading.LiveStateGrader`, called for real); τ²'s
``EnvironmentEvaluator.calculate_reward`` (called for real) replays the recorded trajectory
on new environments and never looks at the live one.
"""

from __future__ import annotations

import gc
import hashlib
import pickle
from collections.abc import Callable
from functools import cache
from typing import Any

from sscbench.audit.session import Session, Signature, Verdict
from sscbench.audit.target import AuditGrader, FaultKind, FaultPlan, Target
from sscbench.envs import EpisodeEnvironment, EpisodeState, load_domain
from sscbench.envs.calls import Observation, ToolCall
from sscbench.envs.domain import Domain
from sscbench.envs.grading import LiveStateGrader, replay_gold, required_outputs
from sscbench.envs.state import canonical_json
from sscbench.fault_contracts.contract import FaultContract, ObservationRewrite
from sscbench.fault_contracts.injection import ContractIntervention

READ_OPERATORS = ("return_date", "pay_source", "item_option")
DEFAULT_TASKS = {"airline": ["7", "11", "12", "14"], "retail": ["30", "16", "0", "5"]}
"""Tasks with a write fault, a read fault and required outputs between them."""


class EpisodeSession(Session):
    """A live airline or retail episode; the fault (if any) acts on agent calls only."""

    def __init__(self, domain: str, task_id: str, contract: FaultContract | None) -> None:
        super().__init__(task_id)
        intervention = None if contract is None else ContractIntervention(contract)
        self.env = EpisodeEnvironment.open(domain, load_domain(domain).task(task_id), intervention)
        self._step = 0

    def _run(self, call: ToolCall, *, faults: bool) -> Observation:
        self._step += 1
        if faults:
            return self.env.execute(call, self._step)
        saved, self.env.intervention = self.env.intervention, None
        try:
            return self.env.execute(call, self._step)
        finally:
            self.env.intervention = saved

    def _signature(self) -> Signature:
        return Signature.of(self.env.state.component_digests())

    def _swap_fresh(self) -> Any:
        old = (self.env.state, self.env.toolkit)
        self.env.state = EpisodeState.fresh(self.env.domain)
        self.env.toolkit = self.env.domain.toolkit_class(self.env.state.db)
        return old

    def _put_back(self, handle: Any) -> None:
        self.env.state, self.env.toolkit = handle


@cache
def _reference(domain: str, task_id: str) -> Signature:
    return Signature.of(replay_gold(domain, task_id).state.component_digests())


@cache
def _case_contracts(domain: str) -> dict[str, list[FaultContract]]:
    from sscbench.cases.caseset import load_case_set

    by_task: dict[str, list[FaultContract]] = {}
    for case in load_case_set(None).cases:
        c = case.contract
        if c.domain == domain and not c.control:
            by_task.setdefault(c.task_id, []).append(c)
    return by_task


class EpisodeTarget(Target):
    """Shared task knowledge of the airline and retail targets."""

    def __init__(self, domain: str) -> None:
        self.domain = domain
        self._domain: Domain = load_domain(domain)
        self._contracts: dict[str, FaultContract] = {}

    def tasks(self) -> list[str]:
        return [t.id for t in self._domain.tasks]

    def default_tasks(self) -> list[str]:
        return list(DEFAULT_TASKS[self.domain])

    def fresh(self, task_id: str, fault: FaultPlan | None = None) -> Session:
        contract = None if fault is None else self._contracts[fault.source]
        return EpisodeSession(self.domain, task_id, contract)

    def gold_calls(self, task_id: str) -> list[ToolCall]:
        criteria = self._domain.task(task_id).evaluation_criteria
        actions = (criteria.actions if criteria is not None else None) or []
        return [
            ToolCall(id=f"gold-{i}", name=a.name, arguments=dict(a.arguments))
            for i, a in enumerate(actions)
        ]

    def required_outputs(self, task_id: str) -> list[str]:
        return required_outputs(self._domain.task(task_id))

    def reference(self, task_id: str) -> Signature:
        return _reference(self.domain, task_id)

    def fault_plans(self, task_id: str) -> list[FaultPlan]:
        """The first write fault and the first read fault of the task in the case set."""
        plans: list[FaultPlan] = []
        for contract in _case_contracts(self.domain).get(task_id, []):
            kind: FaultKind = "write" if contract.operator == "write_effect" else "read"
            if any(p.kind == kind for p in plans) or (
                kind == "read" and contract.operator not in READ_OPERATORS
            ):
                continue
            trigger = None
            if kind == "read":
                spec = next(s for s in contract.interventions if isinstance(s, ObservationRewrite))
                trigger = ToolCall(id="trigger", name=spec.tool, arguments=dict(spec.match))
            self._contracts[contract.contract_id] = contract
            plans.append(FaultPlan(kind=kind, source=contract.contract_id, trigger=trigger))
        return plans


class _ProbedEnv:
    """What SSCBench's grader reads (domain, live hash), each read a probe point."""

    def __init__(self, session: EpisodeSession) -> None:
        self._session = session
        self.domain = session.env.domain

    def state_hash(self) -> str:
        self._session.probe("state_hash")
        return self._session.env.state_hash()


class _ProbedLiveStateGrader(LiveStateGrader):
    def __init__(self, session: Session) -> None:
        self._session = session

    def reference_hash(self, domain: str, task_id: str) -> str:
        self._session.probe("reference")
        return super().reference_hash(domain, task_id)


class SSCBenchGrader(AuditGrader):
    """SSCBench's own grader, called for real through a probed view of the session."""

    name = LiveStateGrader.name

    def grade(self, session: Session) -> Verdict:
        assert isinstance(session, EpisodeSession)
        task = load_domain(self.target.domain).task(session.task_id)
        g = _ProbedLiveStateGrader(session).grade(_ProbedEnv(session), task, session.texts)
        return Verdict(solved=g.success, state_ok=g.db_match, outputs_ok=g.communicate_ok)

    def graded_state(self, session: Session) -> Signature:
        return session.signature()


class SSCBenchTarget(EpisodeTarget):
    """SSCBench's grader on airline or retail."""

    name = "sscbench"

    def grader(self) -> AuditGrader:
        return SSCBenchGrader(self)


@cache
def _db_blob(domain: str) -> bytes:
    return pickle.dumps(load_domain(domain).base_db)


def _load_db(domain: str) -> Any:
    """A private copy of the base database (the cyclic GC paused: it triples the cost)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        return pickle.loads(_db_blob(domain))
    finally:
        if enabled:
            gc.enable()


def _tau2_constructor(domain: str, session: Session) -> Callable[..., Any]:
    from importlib import import_module

    env_mod = import_module(f"tau2.domains.{domain}.environment")

    def construct(**_: Any) -> Any:
        session.probe("tau2_environment")
        return env_mod.get_environment(db=_load_db(domain))

    return construct


def tau2_trajectory(session: Session) -> list[Any]:
    """The session's trajectory as τ² messages (what τ²'s evaluator replays)."""
    from tau2.data_model.message import AssistantMessage, ToolMessage
    from tau2.data_model.message import ToolCall as Tau2Call

    messages: list[Any] = []
    for a in session.actions:
        if a.text is not None:
            messages.append(AssistantMessage(role="assistant", content=a.text))
        elif a.call is not None and a.observation is not None:
            call = Tau2Call(id=a.call.id, name=a.call.name, arguments=a.call.arguments)
            messages.append(AssistantMessage(role="assistant", content=None, tool_calls=[call]))
            messages.append(
                ToolMessage(
                    id=a.call.id,
                    role="tool",
                    content=a.observation.content,
                    error=a.observation.error,
                )
            )
    return messages


def _tau2_components(db: Any) -> Signature:
    dumped = db.model_dump()
    return Signature.of(
        {k: hashlib.sha256(canonical_json(v).encode()).hexdigest() for k, v in dumped.items()}
    )


class Tau2Grader(AuditGrader):
    """τ²'s ``EnvironmentEvaluator`` (DB) and ``CommunicateEvaluator``, called for real."""

    name = "tau2.evaluator.evaluator_env.EnvironmentEvaluator"

    def grade(self, session: Session) -> Verdict:
        from tau2.evaluator.evaluator_communicate import CommunicateEvaluator
        from tau2.evaluator.evaluator_env import EnvironmentEvaluator

        domain = self.target.domain
        task = load_domain(domain).task(session.task_id)
        trajectory = tau2_trajectory(session)
        info = EnvironmentEvaluator.calculate_reward(
            environment_constructor=_tau2_constructor(domain, session),
            task=task,
            full_trajectory=trajectory,
        )
        state_ok = bool(info.db_check is not None and info.db_check.db_match)
        checks = CommunicateEvaluator.evaluate_communicate_info(
            trajectory, self.target.required_outputs(session.task_id)
        )
        outputs_ok = all(c.met for c in checks)
        return Verdict(solved=state_ok and outputs_ok, state_ok=state_ok, outputs_ok=outputs_ok)

    def graded_state(self, session: Session) -> Signature:
        """The state τ² grades: the trajectory replayed on a new environment."""
        env = _tau2_constructor(self.target.domain, session)()
        env.set_state(
            initialization_data=None,
            initialization_actions=None,
            message_history=tau2_trajectory(session),
        )
        return _tau2_components(env.tools.db)

    def reference(self, session: Session) -> Signature:
        session.probe("reference")
        return _tau2_reference(self.target.domain, session.task_id)


@cache
def _tau2_reference(domain: str, task_id: str) -> Signature:
    from importlib import import_module

    env = import_module(f"tau2.domains.{domain}.environment").get_environment(db=_load_db(domain))
    criteria = load_domain(domain).task(task_id).evaluation_criteria
    for action in (criteria.actions if criteria is not None else None) or []:
        try:
            env.make_tool_call(
                tool_name=action.name, requestor=action.requestor, **action.arguments
            )
        except Exception:  # τ² skips failing gold actions the same way
            continue
    return _tau2_components(env.tools.db)


class Tau2Target(EpisodeTarget):
    """τ²'s evaluator on airline or retail."""

    name = "tau2"

    def grader(self) -> AuditGrader:
        return Tau2Grader(self)
