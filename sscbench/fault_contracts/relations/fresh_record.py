"""Reset Leak: a fresh observation of the record shows the state the stale cache hid.

The fault-bearing observation is a read of the record answered from a cache an earlier
episode left behind: it shows ``v′`` (``stale_value``) at ``path`` where the episode's own
state holds ``v`` (``true_value``). Every write tool reads and writes the fresh state, and a
successful write naming the record invalidates the cache, so the fresh sources are:

* the reply of a successful write naming the record — τ²'s write tools answer with the whole
  record after the write — when it shows ``v`` at ``path`` (a write that leaves the field
  alone, such as an address change);
* the success of a write whose documented guard admits only records with ``v`` at ``path``
  (``requires``: "If the order is not pending", enforced by the tool): the write could not
  have succeeded on a record in the cached state;
* a read of the record after such a write, while it still shows ``v``.

A successful write that sets the field to another value without establishing ``v`` (its
guard does not require it) ends the window: later records describe a different state. A
failed write changed nothing and is not a fresh record; τ²'s refusals ("Non-pending order
cannot be modified") do not state the record's status, so they refute nothing. Only tool
observations count; the agent's or the user's words never do.
"""

from __future__ import annotations

from typing import Any

from sscbench.fault_contracts.contract import FaultContract
from sscbench.fault_contracts.history import History
from sscbench.fault_contracts.refutation import RELATIONS, Arrival, RelationNeeds, declare_needs
from sscbench.json_paths import lookup


@RELATIONS.register("fresh_record")
def fresh_record(contract: FaultContract, history: History) -> Arrival:
    """First fresh observation of the record that shows ``v`` (or a success only ``v`` admits)."""
    p: dict[str, Any] = contract.refutation.params
    key: str = p["entity_key"]
    eid: str = p["entity_id"]
    path: str = p["path"]
    true, stale = p["true_value"], p["stale_value"]
    writes = set(p["writes"])
    requires: dict[str, Any] = p.get("requires", {})
    fault = next(
        (
            d
            for d in history.successes(p["read_tool"])
            if isinstance(d.data, dict) and d.data.get(key) == eid and lookup(d.data, path) == stale
        ),
        None,
    )
    if fault is None:
        return Arrival.never(f"no delivered record of {eid} asserts {path}={stale!r}")
    written = False
    for d in history.successes():
        name, args = d.call.name, d.call.arguments
        is_write = name in writes and args.get(key) == eid
        if not is_write and not (written and name == p["read_tool"]):
            continue
        if not isinstance(d.data, dict) or d.data.get(key) != eid:
            if is_write:
                return Arrival.undecidable(f"reply of {name} at step {d.step} is not {eid}")
            continue
        written = written or is_write
        if is_write and requires.get(name) == true:
            return Arrival.found(
                d.step,
                (fault.step, d.step),
                f"{name} on {eid} succeeded at step {d.step}; its guard admits only "
                f"{path}={true!r}, not the {stale!r} read at step {fault.step}",
            )
        shown = lookup(d.data, path)
        if shown == true:
            return Arrival.found(
                d.step,
                (fault.step, d.step),
                f"fresh record of {eid} at step {d.step} shows {path}={true!r}, not the "
                f"{stale!r} read at step {fault.step}",
            )
        if is_write:
            return Arrival.never(
                f"{name} on {eid} at step {d.step} set {path}={shown!r} without establishing "
                f"{true!r}: later records describe another state"
            )
    return Arrival.never(f"no fresh record of {eid} after step {fault.step} shows {true!r}")


declare_needs(
    "fresh_record",
    RelationNeeds(
        params=(
            "entity_id",
            "entity_key",
            "path",
            "read_tool",
            "stale_value",
            "true_value",
            "writes",
        ),
        acquisitions=("cross_record",),
        fields=("path",),
        entity=("entity_id",),
        intervention="stale_read",
    ),
)
