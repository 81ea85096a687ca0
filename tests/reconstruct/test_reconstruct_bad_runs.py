"""``sscbench reconstruct`` on run sets with a broken run: the others are still labelled.

A run whose header names a refutation relation this installation lacks (or embeds an
invalid contract) is one problem line; the rest of the directory is labelled and written,
and the exit code (1) says not everything was. The labels file is written only once every
label (and the optional validation) is computed.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import sscbench.cli.reconstruct as reconstruct_cli
from sscbench.cli.main import main
from sscbench.errors import LedgerError
from sscbench.reconstruct.labels import read_labels

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "analysis" / "runs"


def _runs(tmp_path: Path) -> Path:
    root = tmp_path / "runs"
    shutil.copytree(FIXTURE, root)
    return root


def _faulted(root: Path) -> list[Path]:
    return [p for p in sorted(root.rglob("ledger.jsonl")) if b'"fault":{' in p.read_bytes()[:9000]]


def _edit_header(path: Path, edit: Callable[[dict[str, Any]], None]) -> None:
    lines = path.read_bytes().split(b"\n")
    header = json.loads(lines[0])
    edit(header)
    path.write_bytes(b"\n".join([json.dumps(header).encode(), *lines[1:]]))


def test_runs_that_cannot_be_labelled_are_listed_and_the_others_labelled(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _runs(tmp_path)
    total = len(list(root.rglob("ledger.jsonl")))
    unknown, invalid = _faulted(root)[:2]
    _edit_header(unknown, lambda h: h["fault"]["refutation"].update(relation="no_such_relation"))
    _edit_header(invalid, lambda h: h["fault"].pop("refutation"))
    assert main(["reconstruct", str(root)]) == 1
    err = capsys.readouterr().err.splitlines()
    problems = [line for line in err if line.startswith("warning: not labelled: ")]
    assert len(problems) == 2
    assert any("no_such_relation" in p and str(unknown) in p for p in problems)
    assert any("refutation" in p and str(invalid) in p for p in problems)
    labels = read_labels(root / "labels.jsonl")
    assert len(labels) == total - 2


def test_no_labels_file_is_written_when_a_later_step_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _runs(tmp_path)

    def broken(*args: object) -> object:
        raise LedgerError(root / "truth.jsonl", 3, "not valid JSON")

    monkeypatch.setattr(reconstruct_cli, "validate_run", broken)
    assert main(["reconstruct", str(root), "--validate"]) == 2
    assert not (root / "labels.jsonl").exists()
    assert not [p for p in root.iterdir() if p.name.endswith(".tmp")]
