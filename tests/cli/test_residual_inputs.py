"""Bad inputs found after the bad-input table was written: each one line, exit 2, nothing
written."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
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


def _sscbench(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """The command in a fresh process, which must end within ``timeout`` seconds (a read
    that blocks would otherwise hang the suite)."""
    return subprocess.run(
        [sys.executable, "-m", "sscbench", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
@pytest.mark.parametrize("flag", ["--config", "--contract"])
def test_a_pipe_or_a_device_given_as_a_file_is_refused_at_once(
    tmp_path: Path, kind: str, flag: str
) -> None:
    """A named pipe blocks a reader until someone writes; /dev/zero never ends. Both are
    refused before a byte is read: one line, exit 2, within seconds, nothing written."""
    if kind == "fifo":
        path = tmp_path / ("exp.toml" if flag == "--config" else "c.yaml")
        os.mkfifo(path)
    else:
        path = Path("/dev/zero")
        if not path.exists():
            pytest.skip("no /dev/zero")
    out = tmp_path / "out"
    done = _sscbench("run", flag, str(path), "--out", str(out))
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "not a regular file" in lines[0], lines
    assert not out.exists()


def test_a_run_directory_that_is_a_symlink_loop_is_set_aside_and_run_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A run's place holding a looping link (not a run) is set aside like any unfinished
    run — never deleted — and the run made again, instead of failing every resume with
    FileExistsError."""
    out = tmp_path / "runs"
    argv = ["run", "--case", "write_effect/airline/12/4", "--agent", "scripted:hasty"]
    assert main([*argv, "--out", str(out)]) == 0
    (run_dir,) = [p.parent for p in out.rglob("ledger.jsonl")]
    moved = run_dir.with_name("elsewhere")
    run_dir.rename(moved)
    run_dir.symlink_to(run_dir.name)  # the run's place is now a link to itself
    (out / "schedule.jsonl").unlink()
    assert main([*argv, "--out", str(out)]) == 0
    assert "0 failed" in capsys.readouterr().err
    assert (run_dir / "ledger.jsonl").is_file()
    aside = run_dir.with_name(run_dir.name + ".incomplete-1")
    assert aside.is_symlink() and os.readlink(aside) == run_dir.name


def test_a_named_pipe_in_a_ledgers_place_is_set_aside_and_the_run_made_again(
    tmp_path: Path,
) -> None:
    """Resuming reads each scheduled run's ledger to see whether it finished: a named pipe
    there would block that read for ever. It is no finished run: the place is set aside and
    the run made again, in a fresh process that must end within the timeout."""
    out = tmp_path / "runs"
    argv = ["run", "--case", "write_effect/airline/12/4", "--agent", "scripted:hasty"]
    assert _sscbench(*argv, "--out", str(out)).returncode == 0
    (ledger,) = out.rglob("ledger.jsonl")
    ledger.unlink()
    os.mkfifo(ledger)
    (out / "schedule.jsonl").unlink()
    done = _sscbench(*argv, "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert (ledger.parent / "ledger.jsonl").is_file()
    aside = ledger.parent.with_name(ledger.parent.name + ".incomplete-1")
    assert stat.S_ISFIFO((aside / "ledger.jsonl").lstat().st_mode)
