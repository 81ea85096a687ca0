"""Injected defects are named with their class; unmutated controls raise nothing."""

from __future__ import annotations

import pytest

from sscbench.tool_contracts.checker import check_tool
from sscbench.tool_contracts.mutants import catalog, control_adapter, patched_adapter
from sscbench.tool_contracts.reliability import evaluate_mutant
from tests.tool_contracts.conftest import contract, tool_result

ONE_PER_CLASS = [
    "M-PHANTOM/modify_user_address",
    "M-PARTIAL/cancel_pending_order.refund",
    "M-IGNARG/modify_user_address.zip",
    "M-PRECOND/suspend_line.active",
    "M-INVAR/modify_pending_order_payment.balance",
    "M-RESET/telecom",
]


@pytest.mark.parametrize("mutant_id", ONE_PER_CLASS)
def test_mutant_is_flagged_with_its_class_only(mutant_id: str) -> None:
    m = next(x for x in catalog().mutants if x.id == mutant_id)
    row = evaluate_mutant(m, tool_result(m.domain, m.tool))
    assert row.detected, row.flags
    assert row.wrong_class_flags == 0, row.flags


def test_catalog_covers_every_class() -> None:
    classes = {m.defect_class for m in catalog().mutants}
    assert len(classes) == 6
    assert all(sum(m.defect_class == c for m in catalog().mutants) >= 3 for c in classes)


@pytest.mark.parametrize(("domain", "tool"), [("retail", "modify_pending_order_items"),
                                              ("telecom", "refuel_data")])  # fmt: skip
def test_control_recompile_changes_no_verdict(domain: str, tool: str) -> None:
    got = check_tool(control_adapter(domain, tool), contract(domain, tool))
    assert got.clauses == tool_result(domain, tool).clauses


def test_patch_repairs_the_finding() -> None:
    p = next(x for x in catalog().patches if x.tool == "refuel_data")
    got = check_tool(patched_adapter(p), contract("telecom", "refuel_data"))
    assert got.verdict == "CONFORMS"
