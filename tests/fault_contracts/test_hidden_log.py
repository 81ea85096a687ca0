"""The intervention log's fault deliveries read back as typed records, or fail in one line."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from sscbench.errors import LedgerError
from sscbench.fault_contracts.hidden_log import read_fault_deliveries
from sscbench.fault_contracts.injection import FaultDelivery
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


def _defined(path: Path) -> list[FaultDelivery] | str:
    """The deliveries the defining way (the standard library's reader, line by line), or
    the error it raises."""
    from pydantic import ValidationError

    from sscbench.records.ledger import iter_jsonl

    try:
        return [
            FaultDelivery.model_validate(obj)
            for _, obj in iter_jsonl(path)
            if obj.get("kind") == "fault_delivery"
        ]
    except (LedgerError, ValidationError) as exc:
        return type(exc).__name__


STATE = '{"kind": "state_check", "final_state_hash": "ab", "calls_executed": 3}'
LINES = {
    "two deliveries": [json.dumps(DELIVERY), STATE, json.dumps({**DELIVERY, "step": 12})],
    "crlf and spaces": [json.dumps(DELIVERY) + " \r", "  " + STATE],
    "nan and a duplicate key": ['{"kind": "x", "v": NaN, "v": 2}', json.dumps(DELIVERY)],
    "lone surrogate": ['{"kind": "x", "text": "\\ud800"}', json.dumps(DELIVERY)],
    "a list": ["[1, 2]", json.dumps(DELIVERY)],
    "a blank line": [json.dumps(DELIVERY), "", STATE],
    "a bad delivery": [json.dumps({**DELIVERY, "step": "nine"})],
    "bad utf-8 in a string": ['{"kind": "x", "text": "\xff"}'],
}

ANSWERED = ("two deliveries", "crlf and spaces", "nan and a duplicate key", "lone surrogate")
"""Logs the fast reader answers itself (the others it leaves to the defining way); a lone
surrogate escape pydantic's reader refuses is read as ``json.loads`` reads it."""


@pytest.mark.parametrize("name", sorted(LINES))
@pytest.mark.parametrize("cut", [False, True])
def test_the_fast_reader_reads_or_refuses_as_the_defining_way(
    tmp_path: Path, name: str, cut: bool
) -> None:
    """pydantic's reader gives the defining way's deliveries, or leaves the log to it (a
    truncated last line, an escape it refuses, an error to report)."""
    import warnings

    from sscbench.fault_contracts.hidden_log import _read_fast

    text = "".join(line + "\n" for line in LINES[name])
    data = text.encode("utf-8", "surrogateescape").replace(b"\xc3\xbf", b"\xff")
    path = tmp_path / "hidden.jsonl"
    path.write_bytes(data[:-1] if cut else data)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = _defined(path)
        try:
            got: list[FaultDelivery] | str | None = read_fault_deliveries(path)
        except LedgerError as exc:
            got = type(exc).__name__
    assert got == (expected if expected != "ValidationError" else "LedgerError")
    fast = _read_fast(path.read_bytes())
    if cut:
        assert fast is None  # a last line without its newline: the defining way decides
    elif name in ANSWERED:
        assert fast == expected
    else:
        assert fast is None


def test_an_integer_past_the_digit_limit_is_left_to_the_defining_way(tmp_path: Path) -> None:
    """pydantic's reader takes integers of more digits than ``json.loads`` will (under a
    lowered limit): such a line is never the fast reader's."""
    import sys

    path = tmp_path / "hidden.jsonl"
    path.write_text(
        json.dumps(DELIVERY) + '\n{"kind": "x", "n": ' + "7" * 700 + "}\n", encoding="utf-8"
    )
    before = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(640)
    try:
        with pytest.raises(LedgerError, match="integer too long"):
            read_fault_deliveries(path)
    finally:
        sys.set_int_max_str_digits(before)
