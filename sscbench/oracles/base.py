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

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from sscbench.caching import bounded
from sscbench.errors import ConfigError
from sscbench.fault_contracts.contract import FaultContract
from sscbench.fault_contracts.history import PARSES_LIMIT, Delivered, History, SharedParses
from sscbench.records.events import AgentMessage, AgentToolCall, VisibleEvent, by_agent
from sscbench.records.ledger import Ledger
from sscbench.registry import NoParams, Registry


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


PARSES = SharedParses()
"""Observation texts the offline oracles parse once while among the latest: every oracle
reads every run, and a task's runs read the same records. Their values are read-only, as
every oracle treats :attr:`~sscbench.fault_contracts.history.Delivered.data`."""


def history_of(trajectory: Trajectory) -> History:
    """The run's model-visible history, its observations parsed through :data:`PARSES`."""
    return History(trajectory.ledger.events, PARSES)


W = TypeVar("W")

_WALKS: dict[tuple[Callable[[Any], Any], str], Any] = {}


def walked(walk: Callable[[Any], W], d: Delivered) -> W:
    """``walk(d.data)``, computed once per walk and observation text while the text is
    among the :data:`~sscbench.fault_contracts.history.PARSES_LIMIT` latest, as
    :data:`PARSES` parses it: the runs of a task read the same records, and a walk over a
    search result was most of an oracle's time. Read-only, like the parse it walks."""
    found: W = bounded(_WALKS, (walk, d.observation.content), lambda: walk(d.data), PARSES_LIMIT)
    return found


def next_agent_step(events: Sequence[VisibleEvent], step: int) -> int | None:
    """The first agent message or tool call after ``step``: where an oracle that detects
    something in an observation localises it (an observation itself is never a reliance)."""
    for event in events:
        if (
            event.step > step
            and isinstance(event, AgentMessage | AgentToolCall)
            and by_agent(event)
        ):
            return event.step
    return None


class Oracle(Protocol):
    """Judges trajectories one at a time."""

    name: str

    def judge(self, trajectory: Trajectory) -> Verdict:
        """The verdict for one trajectory (never raises for a judgeable run)."""
        ...


OracleFactory = Callable[..., Oracle]
ORACLES: Registry[OracleFactory] = Registry("oracle", group="sscbench.oracles")


class OracleSetting(BaseModel):
    """What an oracle is, for the settings table (the paper's Table II) and for scoring.

    ``output`` decides how it is scored: an ``adoption`` oracle answers yes / no / abstain
    plus an optional step; a ``step`` oracle (a failure-attribution method that only names
    a decisive step) is scored on localisation alone and kept out of every adoption metric.
    ``scope`` restricts the evaluation to some operators' runs (the items outside it are not
    judged at all, rather than counted as abstentions).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    baseline: str = Field(description="the paper's label (B1…B5) or '—' for SSCBench's own")
    method: str
    information: str = Field(description="what the oracle sees (L0, L1, L-DB, …)")
    positive: str = Field(description="what counts as a positive verdict")
    output: Literal["adoption", "step"] = "adoption"
    scope: tuple[str, ...] = Field(default=(), description="operators judged; () = all")
    calls: Literal["offline", "llm"] = "offline"


UNDECLARED = OracleSetting(
    baseline="—",
    method="plugin (no setting declared)",
    information="unknown",
    positive="adopted = yes",
)
SETTINGS: Registry[OracleSetting] = Registry("oracle setting")

F = TypeVar("F", bound=OracleFactory)


def register_oracle(
    name: str, setting: OracleSetting, params: type[BaseModel] = NoParams
) -> Callable[[F], F]:
    """Decorator: register an oracle factory under ``name`` together with its setting and
    its parameter model.

    Plugins may still use ``ORACLES.register(name)`` alone; they are then listed with
    :data:`UNDECLARED` and scored as adoption oracles over every operator.
    """

    def decorator(factory: F) -> F:
        ORACLES.add(name, factory, params=params)
        SETTINGS.add(name, setting)
        return factory

    return decorator


def oracle_setting(name: str) -> OracleSetting:
    """The declared setting of a registered oracle (``UNDECLARED`` for a bare plugin)."""
    import sscbench.oracles.builtin  # noqa: F401

    ORACLES.get(name)  # unknown names fail here, with the list of known ones
    return SETTINGS.get(name) if name in SETTINGS else UNDECLARED


def make_oracle(name: str, **params: Any) -> Oracle:
    """Instantiate a registered oracle (built-ins are registered on first use)."""
    import sscbench.oracles.builtin  # noqa: F401  (registers the built-in oracles)

    return ORACLES.get(name)(**ORACLES.validate(name, params))


def oracle_names() -> list[str]:
    """Every registered oracle, built-ins included, in the settings table's order: the
    paper's baselines by label, then oracles without one (SSCBench's own, plugins)."""
    import sscbench.oracles.builtin  # noqa: F401

    def key(name: str) -> tuple[bool, str, str]:
        baseline = oracle_setting(name).baseline
        return baseline == "—", baseline.casefold(), name

    return sorted(ORACLES.names(), key=key)
