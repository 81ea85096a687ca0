"""WriteEffect: an authoritative read after the suppressed write shows no effect.

The fault-bearing observation is the success payload of the first call matching the
logical request. A later ``get_reservation_details`` of the same reservation whose
affected fields differ from what the payload claimed refutes the claimed effect — but only
while it is attributable to the same request: a successful write in between that touched
the affected fields (other than a suppressed repeat of the same request) breaks that.
A read before the write refutes nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sscbench.fault_contracts.contract import FaultContract, WriteSuppression
from sscbench.fault_contracts.history import History, arguments_match
from sscbench.fault_contracts.refutation import (
    CHAIN_BREAKS,
    RELATIONS,
    Arrival,
    RelationNeeds,
    declare_needs,
)

WRITE_FIELDS = {
    "update_reservation_flights": ("flights", "cabin"),
    "update_reservation_baggages": ("total_baggages", "nonfree_baggages"),
    "update_reservation_passengers": ("passengers",),
    "cancel_reservation": ("status",),
    "book_reservation": (),
}


@CHAIN_BREAKS.register("post_write_read_back")
def touches_affected(spec: WriteSuppression, tool: str, arguments: Mapping[str, Any]) -> bool:
    """A write to the same reservation that changes an affected field ends the chain of
    attempts at the suppressed request (a later read-back is no longer about it)."""
    return arguments.get("reservation_id") == spec.match.get("reservation_id") and bool(
        set(WRITE_FIELDS.get(tool, ())) & set(spec.affected_fields)
    )


def _fields(data: Any, fields: tuple[str, ...]) -> dict[str, Any] | None:
    if not isinstance(data, dict):
        return None
    return {f: data.get(f) for f in fields}


@RELATIONS.register("post_write_read_back")
def post_write_read_back(contract: FaultContract, history: History) -> Arrival:
    """First attributable read-back that contradicts the write's claimed effect."""
    p = contract.refutation.params
    rid: str = p["reservation_id"]
    tool: str = p["tool"]
    match: dict[str, Any] = p["match"]
    fields = tuple(p["affected_fields"])
    repeats_suppressed = contract.persistence == "all_attempts"
    fault = next(
        (d for d in history.successes(tool) if arguments_match(d.call.arguments, match)), None
    )
    if fault is None:
        return Arrival.never("the logical request never received a success payload")
    claimed = _fields(fault.data, fields)
    if claimed is None:
        return Arrival.undecidable(f"payload at step {fault.step} is not a reservation record")
    for d in history.delivered:
        if d.step <= fault.step:
            continue
        args = d.call.arguments
        if (
            d.call.name in WRITE_FIELDS
            and args.get("reservation_id") == rid
            and not d.observation.error
        ):
            same_request = d.call.name == tool and arguments_match(args, match)
            touched = set(WRITE_FIELDS[d.call.name]) & set(fields)
            if touched and not (same_request and repeats_suppressed):
                return Arrival.never(
                    f"write {d.call.name} at step {d.step} touched {sorted(touched)} before any "
                    "read-back; later reads are not attributable to the request"
                )
        if d.call.name == "get_reservation_details" and not d.observation.error:
            if not isinstance(d.data, dict) or d.data.get("reservation_id") != rid:
                continue
            shown = _fields(d.data, fields)
            if shown != claimed:
                diff = sorted(
                    f for f in fields if shown is not None and shown.get(f) != claimed.get(f)
                )
                return Arrival.found(
                    d.step,
                    (fault.step, d.step),
                    f"read-back of {rid} at step {d.step} shows {diff} unchanged after the "
                    f"claimed success at step {fault.step}",
                )
    return Arrival.never(f"no attributable read-back of {rid} after step {fault.step}")


declare_needs(
    "post_write_read_back",
    RelationNeeds(
        params=("affected_fields", "match", "reservation_id", "tool"),
        acquisitions=("post_write_read_back",),
        fields=("affected_fields",),
        entity=("reservation_id",),
        request=True,
    ),
)
