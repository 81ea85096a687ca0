"""How a message refers to things: entities (by id, noun or pronoun), flights (by role and
route), order items (by product name), and lists.

References come from the agent's own latest records (a route, a product name), so they
name what the reader has seen; they are never the values a message states. An id-less
reference ("your reservation", "it") is only offered when the caller knows the entity is
the one being discussed.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from sscbench.agents.scripted.phrasing.content import Entity


def possessive(noun: str) -> str:
    """``keyboard's``, ``shoes'``."""
    return f"{noun}'" if noun.endswith("s") and not noun.endswith("ss") else f"{noun}'s"


def join(items: Sequence[str], rng: random.Random) -> str:
    """``a, b and c`` (or with an Oxford comma, or ``&``)."""
    if len(items) <= 1:
        return "".join(items)
    last = (
        rng.choice((" and ", ", and ", " & ")) if len(items) > 2 else rng.choice((" and ", " & "))
    )
    return ", ".join(items[:-1]) + last + items[-1]


def _legs(record: Any) -> tuple[list[int], list[int]] | None:
    """Outbound and return leg indexes of a round trip, from the record's own routing."""
    if not isinstance(record, dict) or record.get("flight_type") != "round_trip":
        return None
    flights = record.get("flights")
    if not isinstance(flights, list) or not all(isinstance(f, dict) for f in flights):
        return None
    here, destination, index = record.get("origin"), record.get("destination"), 0
    while index < len(flights) and flights[index].get("origin") == here:
        here = flights[index].get("destination")
        index += 1
        if here == destination:
            break
    if here != destination or index == 0 or index >= len(flights):
        return None
    return list(range(index)), list(range(index, len(flights)))


def flight_role(record: Any, index: int) -> tuple[str, bool]:
    """(``outbound`` | ``return`` | ``flight``, whether it is the first leg of that way)."""
    legs = _legs(record)
    if legs is None:
        return "flight", True
    out, back = legs
    if index in out:
        return "outbound", index == out[0]
    if index in back:
        return "return", index == back[0]
    return "flight", True


def route(record: Any, index: int, rng: random.Random) -> str | None:
    """``LAS → DEN`` for a flight of the record, when it lists one."""
    flights = record.get("flights") if isinstance(record, dict) else None
    if (
        not isinstance(flights, list)
        or index >= len(flights)
        or not isinstance(flights[index], dict)
    ):
        return None
    origin, destination = flights[index].get("origin"), flights[index].get("destination")
    if not isinstance(origin, str) or not isinstance(destination, str):
        return None
    return rng.choice(
        (f"{origin} → {destination}", f"{origin} to {destination}", f"{origin}-{destination}")
    )


def item_reference(
    record: Any, index: int, item_id: Any, rng: random.Random
) -> tuple[str, str, str]:
    """(prose reference, field label, key) for order item ``index``: by product name
    ("your Mechanical Keyboard"), noun ("the keyboard") or id; the item id or position is
    added whenever the name alone would not single the item out."""
    items = record.get("items") if isinstance(record, dict) else None
    name: str | None = None
    unique = False
    if isinstance(items, list) and index < len(items) and isinstance(items[index], dict):
        raw = items[index].get("name")
        if isinstance(raw, str):
            name = raw
            unique = sum(1 for it in items if isinstance(it, dict) and it.get("name") == raw) == 1
    position = f"item #{index + 1}"
    if name is None:
        ref = f"item {item_id}" if item_id is not None else f"{position} on the order"
        return ref, ref.capitalize(), f"item_{index + 1}"
    noun = name.split()[-1].lower()
    key = name.lower().replace(" ", "_")
    if item_id is not None:
        ref = rng.choice(
            (
                f"your {name} (item {item_id})",
                f"item {item_id} ({name})",
                f"the {noun}, item {item_id},",
            )
        )
        return ref, name if unique else f"{name} ({position})", key
    if unique:
        return rng.choice((f"your {name}", f"the {noun}", f"your {noun}")), name, key
    return f"the {name} that is {position}", f"{name} ({position})", f"{key}_{index + 1}"


NOUNS = {"reservation": ("reservation", "booking"), "order": ("order",)}


def entity_ref(entity: Entity, rng: random.Random, *, by_id: bool) -> str:
    """How prose names an entity: ``reservation GV1N64``, ``your order #W…``, or (when
    ``by_id`` is false) ``your reservation`` / ``the order``."""
    etype, eid = entity
    if etype == "user":
        return rng.choice(("your profile", "your account", f"your profile ({eid})"))
    if etype == "result":
        return f"the {eid} result"
    nouns = NOUNS.get(etype, (etype,))
    noun = rng.choice(nouns)
    if by_id:
        return rng.choice((f"{noun} {eid}", f"your {noun} {eid}", f"{noun} {eid}", eid))
    return rng.choice((f"your {noun}", f"the {noun}"))


def heading(entity: Entity, rng: random.Random, *, by_id: bool) -> str:
    """A heading naming an entity: ``Reservation GV1N64``, ``Your order``, ``Your profile``."""
    etype, eid = entity
    if etype == "user":
        return rng.choice(("Your profile", "Your account"))
    if etype == "result":
        return f"{eid.replace('_', ' ').capitalize()} result"
    noun = rng.choice(NOUNS.get(etype, (etype,))).capitalize()
    if by_id:
        return f"{noun} {eid}"
    return f"Your {noun.lower()}"
