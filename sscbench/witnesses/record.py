"""Stored witnesses: proof that a timely refutation was reachable for a candidate."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

WITNESS_SCHEMA_VERSION = 1


@dataclass(frozen=True)
class SearchLimits:
    """Bounds of the witness search (depth, branching per node, nodes in all)."""

    max_depth: int = 2
    max_branching: int = 60
    max_nodes: int = 400


DEFAULT_LIMITS = SearchLimits()


class WitnessCall(BaseModel):
    """One continuation step: a read call and the hash of the observation it delivered."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    arguments: dict[str, Any]
    observation_sha256: str


class SearchStats(BaseModel):
    """How the search went, and why it stopped."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    nodes: int
    depth: int
    max_depth: int
    max_branching: int
    stopped: Literal["found", "exhausted", "node_budget", "no_context"]
    reason: str


class Witness(BaseModel):
    """A legal continuation ρ with ``T_E(h_c‖ρ) < T_S(h_c‖ρ) < ∞``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    schema_version: int = WITNESS_SCHEMA_VERSION
    contract_id: str
    contract_sha256: str
    prefix_id: str
    prefix_hash: str
    prefix_steps: int
    t_f: int
    continuation: tuple[WitnessCall, ...]
    use_text: str
    t_e: int
    refuting_steps: tuple[int, ...]
    t_s: int
    search: SearchStats
