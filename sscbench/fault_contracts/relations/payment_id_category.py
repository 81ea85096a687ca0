"""PaySource: the retained payment identifier names the true category (co-delivered).

Valid only where agent-visible semantics tie identifier to category; the contract quotes
them. Any delivered observation carrying the identifier (as a key or a value) completes
the refutation, so ``T_E`` may precede the fault-bearing user record.
"""

from __future__ import annotations

from typing import Any

from sscbench.fault_contracts.contract import FaultContract
from sscbench.fault_contracts.history import History
from sscbench.fault_contracts.refutation import RELATIONS, Arrival, RelationNeeds, declare_needs


def contains_token(data: Any, token: str) -> bool:
    """True when ``token`` is a key or a string value anywhere in a JSON value."""
    if isinstance(data, dict):
        return token in data or any(contains_token(v, token) for v in data.values())
    if isinstance(data, list):
        return any(contains_token(v, token) for v in data)
    return isinstance(data, str) and data == token


@RELATIONS.register("payment_id_category")
def payment_id_category(contract: FaultContract, history: History) -> Arrival:
    """Earliest delivered observation that carries the payment identifier."""
    if not contract.semantics:
        return Arrival.undecidable("no agent-visible semantics tie the identifier to its category")
    payment_id: str = contract.refutation.params["payment_id"]
    for d in history.successes():
        if contains_token(d.data, payment_id):
            return Arrival.found(
                d.step, (d.step,), f"identifier {payment_id} delivered at step {d.step}"
            )
    return Arrival.never(f"identifier {payment_id} never delivered")


declare_needs(
    "payment_id_category",
    RelationNeeds(params=("payment_id",), acquisitions=("co_delivered",), semantics=True),
)
