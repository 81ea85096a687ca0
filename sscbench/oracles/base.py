"""What an automatic oracle is: trajectory in, (adoption verdict, ``T_U`` step) out.

The measurement (docs/measurement.md §7) scores trajectory judges, invariant checkers and
failure-attribution tools on one footing, so the interface is the smallest thing they all produce:
did the run adopt ``v′`` (yes / no / *abstain*), and where is the first erroneous reliance. An
abstention is a first-class answer — it lowers coverage and counts as a miss, rather than being
coerced into "no".

Oracles are plugins like operators: factories in a :class:`~sscbench.registry.Registry`
extendable through the ``sscbench.oracles`` entry-point group. A factory that cannot run
here (no API key, a missing optional dependency) raises :class:`OracleUnavailable`; the
evaluation reports it as skipped instead of failing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict

from sscbench.errors import ConfigError
from sscbench.fault_contracts.contract import FaultContract
from sscbench.registry import Registry
from sscbench.runs.ledger import Ledger


class OracleUnavailable(ConfigError):
    """The oracle cannot run in this environment (the reason says why)."""


class Verdict(BaseModel):
    """One oracle's answer for one trajectory. ``adopted=None`` is an abstention."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    adopted: bool | None
    t_u: int | None = None
    reason: str = ""


@dataclass(frozen=True)
class Trajectory:
    """One item to judge.

    ``contract`` is the run's own fault contract, or — for a clean negative control — the
    contract of a case on the same task, so that contract-aware oracles are asked the
    same question of a run in which ``v′`` was never injected.
    """

    item_id: str
    run_dir: Path
    ledger: Ledger
    contract: FaultContract
    clean: bool


class Oracle(Protocol):
    """Judges trajectories one at a time."""

    name: str

    def judge(self, trajectory: Trajectory) -> Verdict:
        """The verdict for one trajectory (never raises for a judgeable run)."""
        ...


OracleFactory = Callable[..., Oracle]
ORACLES: Registry[OracleFactory] = Registry("oracle", group="sscbench.oracles")


def make_oracle(name: str, **params: Any) -> Oracle:
    """Instantiate a registered oracle (built-ins are registered on first use)."""
    import sscbench.oracles.builtin  # noqa: F401  (registers the built-in oracles)

    return ORACLES.get(name)(**params)


def oracle_names() -> list[str]:
    """Every registered oracle, built-ins included."""
    import sscbench.oracles.builtin  # noqa: F401

    return ORACLES.names()
