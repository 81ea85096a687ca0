"""The experiment file's schema (TOML or YAML), validated with pydantic.

This is only the *shape* of the file: types, ranges, unknown keys. Checks that need the
world (is the agent registered, does the case exist, are the provider parameters valid)
happen in :mod:`sscbench.experiments.load`, which reports both kinds with file and line.
Every table forbids unknown keys, so a typo is an error rather than a silent default.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, NonNegativeInt, PositiveInt

from sscbench.runs.arrival import Arm, Interface

CONFIG_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,31}$"

Gate = Literal["per_case", "per_repetition", "none"]


class _Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class CaseSelection(_Strict):
    """Which cases of which case set to run (filters apply in this order)."""

    path: str | None = Field(default=None, description="case set directory; None: shipped")
    operators: tuple[str, ...] | None = Field(default=None, description="None: all")
    ids: tuple[str, ...] | None = Field(default=None, description="case ids; None: all")
    controls: bool = Field(default=True, description="include target-value controls")
    per_operator: PositiveInt | None = Field(
        default=None, description="keep the first N cases of each operator (manifest order)"
    )


class ConfigurationEntry(_Strict):
    """One configuration under test: a short display id, a registered agent, its params."""

    id: str = Field(pattern=CONFIG_ID_PATTERN, description="short display id")
    agent: str = Field(min_length=1, description="agent registry name, e.g. scripted:careful")
    params: dict[str, Any] = Field(default_factory=dict)
    repetitions: int | None = Field(
        default=None,
        ge=1,
        le=1000,
        description="run only the experiment's first k repetitions (r0..r(k-1)); None: all",
    )


class ChecksEntry(_Strict):
    """Paired interface checks: each selected case is also run under these interface
    variants, with the same configuration, repetition and seed, so that runs pair up."""

    paired: tuple[Literal["aligned", "read_back_hint"], ...] = ()


class ArrivalEntry(_Strict):
    """How ``arrival_arms`` deliver (docs/arrival-interventions.md)."""

    interface: Interface = "tool_call"
    k: NonNegativeInt | None = Field(default=None, description="the at_k arm's step")
    seed: int = Field(default=0, description="seeds the random assignment of arms")


class UserEntry(_Strict):
    """The user every configuration talks to: ``scripted`` or τ²'s ``simulator``."""

    name: str = "scripted"
    params: dict[str, Any] = Field(default_factory=dict)


class BudgetEntry(_Strict):
    """Stop starting runs once either limit is reached (runs not started are missing)."""

    max_cost_usd: float | None = Field(default=None, gt=0)
    max_runs: PositiveInt | None = None


class ExperimentFile(_Strict):
    """The whole file."""

    name: str | None = None
    repetitions: int = Field(default=1, ge=1, le=1000)
    seeds: tuple[int, ...] | None = Field(
        default=None, description="one seed per repetition; None: 0, 1, ..., k"
    )
    concurrency: int = Field(default=4, ge=1, le=4096)
    executor: Literal["local", "ray"] = Field(
        default="local", description="where episodes run: this process, or a Ray cluster"
    )
    ray_address: str | None = Field(
        default=None, description="an existing Ray cluster (None: start a local one)"
    )
    gate: Gate = "per_case"
    cases: CaseSelection = Field(default_factory=CaseSelection)
    step_limits: dict[str, PositiveInt] = Field(
        default_factory=dict, description="per operator; default: each operator's step_limit"
    )
    user: UserEntry = Field(default_factory=UserEntry)
    budget: BudgetEntry = Field(default_factory=BudgetEntry)
    checks: ChecksEntry = Field(default_factory=ChecksEntry)
    arrival_arms: tuple[Arm, ...] = ()
    arrival: ArrivalEntry = Field(default_factory=ArrivalEntry)
    mitigations: tuple[str, ...] = Field(
        default=(),
        description="mitigations to compare: every configuration also runs behind each, "
        "as configuration ID+MITIGATION on the same cases and seeds",
    )
    configurations: tuple[ConfigurationEntry, ...] = Field(min_length=1)
