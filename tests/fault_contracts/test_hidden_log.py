"""The intervention log's fault deliveries read back as typed records, or fail in one line."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from sscbench.errors import LedgerError
from sscbench.fault_contracts.hidden_log import read_fault_deliveries
from sscbench.records.ledger import read_regular

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


def test_a_pipe_or_a_directory_in_the_logs_place_is_one_error_not_a_hang(tmp_path: Path) -> None:
    # Opened without blocking and checked on the descriptor: a named pipe with no writer
    # would block a plain read forever.
    pipe = tmp_path / "pipe" / "hidden.jsonl"
    pipe.parent.mkdir()
    os.mkfifo(pipe)
    with pytest.raises(LedgerError, match=r"hidden\.jsonl:0: not a file \(mode p"):
        read_fault_deliveries(pipe)
    folder = tmp_path / "dir" / "hidden.jsonl"
    folder.mkdir(parents=True)
    with pytest.raises(LedgerError, match=r"not a file \(mode d"):
        read_fault_deliveries(folder)


def test_a_link_loop_or_a_missing_parent_is_no_log(tmp_path: Path) -> None:
    loop = tmp_path / "hidden.jsonl"
    loop.symlink_to(loop.name)
    assert read_fault_deliveries(loop) is None
    assert read_fault_deliveries(tmp_path / "gone" / "hidden.jsonl") is None


def test_read_regular_reads_every_byte_of_a_file_larger_than_a_read(tmp_path: Path) -> None:
    path = tmp_path / "big.bin"
    data = bytes(range(256)) * 1024  # 256 KiB: several reads past the first
    path.write_bytes(data)
    assert read_regular(path) == data
    assert read_regular(tmp_path / "empty.bin") is None
    (tmp_path / "empty.bin").write_bytes(b"")
    assert read_regular(tmp_path / "empty.bin") == b""
