"""The operator SDK: a small base with one required behaviour, :meth:`Operator.propose`.

An operator declares what it is (domains, target tools, acquisition structure, entity
cluster key) and, given a domain, proposes one fault contract — or a rejection with its
reason — per candidate frame, in a fixed order by stable id. Parameters are a frozen
pydantic model. Randomness comes only from the seeded generators the context hands out,
one per candidate id, so a candidate's contract never depends on which others exist.
Generic validity checks (:mod:`sscbench.operators.validity`) run on every proposal.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from sscbench.errors import ConfigError
from sscbench.fault_contracts.contract import Acquisition, FaultContract, InterventionSpec


class OperatorParams(BaseModel):
    """Base of every operator's parameter model (frozen, no unknown fields)."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class Rejection(BaseModel):
    """A candidate frame that is not a valid case, and why."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    candidate_id: str
    operator: str
    task_id: str
    cluster: str
    check: str
    reason: str


@dataclass(frozen=True)
class ProposalContext:
    """What :meth:`Operator.propose` may use: the domain name and a seed."""

    domain: str
    seed: int = 0

    def rng_for(self, candidate_id: str) -> random.Random:
        """A generator seeded by (seed, candidate id): order-independent randomness."""
        return random.Random(f"{self.seed}:{candidate_id}")


P = TypeVar("P", bound=OperatorParams)


class Operator(ABC, Generic[P]):
    """Base class of fault operators (register subclasses with ``@OPERATORS.register``)."""

    name: ClassVar[str]
    display_name: ClassVar[str]
    version: ClassVar[str]
    description: ClassVar[str]
    domains: ClassVar[tuple[str, ...]]
    target_tools: ClassVar[tuple[str, ...]]
    acquisition: ClassVar[Acquisition]
    cluster_key: ClassVar[str]
    params_model: ClassVar[type[OperatorParams]]
    step_limit: ClassVar[int] = 60
    """Model-visible step limit of this operator's runs under the protocol (an experiment
    file may override it); the paper's limits are 60, 40 and 30 steps."""
    scripted_truth: ClassVar[bool] = True
    """Do the scripted agents' private truth records name this operator's fact? When not
    (an artifact's validity window, an identifier's transport form), their runs are left
    out of validation against that truth instead of scored against records that cannot
    speak of the fact."""
    interface_variants: ClassVar[tuple[str, ...]] = ()
    """The paired-check interface variants (of ``fault_contracts.variants.VARIANTS``) this
    operator's cases take; :meth:`variant_interventions` supplies what each adds."""

    def __init__(self, params: P | None = None, **overrides: Any) -> None:
        base = params if params is not None else self.params_model()
        try:
            validated = self.params_model.model_validate({**base.model_dump(), **overrides})
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            raise ConfigError(f"operator {self.name}: parameter {where}: {first['msg']}") from exc
        self.params: P = validated  # type: ignore[assignment]

    @abstractmethod
    def propose(self, ctx: ProposalContext) -> Iterator[FaultContract | Rejection]:
        """Yield one contract or rejection per candidate frame, in a stable order.

        Candidate ids must be unique and stable; the case-set build sorts them naturally
        (digit runs as numbers) before sampling, so yield order never affects sampling.
        """

    def variant_interventions(
        self, variant: str, contract: FaultContract
    ) -> tuple[InterventionSpec, ...]:
        """The interventions ``variant`` adds to ``contract`` (``aligned``: a rewrite that
        makes the authoritative source agree with ``v′``). Only called for a variant in
        :attr:`interface_variants`; a variant that changes the interface rather than the
        observations (``read_back_hint``) adds none."""
        return ()

    def relevance(self, contract: FaultContract) -> str | None:
        """How directly the task concerns the contract's target (``direct`` / ``indirect``),
        for the strict inclusion sensitivity; ``None`` when the operator draws no such line."""
        return None

    def contract(self, **fields: Any) -> FaultContract:
        """A contract of this operator: name, version, parameters and (unless given)
        the parameters' ``persistence`` are filled in."""
        persistence = fields.pop("persistence", getattr(self.params, "persistence", None))
        return FaultContract(
            operator=self.name,
            operator_version=self.version,
            params=self.params.model_dump(),
            persistence=persistence,
            **fields,
        )

    def reject(
        self, candidate_id: str, task_id: str, cluster: str, check: str, reason: str
    ) -> Rejection:
        """Build a rejection for this operator."""
        return Rejection(
            candidate_id=candidate_id,
            operator=self.name,
            task_id=task_id,
            cluster=cluster,
            check=check,
            reason=reason,
        )
