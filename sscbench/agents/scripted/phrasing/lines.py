"""Facts grouped per entity into lines, in the words a support agent would use.

A line is either a *clause* ("you fly back on May 20 on HAT290", for prose) or a *field*
(label ``Return``, value ``HAT290 on May 20``, for lists, tables and JSON); the layout is
chosen first, so each date is spelled once, in the order the reader meets it (which is
what makes "the 17th" and "Friday" placeable). Related facts share a line: a flight's
number and date, a passenger's names, an item's id and options, an address's parts.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sscbench.agents.scripted.phrasing import values as v
from sscbench.agents.scripted.phrasing.content import Entity, Fact, Records
from sscbench.agents.scripted.phrasing.refs import (
    flight_role,
    item_reference,
    join,
    route,
)

FLIGHT = re.compile(r"^flights\.(\d+)\.(flight_number|date)$")
PEOPLE = re.compile(r"^(passengers|saved_passengers)\.(\d+)\.(first_name|last_name|dob)$")
NAME = re.compile(r"^name\.(first_name|last_name)$")
ITEM = re.compile(r"^items\.(\d+)\.(?:item_id|options\.(.+))$")
SHIPMENT = re.compile(r"^fulfillments\.(\d+)\.item_ids\.\d+$")
SOURCE = re.compile(r"^payment_methods\.(.+)\.source$")
ADDRESS = re.compile(r"^address\.(address1|address2|city|state|zip|country)$")
ADDRESS_ORDER = ("address1", "address2", "city", "state", "zip", "country")
PAYMENT = re.compile(r"^payment_history\.\d+\.(payment_id|payment_method_id)$")


def _match(pattern: re.Pattern[str], path: str) -> re.Match[str]:
    """The match of a path already bucketed by ``pattern``."""
    m = pattern.match(path)
    if m is None:
        raise ValueError(f"{path!r} does not match {pattern.pattern}")
    return m


@dataclass(frozen=True)
class Line:
    """One thing said about an entity: a clause (prose) or a label and value (fields)."""

    clause: str = ""
    label: str = ""
    value: str = ""
    key: str = ""


def bucket(fact: Fact) -> tuple[Any, ...]:
    """Facts that read naturally together share a bucket (and so a line)."""
    p = fact.path
    for pattern, name in ((FLIGHT, "flight"), (ITEM, "item"), (SHIPMENT, "shipment")):
        m = pattern.match(p)
        if m:
            return (name, int(m[1]))
    m = PEOPLE.match(p)
    if m:
        return ("people", m[1])
    if NAME.match(p):
        return ("name",)
    if ADDRESS.match(p):
        return ("address",)
    return ("path", p)


def buckets(facts: Sequence[Fact]) -> list[list[Fact]]:
    """Group facts by bucket, in first-appearance order; a path stated twice with the same
    value is said once, with two values it gets a second line (both are stated)."""
    out: dict[tuple[Any, ...], list[Fact]] = {}
    for fact in facts:
        key = bucket(fact)
        while True:
            group = out.setdefault(key, [])
            clash = next((f for f in group if f.path == fact.path), None)
            if clash is None:
                group.append(fact)
                break
            if clash.value == fact.value and type(clash.value) is type(fact.value):
                break
            key = (*key, "again")
    return list(out.values())


class LineBuilder:
    """Builds the lines of one entity's facts for one message."""

    def __init__(
        self, rng: random.Random, dates: v.DateSpeller, records: Records, prose: bool
    ) -> None:
        self.rng = rng
        self.dates = dates
        self.records = records
        self.prose = prose

    def lines(self, entity: Entity, facts: Sequence[Fact]) -> list[Line]:
        """The lines for ``facts`` (all of ``entity``), in order."""
        record = self.records.get(entity) or {}
        out: list[Line] = []
        for group in buckets(facts):
            kind = bucket(group[0])[0]
            if kind == "flight":
                out.append(self._flight(entity, record, group, facts))
            elif kind == "item":
                out.append(self._item(record, group))
            elif kind == "people":
                out.append(self._people(group))
            elif kind == "name":
                out.append(self._name(group))
            elif kind == "address":
                out.append(self._address(entity, group))
            elif kind == "shipment":
                out.append(self._shipment(group))
            else:
                out.extend(self._scalar(entity, f) for f in group)
        return out

    # -- helpers ------------------------------------------------------------------------
    def _pick(self, *options: str) -> str:
        return self.rng.choice(options)

    def _line(self, clause: str, label: str, value: str, key: str) -> Line:
        if self.prose:
            return Line(clause=clause, key=key)
        return Line(label=label, value=value, key=key)

    def _flight(
        self, entity: Entity, record: Any, group: list[Fact], all_facts: Sequence[Fact]
    ) -> Line:
        index = int(_match(FLIGHT, group[0].path)[1])
        by = {_match(FLIGHT, f.path)[2]: f.value for f in group}
        role, first_leg = flight_role(record, index)
        number = by.get("flight_number")
        where = (
            route(record, index, self.rng)
            if number is not None and self.rng.random() < 0.3
            else None
        )
        flight = None if number is None else (f"{number} ({where})" if where else str(number))
        label = {
            "outbound": self._pick("Outbound", "Departure", "Outbound flight", "Flight out"),
            "return": self._pick("Return", "Return flight", "Flight back"),
        }.get(role, f"Flight {index + 1}")
        if not first_leg and role in ("outbound", "return"):
            label = f"{label} (connection)"
        verbs = {
            "outbound": ("you fly out on {d}", "you depart {d}", "your outbound flight is on {d}"),
            "return": ("you fly back on {d}", "you return {d}", "your return flight is on {d}"),
        }.get(role, (f"flight {index + 1} is on {{d}}",))
        template = self._pick(*verbs) if self.prose else "{d}"
        date_text = length = ""
        if "date" in by:
            role_word = self.prose and template.startswith("you ")
            date_text = self.dates.spell(by["date"], role=role_word)
            length = self._trip_length(record, index, by["date"], all_facts)
            if length and not self.prose:
                date_text += self._pick(f" ({length})", f", {length}")
        if self.prose:
            if date_text and flight:
                tail = (f" on {flight}",) if where else (f" on {flight}", f" ({flight})")
                clause = template.format(d=date_text) + self._pick(*tail)
            elif date_text:
                clause = template.format(d=date_text)
            else:
                noun = {"outbound": "outbound flight", "return": "return flight"}.get(
                    role, f"flight {index + 1}"
                )
                clause = f"your {noun} is {flight}"
            if not first_leg:
                clause += " (connecting leg)"
            if length:
                clause += self._pick(f" — {length}", f" ({length})", f", making it {length}")
            return Line(clause=clause, key=role)
        if date_text and flight:
            forms = [f"{flight} on {date_text}", f"{flight}, {date_text}"]
            value = self._pick(*forms, *([] if where else [f"{date_text} ({flight})"]))
        else:
            value = date_text or str(flight)
        return Line(label=label, value=value, key=f"{role}_{index}" if role == "flight" else role)

    def _trip_length(self, record: Any, index: int, date: Any, facts: Sequence[Fact]) -> str:
        """``a 3-night trip`` beside the first return date, about half the time, when the
        message also states the first outbound date (both operative: the length is derived
        only from what the message itself asserts)."""
        if not isinstance(record, dict) or record.get("flight_type") != "round_trip":
            return ""
        role, first_leg = flight_role(record, index)
        if role != "return" or not first_leg or self.rng.random() < 0.5:
            return ""
        for f in facts:
            m = FLIGHT.match(f.path)
            if (
                m
                and m[2] == "date"
                and f.operative
                and flight_role(record, int(m[1])) == ("outbound", True)
            ):
                n = v.nights(f.value, date)
                return v.trip_length(n, self.rng) if n else ""
        return ""

    def _item(self, record: Any, group: list[Fact]) -> Line:
        index = int(_match(ITEM, group[0].path)[1])
        item_id = next((f.value for f in group if f.path.endswith(".item_id")), None)
        ref, label, noun = item_reference(record, index, item_id, self.rng)
        adjectives: list[str] = []
        phrases: list[str] = []
        for f in group:
            m = ITEM.match(f.path)
            if m and m[2]:
                text, adjective = v.option(m[2], f.value, self.rng, prose=self.prose)
                (adjectives if adjective else phrases).append(text)
        if self.prose:
            if adjectives and phrases:
                clause = f"{ref} is {join(adjectives, self.rng)} with {join(phrases, self.rng)}"
            elif adjectives:
                clause = f"{ref} is {join(adjectives, self.rng)}"
            elif phrases:
                clause = f"{ref} has {join(phrases, self.rng)}"
            else:
                clause = self._pick(f"the order includes {ref}", f"{ref} is on the order")
            return Line(clause=clause, key=noun)
        parts = [f"item {item_id}"] if item_id is not None else []
        return Line(
            label=label, value=", ".join(parts + adjectives + phrases) or "on the order", key=noun
        )

    def _people(self, group: list[Fact]) -> Line:
        kind = _match(PEOPLE, group[0].path)[1]
        people: dict[int, dict[str, Any]] = {}
        for f in group:
            m = PEOPLE.match(f.path)
            if m:
                people.setdefault(int(m[2]), {})[m[3]] = f.value
        names = [self._person(p) for _, p in sorted(people.items())]
        saved = kind == "saved_passengers"
        noun = ("saved passenger" if saved else self._pick("passenger", "traveller")) + (
            "s" if len(names) > 1 else ""
        )
        text = join(names, self.rng)
        if len(names) == 1 and not saved:
            clause = self._pick(
                f"the passenger is {text}", f"{text} is the passenger", f"the traveller is {text}"
            )
        else:
            clause = (
                self._pick(f"the {noun} are {text}", f"the {noun}: {text}")
                if len(names) > 1
                else f"the {noun} is {text}"
            )
        return self._line(clause, noun.capitalize(), text, noun.replace(" ", "_"))

    def _person(self, person: dict[str, Any]) -> str:
        first, last = person.get("first_name"), person.get("last_name")
        if first is not None and last is not None:
            name = f"{first} {last}"
        elif first is not None:
            name = f"first name {first}"
        else:
            name = f"last name {last}"
        if "dob" in person:
            name += self._pick(" (born {d})", ", date of birth {d},").format(
                d=self.dates.spell(person["dob"], year=True)
            )
        return name

    def _name(self, group: list[Fact]) -> Line:
        by = {f.path.split(".")[1]: f.value for f in group}
        text = self._person(by)
        return self._line(
            self._pick(f"the name on it is {text}", f"it's under the name {text}"),
            "Name",
            text,
            "name",
        )

    def _address(self, entity: Entity, group: list[Fact]) -> Line:
        by = {f.path.split(".")[1]: f.value for f in group}
        noun = "shipping address" if entity[0] == "order" else "address"
        if len(by) == 1:
            part, value = next(iter(by.items()))
            label = {"address1": "street", "address2": "address line 2", "zip": "zip"}.get(
                part, part
            )
            clause = self._pick(
                f"the {label} on the {noun} is {value}", f"the {noun}'s {label} is {value}"
            )
            return self._line(
                clause,
                f"{noun.capitalize()} ({label})",
                str(value),
                f"{noun}_{label}".replace(" ", "_"),
            )
        parts = [str(by[p]) for p in ADDRESS_ORDER if p in by]
        text = ", ".join(parts)
        clause = self._pick(f"the {noun} is {text}", f"the {noun} on file is {text}")
        return self._line(clause, noun.capitalize(), text, noun.replace(" ", "_"))

    def _shipment(self, group: list[Fact]) -> Line:
        n = int(_match(SHIPMENT, group[0].path)[1]) + 1
        ids = join([str(f.value) for f in group], self.rng)
        many = len(group) > 1
        clause = self._pick(
            f"shipment {n} contains item{'s' if many else ''} {ids}",
            f"item{'s' if many else ''} {ids} {'were' if many else 'was'} in shipment {n}",
        )
        return self._line(clause, f"Shipment {n}", ids, f"shipment_{n}")

    def _scalar(self, entity: Entity, fact: Fact) -> Line:
        p, value, rng = fact.path, fact.value, self.rng
        if p == "cabin":
            c = v.cabin(value, rng)
            clause = self._pick(
                f"the cabin is {c}",
                f"you're booked in {c}",
                f"it's {c} for everyone",
                f"everyone is in {c}",
            )
            return self._line(clause, "Cabin", c, "cabin")
        if p in ("total_baggages", "nonfree_baggages"):
            paid = p == "nonfree_baggages"
            b = v.bags(value, rng, paid=paid)
            clause = self._pick(
                f"there {'is' if value == 1 else 'are'} {b}", f"you have {b}", f"it has {b}"
            )
            label = "Paid bags" if paid else self._pick("Checked bags", "Bags")
            shown = str(value) if rng.random() < 0.5 else b
            return self._line(clause, label, shown, p)
        if p == "status":
            s = v.status(value, rng)
            clause = f"the status is {s}" if value is None or rng.random() < 0.5 else f"it's {s}"
            return self._line(clause, "Status", s, "status")
        m = PAYMENT.match(p)
        if m:
            clause = self._pick(
                f"it was paid with {value}",
                f"the original payment was made with {value}",
                f"the payment method on file is {value}",
            )
            return self._line(
                clause,
                self._pick("Paid with", "Payment method", "Original payment"),
                str(value),
                "payment",
            )
        m = SOURCE.match(p)
        if m:
            pid, one = m[1], v.category(value, rng, noun=self.prose)
            many = v.category(value, rng, plural=True)
            clause = self._pick(
                f"{pid} is {v.article(one)} {one}",
                f"{pid} is one of your {many}",
                f"{pid} is listed as {v.article(one)} {one}",
            )
            return self._line(clause, pid, one, pid)
        if entity[0] == "result":
            clause = self._pick(f"the {entity[1]} result is {value}", f"{entity[1]} gives {value}")
            return self._line(clause, f"{entity[1]} result", str(value), "result")
        label = v.humanise(p.replace(".", " "))
        text = self.dates.spell(value, year="dob" in p) if v.parse_date(value) else str(value)
        if p == "dob":
            label = "date of birth"
        return self._line(
            self._pick(f"the {label} is {text}", f"{label}: {text}"),
            label.capitalize(),
            text,
            p.replace(".", "_"),
        )
