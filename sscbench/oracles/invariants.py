"""Record invariants mined from the clean τ² databases.

An invariant checker knows nothing of the fault contract; it knows what consistent data
looks like. Each *template* below is a candidate rule over one kind of record (reservation,
user, order). Mining runs every template over every record of the clean database and keeps
the templates that hold on all of them (and apply to at least one), so a rule is only ever
used where the data actually obeys it — never asserted from what the operators are known
to break. On τ² 26.3 every template holds: 2000 airline reservations (955 round trips),
500 users per domain, 1000 retail orders (2978 items).

Records are recognised by shape, so the same checks run on database entities and on JSON
parsed out of delivered tool observations.

An invariant of the *data* need not be one of the *tools*: τ² 26.3's
``modify_pending_order_items`` gives every modified item the options of the last new
variant, so a correct multi-item modification leaves items whose options are not their
variant's. Checking the state after a replayed write with such a rule would flag correct
agents. So a second mining pass replays every task's gold actions on the clean database
and keeps, for replayed states, only the invariants every gold write preserves.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache
from itertools import pairwise
from typing import Any

from sscbench.envs.domain import database_fields, load_domain

Catalog = dict[str, dict[str, Any]]
"""Retail product id → product record (the reference data item variants are checked
against)."""


@dataclass(frozen=True)
class Template:
    """A candidate invariant: which records it applies to and the check (a violation
    description, or None)."""

    name: str
    kind: str
    check: Callable[[dict[str, Any], Catalog], str | None]


def record_kind(value: Any) -> str | None:
    """``reservation``, ``user`` or ``order`` for a record-shaped dict, else None."""
    if not isinstance(value, dict):
        return None
    if "reservation_id" in value and isinstance(value.get("flights"), list):
        return "reservation"
    if "order_id" in value and isinstance(value.get("items"), list):
        return "order"
    if isinstance(value.get("payment_methods"), dict):
        return "user"
    return None


def records(value: Any) -> list[tuple[str, dict[str, Any]]]:
    """Every (kind, record) nested anywhere in parsed JSON, outer before inner, in document
    order (plain recursion into one list: a generator per level re-yielded each record
    through every level above it)."""
    found: list[tuple[str, dict[str, Any]]] = []
    if isinstance(value, (dict, list)):
        _records_into(value, found)
    return found


def _records_into(value: Any, found: list[tuple[str, dict[str, Any]]]) -> None:
    # Called for containers only: a call per scalar leaf was most of the walk (a search
    # result holds thousands of leaves and a handful of records).
    if isinstance(value, dict):
        kind = record_kind(value)
        if kind is not None:
            found.append((kind, value))
        children: Iterable[Any] = value.values()
    else:
        children = value
    for child in children:
        if isinstance(child, (dict, list)):
            _records_into(child, found)


def _round_trip_ordered(record: dict[str, Any], catalog: Catalog) -> str | None:
    if record.get("flight_type") != "round_trip":
        return None
    dates = [str(f.get("date")) for f in record["flights"] if isinstance(f, dict)]
    for earlier, later in pairwise(dates):
        if later < earlier:
            return (
                f"round trip {record.get('reservation_id')}: a later segment is dated "
                f"{later}, before {earlier}"
            )
    return None


def _payment_id_names_source(record: dict[str, Any], catalog: Catalog) -> str | None:
    for key, method in record["payment_methods"].items():
        if not isinstance(method, dict):
            continue
        source = str(method.get("source", ""))
        if not str(method.get("id", key)).startswith(source) or not key.startswith(source):
            return f"payment method {key} has source {source!r}, which its id does not name"
    return None


def _item_is_catalog_variant(record: dict[str, Any], catalog: Catalog) -> str | None:
    for item in record["items"]:
        if not isinstance(item, dict):
            continue
        product = catalog.get(str(item.get("product_id")), {})
        variant = product.get("variants", {}).get(str(item.get("item_id")))
        if variant is None:
            return f"order {record.get('order_id')}: item {item.get('item_id')} is not a variant"
        if variant.get("options") != item.get("options"):
            return (
                f"order {record.get('order_id')}: item {item.get('item_id')} shows options "
                f"{item.get('options')}, its variant has {variant.get('options')}"
            )
    return None


TEMPLATES = (
    Template("round_trip_dates_ordered", "reservation", _round_trip_ordered),
    Template("payment_id_names_source", "user", _payment_id_names_source),
    Template("order_item_is_catalog_variant", "order", _item_is_catalog_variant),
)


@dataclass(frozen=True)
class Mined:
    """The invariants that hold on a domain's clean database, with their support."""

    domain: str
    invariants: tuple[Template, ...]
    support: dict[str, int]
    catalog: Catalog
    write_preserved: frozenset[str]
    """Names of the invariants every gold write of every task preserves."""

    def violations(
        self, record_kind_: str, record: dict[str, Any], *, after_write: bool = False
    ) -> list[tuple[str, str]]:
        """(invariant name, description) of every mined invariant ``record`` breaks;
        ``after_write`` restricts to the invariants writes are known to preserve."""
        out = []
        for template in self.invariants:
            if after_write and template.name not in self.write_preserved:
                continue
            if template.kind == record_kind_:
                problem = template.check(record, self.catalog)
                if problem is not None:
                    out.append((template.name, problem))
        return out


_COLLECTIONS = {"reservation": "reservations", "user": "users", "order": "orders"}


@cache
def mine(domain_name: str) -> Mined:
    """Mine the templates on the clean database of ``domain_name`` (once per process).

    A domain whose database has none of the collections a template reads (telecom) mines
    nothing, so its database is not loaded: that is what loading it would find."""
    fields = set(database_fields(domain_name))
    if not any(_COLLECTIONS[t.kind] in fields for t in TEMPLATES):
        return Mined(domain_name, (), {}, {}, frozenset())
    domain = load_domain(domain_name)
    db = domain.base_db
    catalog: Catalog = {}
    if hasattr(db, "products"):
        catalog = {k: v.model_dump(mode="json") for k, v in db.products.items()}
    kept: list[Template] = []
    support: dict[str, int] = {}
    for template in TEMPLATES:
        collection = getattr(db, _COLLECTIONS[template.kind], None)
        if collection is None:
            continue
        checked = 0
        holds = True
        for entity in collection.values():
            record = entity.model_dump(mode="json")
            if record_kind(record) != template.kind:
                continue
            checked += 1
            if template.check(record, catalog) is not None:
                holds = False
                break
        if holds and checked:
            kept.append(template)
            support[template.name] = checked
    partial = Mined(domain_name, tuple(kept), support, catalog, frozenset())
    return Mined(domain_name, tuple(kept), support, catalog, _preserved_by_gold_writes(partial))


def _preserved_by_gold_writes(mined: Mined) -> frozenset[str]:
    """The mined invariants no record returned by a gold write (any task) violates."""
    from sscbench.envs.calls import ToolCall
    from sscbench.envs.environment import EpisodeEnvironment, tool_kinds

    domain = load_domain(mined.domain)
    kinds = tool_kinds(mined.domain)
    broken: set[str] = set()
    for task in domain.tasks:
        actions = task.evaluation_criteria.actions if task.evaluation_criteria else None
        writes = [a for a in actions or [] if kinds.get(a.name) == "write"]
        if not writes:
            continue
        env = EpisodeEnvironment.open(mined.domain)
        for index, action in enumerate(writes):
            call = ToolCall(id=f"gold-{index}", name=action.name, arguments=action.arguments)
            observation = env.execute(call, index)
            if observation.error:
                continue
            try:
                data = json.loads(observation.content)
            except json.JSONDecodeError:
                continue  # a plain-text confirmation holds no record
            for kind, record in records(data):
                broken.update(name for name, _ in mined.violations(kind, record))
    return frozenset(t.name for t in mined.invariants) - broken
