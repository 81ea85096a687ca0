"""The injection context ``h_c`` of a candidate: the fixed prefix up to the fault.

Built from the task specification only: the fixed greeting, the scripted user's opening
and identity answer, then the reference (gold) plan's calls — with the same confirmation
exchange before each write that the scripted agents use — until the fault-bearing
observation is delivered. When the plan reaches a call about the target entity without
having read it, the target read is inserted just before that call (a reference agent looks
a record up before acting on it); a plan that never touches the target reads it at the end.
In telecom the plan's user actions are asked of the customer, who runs them on their phone
(through the choke point, as the user's calls) and relays the answer, as in a run.
"""

from __future__ import annotations

import copy
import hashlib
import json
from dataclasses import dataclass
from typing import Any

from sscbench.agents.base import GREETING, EpisodeContext
from sscbench.agents.scripted.agent import IDENTITY_QUESTION
from sscbench.agents.scripted.phrasing import DeviceRequest, render_plain
from sscbench.envs import EpisodeEnvironment, ToolCall, load_domain, tool_kinds
from sscbench.fault_contracts.contract import (
    ArtifactTTL,
    FaultContract,
    ObservationRewrite,
    ReadingRewrite,
    StaleRead,
    ToolEdit,
    WriteSuppression,
)
from sscbench.fault_contracts.injection import ContractIntervention
from sscbench.json_paths import flatten
from sscbench.records.events import (
    AgentMessage,
    AgentToolCall,
    ToolObservation,
    UserMessage,
    VisibleEvent,
)
from sscbench.users.scripted import ScriptedUser


def confirmation_text(name: str, arguments: dict[str, Any]) -> str:
    """The confirmation a reference agent asks before a write."""
    arguments_text = json.dumps(arguments, sort_keys=True)
    return f"I will call {name} with {arguments_text}. Shall I proceed (yes/no)?"


def events_hash(events: tuple[VisibleEvent, ...]) -> str:
    """SHA-256 of the events' canonical JSON, wall-clock time excluded."""
    payload = [e.model_dump(mode="json", exclude={"ts"}) for e in events]
    return hashlib.sha256(
        json.dumps(payload, sort_keys=True, separators=(",", ":")).encode()
    ).hexdigest()


@dataclass
class InjectionContext:
    """``h_c``: the prefix events (ending with the fault-bearing observation) and the live
    faulted episode positioned right after it."""

    contract: FaultContract
    events: tuple[VisibleEvent, ...]
    env: EpisodeEnvironment
    intervention: ContractIntervention
    t_f: int

    @property
    def prefix_id(self) -> str:
        """Stable id of the prefix."""
        return f"{self.contract.contract_id}#h"

    @property
    def prefix_hash(self) -> str:
        """Hash of the prefix events."""
        return events_hash(self.events)

    def fork(self) -> tuple[EpisodeEnvironment, ContractIntervention]:
        """A read-only view of the episode with its own copy of the intervention state."""
        intervention = copy.deepcopy(self.intervention)
        return self.env.fork_for_reads(intervention), intervention


def write_through(contract: FaultContract) -> tuple[str, dict[str, Any]] | None:
    """The one write a witness may contain: the task's own gold request, when the fault is a
    stale read that the write invalidates (a write tool answers from the fresh state, so the
    refutation a read cannot bring comes from it); ``None`` for every other fault."""
    request = contract.target.logical_request or {}
    if not any(isinstance(s, StaleRead) for s in contract.interventions) or not request:
        return None
    return str(request["tool"]), dict(request["match"])


def _customer_phone(task: Any) -> str | None:
    """The phone number a telecom customer gives when asked who they are (τ²'s
    ``set_user_info``; the scripted customer says it in the identity answer)."""
    initial = task.initial_state
    for action in (initial.initialization_actions or []) if initial else []:
        if action.func_name == "set_user_info":
            phone = action.arguments.get("phone_number")
            return phone if isinstance(phone, str) else None
    return None


class NoContext(Exception):
    """The reference plan cannot deliver the fault-bearing observation."""


def _references(contract: FaultContract, arguments: dict[str, Any], index: int) -> bool:
    for spec in contract.interventions:
        if isinstance(spec, WriteSuppression | ToolEdit):
            return (contract.target.logical_request or {}).get("gold_index") == index
        if isinstance(spec, ArtifactTTL | ReadingRewrite):  # a reading is asked for first
            continue
        if spec.role == "fault":
            values = {str(v) for _, v in flatten(arguments)}
            if any(str(v) in values for v in spec.match.values()):
                return True
    mentioned = {str(v) for _, v in flatten(arguments)}
    return contract.target.entity_id in mentioned or any(
        p.split(".")[1] in mentioned
        for p in contract.target.paths
        if p.startswith("payment_methods.")
    )


class _Builder:
    def __init__(self, contract: FaultContract) -> None:
        self.contract = contract
        domain = load_domain(contract.domain)
        self.task = domain.task(contract.task_id)
        self.intervention = ContractIntervention(contract)
        self.env = EpisodeEnvironment.open(contract.domain, self.task, self.intervention)
        self.user = ScriptedUser()
        self.user.start(EpisodeContext(contract.domain, self.task, 0, domain.policy))
        self.events: list[VisibleEvent] = []
        self.turn = 0
        self.calls = 0

    def emit(self, event: VisibleEvent) -> None:
        self.env.observe(event)  # the virtual clock, for contracts that run on one
        self.events.append(event)

    def say(self, text: str) -> None:
        self.emit(AgentMessage(step=len(self.events), turn=self.turn, content=text))
        self.turn += 1

    def hear(self) -> None:
        if self.env.user_toolkit is None:
            text = self.user.next_message(tuple(self.events))
        else:  # the customer works their phone first
            while (turn := self.user.next_user_turn(tuple(self.events))).tool_calls:
                for device_call in turn.tool_calls:
                    obs = self.env.execute(device_call, len(self.events), requestor="user")
                    self.user.device_result(device_call, obs.content, obs.error)
            text = turn.text or ""
        self.emit(UserMessage(step=len(self.events), turn=self.turn, content=text))
        self.turn += 1

    def call(self, name: str, arguments: dict[str, Any]) -> None:
        call_id = f"call_{self.calls}"
        self.calls += 1
        self.emit(
            AgentToolCall(
                step=len(self.events),
                turn=self.turn,
                call_id=call_id,
                name=name,
                arguments=arguments,
            )
        )
        self.turn += 1
        obs = self.env.execute(
            ToolCall(id=call_id, name=name, arguments=arguments), len(self.events)
        )
        self.emit(
            ToolObservation(
                step=len(self.events),
                turn=self.turn,
                call_id=call_id,
                content=obs.content,
                error=obs.error,
            )
        )
        self.turn += 1

    def delivered(self) -> int | None:
        for d in self.intervention.deliveries:
            if d.role == "fault" and (d.effective or d.control):
                return d.step
        return None

    def read_target(self) -> None:
        for spec in self.contract.interventions:
            if isinstance(spec, ReadingRewrite):  # the customer reads it on their phone
                self.say(render_plain(DeviceRequest(spec.tool, {})))
                self.hear()
                return
            if (isinstance(spec, ObservationRewrite) and spec.role == "fault") or isinstance(
                spec, ArtifactTTL | StaleRead
            ):
                self.call(spec.tool, dict(spec.match))
                return


def build_context(contract: FaultContract) -> InjectionContext:
    """Build ``h_c`` for a contract, or raise :class:`NoContext`."""
    b = _Builder(contract)
    b.say(GREETING)
    b.hear()
    b.say(IDENTITY_QUESTION)
    b.hear()
    phone = _customer_phone(b.task) if b.env.user_toolkit is not None else None
    if phone is not None:  # telecom's policy: "You must first identify the customer."
        b.call("get_customer_by_phone", {"phone_number": phone})
    kinds = tool_kinds(contract.domain)
    actions = list(b.task.evaluation_criteria.actions or [])
    if any(isinstance(s, ReadingRewrite) for s in contract.interventions):
        b.read_target()  # a device reading is asked for first, before any step changes it
        actions = [] if b.delivered() is not None else actions
    for index, action in enumerate(actions):
        arguments = copy.deepcopy(action.arguments)
        if action.requestor == "user":  # the customer's step on their phone
            b.say(render_plain(DeviceRequest(action.name, arguments)))
            b.hear()
            continue
        if _references(contract, arguments, index):
            b.read_target()
        if (t_f := b.delivered()) is not None:
            break
        if kinds.get(action.name) == "write":
            b.say(confirmation_text(action.name, arguments))
            b.hear()
        b.call(action.name, arguments)
        if b.delivered() is not None:
            break
    if b.delivered() is None:
        b.read_target()
    t_f = b.delivered()
    if t_f is None:
        raise NoContext("the reference plan never delivers the fault-bearing observation")
    events = tuple(b.events[: t_f + 1])
    return InjectionContext(
        contract=contract, events=events, env=b.env, intervention=b.intervention, t_f=t_f
    )
