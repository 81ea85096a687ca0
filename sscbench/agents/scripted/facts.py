"""Facts as the scripted agents see them: values at paths of entities in observations.

A *fact* is ``(entity, path)``, e.g. ``(("reservation", "XEHM4B"), "flights.1.date")``.
Facts are extracted only from delivered observations, so scripted agents can never see
hidden state. Each sighting remembers the step and the tool that delivered it, and
whether that tool is the entity's authoritative read (``get_reservation_details`` for a
reservation, ``get_product_details`` for a product, ...).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from sscbench.json_paths import flatten

PARSED_CACHE_SIZE = 4096
"""Observation texts whose parse is kept (the gold plan of every airline and retail task
delivers about 1,600 distinct ones; a faulted text is one more entry)."""

Entity = tuple[str, str]
FactKey = tuple[Entity, str]

# entity type -> (id field, marker field that must also be present, authoritative read tool)
ENTITY_TYPES: dict[str, tuple[str, str, str]] = {
    "reservation": ("reservation_id", "flights", "get_reservation_details"),
    "order": ("order_id", "items", "get_order_details"),
    "product": ("product_id", "variants", "get_product_details"),
    "user": ("user_id", "payment_methods", "get_user_details"),
    # telecom: a customer's account and one of their lines
    "customer": ("customer_id", "line_ids", "get_customer_by_id"),
    "line": ("line_id", "plan_id", "get_details_by_id"),
}

READ_ARGUMENT: dict[str, str] = {"line": "id"}
"""Entity types whose authoritative read takes its id under another name."""


def entity_of(obj: Any) -> Entity | None:
    """The entity a JSON object describes, if it is one of the known record types."""
    if not isinstance(obj, dict):
        return None
    for etype, (id_field, marker, _) in ENTITY_TYPES.items():
        if marker in obj and isinstance(obj.get(id_field), str):
            return (etype, obj[id_field])
    return None


def read_call_for(entity: Entity) -> tuple[str, dict[str, str]]:
    """The authoritative read call (tool name, arguments) for an entity."""
    id_field, _, tool = ENTITY_TYPES[entity[0]]
    return tool, {READ_ARGUMENT.get(entity[0], id_field): entity[1]}


def parse_content(content: str) -> Any:
    """Parse an observation's content as JSON, or return the plain string."""
    try:
        return json.loads(content)
    except json.JSONDecodeError:
        return content


class Parsed(NamedTuple):
    """One observation text, parsed once per process: its JSON value, the entity it
    describes (if any), and that entity's facts and values leaf by leaf.

    The same text (the same task's read on the same clean state) is delivered in every
    run of a task, so its parse and walk are shared between runs and agents. Everything
    here is read-only: the value is handed to every knowledge base that sees the text.
    """

    data: Any
    entity: Entity | None
    keys: tuple[FactKey, ...]
    values: tuple[Any, ...]
    leaves: dict[str, Any]
    """``path -> value`` of every leaf (in flatten order)."""


_PARSED: dict[str, Parsed] = {}


def parsed(content: str) -> Parsed:
    """The shared parse of an observation text (see :class:`Parsed`)."""
    hit = _PARSED.get(content)
    if hit is not None:
        return hit
    data = parse_content(content)
    entity = entity_of(data)
    pairs = list(flatten(data)) if entity is not None else []
    keys = tuple((entity, path) for path, _ in pairs) if entity is not None else ()
    hit = Parsed(data, entity, keys, tuple(v for _, v in pairs), dict(pairs))
    if len(_PARSED) >= PARSED_CACHE_SIZE:
        _PARSED.clear()  # a bounded cache: a new working set refills it
    _PARSED[content] = hit
    return hit


_new_tuple = tuple.__new__


class Sighting(NamedTuple):
    """One delivered value of a fact (immutable; a named tuple because an observation
    yields one per leaf of every record, and a tuple is built in a third of the time of a
    frozen dataclass)."""

    value: Any
    step: int
    tool: str
    authoritative: bool


@dataclass
class KnowledgeBase:
    """Everything an agent has observed, fact by fact, in delivery order."""

    sightings: dict[FactKey, list[Sighting]] = field(default_factory=dict)
    records: dict[Entity, list[tuple[int, str, dict[str, Any]]]] = field(default_factory=dict)
    """Each entity's delivered records (step, tool, value); the values are shared
    read-only parses (:func:`parsed`)."""
    _leaves: dict[int, dict[str, Any]] = field(default_factory=dict, repr=False)

    def observe(
        self, tool: str, arguments: dict[str, Any], content: str, step: int
    ) -> list[Entity]:
        """Record the facts of one delivered observation; return the entities it showed."""
        seen = parsed(content)
        entity = seen.entity
        if entity is None:
            data = seen.data
            if isinstance(data, str | int | float) and not content.startswith("Error"):
                key = (("result", tool), json.dumps(arguments, sort_keys=True))
                self.sightings.setdefault(key, []).append(Sighting(data, step, tool, True))
            return []
        authoritative = ENTITY_TYPES[entity[0]][2] == tool
        sightings = self.sightings
        new = _new_tuple
        for key, value in zip(seen.keys, seen.values, strict=True):
            one = new(Sighting, (value, step, tool, authoritative))
            found = sightings.get(key)
            if found is None:
                sightings[key] = [one]
            else:
                found.append(one)
        self.records.setdefault(entity, []).append((step, tool, seen.data))
        self._leaves[id(seen.data)] = seen.leaves
        return [entity]

    def leaves(self, data: dict[str, Any]) -> dict[str, Any]:
        """``path -> value`` of a record this knowledge base holds (walked once, when it
        was observed)."""
        found = self._leaves.get(id(data))
        return dict(flatten(data)) if found is None else found

    def facts_with_value(self, value: Any) -> Iterator[tuple[FactKey, Sighting]]:
        """Every (fact, latest sighting) whose latest value equals ``value``."""
        for key, seen in self.sightings.items():
            if seen and seen[-1].value == value and type(seen[-1].value) is type(value):
                yield key, seen[-1]
