"""The state of rendering one message: its random choices, its dates, and which entities a
reader can already place (so an id may be dropped only where that stays unambiguous)."""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence

from sscbench.agents.scripted.phrasing import values as v
from sscbench.agents.scripted.phrasing.content import Entity, Fact, Records
from sscbench.agents.scripted.phrasing.layout import Block
from sscbench.agents.scripted.phrasing.lines import LineBuilder
from sscbench.agents.scripted.phrasing.refs import entity_ref, heading


class Ctx:
    """Rendering context of one message.

    An entity may be referred to without its id ("your reservation", "it") only when it is
    the message's single entity of its type and either the previous agent message already
    discussed it alone (``clear``) or this message has named its id before.
    """

    def __init__(
        self,
        rng: random.Random,
        records: Records,
        clear: frozenset[Entity],
        entities: Iterable[Entity],
    ) -> None:
        self.rng = rng
        self.records = records
        self.clear = clear
        self.dates = v.DateSpeller(rng)
        self.named: set[Entity] = set()
        self.mentioned: list[Entity] = []
        self.counts: dict[str, int] = {}
        for e in set(entities):
            self.counts[e[0]] = self.counts.get(e[0], 0) + 1

    def _by_id(self, entity: Entity) -> bool:
        if entity not in self.mentioned:
            self.mentioned.append(entity)
        single = self.counts.get(entity[0], 1) <= 1
        can_omit = single and (entity in self.clear or entity in self.named)
        by_id = not can_omit or self.rng.random() < 0.5
        if by_id:
            self.named.add(entity)
        return by_id

    def ref(self, entity: Entity, *, by_id: bool = False) -> str:
        """A prose reference to ``entity`` (by id when asked, or unless it is safe to drop it)."""
        if by_id:
            self._by_id(entity)
            self.named.add(entity)
            return entity_ref(entity, self.rng, by_id=True)
        return entity_ref(entity, self.rng, by_id=self._by_id(entity))

    def heading(self, entity: Entity) -> str:
        """A heading naming ``entity``."""
        return heading(entity, self.rng, by_id=self._by_id(entity))

    def blocks(self, facts: Sequence[Fact], *, prose: bool) -> list[Block]:
        """One block per entity (in first-appearance order) of ``facts``."""
        order: list[Entity] = []
        for f in facts:
            if f.entity not in order:
                order.append(f.entity)
        builder = LineBuilder(self.rng, self.dates, self.records, prose)
        out = []
        for entity in order:
            ref = self.ref(entity) if prose else self.heading(entity)
            lines = builder.lines(entity, [f for f in facts if f.entity == entity])
            out.append(Block(entity, ref, ref, tuple(lines)))
        return out

    def now_clear(self) -> frozenset[Entity]:
        """Entities the next message may treat as the ones being discussed: those this
        message named by id, when it discussed a single entity of their type (a reference
        without an id does not carry over, so references never chain)."""
        types = [e[0] for e in self.mentioned]
        return frozenset(e for e in self.named if types.count(e[0]) == 1)
