"""ReturnDate: a retained outbound segment refutes an earlier return date (co-delivered).

A round-trip reservation's return cannot depart before its outbound segment. Any delivered
record of the reservation that shows the outbound segment with its true date (the
intervention never touches it) contradicts an injected return date that precedes it. The
fault-bearing record itself carries the outbound segment, so ``T_E ≤ T_F``.
"""

from __future__ import annotations

from typing import Any

from sscbench.fault_contracts.contract import FaultContract
from sscbench.fault_contracts.history import History
from sscbench.fault_contracts.refutation import RELATIONS, Arrival, RelationNeeds, declare_needs


def _shows_outbound(data: Any, reservation_id: str, outbound: list[dict[str, Any]]) -> bool | None:
    """True/False for a record of the reservation; None when it is not one."""
    if not isinstance(data, dict) or data.get("reservation_id") != reservation_id:
        return None
    flights = data.get("flights")
    if not isinstance(flights, list) or data.get("flight_type") != "round_trip":
        return False
    for seg in outbound:
        index = seg["index"]
        if index >= len(flights) or not isinstance(flights[index], dict):
            return False
        got = flights[index]
        if got.get("flight_number") != seg["flight_number"] or got.get("date") != seg["date"]:
            return False
    return True


@RELATIONS.register("round_trip_order")
def round_trip_order(contract: FaultContract, history: History) -> Arrival:
    """Earliest delivered record of the reservation showing its true outbound segment."""
    params = contract.refutation.params
    rid: str = params["reservation_id"]
    outbound: list[dict[str, Any]] = params["outbound"]
    injected: str = params["injected_return_date"]
    if not all(seg["date"] > injected for seg in outbound):
        return Arrival.never(f"injected return date {injected} does not precede the outbound date")
    for d in history.successes():
        if _shows_outbound(d.data, rid, outbound):
            return Arrival.found(
                d.step,
                (d.step,),
                f"record of {rid} at step {d.step} shows outbound "
                f"{outbound[0]['flight_number']} on {outbound[0]['date']}, after {injected}",
            )
    return Arrival.never(f"no delivered record of {rid} shows its outbound segment")


declare_needs(
    "round_trip_order",
    RelationNeeds(
        params=("injected_return_date", "outbound", "reservation_id"),
        acquisitions=("co_delivered",),
        entity=("reservation_id",),
    ),
)
