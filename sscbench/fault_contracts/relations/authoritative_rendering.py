"""Transport: the artifact's authoritative rendering elsewhere in the visible history.

A transport perturbation damages one delivery of an identifier (truncated, a newline
inside, re-encoded, reordered, or shown as its display text). Any successful observation
that carries the identifier byte for byte — as a key or a string value — shows its
authoritative form and refutes the damaged one: another record of the same entity, a
re-read of the damaged record (the damage is in transit, once), or, for display text, the
key the display text was shown under (co-delivered). Agent and user messages never count.
"""

from __future__ import annotations

from sscbench.fault_contracts.contract import FaultContract
from sscbench.fault_contracts.history import History
from sscbench.fault_contracts.refutation import RELATIONS, Arrival, RelationNeeds, declare_needs
from sscbench.fault_contracts.relations.payment_id_category import contains_token


@RELATIONS.register("authoritative_rendering")
def authoritative_rendering(contract: FaultContract, history: History) -> Arrival:
    """Earliest successful observation carrying the identifier as issued."""
    true_form: str = contract.refutation.params["authoritative"]
    for d in history.successes():
        if contains_token(d.data, true_form):
            return Arrival.found(
                d.step, (d.step,), f"{true_form!r} delivered byte for byte at step {d.step}"
            )
    return Arrival.never(f"{true_form!r} is never delivered intact")


declare_needs(
    "authoritative_rendering",
    RelationNeeds(params=("authoritative",), acquisitions=("co_delivered", "cross_record")),
)
