"""PartialEffect: a write reports its whole effect, but one advertised part is skipped.

The defective copy of the tool deletes one state change of a gold write — the status a
return, exchange or item change sets, or the refund a cancellation records — and keeps the
rest. The agent is led to believe the reply (``v′``: the fields as the conforming tool's
reply shows them, e.g. status ``return requested``); the record holds ``v`` (e.g.
``delivered``). A later read of the record with the fields as the defect left them refutes
the claim, as WriteEffect's read-back does (``effect_read_back``; the five conditions are
argued in docs/tool-contracts.md). Rejected designs: letting the defective tool's own reply
show the skipped part (every observation would then agree with ``v`` and nothing would be
false), and comparing a refund with the policy's refund rule (the policy does not say how a
refund shows in the record).
"""

from __future__ import annotations

from typing import ClassVar

from sscbench.envs.tool_edit import SourceEdit
from sscbench.operators.registry import register_operator
from sscbench.operators.tool_defects import DefectSite, ToolDefectOperator


def _skip(line: str) -> tuple[SourceEdit, ...]:
    return (SourceEdit(op="delete", line=line),)


SITES = (
    DefectSite(
        "retail", "return_delivered_order_items", "status",
        _skip('order.status = "return requested"'), ("status",), "order",
        "the return sets the order's status to 'return requested'",
        "The order status will be changed to 'return requested'.",
    ),
    DefectSite(
        "retail", "exchange_delivered_order_items", "status",
        _skip('order.status = "exchange requested"'), ("status",), "order",
        "the reply is the order after the exchange", "The order details after the exchange.",
    ),
    DefectSite(
        "retail", "modify_pending_order_items", "status",
        _skip('order.status = "pending (item modified)"'), ("status",), "order",
        "the reply is the order after the modification",
        "The order details after the modification.",
    ),
    DefectSite(
        "retail", "cancel_pending_order", "refund",
        _skip("order.payment_history.extend(refunds)"), ("payment_history",), "order",
        "the cancellation refunds the payment",
        "the order status will be changed to 'cancelled' and the payment will be refunded.",
    ),
    DefectSite(
        "airline", "cancel_reservation", "refund",
        _skip("reservation.payment_history.extend(refunds)"), ("payment_history",),
        "reservation", "the reply is the updated reservation", "The updated reservation.",
    ),
)  # fmt: skip


@register_operator
class PartialEffect(ToolDefectOperator):
    """One advertised state change of a gold write skipped; the reply claims it."""

    name: ClassVar[str] = "partial_effect"
    display_name: ClassVar[str] = "PartialEffect"
    version: ClassVar[str] = "1"
    description: ClassVar[str] = (
        "a gold write skips one advertised state change (a status, a refund) while its reply "
        "claims it; refuted by a later read of the record"
    )
    defect_class: ClassVar[str] = "Partial Effect"
    domains: ClassVar[tuple[str, ...]] = ("airline", "retail")
    target_tools: ClassVar[tuple[str, ...]] = tuple(dict.fromkeys(s.tool for s in SITES))
    cluster_key: ClassVar[str] = "record"
    sites: ClassVar[tuple[DefectSite, ...]] = SITES
