"""The audit's known answers on the installed τ² tools."""

from __future__ import annotations

import json

from sscbench.tool_contracts.adapter import make_adapter
from tests.tool_contracts.conftest import clause, contract, tool_result


def test_cancel_reservation_keeps_seats_partial_effect_maintainer_tier() -> None:
    seats = clause("airline", "cancel_reservation", "eff.seats_released")
    assert (seats.verdict, seats.defect_class, seats.tier) == (
        "VIOLATES",
        "Partial Effect",
        "maintainer",
    )
    assert all("available_seats" not in line for line in seats.witness.diff)  # type: ignore[union-attr]
    for other in ("eff.status_cancelled", "eff.refunds_appended", "pre.reservation_exists"):
        assert clause("airline", "cancel_reservation", other).verdict == "CONFORMS"


def test_cancellation_eligibility_is_not_a_precondition() -> None:
    c = contract("airline", "cancel_reservation")
    assert [p.id for p in c.preconditions] == ["pre.reservation_exists"]
    assert any("does not check" in q.quote for e in c.exclusions for q in e.provenance)


def test_update_reservation_flights_stays_clean() -> None:
    result = tool_result("airline", "update_reservation_flights")
    assert result.verdict == "CONFORMS"
    assert clause("airline", "update_reservation_flights", "frame.no_seat_update").verdict == (
        "CONFORMS"
    )


def test_modify_items_gives_every_item_the_last_variant() -> None:
    got = clause("retail", "modify_pending_order_items", "eff.items_are_new_variants")
    assert (got.verdict, got.defect_class, got.tier) == (
        "VIOLATES",
        "Partial Effect",
        "agent_visible",
    )
    args = json.loads(got.witness.args)  # type: ignore[union-attr]
    adapter = make_adapter("retail")
    adapter.create()
    pre = adapter.snapshot()
    adapter.call("modify_pending_order_items", args)
    order = adapter.snapshot()["orders"][args["order_id"]]
    products = {x["item_id"]: x["product_id"] for x in pre["orders"][args["order_id"]]["items"]}
    last = pre["products"][products[args["item_ids"][-1]]]["variants"][args["new_item_ids"][-1]]
    changed = [x for x in order["items"] if x["item_id"] in args["new_item_ids"]]
    assert len({x["product_id"] for x in changed}) == 2
    assert all(x["price"] == last["price"] and x["options"] == last["options"] for x in changed)
    invariant = clause("retail", "modify_pending_order_items", "inv.item_matches_variant")
    assert (invariant.verdict, invariant.defect_class) == ("VIOLATES", "Invariant Break")


def test_address_after_item_change_is_unenforced_policy_precondition() -> None:
    got = clause("retail", "modify_pending_order_address", "pre.items_not_modified")
    assert (got.verdict, got.defect_class, got.tier) == (
        "VIOLATES",
        "Unenforced Precondition",
        "agent_visible",
    )
    spec = next(
        c for c in contract("retail", "modify_pending_order_address").preconditions
        if c.id == "pre.items_not_modified"
    )  # fmt: skip
    assert [p.surface for p in spec.provenance] == ["policy"]
    assert clause("retail", "cancel_pending_order", "pre.order_pending").verdict == "CONFORMS"


def test_refuel_data_on_suspended_line_reproduces_the_paper_witness() -> None:
    got = clause("telecom", "refuel_data", "pre.line_active")
    assert (got.verdict, got.defect_class, got.tier) == (
        "VIOLATES",
        "Unenforced Precondition",
        "agent_visible",
    )
    w = got.witness
    assert w is not None and not w.error
    assert json.loads(w.args) == {"customer_id": "C1003", "line_id": "L1009", "gb_amount": 40.0}
    assert "Successfully added 40.0 GB of data for line L1009 for $80.00" in w.result
    assert any("data_refueling_gb: 0.0 -> 40.0" in line for line in w.diff)
    adapter = make_adapter("telecom")
    adapter.create()
    before = {b["bill_id"] for b in adapter.snapshot()["bills"]}
    adapter.call("refuel_data", json.loads(w.args))
    new = [b for b in adapter.snapshot()["bills"] if b["bill_id"] not in before]
    assert [(b["customer_id"], b["status"], b["total_due"]) for b in new] == [
        ("C1003", "Draft", 80.0)
    ]


def test_only_expected_tools_violate() -> None:
    from sscbench.tool_contracts.loader import DOMAINS, load_contracts

    violating = sorted(
        f"{d}/{c.tool}" for d in DOMAINS for c in load_contracts(d)
        if tool_result(d, c.tool).verdict == "VIOLATES"
    )  # fmt: skip
    assert violating == [
        "airline/cancel_reservation",
        "retail/modify_pending_order_address",
        "retail/modify_pending_order_items",
        "telecom/refuel_data",
    ]
