"""The intervention log's fault deliveries read back as typed records, or fail in one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sscbench.errors import LedgerError
from sscbench.fault_contracts.hidden_log import read_fault_deliveries

DELIVERY = {
    "kind": "fault_delivery",
    "contract_id": "write_effect/airline/11/0",
    "step": 9,
    "call_id": "call_1",
    "tool": "update_reservation_flights",
    "role": "fault",
    "action": "suppress",
    "effective": True,
    "control": False,
}


def _log(tmp_path: Path, *records: dict[str, object]) -> Path:
    path = tmp_path / "hidden.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_only_fault_deliveries_typed_in_file_order(tmp_path: Path) -> None:
    later = {**DELIVERY, "step": 17, "call_id": "call_3"}
    state = {"kind": "state_check", "final_state_hash": "ab", "calls_executed": 3}
    deliveries = read_fault_deliveries(_log(tmp_path, DELIVERY, state, later))
    assert deliveries is not None
    assert [(d.step, d.action, d.effective) for d in deliveries] == [
        (9, "suppress", True),
        (17, "suppress", True),
    ]


def test_no_log_is_none_and_an_empty_log_is_no_delivery(tmp_path: Path) -> None:
    assert read_fault_deliveries(tmp_path / "hidden.jsonl") is None
    assert read_fault_deliveries(_log(tmp_path)) == []


def test_a_damaged_delivery_names_its_file_line_and_field(tmp_path: Path) -> None:
    broken = {k: v for k, v in DELIVERY.items() if k != "role"}
    path = _log(tmp_path, DELIVERY, broken)
    with pytest.raises(LedgerError, match=r"hidden\.jsonl.*2.*role"):
        read_fault_deliveries(path)
