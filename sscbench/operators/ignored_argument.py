"""IgnoredArgument: a write accepts an argument, claims it took effect, and ignores it.

The defective copy of the tool drops one effective argument of a gold write: the new bag
counts of ``update_reservation_baggages``, the ``reason`` of ``cancel_pending_order`` (the
stored reason is the default), the ``zip`` of an address change (the old zip is kept). The
reply is the conforming tool's, so it shows the argument's value (``v′``); the record keeps
``v``. A later read of the record that shows ``v`` refutes the claim (``effect_read_back``).
Rejected design: a reply that shows the ignored value (the defective tool's own reply) —
then no observation is false and the case would measure nothing but arithmetic on the
agent's own arguments.
"""

from __future__ import annotations

from typing import ClassVar

from sscbench.envs.tool_edit import SourceEdit
from sscbench.operators.registry import register_operator
from sscbench.operators.tool_defects import DefectSite, ToolDefectOperator

SITES = (
    DefectSite(
        "airline", "update_reservation_baggages", "nonfree_baggages",
        (SourceEdit(op="delete", line="reservation.nonfree_baggages = nonfree_baggages"),),
        ("nonfree_baggages",), "reservation",
        "nonfree_baggages is the updated number of non-free bags",
        "nonfree_baggages: The updated number of non-free baggage items",
    ),
    DefectSite(
        "airline", "update_reservation_baggages", "total_baggages",
        (SourceEdit(op="delete", line="reservation.total_baggages = total_baggages"),),
        ("total_baggages",), "reservation",
        "total_baggages is the updated total number of bags",
        "total_baggages: The updated total number of baggage items",
    ),
    DefectSite(
        "retail", "cancel_pending_order", "reason",
        (SourceEdit(
            op="replace", line="order.cancel_reason = reason",
            text='order.cancel_reason = "no longer needed"',
        ),),
        ("cancel_reason",), "order", "reason is the reason for cancellation",
        "reason: The reason for cancellation",
    ),
    DefectSite(
        "retail", "modify_user_address", "zip",
        (SourceEdit(op="replace", line="zip=zip,", text="zip=user.address.zip,"),),
        ("address.zip",), "user", "zip is the zip code of the new address", "zip: The zip code",
    ),
    DefectSite(
        "retail", "modify_pending_order_address", "zip",
        (SourceEdit(op="replace", line="zip=zip,", text="zip=order.address.zip,"),),
        ("address.zip",), "order", "zip is the zip code of the new address", "zip: The zip code",
    ),
)  # fmt: skip


@register_operator
class IgnoredArgument(ToolDefectOperator):
    """One effective argument of a gold write ignored; the reply claims it took effect."""

    name: ClassVar[str] = "ignored_argument"
    display_name: ClassVar[str] = "IgnoredArgument"
    version: ClassVar[str] = "1"
    description: ClassVar[str] = (
        "a gold write ignores one effective argument (bag counts, cancel reason, zip) while "
        "its reply shows it applied; refuted by a later read of the record"
    )
    defect_class: ClassVar[str] = "Ignored Argument"
    domains: ClassVar[tuple[str, ...]] = ("airline", "retail")
    target_tools: ClassVar[tuple[str, ...]] = tuple(dict.fromkeys(s.tool for s in SITES))
    cluster_key: ClassVar[str] = "record"
    sites: ClassVar[tuple[DefectSite, ...]] = SITES
