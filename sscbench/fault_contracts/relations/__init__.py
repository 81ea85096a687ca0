"""Built-in refutation relations, one per module, registered on import."""

from sscbench.fault_contracts.relations import (
    effect_read_back,
    payment_id_category,
    post_write_read_back,
    precondition_records,
    product_variant_binding,
    round_trip_order,
)

__all__ = [
    "effect_read_back",
    "payment_id_category",
    "post_write_read_back",
    "precondition_records",
    "product_variant_binding",
    "round_trip_order",
]
