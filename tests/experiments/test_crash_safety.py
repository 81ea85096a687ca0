"""Crash safety: a cut last status line survives a resume and a report; a damaged middle
line stops the resume, naming the line, before anything is written; a full disk while
running, reconstructing, reporting or building is one line, exit 2, nothing half-written,
and the same command succeeds once there is space."""

from __future__ import annotations

import errno
import hashlib
import json
import os
from pathlib import Path
from typing import Any

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


# A full disk, simulated by a byte budget on the writers: when it runs out, the write in
# progress puts what fits and raises ENOSPC, as a real full file system does.


class Disk:
    """Bytes left on a pretend file system (shared by every file written to it)."""

    def __init__(self, left: int) -> None:
        self.left = left
        self.refused = 0

    def take(self, data: bytes | str) -> int:
        """How much of ``data`` fits; raises after writing nothing more once it is full."""
        size = len(data.encode() if isinstance(data, str) else data)
        fits = min(size, self.left)
        self.left -= fits
        return fits


class OnDisk:
    """A file object whose writes draw on a :class:`Disk`."""

    def __init__(self, fh: Any, disk: Disk) -> None:
        self._fh, self._disk = fh, disk

    def write(self, data: Any) -> int:
        fits = self._disk.take(data)
        if fits < len(data):
            self._fh.write(data[:fits])  # the part that fitted (a cut line)
            self._fh.flush()
            self._disk.refused += 1
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return int(self._fh.write(data))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._fh, name)

    def __enter__(self) -> OnDisk:
        return self

    def __exit__(self, *exc: object) -> None:
        self._fh.close()


def _fill_writers(monkeypatch: pytest.MonkeyPatch, disk: Disk, *, ledgers: bool = True) -> None:
    """Put the ledger writers and the status log on ``disk``."""
    from sscbench.experiments import status
    from sscbench.records import ledger

    if ledgers:
        opened = ledger.JsonlWriter.__init__

        def writer(self: Any, path: Path, **kw: Any) -> None:
            opened(self, path, **kw)
            self._fh = OnDisk(self._fh, disk)

        monkeypatch.setattr(ledger.JsonlWriter, "__init__", writer)
    started = status.StatusLog.__init__

    def log(self: Any, path: Path) -> None:
        started(self, path)
        self._fh = OnDisk(self._fh, disk)

    monkeypatch.setattr(status.StatusLog, "__init__", log)


def _one_error(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    errors = [line for line in lines if ": error: " in line]
    assert len(errors) == 1, lines
    assert "No space left on device" in errors[0] and "Traceback" not in err, err
    return errors[0]


def _leftovers(root: Path) -> list[str]:
    return sorted(str(p) for p in root.rglob("*") if p.name.endswith(".tmp"))


@pytest.mark.parametrize("ledgers", [True, False], ids=["ledger-fills-it", "status-fills-it"])
def test_a_full_disk_stops_the_run_in_one_line_and_the_same_command_resumes(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    ledgers: bool,
) -> None:
    """The disk fills mid-experiment: the session stops with one line naming the file and
    the cause (exit 2), with no traceback and no half-written derived file; once space is
    freed, the same command resumes to the outcomes of an uninterrupted run and the run set
    reconstructs and reports."""
    reference = tmp_path / "reference"
    assert _run(reference) == 0
    expected = {k: v[:5] for k, v in _outcomes(reference).items()}
    out = tmp_path / "runs"
    with monkeypatch.context() as patched:
        # 3,000 bytes: the session line, then the disk fills in the first run's ledger;
        # with the ledgers elsewhere, 700 bytes fill it at the second status line.
        disk = Disk(3_000 if ledgers else 700)
        _fill_writers(patched, disk, ledgers=ledgers)
        capsys.readouterr()
        assert _run(out) == 2
        line = _one_error(capsys.readouterr().err)
    assert disk.refused >= 1
    # The episode records what it can after the ledger fails; the file named is the one
    # whose write stopped the session (the ledger's own line is cut, as a crash cuts it).
    named = ("ledger.jsonl", "hidden.jsonl", "truth.jsonl") if ledgers else ("schedule.jsonl",)
    assert f"cannot write {out}/" in line and any(n in line for n in named), line
    assert _leftovers(out) == []
    json.loads((out / "experiment.json").read_text(encoding="utf-8"))  # whole, or absent
    assert _run(out) == 0  # space freed: the same command
    assert {k: v[:5] for k, v in _outcomes(out).items()} == expected
    assert main(["reconstruct", str(out)]) == 0 and main(["report", str(out)]) == 0


def test_a_full_disk_while_writing_labels_keeps_the_previous_labels(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "runs"
    assert _run(out) == 0 and main(["reconstruct", str(out)]) == 0
    before = (out / "labels.jsonl").read_bytes()
    real = os.fdopen
    disk = Disk(300)
    monkeypatch.setattr(os, "fdopen", lambda *a, **kw: OnDisk(real(*a, **kw), disk))
    capsys.readouterr()
    assert main(["reconstruct", str(out)]) == 2
    line = _one_error(capsys.readouterr().err)
    monkeypatch.undo()
    assert f"{out / 'labels.jsonl'}" in line
    assert (out / "labels.jsonl").read_bytes() == before
    assert sorted(p.name for p in out.iterdir() if p.name.startswith(".labels")) == []


def _full_path_writes(monkeypatch: pytest.MonkeyPatch, disk: Disk) -> None:
    """Put ``Path.write_text`` / ``write_bytes`` (the report's and the build's writers) on
    ``disk``."""
    text, data = Path.write_text, Path.write_bytes

    def write_text(self: Path, content: str, *a: Any, **kw: Any) -> int:
        if disk.take(content) < len(content.encode()):
            disk.refused += 1
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return text(self, content, *a, **kw)

    def write_bytes(self: Path, content: bytes) -> int:
        if disk.take(content) < len(content):
            disk.refused += 1
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return data(self, content)

    monkeypatch.setattr(Path, "write_text", write_text)
    monkeypatch.setattr(Path, "write_bytes", write_bytes)


def test_a_full_disk_while_writing_the_report_keeps_the_previous_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "runs"
    assert _run(out) == 0 and main(["reconstruct", str(out)]) == 0
    assert main(["report", str(out)]) == 0
    before = _tree(out / "report")
    with monkeypatch.context() as patched:
        disk = Disk(20_000)
        _full_path_writes(patched, disk)
        capsys.readouterr()
        assert main(["report", str(out)]) == 2
        line = _one_error(capsys.readouterr().err)
    assert disk.refused == 1 and str(out / "report") in line
    assert _tree(out / "report") == before
    assert [p.name for p in out.iterdir() if p.name.startswith(".report")] == []


def test_a_full_disk_while_building_a_case_set_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "cases"
    argv = ["build", "--out", str(out), "--per-operator", "2", "--operators", "write_effect"]
    with monkeypatch.context() as patched:
        disk = Disk(6_000)
        _full_path_writes(patched, disk)
        capsys.readouterr()
        assert main(argv) == 2
        line = _one_error(capsys.readouterr().err)
    assert disk.refused == 1 and str(out) in line
    assert list(tmp_path.iterdir()) == []  # no half case set, no staging directory
    assert main(argv) == 0 and (out / "manifest.json").is_file()
