"""Consistency checks a careful agent applies to what it sees, from agent-visible semantics.

Each check reads one delivered record (or two, across records) and names the fact paths
it shows to be wrong. They encode only what the agent can know: the policy's trip and
payment types, the tool docs' payment-id form, and the product record being the authority
on a variant's options.
"""

from __future__ import annotations

import re
from typing import Any

from sscbench.agents.scripted.facts import Entity, KnowledgeBase, Sighting

_PAYMENT_ID = re.compile(r"^(credit_card|gift_card|certificate)_\d+$")


def _split_round_trip(data: dict[str, Any]) -> tuple[list[int], list[int]] | None:
    flights = data.get("flights")
    origin, destination = data.get("origin"), data.get("destination")
    if not isinstance(flights, list) or not all(isinstance(f, dict) for f in flights):
        return None
    here, index, outbound = origin, 0, []
    while index < len(flights) and flights[index].get("origin") == here:
        outbound.append(index)
        here = flights[index].get("destination")
        index += 1
        if here == destination:
            break
    if here != destination or index >= len(flights):
        return None
    return outbound, list(range(index, len(flights)))


def contradicted_paths(entity: Entity, data: dict[str, Any]) -> dict[str, str]:
    """Paths of ``data`` that the record itself shows to be wrong, with the reason."""
    bad: dict[str, str] = {}
    if entity[0] == "reservation" and data.get("flight_type") == "round_trip":
        split = _split_round_trip(data)
        if split is not None:
            outbound, inbound = split
            flights = data["flights"]
            first_out = min(str(flights[i].get("date")) for i in outbound)
            for i in inbound:
                date = str(flights[i].get("date"))
                if date < first_out:
                    bad[f"flights.{i}.date"] = (
                        f"the return flight on {date} would leave before the outbound flight "
                        f"on {first_out}"
                    )
    if entity[0] == "user":
        methods = data.get("payment_methods")
        if isinstance(methods, dict):
            for pid, method in methods.items():
                match = _PAYMENT_ID.match(pid)
                if match and isinstance(method, dict) and method.get("source") != match.group(1):
                    bad[f"payment_methods.{pid}.source"] = (
                        f"payment method {pid} is listed as {method.get('source')}, but its id "
                        f"says {match.group(1)}"
                    )
    return bad


def product_authority(
    kb: KnowledgeBase, entity: Entity, path: str, order_data: dict[str, Any]
) -> Sighting | None:
    """For an order item's option, the product record's value for that variant, if seen.

    ``path`` is ``items.<i>.options.<option>`` of the order ``entity``.
    """
    parts = path.split(".", 3)
    if entity[0] != "order" or len(parts) != 4 or parts[0] != "items" or parts[2] != "options":
        return None
    items = order_data.get("items")
    index = int(parts[1])
    if not isinstance(items, list) or index >= len(items):
        return None
    item = items[index]
    product: Entity = ("product", str(item.get("product_id")))
    key = (product, f"variants.{item.get('item_id')}.options.{parts[3]}")
    seen = kb.sightings.get(key)
    return seen[-1] if seen else None
