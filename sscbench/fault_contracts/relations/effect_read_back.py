"""Defect faults: an authoritative read of the record after the write shows the defect.

A defective tool (Partial Effect, Ignored Argument) answers a matching request with the
reply the conforming tool would give — it claims the advertised effect — while its effect
on state leaves ``affected_fields`` as the defect leaves them. The fault-bearing
observation is that success reply. A later successful read of the same record (the
entity's authoritative read tool) whose affected fields differ from the reply refutes the
claimed effect, while it is still about the request: a successful write in between that
names the same entity with another request (``writes``) ends the window. A repeat of the
same request meets the same defect and claims the same effect, so it does not. A read
before the write refutes nothing.
"""

from __future__ import annotations

from typing import Any

from sscbench.fault_contracts.contract import FaultContract
from sscbench.fault_contracts.history import History, arguments_match
from sscbench.fault_contracts.refutation import RELATIONS, Arrival, RelationNeeds, declare_needs
from sscbench.json_paths import get_path

_MISSING = "<missing>"


def _value(data: Any, path: str) -> Any:
    try:
        return get_path(data, path)
    except (KeyError, IndexError, TypeError, ValueError):
        return _MISSING


def fields_of(data: Any, fields: tuple[str, ...]) -> dict[str, Any]:
    """The values at ``fields`` (dotted paths) of a record."""
    return {f: _value(data, f) for f in fields}


@RELATIONS.register("effect_read_back")
def effect_read_back(contract: FaultContract, history: History) -> Arrival:
    """First read of the record after the claimed success that shows the defect."""
    p = contract.refutation.params
    key: str = p["entity_key"]
    eid: str = p["entity_id"]
    tool: str = p["tool"]
    match: dict[str, Any] = p["match"]
    fields = tuple(p["affected_fields"])
    writes = set(p["writes"])
    fault = next(
        (d for d in history.successes(tool) if arguments_match(d.call.arguments, match)), None
    )
    if fault is None:
        return Arrival.never("the request never received a success reply")
    if not isinstance(fault.data, dict) or fault.data.get(key) != eid:
        return Arrival.undecidable(f"reply at step {fault.step} is not the record of {eid}")
    claimed = fields_of(fault.data, fields)
    for d in history.delivered:
        if d.step <= fault.step or d.observation.error:
            continue
        args = d.call.arguments
        if d.call.name in writes and args.get(key) == eid:
            if not (d.call.name == tool and arguments_match(args, match)):
                return Arrival.never(
                    f"write {d.call.name} on {eid} at step {d.step} came before any read-back; "
                    "later reads are not about the request"
                )
            continue
        if d.call.name != p["read_tool"] or not isinstance(d.data, dict):
            continue
        if d.data.get(key) != eid:
            continue
        shown = fields_of(d.data, fields)
        if shown != claimed:
            diff = sorted(f for f in fields if shown[f] != claimed[f])
            return Arrival.found(
                d.step,
                (fault.step, d.step),
                f"read of {eid} at step {d.step} shows {diff} not as the success reply at "
                f"step {fault.step} claimed",
            )
    return Arrival.never(f"no read of {eid} after step {fault.step} shows the defect")


declare_needs(
    "effect_read_back",
    RelationNeeds(
        params=(
            "affected_fields",
            "entity_id",
            "entity_key",
            "match",
            "read_tool",
            "tool",
            "writes",
        ),
        acquisitions=("post_write_read_back",),
        fields=("affected_fields",),
        entity=("entity_id",),
        request=True,
    ),
)
