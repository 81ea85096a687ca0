"""What a scripted agent makes of an order whose status says a request was already handled.

The retail policy lets an agent cancel or modify only a pending order and return or exchange
only a delivered one. When the record an agent read before a planned write shows the order
already *cancelled*, with a return or exchange requested, or with its items modified — the
outcome of an earlier request — the variants differ, as agents do: the hasty one believes it
and does not make the write; the eager one tells the user what it read and goes ahead once
they confirm; the careful one (``check_consistency``) says it will not rely on the status and
lets the write itself, which the store checks against its own record, decide; the gold one
just carries out its plan. Statuses that no request produces (``pending``, ``processed``,
``delivered``) never raise the question, so plans that meet them are unchanged.
"""

from __future__ import annotations

from sscbench.agents.scripted.facts import FactKey, KnowledgeBase, Sighting

NEEDS: dict[str, str] = {
    "cancel_pending_order": "pending",
    "modify_pending_order_address": "pending",
    "modify_pending_order_items": "pending",
    "modify_pending_order_payment": "pending",
    "return_delivered_order_items": "delivered",
    "exchange_delivered_order_items": "delivered",
}
"""The status the retail policy requires of an order before each write (the agent's own
reading of the policy; the ResetLeak operator keeps its own table, as an agent must not
depend on the faults it meets)."""

HANDLED = frozenset(
    {"cancelled", "return requested", "exchange requested", "pending (item modified)"}
)
"""Statuses that only an earlier request leaves on an order."""

DOUBT = "the store checks the order's status when I submit the request"
"""Why the careful agent does not rely on a handled-looking status."""


def handled_status(
    kb: KnowledgeBase, tool: str, arguments: dict[str, object], believed: Sighting | None
) -> tuple[FactKey, Sighting] | None:
    """The sighting of the order's status that rules out the planned write ``tool``, when the
    agent read it (not its own write's reply) and it shows an already handled request."""
    need = NEEDS.get(tool)
    order_id = arguments.get("order_id")
    if need is None or not isinstance(order_id, str) or believed is None:
        return None
    if believed.tool != "get_order_details" or believed.value not in HANDLED:
        return None
    if believed.value == need:
        return None
    key: FactKey = (("order", order_id), "status")
    return (key, believed) if key in kb.sightings else None
