"""UnenforcedPrecondition: a guard the tool advertises is missing, so a refused write succeeds.

The gold plans of three retail tasks make a write the conforming tool refuses: a return
refunded to a payment method that is neither the original one nor a gift card (tasks 12 and
13), an exchange of an order that is not delivered (task 64). The defective copy of the tool
has that guard disabled; the request succeeds and its reply shows the new status (``v′``,
e.g. ``return requested``) where the conforming tool would leave the order as it was
(``v``). The refutation is cross-record: the order's record (its original payment method,
or its status before the request) and, for the payment rule, the user's record of the
payment method's kind — read against the quoted policy rule (``precondition_records``).
Rejected design: refuting by a read-back after the write (the record then agrees with the
reply: the defect made the status true in the database; only the pre-state and the rule
show it should not be).
"""

from __future__ import annotations

from typing import Any, ClassVar

from sscbench.envs.tool_edit import SourceEdit
from sscbench.operators.guard_defects import GuardDefectOperator, GuardSite, disable, piece
from sscbench.operators.registry import register_operator


def _original_payment(args: dict[str, Any], reply: dict[str, Any]) -> list[dict[str, Any]]:
    pid = args["payment_method_id"]
    return [
        piece("order_id", args["order_id"], "payment_history.0.payment_method_id", "ne", pid),
        piece("user_id", reply["user_id"], f"payment_methods.{pid}.source", "ne", "gift_card"),
    ]


def _delivered(args: dict[str, Any], reply: dict[str, Any]) -> list[dict[str, Any]]:
    return [piece("order_id", args["order_id"], "status", "ne", "delivered", "before_request")]


SITES = (
    GuardSite(
        "retail", "return_delivered_order_items", "original_payment",
        # the guard's condition spans lines: make its first conjunct false
        (SourceEdit(
            op="replace", line="not isinstance(payment_method, GiftCard)", text="False"
        ),),
        "Payment method should be the original payment method", ("status",), "order",
        _original_payment, "a refund goes to the original payment method or a gift card",
        "The refund must either go to the original payment method, or an existing gift card.",
    ),
    GuardSite(
        "retail", "exchange_delivered_order_items", "delivered",
        disable('if order.status != "delivered":'), "Non-delivered order cannot be exchanged",
        ("status",), "order", _delivered, "only a delivered order can be exchanged",
        "An order can only be exchanged if its status is 'delivered'",
    ),
)  # fmt: skip


@register_operator
class UnenforcedPrecondition(GuardDefectOperator):
    """An advertised precondition guard missing; a gold write the tool refuses succeeds."""

    name: ClassVar[str] = "unenforced_precondition"
    display_name: ClassVar[str] = "UnenforcedPrecondition"
    version: ClassVar[str] = "1"
    description: ClassVar[str] = (
        "a write accepts a gold request its advertised precondition refuses (payment method, "
        "order status); refuted by the records the precondition tests, read against the policy"
    )
    defect_class: ClassVar[str] = "Unenforced Precondition"
    domains: ClassVar[tuple[str, ...]] = ("retail",)
    target_tools: ClassVar[tuple[str, ...]] = tuple(dict.fromkeys(s.tool for s in SITES))
    sites: ClassVar[tuple[GuardSite, ...]] = SITES
