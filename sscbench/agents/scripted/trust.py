"""Which sighting of a fact a scripted agent trusts, given its evidence habits.

* hasty: the first sighting — unless a write payload showed the fact later (it believes
  its writes);
* gold: the latest sighting;
* careful (``prefer_authoritative``): the latest authoritative sighting, and
  (``check_consistency``) never one that agent-visible semantics show to be wrong: a
  return before the outbound, a payment category that contradicts its id, an order item
  option that disagrees with the product record's variant (the product record wins).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace

from sscbench.agents.scripted.facts import FactKey, KnowledgeBase, Sighting
from sscbench.agents.scripted.invariants import contradicted_paths, product_authority


@dataclass(frozen=True)
class EvidenceHabits:
    """How a scripted agent seeks and weighs evidence (probabilities in [0, 1])."""

    pre_use_lookup: float = 0.0
    read_back: float = 0.0
    prefer_authoritative: float = 0.0
    check_consistency: float = 0.0
    first_sighting: bool = False
    confirm_first: bool = False
    """Tell the user the facts before reading what would check them, and report a write
    done before reading it back (``scripted:eager``)."""
    device_check: bool = False
    """Before asking the customer for a device fix that turns a setting around, ask for
    the phone's network status and act on the setting it shows (telecom; not ``gold``)."""


GUIDANCE: dict[str, dict[str, float]] = {
    "verify_before_write": {"pre_use_lookup": 1.0, "prefer_authoritative": 1.0},
}
"""What each guidance name asks of a scripted agent: the habits it then has at least.
``verify_before_write`` (read the records a write depends on from their authoritative
source, and act on them) is the careful agent's look-up and preference; habits that
overrule evidence (``first_sighting``) are left as they are."""


def follow_guidance(habits: EvidenceHabits, guidance: tuple[str, ...]) -> EvidenceHabits:
    """``habits`` raised to what each known guidance name asks (unknown names are
    instructions a scripted agent cannot follow, and change nothing)."""
    for name in guidance:
        for habit, level in GUIDANCE.get(name, {}).items():
            habits = replace(habits, **{habit: max(getattr(habits, habit), level)})
    return habits


@dataclass(frozen=True)
class Resolution:
    """The trusted sighting (or none) and a sighting refused, with the reason."""

    chosen: Sighting | None
    rejected: Sighting | None = None
    reason: str | None = None


def chance(rng: random.Random, probability: float) -> bool:
    """Draw a habit; certain habits (0 or 1) consume no randomness."""
    if probability >= 1.0:
        return True
    if probability <= 0.0:
        return False
    return rng.random() < probability


def resolve(
    kb: KnowledgeBase,
    key: FactKey,
    habits: EvidenceHabits,
    rng: random.Random,
    kinds: dict[str, str],
) -> Resolution:
    """The sighting of ``key`` the agent acts on."""
    seen = kb.sightings.get(key)
    if not seen:
        return Resolution(None)
    if habits.first_sighting:
        writes = [s for s in seen if kinds.get(s.tool) == "write"]
        return Resolution(writes[-1] if writes else seen[0])
    chosen = seen[-1]
    rejected: Sighting | None = None
    reason: str | None = None
    if chance(rng, habits.prefer_authoritative):
        authoritative = [s for s in seen if s.authoritative]
        if authoritative and authoritative[-1] is not chosen:
            if authoritative[-1].value != chosen.value:
                rejected = chosen
                reason = f"the authoritative record ({authoritative[-1].tool}) says otherwise"
            chosen = authoritative[-1]
    if chance(rng, habits.check_consistency):
        entity, path = key
        record = next((d for step, _, d in kb.records.get(entity, ()) if step == chosen.step), None)
        if record is not None:
            authority = product_authority(kb, entity, path, record)
            if authority is not None and authority.value != chosen.value:
                return Resolution(
                    authority,
                    chosen,
                    f"the product record lists {authority.value!r} for this item's variant",
                )
            wrong = contradicted_paths(entity, record).get(path)
            if wrong is not None:
                return Resolution(None, chosen, wrong)
    return Resolution(chosen, rejected, reason)
