"""``sscbench audit``: one command, JSON and escaped HTML, byte-identical re-runs, bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sscbench.cli.main import main


def test_audit_grader_writes_json_and_html_identically_twice(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    for out in (a, b):
        assert main(["audit", "grader", "--target", "synthetic", "--out", str(out)]) == 0
    assert (a / "audit.json").read_bytes() == (b / "audit.json").read_bytes()
    assert (a / "audit.html").read_bytes() == (b / "audit.html").read_bytes()
    record = json.loads((a / "audit.json").read_text())
    assert record["schema_version"] == 1 and record["summary"]["INV-4"]["pass"] == 4
    html = (a / "audit.html").read_text()
    assert "<script" not in html and "&#x27;" in html  # escaped ("agent's final state")
    assert main(["audit", "grader", "--target", "synthetic", "--out", str(a)]) == 0


def test_audit_grader_on_sscbench_with_named_tasks(tmp_path: Path) -> None:
    args = ["audit", "grader", "--target", "sscbench", "--tasks", "12", "--out", str(tmp_path)]
    assert main(args) == 0
    record = json.loads((tmp_path / "audit.json").read_text())
    assert record["grader"] == "sscbench.envs.grading.LiveStateGrader"
    assert {r["status"] for r in record["results"]} <= {"pass", "not_applicable"}


@pytest.mark.parametrize(
    "args",
    [
        ["--target", "nope"],
        ["--target", "synthetic", "--domain", "retail"],
        ["--target", "sscbench", "--domain", "telecom"],
        ["--target", "sscbench", "--tasks", "999"],
    ],
)
def test_bad_input_is_one_line_exit_2_and_nothing_written(
    args: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    assert main(["audit", "grader", *args, "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "error" in err
    assert not out.exists()
