"""WriteEffect (airline): suppress one reservation update, keep its success confirmation.

The matching write (same reservation, flight change, cabin and payment method — the gold
call's arguments) validates and answers exactly as a real success, but its effect on state
is undone. A later ``get_reservation_details`` of the reservation, still attributable to
the same logical request, shows the affected fields unchanged (post-write read-back).
Whether a retry is suppressed too is the ``persistence`` parameter.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, ClassVar, Literal

from sscbench.envs import EpisodeEnvironment, ToolCall, load_domain
from sscbench.fault_contracts.contract import (
    Edit,
    FaultContract,
    InterventionSpec,
    ObservationRewrite,
    Quote,
    Refutation,
    Target,
    WriteSuppression,
)
from sscbench.fault_contracts.relations.post_write_read_back import WRITE_FIELDS
from sscbench.operators.base import Operator, OperatorParams, ProposalContext, Rejection
from sscbench.operators.registry import register_operator

TARGET_TOOLS = (
    "update_reservation_flights",
    "update_reservation_baggages",
    "update_reservation_passengers",
    "cancel_reservation",
)


class WriteEffectParams(OperatorParams):
    """Is a retry of the same logical request suppressed too?"""

    persistence: Literal["first_attempt", "all_attempts"] = "first_attempt"


def _doc_line(domain: Any, tool: str, needle: str) -> str:
    doc = getattr(domain.toolkit_class, tool).__doc__ or ""
    return next((ln.strip() for ln in doc.splitlines() if needle in ln), "")


@register_operator
class WriteEffect(Operator[WriteEffectParams]):
    """Suppress one matching reservation update while keeping its success payload."""

    name: ClassVar[str] = "write_effect"
    display_name: ClassVar[str] = "WriteEffect"
    version: ClassVar[str] = "1"
    description: ClassVar[str] = (
        "suppresses one matching reservation update (flights, baggages, passengers, cancel) "
        "while its success payload is delivered; refuted by a later attributable read-back"
    )
    domains: ClassVar[tuple[str, ...]] = ("airline",)
    target_tools: ClassVar[tuple[str, ...]] = TARGET_TOOLS
    acquisition: ClassVar[Any] = "post_write_read_back"
    cluster_key: ClassVar[str] = "reservation"
    params_model: ClassVar[type[OperatorParams]] = WriteEffectParams
    step_limit: ClassVar[int] = 60
    interface_variants: ClassVar[tuple[str, ...]] = ("aligned", "read_back_hint")

    def variant_interventions(
        self, variant: str, contract: FaultContract
    ) -> tuple[InterventionSpec, ...]:
        """``aligned``: the read-back shows the claimed effect; ``read_back_hint`` changes
        the write tools' descriptions (applied by agents), not the observations."""
        if variant != "aligned":
            return ()
        claimed = dict(contract.injected_value)
        return (
            ObservationRewrite(
                tool="get_reservation_details",
                match={"reservation_id": contract.target.entity_id},
                edits=tuple(Edit(path=f, value=v) for f, v in claimed.items()),
                expect=dict(contract.authoritative_value),
                role="alignment",
            ),
        )

    def propose(self, ctx: ProposalContext) -> Iterator[FaultContract | Rejection]:
        """One candidate per gold reservation update of each airline task."""
        domain = load_domain("airline")
        for task in domain.tasks:
            actions = list(task.evaluation_criteria.actions or [])
            if not any(a.name in TARGET_TOOLS for a in actions):
                continue
            env = EpisodeEnvironment.open("airline", task)
            for index, action in enumerate(actions):
                if action.name not in TARGET_TOOLS:
                    env.execute(
                        ToolCall(id=f"g{index}", name=action.name, arguments=action.arguments),
                        index,
                    )
                    continue
                rid = str(action.arguments.get("reservation_id"))
                before = env.state.db.reservations.get(rid)
                pre = before.model_dump(mode="json") if before is not None else None
                obs = env.execute(
                    ToolCall(id=f"g{index}", name=action.name, arguments=action.arguments), index
                )
                yield self._candidate(
                    domain, task.id, index, action, rid, pre, obs.content, obs.error
                )

    def _candidate(
        self,
        domain: Any,
        task_id: str,
        index: int,
        action: Any,
        rid: str,
        pre: dict[str, Any] | None,
        payload: str,
        error: bool,
    ) -> FaultContract | Rejection:
        cid = f"write_effect/airline/{task_id}/{index}"
        if error or pre is None:
            return self.reject(
                cid, task_id, rid, "write_succeeds", f"gold {action.name} fails in τ²: {payload}"
            )
        fields = WRITE_FIELDS[action.name]
        claimed = json.loads(payload)
        v = {f: pre.get(f) for f in fields}
        v_prime = {f: claimed.get(f) for f in fields}
        if v == v_prime:
            return self.reject(
                cid, task_id, rid, "distinct_value", f"{action.name} does not change {list(fields)}"
            )
        match = json.loads(json.dumps(action.arguments))
        return self.contract(
            contract_id=cid,
            domain="airline",
            task_id=task_id,
            cluster=rid,
            target=Target(
                entity_type="reservation",
                entity_id=rid,
                paths=fields,
                scope=f"the effect of {action.name} (gold action {index}) on reservation {rid}",
                logical_request={"tool": action.name, "match": match, "gold_index": index},
            ),
            authoritative_value=v,
            injected_value=v_prime,
            interventions=(
                WriteSuppression(tool=action.name, match=match, affected_fields=fields),
            ),
            refutation=Refutation(
                relation="post_write_read_back",
                acquisition="post_write_read_back",
                params={
                    "reservation_id": rid,
                    "tool": action.name,
                    "match": match,
                    "affected_fields": list(fields),
                },
            ),
            semantics=(
                Quote(
                    claim="the write tool's payload claims the updated state",
                    text=_doc_line(domain, action.name, "The updated reservation"),
                    source=f"{action.name} documentation",
                ),
                Quote(
                    claim="get_reservation_details is the authoritative record of a reservation",
                    text=_doc_line(
                        domain, "get_reservation_details", "Get the details of a reservation"
                    ),
                    source="get_reservation_details documentation",
                ),
            ),
        )
