"""ItemOption: the product record's variant refutes a changed option (cross-record).

Two pieces must both be delivered: the product record whose variant for the item id shows
the true option value, and the binding of the order item to that variant (an order record
showing the item id under the product). ``T_E`` is the later of the two, so a product
record fetched before the order completes the refutation only at the binding.
"""

from __future__ import annotations

from typing import Any

from sscbench.fault_contracts.contract import FaultContract
from sscbench.fault_contracts.history import History
from sscbench.fault_contracts.refutation import RELATIONS, Arrival, RelationNeeds, declare_needs


def _product_shows(data: Any, product_id: str, item_id: str, option: str, value: Any) -> bool:
    if not isinstance(data, dict) or data.get("product_id") != product_id:
        return False
    variant = (data.get("variants") or {}).get(item_id)
    return isinstance(variant, dict) and (variant.get("options") or {}).get(option) == value


def _binds(data: Any, order_id: str, item_id: str, product_id: str) -> bool:
    if not isinstance(data, dict) or data.get("order_id") != order_id:
        return False
    items = data.get("items")
    return isinstance(items, list) and any(
        isinstance(it, dict) and it.get("item_id") == item_id and it.get("product_id") == product_id
        for it in items
    )


@RELATIONS.register("product_variant_binding")
def product_variant_binding(contract: FaultContract, history: History) -> Arrival:
    """Step at which both the true variant and the item-to-variant binding are delivered."""
    p = contract.refutation.params
    product_step = next(
        (
            d.step
            for d in history.successes("get_product_details")
            if _product_shows(d.data, p["product_id"], p["item_id"], p["option"], p["true_value"])
        ),
        None,
    )
    binding_step = next(
        (
            d.step
            for d in history.successes()
            if _binds(d.data, p["order_id"], p["item_id"], p["product_id"])
        ),
        None,
    )
    if product_step is None:
        return Arrival.never(
            f"product {p['product_id']} record with variant {p['item_id']} never delivered"
        )
    if binding_step is None:
        return Arrival.never(
            f"item {p['item_id']} of order {p['order_id']} never bound to its variant"
        )
    step = max(product_step, binding_step)
    return Arrival.found(
        step,
        (product_step, binding_step),
        f"variant {p['item_id']} of product {p['product_id']} (step {product_step}) shows "
        f"{p['option']}={p['true_value']}; item bound at step {binding_step}",
    )


declare_needs(
    "product_variant_binding",
    RelationNeeds(
        params=("item_id", "option", "order_id", "product_id", "true_value"),
        acquisitions=("cross_record",),
        entity=("order_id",),
    ),
)
