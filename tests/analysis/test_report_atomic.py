"""The report directory is replaced whole: an interrupted report leaves the old one intact.

Also: a schedule whose last line a crash cut off still gives a report (one warning line).
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest

import sscbench.analysis.report as report_module
from sscbench.analysis.results import AnalysisResult
from sscbench.cli.main import main

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "analysis"


def _runs(tmp_path: Path) -> Path:
    root = tmp_path / "runs"
    shutil.copytree(FIXTURE / "runs", root)
    shutil.copy(FIXTURE / "labels.jsonl", root / "labels.jsonl")
    return root


def _digests(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def test_a_report_killed_midway_leaves_the_previous_report_untouched(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _runs(tmp_path)
    out = tmp_path / "report"
    assert main(["report", str(root), "--out", str(out), "--sensitivity", "primary"]) == 0
    before = _digests(out)

    def killed(*args: object, **kwargs: object) -> str:
        raise KeyboardInterrupt  # after the tables and figures, before report.html

    monkeypatch.setattr(report_module, "render_report", killed)
    with pytest.raises(KeyboardInterrupt):
        main(["report", str(root), "--out", str(out), "--sensitivity", "all_repetitions"])
    assert _digests(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report", "runs"]  # no staging left


def test_a_second_report_replaces_the_first_whole(tmp_path: Path) -> None:
    root = _runs(tmp_path)
    out = tmp_path / "report"
    assert main(["report", str(root), "--out", str(out), "--viewer", "link"]) == 0
    assert (out / "trajectories.html").is_file()
    assert main(["report", str(root), "--out", str(out), "--viewer", "embed"]) == 0
    assert not (out / "trajectories.html").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report", "runs"]
    result = AnalysisResult.model_validate_json((out / "analysis.json").read_text())
    assert result.sensitivity == "primary"


def test_a_directory_that_is_not_a_report_is_never_replaced(tmp_path: Path) -> None:
    root = _runs(tmp_path)
    before = _digests(root)
    assert main(["report", str(root), "--out", str(root)]) == 2
    assert _digests(root) == before


def test_a_cut_last_schedule_line_gives_a_report_and_one_warning_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _runs(tmp_path)
    (root / "schedule.jsonl").write_bytes(b'{"kind":"session"}\n{"kind":"run","condition":"fa')
    assert main(["report", str(root)]) == 0
    err = capsys.readouterr().err.splitlines()
    warned = [line for line in err if "schedule.jsonl" in line]
    assert len(warned) == 1 and warned[0].startswith("warning: ")
    assert "truncated last line" in warned[0]
    assert all(not line.startswith(" ") for line in err)
