"""Facts as the scripted agents see them: values at paths of entities in observations.

A *fact* is ``(entity, path)``, e.g. ``(("reservation", "XEHM4B"), "flights.1.date")``.
Facts are extracted only from delivered observations, so scripted agents can never see
hidden state. Each sighting remembers the step and the tool that delivered it, and
whether that tool is the entity's authoritative read (``get_reservation_details`` for a
reservation, ``get_product_details`` for a product, ...).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from typing import Any, NamedTuple, TypeVar

from sscbench.json_paths import flatten

T = TypeVar("T")

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
    repeated: dict[str, tuple[Any, ...]] | None
    """``path -> values`` of a path two leaves spell alike (a key with a dot in it), in
    flatten order; ``None`` when every path is its own (always, in τ²'s records)."""
    derived: dict[str, Any]
    """What an agent derived from the leaves alone, under the derivation's name
    (:meth:`KnowledgeBase.derived`): computed once per text, like the walk."""


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
    leaves = dict(pairs)
    repeated: dict[str, tuple[Any, ...]] | None = None
    if len(leaves) != len(pairs):
        counts = Counter(path for path, _ in pairs)
        repeated = {
            path: tuple(v for p, v in pairs if p == path) for path, n in counts.items() if n > 1
        }
    hit = Parsed(data, entity, keys, tuple(v for _, v in pairs), leaves, repeated, {})
    if len(_PARSED) >= PARSED_CACHE_SIZE:
        _PARSED.clear()  # a bounded cache: a new working set refills it
    _PARSED[content] = hit
    return hit


class Sighting(NamedTuple):
    """One delivered value of a fact (immutable; a named tuple because the knowledge base
    builds one per delivery of every fact it is asked about)."""

    value: Any
    step: int
    tool: str
    authoritative: bool


class _Shown(NamedTuple):
    """One delivery of an entity's record: when, by which tool, and its shared parse."""

    step: int
    tool: str
    authoritative: bool
    seen: Parsed


class Sightings(Mapping[FactKey, list[Sighting]]):
    """Every fact's sightings in delivery order, keys in the order first sighted: a view
    over the delivered records, built per fact when it is asked for.

    An observation only notes its record (one append); a fact's sightings are read off the
    few records of its entity on demand. Building a sighting per leaf of every record as it
    arrived cost a tenth of a scripted episode, for facts the agent almost never asks
    about (it asks about the handful its plan binds or mentions).
    """

    def __init__(self, kb: KnowledgeBase) -> None:
        self._kb = kb
        self._built: dict[Entity, dict[str, list[Sighting]]] = {}
        """Per entity, the facts built since its last delivery (dropped on a new one)."""

    def _changed(self, entity: Entity) -> None:
        self._built.pop(entity, None)

    def get(self, key: FactKey, default: Any = None) -> Any:
        entity, path = key
        shown = self._kb._shown.get(entity)
        if shown is None:
            return self._kb._results.get(key, default)
        built = self._built.get(entity)
        if built is None:
            built = self._built[entity] = {}
        else:
            found = built.get(path)
            if found is not None:
                return found
        out: list[Sighting] = []
        for step, tool, authoritative, seen in shown:
            leaves = seen.leaves
            if path in leaves:
                if seen.repeated is not None and path in seen.repeated:
                    out.extend(Sighting(v, step, tool, authoritative) for v in seen.repeated[path])
                else:
                    out.append(Sighting(leaves[path], step, tool, authoritative))
        if not out:
            return default
        built[path] = out
        return out

    def __getitem__(self, key: FactKey) -> list[Sighting]:
        found: list[Sighting] | None = self.get(key)
        if found is None:
            raise KeyError(key)
        return found

    def __contains__(self, key: object) -> bool:
        return self.get(key) is not None  # type: ignore[arg-type]

    def __iter__(self) -> Iterator[FactKey]:
        return self._kb.facts()

    def __len__(self) -> int:
        return sum(1 for _ in self)


class KnowledgeBase:
    """Everything an agent has observed, fact by fact, in delivery order."""

    def __init__(self) -> None:
        self.records: dict[Entity, list[tuple[int, str, dict[str, Any]]]] = {}
        """Each entity's delivered records (step, tool, value); the values are shared
        read-only parses (:func:`parsed`)."""
        self._shown: dict[Entity, list[_Shown]] = {}
        self._results: dict[FactKey, list[Sighting]] = {}
        """Plain results (a number or a text, not a record) under their call."""
        self._log: list[_Shown | FactKey] = []
        """Each delivered record, or a result's key, in delivery order."""
        self._latest: dict[FactKey, tuple[Any, _Shown | None]] | None = None
        """Each fact's latest value and the record that showed it (``None``: a result),
        keys in the order first sighted; rebuilt after a delivery when asked for."""
        self._parses: dict[int, Parsed] = {}
        """The shared parse of each record held, by the record's identity."""
        self.sightings = Sightings(self)

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
                self._results.setdefault(key, []).append(Sighting(data, step, tool, True))
                self._log.append(key)
                self._latest = None
            return []
        authoritative = ENTITY_TYPES[entity[0]][2] == tool
        item = _Shown(step, tool, authoritative, seen)
        shown = self._shown.get(entity)
        if shown is None:
            self._shown[entity] = [item]
            self.records[entity] = [(step, tool, seen.data)]
        else:
            shown.append(item)
            self.records[entity].append((step, tool, seen.data))
            self.sightings._changed(entity)
        self._log.append(item)
        self._parses[id(seen.data)] = seen
        self._latest = None
        return [entity]

    def facts(self, entity_type: str | None = None) -> Iterator[FactKey]:
        """Every fact sighted (of entities of ``entity_type``, if given), in the order
        first sighted: the order of :attr:`sightings`."""
        done: set[FactKey] = set()
        for item in self._log:
            if isinstance(item, _Shown):
                if entity_type is not None and item.seen.keys[0][0][0] != entity_type:
                    continue
                keys: tuple[FactKey, ...] = item.seen.keys
            elif entity_type is not None and item[0][0] != entity_type:
                continue
            else:
                keys = (item,)
            for key in keys:
                if key not in done:
                    done.add(key)
                    yield key

    def leaves(self, data: dict[str, Any]) -> dict[str, Any]:
        """``path -> value`` of a record this knowledge base holds (walked once, when it
        was observed)."""
        found = self._parses.get(id(data))
        return dict(flatten(data)) if found is None else found.leaves

    def derived(self, data: dict[str, Any], name: str, fn: Callable[[dict[str, Any]], T]) -> T:
        """``fn`` of a held record's leaves, kept with the shared parse under ``name`` so
        every run that sees the same text computes it once; ``fn`` must depend on the
        leaves alone, and ``name`` must name it alone."""
        found = self._parses.get(id(data))
        if found is None:
            return fn(dict(flatten(data)))
        try:
            value: T = found.derived[name]
        except KeyError:
            value = found.derived[name] = fn(found.leaves)
        return value

    def facts_with_value(self, value: Any) -> Iterator[tuple[FactKey, Sighting]]:
        """Every (fact, latest sighting) whose latest value equals ``value``."""
        latest = self._latest
        if latest is None:
            latest = self._latest = {}
            for item in self._log:
                if isinstance(item, _Shown):
                    for key, seen_value in zip(item.seen.keys, item.seen.values, strict=True):
                        latest[key] = (seen_value, item)
                else:
                    latest[item] = (self._results[item][-1].value, None)
        for key, (seen_value, shown) in latest.items():
            if seen_value == value and type(seen_value) is type(value):
                if shown is None:
                    yield key, self._results[key][-1]
                else:
                    yield key, Sighting(seen_value, shown.step, shown.tool, shown.authoritative)
