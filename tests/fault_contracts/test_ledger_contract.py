"""A ledger header's fault contract is validated in one place: typed, or one line that
names the ledger and what to do."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sscbench.errors import ConfigError
from sscbench.fault_contracts.contract import FaultContract
from sscbench.fault_contracts.io import ledger_contract
from sscbench.records.ledger import read_ledger

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
FAULTED = FIXTURES / "reconstruction_blind" / "web07" / "ledger.jsonl"
CLEAN = FIXTURES / "ledgers" / "golden" / "airline-19-scripted.careful-s0" / "ledger.jsonl"


def _edited(tmp_path: Path, edit: dict[str, object]) -> Path:
    lines = FAULTED.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    header["fault"] = {**header["fault"], **edit}
    path = tmp_path / "ledger.jsonl"
    path.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n", encoding="utf-8")
    return path


def test_clean_is_none_and_faulted_is_typed() -> None:
    assert ledger_contract(read_ledger(CLEAN)) is None
    contract = ledger_contract(read_ledger(FAULTED))
    assert isinstance(contract, FaultContract)
    assert contract.model_dump(mode="json") == FaultContract.model_validate(
        read_ledger(FAULTED).header.fault
    ).model_dump(mode="json")


def test_a_damaged_contract_names_the_ledger(tmp_path: Path) -> None:
    path = _edited(tmp_path, {"injected_value": None, "target": "nowhere"})
    with pytest.raises(ConfigError, match=r"ledger\.jsonl: the header's fault is not a valid"):
        ledger_contract(read_ledger(path))


def test_an_unknown_relation_says_to_install_its_plugin(tmp_path: Path) -> None:
    original = json.loads(FAULTED.read_text(encoding="utf-8").splitlines()[0])["fault"]
    refutation = {**original["refutation"], "relation": "no_such_relation"}
    path = _edited(tmp_path, {"refutation": refutation})
    with pytest.raises(ConfigError, match="install the plugin that provides it"):
        ledger_contract(read_ledger(path))
