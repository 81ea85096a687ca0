"""Bad inputs found after the bad-input table was written: each one line, exit 2, nothing
written."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from sscbench.cases.caseset import load_case_set
from sscbench.cli.main import main
from sscbench.fault_contracts.io import dump_contract


def test_a_contract_of_an_unregistered_operator_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    contract = load_case_set().cases[0].contract
    data = yaml.safe_load(dump_contract(contract))
    data["operator"] = "no_such_operator"
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(data))
    out = tmp_path / "out"
    args = ["run", "--contract", str(path), "--agent", "scripted:gold", "--out", str(out)]
    assert main(args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "operator 'no_such_operator' is not registered" in err[0]
    assert not out.exists()


def test_review_export_into_a_directory_that_holds_other_files_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runs = tmp_path / "runs"
    assert (
        main(
            [
                "run",
                "--case",
                "write_effect/airline/12/4",
                "--agent",
                "scripted:hasty",
                "--out",
                str(runs),
            ]
        )
        == 0
    )
    assert main(["reconstruct", str(runs)]) == 0
    out = tmp_path / "review"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    capsys.readouterr()
    assert main(["review", "export", str(runs), "--sample", "1", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "is not empty" in err[0]
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt"]
