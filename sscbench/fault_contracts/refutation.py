"""Refutation relations: given a visible history, when was ``v′`` first refuted?

Each relation returns an :class:`Arrival`: the earliest step at which a valid refutation is
*completely* present (``found``), ``never`` (∞), or ``undecidable`` with a reason. The same
functions serve witness search and event reconstruction. Relations are an open registry
(entry-point group ``sscbench.relations``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from sscbench.fault_contracts.contract import FaultContract, WriteSuppression
from sscbench.fault_contracts.history import History
from sscbench.registry import Registry


class Arrival(BaseModel):
    """Outcome of a refutation relation on one history."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    status: Literal["found", "never", "undecidable"]
    step: int | None = None
    evidence: tuple[int, ...] = ()
    reason: str

    @classmethod
    def found(cls, step: int, evidence: tuple[int, ...], reason: str) -> Arrival:
        """A refutation complete at ``step``."""
        return cls(status="found", step=step, evidence=evidence, reason=reason)

    @classmethod
    def never(cls, reason: str) -> Arrival:
        """No valid refutation in the history (T_E = ∞)."""
        return cls(status="never", reason=reason)

    @classmethod
    def undecidable(cls, reason: str) -> Arrival:
        """The history does not let the relation decide."""
        return cls(status="undecidable", reason=reason)


Relation = Callable[[FaultContract, History], Arrival]
RELATIONS: Registry[Relation] = Registry("refutation relation", group="sscbench.relations")


ChainBreak = Callable[[WriteSuppression, str, Mapping[str, Any]], bool]
"""(suppression spec, tool name, arguments) → does this write, if it succeeds, end the
chain of attempts at the suppressed request (it touched the affected fields itself)?"""
CHAIN_BREAKS: Registry[ChainBreak] = Registry("write-chain rule", group="sscbench.chain_breaks")
"""Per refutation relation: how the injection runtime tells a repeat of a suppressed write
from a different write of the same fields. Registered beside the relation (the operator's
domain knowledge), so the generic runtime names no tool or field."""


@dataclass(frozen=True)
class RelationNeeds:
    """What a relation reads of its contract, declared beside it so a contract that cannot
    mean anything to it is refused when loaded (:mod:`sscbench.fault_contracts.coherence`)
    rather than labelled ``never`` or failing mid-reconstruction.

    ``params``: the parameters it reads; ``acquisitions``: the acquisition structures it
    decides (empty: any); ``fields``: parameters naming the fact's fields (a list or one
    path), which the target's paths must share; ``entity``: parameters naming the target
    entity; ``request``: its ``tool`` and ``match`` name the request the contract's write
    intervention acts on; ``intervention``: the intervention kind it reads; ``semantics``:
    it needs quoted agent-visible semantics."""

    params: tuple[str, ...] = ()
    acquisitions: tuple[str, ...] = ()
    fields: tuple[str, ...] = ()
    entity: tuple[str, ...] = ()
    request: bool = False
    intervention: str | None = None
    semantics: bool = False


RELATION_NEEDS: dict[str, RelationNeeds] = {}
"""Relation name → what it reads (a plugin relation may declare its own; one that does not
gets the generic checks only)."""


def declare_needs(relation: str, needs: RelationNeeds) -> None:
    """Record what ``relation`` reads of its contract."""
    RELATION_NEEDS[relation] = needs


def chain_break(relation: str) -> ChainBreak | None:
    """The write-chain rule registered for ``relation`` (None: it has none)."""
    return CHAIN_BREAKS.get(relation) if relation in CHAIN_BREAKS else None


def get_relation(name: str) -> Relation:
    """The registered relation ``name`` (built-ins and plugins), or a :class:`ConfigError`
    listing the known ones."""
    return RELATIONS.get(name)


def refutation_arrival(contract: FaultContract, history: History) -> Arrival:
    """Apply the contract's refutation relation to a history."""
    return get_relation(contract.refutation.relation)(contract, history)
