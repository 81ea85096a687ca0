"""``sscbench contracts audit`` writes the same bytes twice and refuses bad input in one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sscbench.cli.main import main


def test_audit_telecom_is_byte_identical(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for out in ("a", "b"):
        assert (
            main(["contracts", "audit", "--domain", "telecom", "--out", str(tmp_path / out)]) == 0
        )
    names = sorted(p.name for p in (tmp_path / "a").iterdir())
    assert "audit.json" in names and "audit.html" in names and "reliability.csv" in names
    for name in names:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    record = json.loads((tmp_path / "a" / "audit.json").read_text())
    assert record["schema_version"] == 1
    assert [f["id"] for f in record["findings"]] == ["telecom/refuel_data/pre.line_active"]
    assert "VIOLATES telecom/refuel_data/pre.line_active" in capsys.readouterr().out


def test_out_is_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "f"
    target.write_text("x")
    code = main(["contracts", "audit", "--domain", "telecom", "--out", str(target)])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "is a file" in err
