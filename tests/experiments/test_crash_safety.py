"""Crash safety of the status file: a cut last line survives a resume and a report; a
damaged middle line stops the resume, naming the line, before anything is written."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from sscbench.cli.main import main
from sscbench.experiments import read_status
from sscbench.experiments.status import STATUS_FILE

CASE = "write_effect/airline/12/4"


def _run(out: Path) -> int:
    args = ["run", "--case", CASE, "--agent", "scripted:hasty", "--seed", "0,1", "--out"]
    return main([*args, str(out)])


def _outcomes(out: Path) -> dict[object, tuple[object, ...]]:
    return {
        key: (r.run_id, r.state, r.cause, r.success, r.steps, r.ledger_sha256)
        for key, r in read_status(out / STATUS_FILE).items()
    }


def _tree(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.name != ".lock"
    }


@pytest.mark.parametrize("cut", [1, 40, 300])
def test_a_cut_last_status_line_is_set_aside_and_the_run_set_stays_readable(
    tmp_path: Path, cut: int, capsys: pytest.CaptureFixture[str]
) -> None:
    """A crash (or a full disk) cut the last record: the resume keeps the cut bytes in
    schedule.jsonl.cut-1, continues from the last whole line, ends with the outcomes of an
    uninterrupted run, and reconstruct and report read the file."""
    out = tmp_path / "runs"
    assert _run(out) == 0
    expected = _outcomes(out)
    status = out / STATUS_FILE
    data = status.read_bytes()
    cut_at = len(data) - 1 - cut  # inside the last record, before its newline
    status.write_bytes(data[:cut_at])
    capsys.readouterr()
    assert _run(out) == 0
    err = capsys.readouterr().err
    warned = [line for line in err.splitlines() if "the last line was cut off" in line]
    assert len(warned) == 1 and "schedule.jsonl.cut-1" in warned[0], err
    side = out / f"{STATUS_FILE}.cut-1"
    assert side.read_bytes() == data[data.rfind(b"\n", 0, cut_at) + 1 : cut_at]
    assert b"\n" in status.read_bytes() and status.read_bytes().endswith(b"\n")
    assert _outcomes(out) == expected
    assert main(["reconstruct", str(out)]) == 0
    assert main(["report", str(out)]) == 0


def test_a_last_record_that_lacks_only_its_newline_is_kept(tmp_path: Path) -> None:
    out = tmp_path / "runs"
    assert _run(out) == 0
    status = out / STATUS_FILE
    status.write_bytes(status.read_bytes()[:-1])
    assert _run(out) == 0
    assert not (out / f"{STATUS_FILE}.cut-1").exists()
    assert main(["reconstruct", str(out)]) == 0 and main(["report", str(out)]) == 0


@pytest.mark.parametrize(
    ("damage", "says"),
    [
        (lambda line: line[: len(line) // 2], "not a status record"),
        (lambda line: b"\xff\xfe" + line, "not a status record"),
        (lambda line: line.replace(b'"state":"observed"', b'"state":"done"'), "damaged run"),
    ],
    ids=["cut-in-the-middle", "not-utf8", "invalid-run-record"],
)
def test_a_damaged_middle_line_stops_the_resume_naming_it(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    damage: object,
    says: str,
) -> None:
    """Anything but the last line damaged means the file was edited or corrupted: the
    resume is refused with one line naming file:line, and nothing is written — rather than
    a resume that leaves `report` failing for good."""
    out = tmp_path / "runs"
    assert _run(out) == 0
    status = out / STATUS_FILE
    lines = status.read_bytes().split(b"\n")
    assert callable(damage)
    lines[1] = damage(lines[1])  # the first run record, followed by another
    status.write_bytes(b"\n".join(lines))
    before = _tree(out)
    capsys.readouterr()
    assert _run(out) == 2
    err = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert len(err) == 1 and f"{status}:2: " in err[0] and says in err[0], err
    assert _tree(out) == before
