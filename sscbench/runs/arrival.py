"""Delivered refutations: the harness shows the agent a case's refuting read at a set moment.

An *arrival intervention* (docs/arrival-interventions.md) makes the arrival time of a
refutation an experimental factor. At the chosen moment — always at a turn boundary, right
before the agent or the user is asked for its next message, never between a call and its
observation — the harness runs the case witness's
read calls through the fault choke point and shows the result to the agent in one of two
interfaces:

* ``tool_call``: as a tool call and its observation, both marked ``origin: "harness"``;
* ``notice``: as a ``system_notice`` event that reports the read and its result.

Either way the delivery is in the ledger (marked as the harness's, never the agent's) and in
the hidden log (:class:`ArrivalRecord`). Arms that deliver relative to the agent's first use
(``before_use``, ``after_use``) are placed on a recorded unmanipulated run: the episode is
run again with the same seed, participants and response cache, so the agent is fed its own
recorded turns, and every event before the delivery point is checked against the recording
(:class:`PrefixReplay`). The first difference stops the run (``replay_divergence``): a
diverged run is recorded and excluded, never mixed with the others.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Sequence
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

from sscbench.envs import EpisodeEnvironment, ToolCall
from sscbench.fault_contracts.injection import ContractIntervention
from sscbench.records.events import (
    AgentToolCall,
    SystemNotice,
    ToolObservation,
    VisibleEvent,
)
from sscbench.records.versioning import VersionedRecord

Arm = Literal["none", "at_fault", "before_use", "after_use", "at_k"]
ARMS: tuple[Arm, ...] = ("none", "at_fault", "before_use", "after_use", "at_k")
REPLAY_ARMS: frozenset[str] = frozenset({"before_use", "after_use"})
"""Arms whose delivery point is found on a recorded unmanipulated run (prefix replay)."""
Interface = Literal["tool_call", "notice"]
HARNESS_CALL_PREFIX = "harness_"
DIFF_LIMIT = 400


class DeliveryCall(BaseModel):
    """One read the harness runs to deliver the refutation (a witness continuation call)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    arguments: dict[str, Any]


class ArrivalPlan(BaseModel):
    """What one manipulated run delivers, and when.

    ``trigger``: ``after_fault`` delivers at the first turn boundary after an effective
    fault delivery; ``at_step`` at the first boundary whose next step is at least
    ``at_step``. ``prefix`` holds the recorded events (JSON, ``ts`` dropped) that the run
    must reproduce before the delivery (empty: nothing is replayed).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    arm: Arm
    interface: Interface = "tool_call"
    calls: tuple[DeliveryCall, ...]
    trigger: Literal["after_fault", "at_step"]
    at_step: int | None = Field(default=None, ge=0)
    source_run_id: str | None = None
    source_sha256: str | None = None
    prefix: tuple[dict[str, Any], ...] = ()

    def header(self) -> dict[str, Any]:
        """The ledger header's ``arrival`` entry (the prefix itself stays in the source)."""
        return self.model_dump(mode="json", exclude={"prefix"}) | {"replayed": len(self.prefix)}


class Divergence(BaseModel):
    """Where a replayed prefix first differed from its recording."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    step: int
    expected: str
    got: str


class ArrivalRecord(VersionedRecord):
    """Hidden record of a manipulated run: what was delivered where, and how the replay went.

    ``status``: ``delivered``; ``not_reached`` (the run ended before the delivery point,
    e.g. the fault never triggered); ``diverged`` (the replayed prefix differed from its
    recording; the run stopped there and is excluded).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["arrival_delivery"] = "arrival_delivery"
    arm: Arm
    interface: Interface
    status: Literal["delivered", "not_reached", "diverged"]
    steps: tuple[int, ...] = ()
    calls: tuple[DeliveryCall, ...] = ()
    observation_sha256: tuple[str, ...] = ()
    replayed: int = 0
    """Events checked against the recording (all of the prefix when it matched)."""
    source_run_id: str | None = None
    divergence: Divergence | None = None


class ReplayDivergence(Exception):
    """A replayed event differed from the recording (the run stops: it is excluded)."""


class _Position(Protocol):
    turn: int

    @property
    def step(self) -> int:
        """The next event's step."""
        ...


def _canonical(event: VisibleEvent | dict[str, Any]) -> str:
    data = event if isinstance(event, dict) else event.model_dump(mode="json", exclude={"ts"})
    data = {k: v for k, v in data.items() if k != "ts"}
    return json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def recorded_prefix(events: Sequence[VisibleEvent], at_step: int) -> tuple[dict[str, Any], ...]:
    """The recorded events before ``at_step``, as a plan's ``prefix``."""
    return tuple(e.model_dump(mode="json", exclude={"ts"}) for e in events if e.step < at_step)


def notice_text(name: str, arguments: dict[str, Any], observation: str) -> str:
    """What the model reads in a ``notice`` delivery."""
    args = json.dumps(arguments, sort_keys=True, ensure_ascii=False)
    return (
        f"[System notice] The system looked up {name} {args} for you. Current result:\n"
        f"{observation}"
    )


class PrefixReplay:
    """Checks each event of a replayed prefix against its recording, step by step."""

    def __init__(self, prefix: tuple[dict[str, Any], ...]) -> None:
        self.prefix = prefix
        self.checked = 0
        self.divergence: Divergence | None = None

    def check(self, event: VisibleEvent) -> None:
        """Compare ``event`` with the recording at its step; raise on the first difference."""
        if event.step >= len(self.prefix):
            return
        expected, got = _canonical(self.prefix[event.step]), _canonical(event)
        if expected != got:
            self.divergence = Divergence(
                step=event.step, expected=expected[:DIFF_LIMIT], got=got[:DIFF_LIMIT]
            )
            raise ReplayDivergence(f"replayed step {event.step} differs from the recording")
        self.checked += 1


class ArrivalController:
    """Runs one :class:`ArrivalPlan` inside an episode (see :func:`run_episode`)."""

    def __init__(self, plan: ArrivalPlan) -> None:
        self.plan = plan
        self.replay = PrefixReplay(plan.prefix)
        self.delivered_steps: list[int] = []
        self.digests: list[str] = []
        self.done = False

    def check(self, event: VisibleEvent) -> None:
        """Called for every event the episode emits (before it is written)."""
        self.replay.check(event)

    def due(self, step: int, env: EpisodeEnvironment) -> bool:
        """Whether to deliver now, at the turn boundary before ``step``."""
        if self.done:
            return False
        if self.plan.trigger == "at_step":
            return self.plan.at_step is not None and step >= self.plan.at_step
        intervention = env.intervention
        return isinstance(intervention, ContractIntervention) and any(
            d.role == "fault" and d.effective for d in intervention.deliveries
        )

    def deliver(
        self, env: EpisodeEnvironment, at: _Position, emit: Callable[[VisibleEvent], None]
    ) -> None:
        """Run the plan's reads through the choke point and show them to the agent."""
        self.done = True
        for index, call in enumerate(self.plan.calls):
            call_id = f"{HARNESS_CALL_PREFIX}{index}"
            tool_call = ToolCall(id=call_id, name=call.name, arguments=dict(call.arguments))
            if self.plan.interface == "tool_call":
                self.delivered_steps.append(at.step)
                emit(
                    AgentToolCall(
                        ts=time.time(),
                        step=at.step,
                        turn=at.turn,
                        call_id=call_id,
                        name=call.name,
                        arguments=dict(call.arguments),
                        origin="harness",
                    )
                )
                at.turn += 1
            obs = env.execute(tool_call, step=at.step)
            self.digests.append(hashlib.sha256(obs.content.encode()).hexdigest())
            self.delivered_steps.append(at.step)
            if self.plan.interface == "tool_call":
                emit(
                    ToolObservation(
                        ts=time.time(),
                        step=at.step,
                        turn=at.turn,
                        call_id=call_id,
                        content=obs.content,
                        error=obs.error,
                        origin="harness",
                    )
                )
            else:
                emit(
                    SystemNotice(
                        ts=time.time(),
                        step=at.step,
                        turn=at.turn,
                        content=notice_text(call.name, call.arguments, obs.content),
                        tool=call.name,
                        arguments=dict(call.arguments),
                        observation=obs.content,
                        error=obs.error,
                    )
                )
            at.turn += 1

    def record(self) -> ArrivalRecord:
        """The hidden record of what happened."""
        status: Literal["delivered", "not_reached", "diverged"]
        if self.replay.divergence is not None:
            status = "diverged"
        elif self.delivered_steps:
            status = "delivered"
        else:
            status = "not_reached"
        return ArrivalRecord(
            arm=self.plan.arm,
            interface=self.plan.interface,
            status=status,
            steps=tuple(self.delivered_steps),
            calls=self.plan.calls,
            observation_sha256=tuple(self.digests),
            replayed=self.replay.checked,
            source_run_id=self.plan.source_run_id,
            divergence=self.replay.divergence,
        )
