"""Missing guards: records of the state the request met show it should have been refused.

A defective tool without one of its guards (Unenforced Precondition) or checks (Invariant
Break) accepts a request the conforming tool refuses; its success reply is the
fault-bearing observation. The refutation is the set of facts the guard tests, each shown
by a delivered record (``pieces``: a value at a path of an entity's record, compared with
``eq`` / ``ne`` / ``lt``), read against the rule the contract quotes (the policy or the
tool's documentation). A piece counts only when it describes the state the request met:
no other successful write lies between its record and the request (``same_state``), and,
for a fact the request itself changes, the record comes before it (``before_request``).
``T_E`` is when the last piece is delivered, so it may precede the fault.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sscbench.envs.environment import tool_kinds
from sscbench.fault_contracts.contract import FaultContract
from sscbench.fault_contracts.history import Delivered, History, arguments_match
from sscbench.fault_contracts.refutation import RELATIONS, Arrival, RelationNeeds, declare_needs
from sscbench.json_paths import get_path


def _lt(a: Any, b: Any) -> bool:
    return isinstance(a, int | float) and isinstance(b, int | float) and a < b


OPS: dict[str, Callable[[Any, Any], bool]] = {
    "eq": lambda a, b: bool(a == b),
    "ne": lambda a, b: bool(a != b),
    "lt": _lt,
}


def _shows(d: Delivered, piece: dict[str, Any]) -> bool:
    data = d.data
    if not isinstance(data, dict) or data.get(piece["entity_key"]) != piece["entity_id"]:
        return False
    try:
        value = get_path(data, piece["path"])
    except (KeyError, IndexError, TypeError, ValueError):
        return False
    return OPS[piece["op"]](value, piece["value"])


@RELATIONS.register("precondition_records")
def precondition_records(contract: FaultContract, history: History) -> Arrival:
    """Step at which every fact the missing guard tests has been shown for the request's
    state."""
    p = contract.refutation.params
    tool: str = p["tool"]
    match: dict[str, Any] = p["match"]
    fault = next(
        (d for d in history.successes(tool) if arguments_match(d.call.arguments, match)), None
    )
    if fault is None:
        return Arrival.never("the request was never accepted")
    kinds = tool_kinds(contract.domain)
    other_writes = [
        d.step
        for d in history.successes()
        if kinds.get(d.call.name) == "write"
        and not (d.call.name == tool and arguments_match(d.call.arguments, match))
    ]
    steps: list[int] = []
    for piece in p["pieces"]:
        found = None
        for d in history.successes():
            low, high = sorted((d.step, fault.step))
            if piece["window"] == "before_request" and d.step >= fault.step:
                continue
            if any(low < w < high for w in other_writes) or not _shows(d, piece):
                continue
            found = d.step
            break
        if found is None:
            return Arrival.never(
                f"no record of {piece['entity_id']} shows {piece['path']} {piece['op']} "
                f"{piece['value']!r} for the state the request met"
            )
        steps.append(found)
    return Arrival.found(
        max(steps),
        tuple(sorted(set(steps))),
        f"records at steps {sorted(set(steps))} show what the guard tests fail for the request "
        f"accepted at step {fault.step}",
    )


declare_needs(
    "precondition_records",
    RelationNeeds(params=("match", "pieces", "tool"), acquisitions=("cross_record",), request=True),
)
