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
from sscbench.fault_contracts.contract import Edit, FaultContract, ObservationRewrite

VARIANTS = ("aligned", "read_back_hint")
VARIANT_OPERATORS: dict[str, tuple[str, ...]] = {
    "aligned": ("item_option", "write_effect"),
    "read_back_hint": ("write_effect",),
}
"""The operators each variant applies to."""


def split_variants(case_id: str) -> tuple[str, tuple[str, ...]]:
    """``(base case id, variants)`` of a possibly varied case id (``…+aligned``)."""
    variants: list[str] = []
    while True:
        base, _, last = case_id.rpartition("+")
        if not base or last not in VARIANTS:
            return case_id, tuple(reversed(variants))
        variants.append(last)
        case_id = base


READ_BACK_HINT = (
    " After this call succeeds, read the reservation back with get_reservation_details to "
    "confirm the change."
)


def _aligned_rewrite(contract: FaultContract) -> ObservationRewrite:
    if contract.operator == "item_option":
        p = contract.refutation.params
        path = f"variants.{p['item_id']}.options.{p['option']}"
        return ObservationRewrite(
            tool="get_product_details",
            match={"product_id": p["product_id"]},
            edits=(Edit(path=path, value=contract.injected_value),),
            expect={path: p["true_value"]},
            role="alignment",
        )
    if contract.operator == "write_effect":
        rid = contract.target.entity_id
        claimed = dict(contract.injected_value)
        return ObservationRewrite(
            tool="get_reservation_details",
            match={"reservation_id": rid},
            edits=tuple(Edit(path=f, value=v) for f, v in claimed.items()),
            expect=dict(contract.authoritative_value),
            role="alignment",
        )
    raise ConfigError(
        f"variant 'aligned' applies to item_option and write_effect, not {contract.operator}"
    )


def apply_variant(contract: FaultContract, variant: str) -> FaultContract:
    """The contract under an interface variant."""
    if variant not in VARIANTS:
        raise ConfigError(f"unknown variant {variant!r}; choose from {', '.join(VARIANTS)}")
    if contract.variant.get(variant):
        return contract
    update: dict[str, object] = {
        "contract_id": f"{contract.contract_id}+{variant}",
        "variant": {**contract.variant, variant: True},
    }
    if variant == "aligned":
        update["interventions"] = (*contract.interventions, _aligned_rewrite(contract))
    elif contract.operator != "write_effect":
        raise ConfigError(
            f"variant 'read_back_hint' applies to write_effect, not {contract.operator}"
        )
    return FaultContract.model_validate({**contract.model_dump(), **update})
