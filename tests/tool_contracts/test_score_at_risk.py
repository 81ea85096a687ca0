"""Score-at-risk keeps exposure, reach and verdict change apart."""

from __future__ import annotations

from sscbench.tool_contracts.score_at_risk import CONSTRUCTIONS, patch_for, risk
from tests.tool_contracts.conftest import clause, contract


def test_cancel_reservation_exposure_reach_and_gold_change() -> None:
    fid = "airline/cancel_reservation/eff.seats_released"
    seats = clause("airline", "cancel_reservation", "eff.seats_released")
    got = risk(contract("airline", "cancel_reservation"), seats, patch_for(fid))
    assert got.exposure == {
        "sscbench.live_state": {"whole_state_hash": 50},
        "tau2.evaluator": {"whole_state_hash": 50},
    }
    assert (got.gold_call_tasks, got.reached_tasks) == (9, 7)
    reached = [p for p in got.paths if p.reached]
    assert len(reached) == 7 and all(p.states_differ for p in reached)
    assert not any(p.states_differ for p in got.paths if not p.reached)


def test_refuel_constructed_paths_change_the_verdict() -> None:
    fid = "telecom/refuel_data/pre.line_active"
    got = risk(contract("telecom", "refuel_data"), clause("telecom", "refuel_data",
               "pre.line_active"), patch_for(fid), CONSTRUCTIONS[fid])  # fmt: skip
    assert got.fields == ("bills", "lines.*.data_refueling_gb")
    assert got.exposure == {"tau2.evaluator": {"exact_field": 114}}
    assert (got.gold_call_tasks, got.reached_tasks) == (50, 0)
    gold = [p for p in got.paths if p.path == "gold"]
    built = [p for p in got.paths if p.path == "constructed"]
    assert len(gold) == len(built) == 50
    assert not any(p.verdict_shipped != p.verdict_repaired for p in gold)
    assert all(p.verdict_shipped and p.verdict_repaired is False for p in built)
