"""Per-episode database state: copy-on-write over the shared base, hashed per entity.

A τ² database is a pydantic model holding a few top-level dicts of entities
(``reservations``, ``users``, ``flights`` / ``orders``, ``products``). An episode gets a
new model whose top-level dicts are *shallow* copies of the base dicts, so opening an
episode costs microseconds instead of the 50–240 ms of a load or deep copy. Entities are
still shared with the base until the episode writes: before any write tool runs, the
entities it can touch (its *footprint*, :mod:`sscbench.envs.footprint`) are replaced in
the episode's dicts by deep copies. New keys land only in the episode's dicts.

The state hash is computed per entity, so hashing a finished episode re-serialises only
the entities it owned; untouched collections reuse the base digests.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from sscbench.caching import shared_cache
from sscbench.envs.domain import Domain, load_domain

EntityKey = tuple[str, str]
"""(collection, key), e.g. ``("reservations", "XEHM4B")``."""


def canonical_json(value: Any) -> str:
    """Canonical JSON: sorted keys, τ²'s ``default=str`` for dates, no extra spaces."""
    return json.dumps(value, sort_keys=True, default=str, separators=(",", ":"))


def copy_entity(entity: Any) -> Any:
    """An independent copy of a τ² entity.

    Re-validating its dump is about 3x faster than ``model_copy(deep=True)`` (measured in
    benchmarks/) and yields an equal model of the same types: the transparency tests
    compare τ²'s own database hash after every gold write.
    """
    return type(entity).model_validate(entity.model_dump())


def entity_digest(entity: Any) -> str:
    """SHA-256 of one entity's canonical JSON."""
    return hashlib.sha256(canonical_json(entity.model_dump()).encode()).hexdigest()


_MOD = 1 << 256


def _term(name: str, key: str, digest: str) -> int:
    return int.from_bytes(hashlib.sha256(f"{name}\x00{key}\x00{digest}".encode()).digest(), "big")


def _combine(sums: dict[str, int]) -> str:
    """The state hash from per-collection multiset sums (order-independent, so one entity
    can be replaced in O(1) without re-sorting or re-hashing the collection)."""
    h = hashlib.sha256(b"sscbench-state-v2")
    for name in sorted(sums):
        h.update(f"\x00{name}\x00{sums[name]:064x}".encode())
    return h.hexdigest()


@dataclass(frozen=True)
class _BaseDigests:
    terms: dict[str, dict[str, int]]
    sums: dict[str, int]


@shared_cache
def _base_digests(domain_name: str) -> _BaseDigests:
    domain = load_domain(domain_name)
    terms = {
        name: {
            key: _term(name, key, entity_digest(ent))
            for key, ent in getattr(domain.base_db, name).items()
        }
        for name in domain.collections
    }
    return _BaseDigests(terms=terms, sums={n: sum(t.values()) % _MOD for n, t in terms.items()})


def state_hash_of(db: Any, collections: tuple[str, ...]) -> str:
    """Hash a whole database from scratch (the reference the incremental hash must match)."""
    sums = {
        name: sum(_term(name, key, entity_digest(ent)) for key, ent in getattr(db, name).items())
        % _MOD
        for name in collections
    }
    return _combine(sums)


def _added(coll: dict[str, Any], before: tuple[str, ...]) -> list[str]:
    """The keys of ``coll`` not in ``before``, its keys in order at a checkpoint.

    A dict keeps insertion order, so when a write only added keys (what τ²'s tools do)
    ``before`` is a prefix of the keys now and the added ones follow it: an identity-first
    comparison of the prefix instead of two sets of every key. Anything else (a key
    removed, one removed and added again) takes the set difference."""
    keys = tuple(coll)
    if keys[: len(before)] == before:  # the whole tuple itself when no key was added
        return list(keys[len(before) :])
    kept = set(before)
    return [key for key in coll if key not in kept]


@dataclass(frozen=True)
class Checkpoint:
    """Enough to undo one write (see :meth:`EpisodeState.checkpoint`)."""

    objects: dict[EntityKey, Any]
    owned_before: frozenset[EntityKey]
    key_sets: dict[str, tuple[str, ...]]
    """Every collection's keys in dict order: a tuple of the same string objects, about
    ten times cheaper to take than a set, and enough to find the keys a write added."""
    partial_before: dict[EntityKey, frozenset[str]] = field(default_factory=dict)


@dataclass
class EpisodeState:
    """Copy-on-write database of one episode.

    ``db`` is a real τ² database model, so τ² tools run on it unchanged. ``owned`` holds
    the entity keys whose objects belong to this episode (deep-copied or created here);
    every other entity object is shared with the base and must not be mutated.
    ``partial`` maps the owned entities that are only *shells* (see :meth:`own_parts`) to
    the parts copied so far; everything else under a shell is still shared.
    """

    domain: Domain
    db: Any
    owned: set[EntityKey] = field(default_factory=set)
    partial: dict[EntityKey, set[str]] = field(default_factory=dict)

    @classmethod
    def fresh(cls, domain: Domain) -> EpisodeState:
        """A new episode state equal to the base; O(number of entities) pointer copies."""
        base = domain.base_db
        db = domain.db_class.model_construct(
            **{name: dict(getattr(base, name)) for name in domain.collections}
        )
        return cls(domain=domain, db=db)

    def collection(self, name: str) -> dict[str, Any]:
        """The episode's top-level dict for ``name``."""
        coll: dict[str, Any] = getattr(self.db, name)
        return coll

    def own(self, key: EntityKey) -> Any:
        """Make the episode the owner of ``key`` (deep copy on first write) and return it."""
        coll = self.collection(key[0])
        if key[1] not in coll:
            return None
        if key not in self.owned or key in self.partial:
            coll[key[1]] = copy_entity(coll[key[1]])
            self.owned.add(key)
            self.partial.pop(key, None)
        return coll[key[1]]

    def own_parts(self, key: EntityKey, field_name: str, parts: list[str]) -> None:
        """Own ``parts`` of the dict field ``field_name`` of ``key``, not the whole entity.

        A write that changes one item of a large dict (a booking takes seats on one date of
        a flight that lists 30) needs a copy of that item only: the entity becomes a
        shallow shell with its own dict, whose named items are deep copies and whose other
        items stay shared with the base. A later :meth:`own` of the key copies it whole.
        """
        coll = self.collection(key[0])
        entity = coll.get(key[1])
        if entity is None or (key in self.owned and key not in self.partial):
            return
        if key not in self.owned:
            shell = entity.model_copy()
            shell.__dict__[field_name] = dict(getattr(entity, field_name))
            coll[key[1]] = entity = shell
            self.owned.add(key)
            self.partial[key] = set()
        done = self.partial[key]
        items: dict[str, Any] = getattr(entity, field_name)
        for part in parts:
            if part not in done and part in items:
                items[part] = copy_entity(items[part])
                done.add(part)

    def own_everything(self) -> None:
        """Slow path for write tools with no declared footprint: copy every entity."""
        for name in self.domain.collections:
            coll = self.collection(name)
            for key in list(coll):
                self.own((name, key))

    def checkpoint(self, keys: list[EntityKey]) -> Checkpoint:
        """What ``keys`` hold now — objects, ownership, every collection's key set — so a
        write can be undone.

        The caller must then :meth:`fork` the keys so the write mutates fresh copies and the
        checkpointed objects stay intact.
        """
        return Checkpoint(
            objects={k: self.collection(k[0]).get(k[1]) for k in keys},
            owned_before=frozenset(k for k in keys if k in self.owned),
            key_sets=self.key_sets(),
            partial_before={k: frozenset(self.partial[k]) for k in keys if k in self.partial},
        )

    def fork(self, keys: list[EntityKey]) -> None:
        """Give ``keys`` fresh deep copies even if already owned (needed before undo)."""
        for key in keys:
            coll = self.collection(key[0])
            if key[1] in coll:
                coll[key[1]] = copy_entity(coll[key[1]])
                self.owned.add(key)
                self.partial.pop(key, None)

    def restore(self, checkpoint: Checkpoint) -> None:
        """Undo a write: put back checkpointed objects *and their ownership* (a restored
        base object is shared again and must be copied before the next write), and drop keys
        the write created."""
        for (name, key), obj in checkpoint.objects.items():
            coll = self.collection(name)
            if obj is None:
                coll.pop(key, None)
            else:
                coll[key] = obj
            if (name, key) not in checkpoint.owned_before:
                self.owned.discard((name, key))
            parts = checkpoint.partial_before.get((name, key))
            if parts is None:
                self.partial.pop((name, key), None)
            else:
                self.partial[(name, key)] = set(parts)
        for name, before in checkpoint.key_sets.items():
            coll = self.collection(name)
            for key in _added(coll, before):
                del coll[key]
                self.owned.discard((name, key))
                self.partial.pop((name, key), None)

    def key_sets(self) -> dict[str, tuple[str, ...]]:
        """Every collection's keys in order (to detect keys a write creates)."""
        return {name: tuple(self.collection(name)) for name in self.domain.collections}

    def state_hash(self) -> str:
        """Hash of the full state in O(entities this episode owns or created)."""
        return _combine(self._collection_sums())

    def component_digests(self) -> dict[str, str]:
        """One digest per collection, so a comparison can say which component differs."""
        return {name: f"{total:064x}" for name, total in self._collection_sums().items()}

    def _collection_sums(self) -> dict[str, int]:
        base = _base_digests(self.domain.name)
        sums = dict(base.sums)
        changed: dict[str, set[str]] = {}
        for name, key in self.owned:
            changed.setdefault(name, set()).add(key)
        for name in self.domain.collections:
            coll = self.collection(name)
            base_terms = base.terms[name]
            keys = changed.get(name, set())
            if len(coll) != len(base_terms):  # a write created keys (or an undo removed them)
                keys = keys | (set(coll) ^ set(base_terms))
            if not keys:
                continue
            total = sums[name]
            for key in keys:
                if key in base_terms:
                    total -= base_terms[key]
                if key in coll:
                    total += _term(name, key, entity_digest(coll[key]))
            sums[name] = total % _MOD
        return sums

    def snapshot(self) -> dict[str, dict[str, Any]]:
        """The full state as plain JSON-ready data (collections → key → entity)."""
        dumped: dict[str, dict[str, Any]] = self.db.model_dump()
        return dumped

    def canonical_json(self) -> str:
        """The full state as canonical JSON text."""
        return canonical_json(self.snapshot())


USER_COMPONENT = "~device"
"""The component name of the customer's device in a dual-control state's digests."""


@dataclass(frozen=True)
class DualCheckpoint(Checkpoint):
    """A whole-state checkpoint: the agent's database and the device as they were."""

    db: Any = None
    user_db: Any = None


@dataclass
class DualState(EpisodeState):
    """The state of a dual-control episode: the agent's database and the customer's device.

    τ²'s telecom database is about 10 kB of *lists* (plans, customers, lines, bills,
    devices), and its tasks' initial actions and ``sync_tools`` change records no footprint
    covers, so an episode owns a full copy of both from the start (well under a
    millisecond), an undo restores whole copies, and every hash digests each collection
    whole. ``owned`` names the two components.
    """

    user_db: Any = None

    @classmethod
    def fresh(cls, domain: Domain) -> DualState:
        """Independent copies of the base database and of the base device."""
        return cls(
            domain=domain,
            db=copy_entity(domain.base_db),
            owned={("agent", "db"), ("user", "device")},
            user_db=copy_entity(domain.user_base_db),
        )

    def own(self, key: EntityKey) -> Any:
        """Nothing to do: the episode owns everything from the start."""
        return None

    def own_parts(self, key: EntityKey, field_name: str, parts: list[str]) -> None:
        """Nothing to do: the episode owns everything from the start."""

    def own_everything(self) -> None:
        """Nothing to do: the episode owns everything from the start."""

    def key_sets(self) -> dict[str, tuple[str, ...]]:
        """No keyed collections to compare (undo restores whole copies)."""
        return {}

    def checkpoint(self, keys: list[EntityKey]) -> Checkpoint:
        """Both databases as they are; :meth:`fork` then gives the write fresh copies."""
        return DualCheckpoint({}, frozenset(), {}, db=self.db, user_db=self.user_db)

    def fork(self, keys: list[EntityKey]) -> None:
        """Fresh copies of both databases (the caller re-points the toolkits)."""
        self.db = copy_entity(self.db)
        self.user_db = copy_entity(self.user_db)

    def restore(self, checkpoint: Checkpoint) -> None:
        """Put back both databases (the caller re-points the toolkits)."""
        if not isinstance(checkpoint, DualCheckpoint):
            raise TypeError("a dual-control state restores only its own checkpoints")
        self.db = checkpoint.db
        self.user_db = checkpoint.user_db

    def _collection_sums(self) -> dict[str, int]:
        dumped = self.db.model_dump()
        sums = {
            name: _term(name, "", hashlib.sha256(canonical_json(dumped[name]).encode()).hexdigest())
            for name in self.domain.collections
        }
        sums[USER_COMPONENT] = _term(USER_COMPONENT, "", entity_digest(self.user_db))
        return sums

    def snapshot(self) -> dict[str, dict[str, Any]]:
        """Both databases as JSON-ready data, the device under its component name."""
        dumped: dict[str, dict[str, Any]] = self.db.model_dump()
        dumped[USER_COMPONENT] = self.user_db.model_dump()
        return dumped
