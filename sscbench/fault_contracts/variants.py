"""Interface variants of a case, for paired checks.

* ``aligned``: the authoritative source is rewritten to agree with ``v′`` (contradiction
  removed) — ItemOption's product variant, WriteEffect's read-back.
* ``read_back_hint``: the write tools' descriptions suggest reading the entity back after
  writing it (WriteEffect); agents that receive tool schemas apply it.

A variant changes the contract id (``…+aligned``) and is recorded in the contract's
``variant`` field, which the ledger header carries.
"""

from __future__ import annotations

from sscbench.errors import ConfigError
from sscbench.fault_contracts.contract import FaultContract, InterventionSpec

VARIANTS = ("aligned", "read_back_hint")
"""The interface variants the harness implements. Which operators' cases take which
variant, and what an ``aligned`` rewrite edits, is the operator's to declare
(``Operator.interface_variants`` / ``variant_interventions``; applied through
:func:`sscbench.operators.variants.vary`)."""


ARRIVAL_TAG = "arrival."
"""Case-id suffix of a run under an arrival intervention (``…+arrival.at_fault``): not an
interface variant, but like one it sets the run apart from the main population."""


def split_variants(case_id: str) -> tuple[str, tuple[str, ...]]:
    """``(base case id, variants)`` of a possibly varied case id (``…+aligned``); an
    arrival arm (``…+arrival.before_use``) is returned among the variants."""
    variants: list[str] = []
    while True:
        base, _, last = case_id.rpartition("+")
        if not base or (last not in VARIANTS and not last.startswith(ARRIVAL_TAG)):
            return case_id, tuple(reversed(variants))
        variants.append(last)
        case_id = base


READ_BACK_HINT = (
    " After this call succeeds, read the reservation back with get_reservation_details to "
    "confirm the change."
)


def apply_variant(
    contract: FaultContract, variant: str, interventions: tuple[InterventionSpec, ...] = ()
) -> FaultContract:
    """The contract under an interface variant, with the interventions it adds."""
    if variant not in VARIANTS:
        raise ConfigError(f"unknown variant {variant!r}; choose from {', '.join(VARIANTS)}")
    if contract.variant.get(variant):
        return contract
    update: dict[str, object] = {
        "contract_id": f"{contract.contract_id}+{variant}",
        "variant": {**contract.variant, variant: True},
    }
    if interventions:
        update["interventions"] = (*contract.interventions, *interventions)
    return FaultContract.model_validate({**contract.model_dump(), **update})
