"""Expiry (airline, retail): a record's quote is valid for τ virtual seconds.

An observation contract after *ContractBench*: the record a gold write acts on
(``get_reservation_details`` / ``get_order_details``) is delivered with a quote — an
artifact valid in ``[issued, issued + τ)`` on the harness's virtual clock — and the write
must reach the server inside the window of the latest quote. A write relying on an
expired quote is not executed and is answered with the expiry response; a re-read issues a
fresh quote. Time is the virtual clock's (turns and tool calls under a declared cost
model, shown in the envelope), never wall time.

The fault-bearing observation is the first quote; the claim it carries — "this quote can
be used" — is refuted by an observation that shows the server time at or past its expiry
(a re-fetch's envelope, or the expiry response). Erroneous reliance is a gated write the
server receives after the quote in force expired.

Rejected designs: a token argument the write must carry (τ²'s write tools take no such
argument, and adding one would change what the grader compares); wall-clock TTLs
(latency would decide the label); an expiry the agent cannot see (the envelope states the
issue time, TTL and the clock's rule, so every refutation is agent-visible).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar

from pydantic import Field

from sscbench.envs import load_domain
from sscbench.envs.clock import ClockSpec, CostModel
from sscbench.fault_contracts.contract import (
    ArtifactTTL,
    FaultContract,
    Quote,
    Refutation,
    Target,
)
from sscbench.operators.base import Operator, OperatorParams, ProposalContext, Rejection
from sscbench.operators.registry import register_operator

ENTITY = {
    "airline": ("reservation", "get_reservation_details"),
    "retail": ("order", "get_order_details"),
}
"""Per domain: the entity a gated write acts on and the read that issues its quote."""

DEFAULT_CLOCK = ClockSpec(
    cost=CostModel(
        agent_message=10.0,
        user_message=20.0,
        tool_call={"read": 15.0, "write": 15.0, "generic": 5.0, "think": 0.0},
    )
)
"""A write sent straight after the read lands 15 s after the quote; one sent after a
confirmation exchange (agent 10 s, user 20 s) lands 45 s after it."""


class ExpiryParams(OperatorParams):
    """The quote's TTL and the clock it runs on."""

    ttl_seconds: float = Field(default=30.0, gt=0)
    clock: ClockSpec = DEFAULT_CLOCK


@register_operator
class Expiry(Operator[ExpiryParams]):
    """Quote the record a write acts on for τ virtual seconds; reject writes on a lapsed quote."""

    name: ClassVar[str] = "expiry"
    display_name: ClassVar[str] = "Expiry"
    version: ClassVar[str] = "1"
    description: ClassVar[str] = (
        "delivers the record a gold write acts on with a quote valid for τ virtual seconds; "
        "refuted by an observation showing the server time past its expiry"
    )
    domains: ClassVar[tuple[str, ...]] = ("airline", "retail")
    target_tools: ClassVar[tuple[str, ...]] = ("get_reservation_details", "get_order_details")
    acquisition: ClassVar[Any] = "cross_record"
    cluster_key: ClassVar[str] = "gated write tool"
    """Cases cluster by the write the quote gates: sampling visits the write tools of both
    domains in turn, and a tool's cases share its timing (its confirmation, its cost)."""
    params_model: ClassVar[type[OperatorParams]] = ExpiryParams
    step_limit: ClassVar[int] = 60
    scripted_truth: ClassVar[bool] = False

    def propose(self, ctx: ProposalContext) -> Iterator[FaultContract | Rejection]:
        """One candidate per gold write that names the domain's entity, tasks in order."""
        domain = load_domain(ctx.domain)
        etype, read_tool = ENTITY[ctx.domain]
        id_key = f"{etype}_id"
        collection = (
            domain.base_db.reservations if ctx.domain == "airline" else domain.base_db.orders
        )
        doc = (getattr(domain.toolkit_class, read_tool).__doc__ or "").strip().splitlines()[0]
        for task in domain.tasks:
            for index, action in enumerate(task.evaluation_criteria.actions or []):
                eid = action.arguments.get(id_key)
                if not isinstance(eid, str) or action.name == read_tool:
                    continue
                cid = f"expiry/{ctx.domain}/{task.id}/{index}"
                if eid not in collection:
                    yield self.reject(
                        cid, task.id, eid, "exists", f"{etype} {eid} is not in the db"
                    )
                    continue
                yield self._contract(ctx.domain, task.id, cid, etype, eid, read_tool, action, doc)

    def _contract(
        self,
        domain: str,
        task_id: str,
        cid: str,
        etype: str,
        eid: str,
        read_tool: str,
        action: Any,
        doc: str,
    ) -> FaultContract:
        p: ExpiryParams = self.params
        match = {f"{etype}_id": eid}
        spec = ArtifactTTL(
            tool=read_tool,
            match=match,
            ttl_seconds=p.ttl_seconds,
            gate_tool=action.name,
            gate_match=match,
            clock=p.clock,
        )
        return self.contract(
            contract_id=cid,
            domain=domain,
            task_id=task_id,
            cluster=action.name,
            target=Target(
                entity_type=f"{etype}_quote",
                entity_id=eid,
                paths=("quote",),
                scope=f"the quote on {etype} {eid} that {action.name} relies on",
                logical_request={"tool": action.name, "match": match},
            ),
            authoritative_value="expired",
            injected_value="valid",
            persistence="every_delivery",
            interventions=(spec,),
            refutation=Refutation(
                relation="artifact_expiry",
                acquisition="cross_record",
                params={"ttl_seconds": p.ttl_seconds, "gate_tool": action.name, **match},
            ),
            semantics=(
                Quote(
                    claim="the quote states its own window and the server clock's rule",
                    text=f"valid only for writes the server receives before expires_at; "
                    f"{p.clock.describe()}",
                    source=f"the quote envelope of {read_tool}",
                ),
                Quote(
                    claim=f"{read_tool} is the authoritative record the write relies on",
                    text=doc,
                    source=f"{read_tool} documentation",
                ),
            ),
        )
