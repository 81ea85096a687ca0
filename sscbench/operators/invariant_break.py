"""InvariantBreak: a balance check is skipped, so a write the balance cannot cover succeeds.

Retail task 105's gold plan exchanges two items paying the price difference with a gift card
whose balance does not cover it; the conforming tool refuses. The defective copy skips the
balance check: the exchange is accepted (``v′``: status ``exchange requested``, where the
refused request leaves ``delivered``, ``v``) and the invariant "a gift card pays at most its
balance" no longer holds. The refutation is cross-record: the user's record shows the gift
card's balance below the price difference the accepting reply states, read against the
quoted policy rule (``precondition_records``). The seat check of ``book_reservation`` is the
airline analogue, but no gold booking meets a full flight, so it yields no candidate.
"""

from __future__ import annotations

from typing import Any, ClassVar

from sscbench.operators.guard_defects import GuardDefectOperator, GuardSite, disable, piece
from sscbench.operators.registry import register_operator


def _covered(args: dict[str, Any], reply: dict[str, Any]) -> list[dict[str, Any]]:
    pid = args["payment_method_id"]
    diff = reply["exchange_price_difference"]
    return [
        piece("user_id", reply["user_id"], f"payment_methods.{pid}.balance", "lt", diff),
        piece("order_id", args["order_id"], "exchange_price_difference", "eq", diff),
    ]


SITES = (
    GuardSite(
        "retail", "exchange_delivered_order_items", "gift_card_balance",
        disable("if isinstance(payment_method, GiftCard) and payment_method.balance < diff_price:"),
        "Insufficient gift card balance", ("status",), "order", _covered,
        "a gift card must cover the exchange's price difference",
        "If the user provides a gift card, it must have enough balance to cover the price "
        "difference.",
    ),
)  # fmt: skip


@register_operator
class InvariantBreak(GuardDefectOperator):
    """A balance check skipped; a gold exchange the gift card cannot cover succeeds."""

    name: ClassVar[str] = "invariant_break"
    display_name: ClassVar[str] = "InvariantBreak"
    version: ClassVar[str] = "1"
    description: ClassVar[str] = (
        "a write skips a balance check and accepts a gold request the balance cannot cover; "
        "refuted by the balance on record against the stated price difference"
    )
    defect_class: ClassVar[str] = "Invariant Break"
    domains: ClassVar[tuple[str, ...]] = ("retail",)
    target_tools: ClassVar[tuple[str, ...]] = tuple(dict.fromkeys(s.tool for s in SITES))
    sites: ClassVar[tuple[GuardSite, ...]] = SITES
