"""ReturnDate (airline): move a round-trip reservation's return earlier than its outbound.

The delivered ``get_reservation_details`` record of the reservation shows its return
segment date(s) shifted so the return departs 1–3 days (seeded) *before* the outbound
date; everything else is byte-identical. The retained outbound segment refutes it through
the round-trip ordering constraint, in the same observation (co-delivered).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, timedelta
from typing import Any, ClassVar, Literal

from sscbench.envs import load_domain
from sscbench.fault_contracts.contract import (
    Edit,
    FaultContract,
    ObservationRewrite,
    Quote,
    Refutation,
    Target,
)
from sscbench.operators.base import Operator, OperatorParams, ProposalContext, Rejection
from sscbench.operators.registry import register_operator
from sscbench.operators.task_reach import task_reach


class ReturnDateParams(OperatorParams):
    """How far before the outbound date the return is moved, and for how long."""

    min_days_before: int = 1
    max_days_before: int = 3
    persistence: Literal["every_delivery", "first_delivery"] = "every_delivery"


def split_round_trip(reservation: Any) -> tuple[list[int], list[int]] | None:
    """Indexes of outbound and return segments, or ``None`` if the trip does not split."""
    flights = reservation.flights
    outbound: list[int] = []
    index = 0
    here = reservation.origin
    while index < len(flights) and flights[index].origin == here:
        outbound.append(index)
        here = flights[index].destination
        index += 1
        if here == reservation.destination:
            break
    if here != reservation.destination or index >= len(flights):
        return None
    inbound = list(range(index, len(flights)))
    chain = reservation.destination
    for i in inbound:
        if flights[i].origin != chain:
            return None
        chain = flights[i].destination
    return (outbound, inbound) if chain == reservation.origin else None


SEMANTICS = (
    Quote(
        claim="the reservation record states it is a round trip",
        text='"flight_type": "round_trip"',
        source="get_reservation_details output",
    ),
    Quote(
        claim="round trips are a trip type the agent handles: out, then back",
        text="There are two types of trip: **one way** and **round trip**.",
        source="airline policy",
    ),
)


@register_operator
class ReturnDate(Operator[ReturnDateParams]):
    """Move a round-trip reservation's return date earlier in the returned reservation."""

    name: ClassVar[str] = "return_date"
    display_name: ClassVar[str] = "ReturnDate"
    version: ClassVar[str] = "1"
    description: ClassVar[str] = (
        "moves a round-trip reservation's return date before its outbound date in the "
        "delivered record; refuted by the retained outbound segment"
    )
    domains: ClassVar[tuple[str, ...]] = ("airline",)
    target_tools: ClassVar[tuple[str, ...]] = ("get_reservation_details",)
    acquisition: ClassVar[Any] = "co_delivered"
    cluster_key: ClassVar[str] = "reservation"
    params_model: ClassVar[type[OperatorParams]] = ReturnDateParams
    step_limit: ClassVar[int] = 60

    def propose(self, ctx: ProposalContext) -> Iterator[FaultContract | Rejection]:
        """One candidate per (task, reservation of a task user)."""
        domain = load_domain("airline")
        db = domain.base_db
        for task in domain.tasks:
            reach = task_reach("airline", task.id)
            rids = sorted({r for u in reach.users for r in db.users[u].reservations})
            for rid in rids:
                yield self._candidate(
                    ctx, task.id, rid, db.reservations.get(rid), reach.mentions(rid)
                )

    def _candidate(
        self, ctx: ProposalContext, task_id: str, rid: str, res: Any, relevant: bool
    ) -> FaultContract | Rejection:
        cid = f"return_date/airline/{task_id}/{rid}"
        if res is None:
            return self.reject(
                cid, task_id, rid, "exists", f"reservation {rid} is not in the database"
            )
        if res.flight_type != "round_trip":
            return self.reject(cid, task_id, rid, "round_trip", f"{rid} is {res.flight_type}")
        split = split_round_trip(res)
        if split is None:
            return self.reject(
                cid,
                task_id,
                rid,
                "round_trip",
                f"{rid} does not split into outbound and return legs",
            )
        outbound, inbound = split
        out_date = date.fromisoformat(res.flights[outbound[0]].date)
        first_back = date.fromisoformat(res.flights[inbound[0]].date)
        if first_back < out_date:
            return self.reject(
                cid, task_id, rid, "ordering", f"{rid} already returns before it departs"
            )
        if not relevant:
            return self.reject(
                cid,
                task_id,
                rid,
                "task_relevance",
                f"{rid} is not referenced by the gold plan or the scenario",
            )
        rng = ctx.rng_for(cid)
        days = rng.randint(self.params.min_days_before, self.params.max_days_before)
        shift = (out_date - timedelta(days=days)) - first_back
        edits = tuple(
            Edit(
                path=f"flights.{i}.date",
                value=(date.fromisoformat(res.flights[i].date) + shift).isoformat(),
            )
            for i in inbound
        )
        truth = {f"flights.{i}.date": res.flights[i].date for i in inbound}
        expect = dict(truth)
        expect.update({f"flights.{i}.flight_number": res.flights[i].flight_number for i in inbound})
        return self.contract(
            contract_id=cid,
            domain="airline",
            task_id=task_id,
            cluster=rid,
            target=Target(
                entity_type="reservation",
                entity_id=rid,
                paths=tuple(truth),
                scope=f"the current itinerary of reservation {rid}",
            ),
            authoritative_value=truth,
            injected_value={e.path: e.value for e in edits},
            interventions=(
                ObservationRewrite(
                    tool="get_reservation_details",
                    match={"reservation_id": rid},
                    edits=edits,
                    expect=expect,
                ),
            ),
            refutation=Refutation(
                relation="round_trip_order",
                acquisition="co_delivered",
                params={
                    "reservation_id": rid,
                    "outbound": [
                        {
                            "index": i,
                            "flight_number": res.flights[i].flight_number,
                            "date": res.flights[i].date,
                        }
                        for i in outbound
                    ],
                    "injected_return_date": edits[0].value,
                },
            ),
            semantics=SEMANTICS,
        )
