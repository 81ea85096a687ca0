"""Screen an operator's candidate frames: its own checks, then the generic validity checks."""

from __future__ import annotations

from collections.abc import Iterator

from sscbench.fault_contracts.contract import FaultContract
from sscbench.operators.base import Operator, ProposalContext, Rejection
from sscbench.operators.validity import check_validity


def screen(operator: Operator[object], seed: int = 0) -> Iterator[FaultContract | Rejection]:  # type: ignore[type-var]
    """Every candidate of ``operator`` on its domain(s), as a valid contract or a rejection."""
    for domain in operator.domains:
        for outcome in operator.propose(ProposalContext(domain=domain, seed=seed)):
            if isinstance(outcome, Rejection):
                yield outcome
                continue
            failed = check_validity(outcome)
            if failed is None:
                yield outcome
            else:
                check, reason = failed
                yield operator.reject(
                    outcome.contract_id, outcome.task_id, outcome.cluster, check, reason
                )
