"""Saying what a write will do (the proposed call, with all its arguments) and naming a
single field of a record (for flags, questions and read-back reports)."""

from __future__ import annotations

import json
import re
from typing import Any

from sscbench.agents.scripted.phrasing import values as v
from sscbench.agents.scripted.phrasing.content import Entity, Fact
from sscbench.agents.scripted.phrasing.ctx import Ctx
from sscbench.agents.scripted.phrasing.refs import flight_role, item_reference, join, possessive

ID_ARGUMENTS = {"reservation_id": "reservation", "order_id": "order"}
VERBS = {
    "update_reservation_flights": ("change the flights on {e}", "update the flights of {e}"),
    "update_reservation_baggages": ("update the bags on {e}", "change the baggage on {e}"),
    "update_reservation_passengers": (
        "update the passengers on {e}",
        "change the passenger details of {e}",
    ),
    "cancel_reservation": ("cancel {e}",),
    "book_reservation": ("book a new reservation", "make a new booking"),
    "send_certificate": ("send a certificate", "issue a travel certificate"),
    "exchange_delivered_order_items": ("exchange items from {e}", "set up an exchange for {e}"),
    "return_delivered_order_items": ("return items from {e}", "start a return for {e}"),
    "modify_pending_order_items": ("modify the items of {e}", "change the items in {e}"),
    "modify_pending_order_address": (
        "change the shipping address of {e}",
        "update where {e} ships",
    ),
    "modify_pending_order_payment": ("change the payment method of {e}",),
    "modify_user_address": ("update the address on your profile",),
    "cancel_pending_order": ("cancel {e}",),
}
ADDRESS_KEYS = ("address1", "address2", "city", "state", "zip", "country")


def subjects(arguments: dict[str, Any]) -> list[Entity]:
    """The entities a call is about (its id arguments)."""
    return [
        (t, str(arguments[k])) for k, t in ID_ARGUMENTS.items() if isinstance(arguments.get(k), str)
    ]


def _flights(value: Any, ctx: Ctx) -> str:
    if not isinstance(value, list):
        return str(value)
    parts = []
    for f in value:
        if isinstance(f, dict):
            d = ctx.dates.spell(f.get("date"))
            parts.append(
                ctx.rng.choice(
                    (f"{f.get('flight_number')} on {d}", f"{f.get('flight_number')} ({d})")
                )
            )
        else:
            parts.append(str(f))
    return join(parts, ctx.rng)


def _people(value: Any, ctx: Ctx) -> str:
    if not isinstance(value, list):
        return str(value)
    names = []
    for p in value:
        if isinstance(p, dict):
            born = f" (born {ctx.dates.spell(p.get('dob'), year=True)})" if "dob" in p else ""
            names.append(f"{p.get('first_name')} {p.get('last_name')}{born}")
    return join(names, ctx.rng)


def _argument(tool: str, key: str, value: Any, ctx: Ctx) -> str:
    rng = ctx.rng
    if key == "flights":
        one = isinstance(value, list) and len(value) == 1
        nouns = (
            ("flight ", "the flight ", "new flight ")
            if one
            else ("flights ", "the flights ", "new flights ")
        )
        return rng.choice(nouns) + _flights(value, ctx)
    if key == "passengers":
        return "passengers " + _people(value, ctx)
    if key == "cabin":
        return rng.choice(("cabin ", "in ")) + v.cabin(value, rng)
    if key in ("payment_id", "payment_method_id"):
        verb = (
            "refunded to"
            if tool.startswith(("return", "cancel"))
            else rng.choice(("paying with", "charged to"))
        )
        return f"{verb} {value}"
    if key == "payment_methods" and isinstance(value, list):
        paid = [
            f"{p.get('payment_id')} ({v.money(p.get('amount'), rng)})"
            for p in value
            if isinstance(p, dict)
        ]
        return "paid with " + join(paid, rng)
    if key == "amount":
        return "for " + v.money(value, rng)
    if key in ("total_baggages", "nonfree_baggages"):
        return v.bags(value, rng, paid=key == "nonfree_baggages")
    if key == "reason":
        return f'reason "{value}"'
    if key == "user_id":
        return f"for {value}"
    if key in ("item_ids", "new_item_ids") and isinstance(value, list):
        noun = ("new item" if key == "new_item_ids" else "item") + ("s" if len(value) > 1 else "")
        return f"{noun} " + join([str(i) for i in value], rng)
    if key == "origin":
        return f"from {value}"
    if key == "destination":
        return f"to {value}"
    if key == "flight_type":
        return str(value).replace("_", " ")
    if key == "insurance":
        return "with insurance" if value == "yes" else "without insurance"
    text = json.dumps(value, sort_keys=True) if isinstance(value, dict | list) else str(value)
    return f"{v.humanise(key)} {text}"


def describe_call(tool: str, arguments: dict[str, Any], ctx: Ctx, *, block: bool = True) -> str:
    """One sentence saying what the call will do, with every argument it carries (or,
    when ``block`` allows, the exact request in a JSON code block)."""
    rng = ctx.rng
    entity_text = ""
    for entity in subjects(arguments):
        entity_text = ctx.ref(entity, by_id=True)  # a proposed write always names its subject
    verbs = VERBS.get(tool)
    style = rng.randrange(4) if verbs else 3
    if style == 2 and not block:
        style = 0
    if style == 2:  # the exact request, as some agents show it
        body = json.dumps(arguments, sort_keys=True, indent=2)
        lead = rng.choice(("Here is the request I'll send", "This is the update I'll make"))
        return f"{lead} ({tool}):\n```json\n{body}\n```\n"
    keys = [k for k in arguments if k not in ID_ARGUMENTS]
    parts: list[str] = []
    if any(k in ADDRESS_KEYS for k in keys):
        parts.append("to " + ", ".join(str(arguments[k]) for k in ADDRESS_KEYS if arguments.get(k)))
    parts += [_argument(tool, k, arguments[k], ctx) for k in keys if k not in ADDRESS_KEYS]
    details = (": " + "; ".join(parts)) if parts else ""
    if style == 3:
        ids = "; ".join(f"{k} {arguments[k]}" for k in ID_ARGUMENTS if k in arguments)
        named = f" on {entity_text}" if entity_text else ""
        return (
            f"I'm going to call {tool}{named}"
            + (f" ({ids})" if ids and not entity_text else "")
            + details
            + "."
        )
    assert verbs is not None
    verb = rng.choice(verbs).format(e=entity_text or "it")
    lead = rng.choice(("I'll ", "I'm going to ", "Next, I will ", "I can "))
    return f"{lead}{verb}{details}."


ROLE_WORDS = {"outbound": "outbound", "return": "return"}


def field_of(fact: Fact, ctx: Ctx) -> tuple[str, str]:
    """(the field, naming its item or flight, without the entity; the value's text)."""
    p, value, rng = fact.path, fact.value, ctx.rng
    record = ctx.records.get(fact.entity) or {}
    m = re.match(r"^flights\.(\d+)\.(date|flight_number)$", p)
    if m:
        role, _ = flight_role(record, int(m[1]))
        names: tuple[str, ...]
        if role in ROLE_WORDS:
            names = (
                f"the {role} date",
                f"the date of the {role} flight",
                f"the {role} flight's date",
            )
            number = f"the {role} flight number"
        else:
            names = (f"the date of flight {int(m[1]) + 1}", f"flight {int(m[1]) + 1}'s date")
            number = f"the number of flight {int(m[1]) + 1}"
        if m[2] == "date":
            return rng.choice(names), ctx.dates.spell(value)
        return number, str(value)
    m = re.match(r"^items\.(\d+)\.options\.(.+)$", p)
    if m:
        ref, _, _ = item_reference(record, int(m[1]), None, rng)
        forms = [f"the {m[2]} of {ref}"] + (
            [] if ref.endswith(")") else [f"{possessive(ref)} {m[2]}"]
        )
        return rng.choice(forms), v.option_value(m[2], value, rng)
    m = re.match(r"^payment_methods\.(.+)\.source$", p)
    if m:
        return rng.choice((f"the type of {m[1]}", f"the category of {m[1]}")), v.category(
            value, rng
        )
    if p == "cabin":
        return "the cabin", v.cabin(value, rng)
    if p == "status":
        return "the status", v.status(value, rng)
    if p in ("total_baggages", "nonfree_baggages"):
        noun = "paid bags" if p == "nonfree_baggages" else "checked bags"
        return f"the number of {noun}", v.number(value, rng) if isinstance(value, int) else str(
            value
        )
    text = ctx.dates.spell(value, year="dob" in p) if v.parse_date(value) else str(value)
    return "the " + v.humanise(p.replace(".", " ")), text
