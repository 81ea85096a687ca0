"""Labels that no longer describe the run set are refused, never silently reported.

``reconstruct`` writes ``labels.runs.json`` beside ``labels.jsonl`` (the ledgers' hashes);
``report``, ``oracles evaluate`` and ``review export`` compare it with the ledgers present
and, on a run added, removed or run again, stop with one line that says to reconstruct.
Before the record existed, ``report`` exited 0 and counted the old labels.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from sscbench.cli.main import main
from sscbench.errors import ConfigError
from sscbench.reconstruct.labels import read_labels
from sscbench.reconstruct.run_set import check_labels_current, run_set_path

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "analysis"


@pytest.fixture
def runs(tmp_path: Path) -> Path:
    root = tmp_path / "runs"
    shutil.copytree(FIXTURE / "runs", root)
    return root


def _add_run(root: Path) -> str:
    """A copy of one run under a new directory and run id, as a later run would be."""
    source = sorted(p for p in root.iterdir() if p.is_dir())[0]
    target = root / f"{source.name}-extra"
    shutil.copytree(source, target)
    ledger = target / "ledger.jsonl"
    lines = ledger.read_text(encoding="utf-8").splitlines(keepends=True)
    header = json.loads(lines[0])
    header["run_id"] = f"{header['run_id']}-extra"
    lines[0] = json.dumps(header) + "\n"
    ledger.write_text("".join(lines), encoding="utf-8")
    return target.name


def _one_error_line(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    return err[0]


COMMANDS = {
    "report": lambda root: ["report", str(root), "--out", str(root.parent / "report")],
    "oracles evaluate": lambda root: [
        "oracles",
        "evaluate",
        str(root),
        "--oracle",
        "reconstructor",
        "--out",
        str(root.parent / "eval"),
    ],
    "review export": lambda root: [
        "review",
        "export",
        str(root),
        "--sample",
        "3",
        "--out",
        str(root.parent / "review"),
    ],
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_run_added_after_reconstruct_is_refused(
    command: str, runs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["reconstruct", str(runs)]) == 0
    assert run_set_path(runs / "labels.jsonl").is_file()
    added = _add_run(runs)
    capsys.readouterr()
    assert main(COMMANDS[command](runs)) == 2
    line = _one_error_line(capsys)
    assert "1 run added" in line and added in line
    assert f"sscbench reconstruct {runs}" in line
    assert not any((runs.parent / d).exists() for d in ("report", "eval", "review"))


def test_removed_and_rerun_runs_are_named(runs: Path) -> None:
    assert main(["reconstruct", str(runs)]) == 0
    labels_path = runs / "labels.jsonl"
    labels = read_labels(labels_path)
    check_labels_current(labels_path, runs, labels)  # fresh: accepted
    first, second = sorted(p for p in runs.iterdir() if p.is_dir())[:2]
    shutil.rmtree(first)
    with (second / "ledger.jsonl").open("a", encoding="utf-8") as fh:
        fh.write("\n")  # any change to the bytes: the run was run again
    with pytest.raises(ConfigError, match=r"1 run removed .*1 run run again"):
        check_labels_current(labels_path, runs, labels)


def test_labels_edited_after_reconstruct_are_refused(runs: Path) -> None:
    assert main(["reconstruct", str(runs)]) == 0
    labels_path = runs / "labels.jsonl"
    kept = labels_path.read_text(encoding="utf-8").splitlines(keepends=True)[1:]
    labels_path.write_text("".join(kept), encoding="utf-8")
    with pytest.raises(ConfigError, match="changed after `sscbench reconstruct`"):
        check_labels_current(labels_path, runs, read_labels(labels_path))


def test_labels_without_a_record_are_checked_by_run_id(
    runs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Labels written before the record existed (the fixture's): the run ids they name
    against the ledgers present."""
    shutil.copy(FIXTURE / "labels.jsonl", runs / "labels.jsonl")
    check_labels_current(runs / "labels.jsonl", runs, read_labels(runs / "labels.jsonl"))
    _add_run(runs)
    assert main(["report", str(runs), "--out", str(runs.parent / "report")]) == 2
    assert "1 run added" in _one_error_line(capsys)
