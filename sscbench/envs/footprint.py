"""Write footprints: which entities a τ² write tool may mutate, given its arguments.

Copy-on-write is only as sound as these footprints. Each entry was derived from the τ²
26.3 tool source (``tau2/domains/*/tools.py``) and is checked by the isolation tests,
which replay every gold write and compare the base database hash before and after. A
write tool missing from this table is not guessed at: the episode copies every entity
(slow, always correct).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from sscbench.envs.state import EntityKey

Footprint = Callable[[Any, Mapping[str, Any]], list[EntityKey]]


def _str(args: Mapping[str, Any], name: str) -> str | None:
    value = args.get(name)
    return value if isinstance(value, str) else None


def _reservation_and_owner(db: Any, args: Mapping[str, Any]) -> list[EntityKey]:
    rid = _str(args, "reservation_id")
    if rid is None or rid not in db.reservations:
        return []
    return [("reservations", rid), ("users", db.reservations[rid].user_id)]


def _user(db: Any, args: Mapping[str, Any]) -> list[EntityKey]:
    uid = _str(args, "user_id")
    return [("users", uid)] if uid is not None else []


def _booking(db: Any, args: Mapping[str, Any]) -> list[EntityKey]:
    keys = _user(db, args)
    flights = args.get("flights")
    if isinstance(flights, list):
        for flight in flights:
            number = (
                flight.get("flight_number")
                if isinstance(flight, dict)
                else getattr(flight, "flight_number", None)
            )
            if isinstance(number, str):
                keys.append(("flights", number))
    return keys


def _order_and_owner(db: Any, args: Mapping[str, Any]) -> list[EntityKey]:
    oid = _str(args, "order_id")
    if oid is None or oid not in db.orders:
        return []
    return [("orders", oid), ("users", db.orders[oid].user_id)]


FOOTPRINTS: dict[str, dict[str, Footprint]] = {
    "airline": {
        "book_reservation": _booking,
        "cancel_reservation": _reservation_and_owner,
        "send_certificate": _user,
        "update_reservation_baggages": _reservation_and_owner,
        "update_reservation_flights": _reservation_and_owner,
        "update_reservation_passengers": _reservation_and_owner,
    },
    "retail": {
        "cancel_pending_order": _order_and_owner,
        "exchange_delivered_order_items": _order_and_owner,
        "modify_pending_order_address": _order_and_owner,
        "modify_pending_order_items": _order_and_owner,
        "modify_pending_order_payment": _order_and_owner,
        "modify_user_address": _user,
        "return_delivered_order_items": _order_and_owner,
    },
}


PartFootprint = Callable[[Mapping[str, Any]], dict[EntityKey, list[str]]]


def _booked_dates(args: Mapping[str, Any]) -> dict[EntityKey, list[str]]:
    """The dates a booking takes seats on, per flight (a flight whose date is not a string
    is left out, so it is copied whole)."""
    parts: dict[EntityKey, list[str]] = {}
    flights = args.get("flights")
    if isinstance(flights, list):
        for flight in flights:
            get = (
                flight.get if isinstance(flight, dict) else lambda n, f=flight: getattr(f, n, None)
            )
            number, date = get("flight_number"), get("date")
            if isinstance(number, str) and isinstance(date, str):
                parts.setdefault(("flights", number), []).append(date)
    return parts


PARTS: dict[str, dict[str, tuple[str, PartFootprint]]] = {
    "airline": {"book_reservation": ("dates", _booked_dates)},
}
"""Footprint entries a write changes only in part: the tool, the entity's dict field and,
per entity, the items of it the write may change (``book_reservation`` only lowers
``available_seats`` on the booked dates of each flight; τ² 26.3 ``airline/tools.py``)."""


def write_parts(
    domain: str, tool: str, args: Mapping[str, Any]
) -> tuple[str, dict[EntityKey, list[str]]] | None:
    """The dict field and the items of it ``tool`` may change per footprint entity, or
    ``None`` when every entity of its footprint must be copied whole."""
    entry = PARTS.get(domain, {}).get(tool)
    if entry is None:
        return None
    return entry[0], entry[1](args)


def write_footprint(
    domain: str, tool: str, db: Any, args: Mapping[str, Any]
) -> list[EntityKey] | None:
    """Entities ``tool`` may mutate, or ``None`` when the tool has no declared footprint."""
    table = FOOTPRINTS.get(domain, {})
    if tool not in table:
        return None
    # Duplicates are harmless but waste a deep copy.
    return list(dict.fromkeys(table[tool](db, args)))
