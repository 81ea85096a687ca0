"""``sscbench reconstruct --workers N`` writes the serial path's labels file byte for byte."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from sscbench.cli.main import main

FIXTURES = Path(__file__).parents[1] / "fixtures" / "reconstruct"


def test_workers_write_the_serial_labels(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    shutil.copytree(FIXTURES, runs)
    assert len(list(runs.rglob("ledger.jsonl"))) > 10
    assert main(["reconstruct", str(runs), "--out", str(tmp_path / "serial.jsonl")]) == 0
    argv = ["reconstruct", str(runs), "--workers", "2", "--out", str(tmp_path / "pool.jsonl")]
    assert main(argv) == 0
    serial = (tmp_path / "serial.jsonl").read_bytes()
    assert serial and (tmp_path / "pool.jsonl").read_bytes() == serial


@pytest.mark.parametrize("extra", [["--workers", "0"], ["--workers", "2", "--executor", "ray"]])
def test_bad_worker_options_are_one_line_and_exit_2(
    extra: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runs = tmp_path / "runs"
    shutil.copytree(FIXTURES / "clean_return_date", runs / "clean_return_date")
    assert main(["reconstruct", str(runs), *extra]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--workers" in err[0]
    assert not (runs / "labels.jsonl").exists()
