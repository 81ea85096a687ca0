"""Masked review packets: what a human reviewer (or a trajectory judge) may see of a run.

docs/measurement.md §7: reviewers label *numbered, masked* trajectories — configuration,
experimental condition, automatic labels and event positions hidden — so that what they mark cannot
be steered by which agent ran, under which condition, or what the reconstructor decided. A packet is
therefore built by *whitelisting*, never by deleting known-bad fields: it holds the model-visible
steps (numbered as in the ledger, so marks map straight back to ledger steps) and the case's fault
contract reduced to the fields that describe the case.

Dropped on purpose: run id, case id, contract id (a ``/target`` or ``+aligned`` suffix names
the condition), an interface variant's own interventions, agent and user specs, seed, step
limit, versions, timestamps, the run end (success, termination), the hidden log, ground
truth, labels, and provider tool-call ids (``toolu_…`` vs ``call_…`` would name the
provider); a tool observation points at its call by step instead.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from sscbench.records.events import (
    AgentMessage,
    AgentToolCall,
    SystemNotice,
    ToolObservation,
    UserMessage,
)
from sscbench.records.ledger import Ledger

CONTRACT_FIELDS = (
    "operator",
    "domain",
    "target",
    "authoritative_value",
    "injected_value",
    "persistence",
    "interventions",
    "refutation",
    "semantics",
)
"""The contract fields a reviewer sees: what is false, how it enters, how it is refuted.
``control``, ``contract_id``, ``task_id``, ``cluster``, ``variant`` and the operator's
parameters are condition or bookkeeping, not part of the case's claim."""

StepKind = Literal[
    "user_message",
    "agent_message",
    "tool_call",
    "tool_observation",
    "harness_tool_call",
    "system_notice",
]
"""``harness_tool_call`` and ``system_notice`` are a delivered refutation (an arrival
intervention): the model saw them, but the agent did not make them, so no use or reliance
can be placed on them."""


class PacketStep(BaseModel):
    """One model-visible step, stripped of ids and timestamps."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    step: int
    kind: StepKind
    content: str | None = None
    name: str | None = None
    arguments: dict[str, Any] | None = None
    call_step: int | None = None
    error: bool | None = None


class Packet(BaseModel):
    """One masked run for review (``packets/<packet_id>.json``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["review_packet"] = "review_packet"
    packet_id: str
    calibration: bool = False
    domain: str
    contract: dict[str, Any]
    steps: tuple[PacketStep, ...]


def packet_id(run_id: str, seed: int) -> str:
    """An opaque id: a salted hash of the run id (the salt is the export seed), so the
    id neither encodes the run nor repeats across exports with different seeds."""
    digest = hashlib.sha256(f"sscbench-review\x00{seed}\x00{run_id}".encode()).hexdigest()
    return f"p{digest[:10]}"


def masked_contract(fault: dict[str, Any]) -> dict[str, Any]:
    """The whitelisted view of a ledger header's fault contract. Interventions that only an
    interface variant adds (the ``aligned`` check's rewrite of the authoritative source,
    ``role: alignment``) are dropped too: they would name the condition."""
    out = {key: fault[key] for key in CONTRACT_FIELDS if key in fault}
    if isinstance(out.get("interventions"), list | tuple):
        out["interventions"] = [
            spec
            for spec in out["interventions"]
            if not (isinstance(spec, dict) and spec.get("role") == "alignment")
        ]
    return out


def visible_steps(ledger: Ledger) -> tuple[PacketStep, ...]:
    """The model-visible history as packet steps (observations point at their call)."""
    call_steps: dict[str, int] = {}
    steps: list[PacketStep] = []
    for event in ledger.events:
        if isinstance(event, UserMessage | AgentMessage):
            steps.append(PacketStep(step=event.step, kind=event.kind, content=event.content))
        elif isinstance(event, SystemNotice):
            steps.append(PacketStep(step=event.step, kind="system_notice", content=event.content))
        elif isinstance(event, AgentToolCall):
            call_steps[event.call_id] = event.step
            steps.append(
                PacketStep(
                    step=event.step,
                    kind="harness_tool_call" if event.origin == "harness" else "tool_call",
                    name=event.name,
                    arguments=event.arguments,
                )
            )
        elif isinstance(event, ToolObservation):
            steps.append(
                PacketStep(
                    step=event.step,
                    kind="tool_observation",
                    content=event.content,
                    call_step=call_steps.get(event.call_id),
                    error=event.error,
                )
            )
    return tuple(steps)


def build_packet(ledger: Ledger, pid: str, *, calibration: bool = False) -> Packet:
    """The masked packet of a faulted run's ledger (``calibration``: a practice packet
    shown first and kept out of agreement; it says nothing about the run's condition)."""
    fault = ledger.header.fault
    if fault is None:
        raise ValueError("a clean run has no fault contract to review against")
    return Packet(
        packet_id=pid,
        calibration=calibration,
        domain=ledger.header.domain,
        contract=masked_contract(fault),
        steps=visible_steps(ledger),
    )


def render_steps(steps: tuple[PacketStep, ...] | list[PacketStep]) -> str:
    """The numbered trajectory as plain text (what a trajectory judge is shown)."""
    lines = []
    for s in steps:
        if s.kind == "user_message":
            lines.append(f"[{s.step}] user: {s.content}")
        elif s.kind == "agent_message":
            lines.append(f"[{s.step}] agent to user: {s.content}")
        elif s.kind in ("tool_call", "harness_tool_call"):
            args = json.dumps(s.arguments, sort_keys=True, ensure_ascii=False)
            who = "agent" if s.kind == "tool_call" else "harness (not the agent's)"
            lines.append(f"[{s.step}] {who} tool call: {s.name}({args})")
        elif s.kind == "system_notice":
            lines.append(f"[{s.step}] system notice to the agent: {s.content}")
        else:
            what = "tool error" if s.error else "tool result"
            lines.append(f"[{s.step}] {what} for step {s.call_step}: {s.content}")
    return "\n".join(lines)
