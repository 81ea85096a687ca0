"""``sscbench reconstruct RUNDIR [--validate]``: labels.jsonl, exit codes, bad input."""

from __future__ import annotations

import gc
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from sscbench.cli.main import main
from sscbench.reconstruct.labels import RunLabels


def _copy_runs(src: Path, dst: Path) -> set[str]:
    names = set()
    for run_dir in sorted(p for p in src.iterdir() if (p / "ledger.jsonl").exists()):
        shutil.copytree(run_dir, dst / run_dir.name)
        names.add(run_dir.name)
    return names


def test_reconstruct_validate_writes_one_label_line_per_run(
    scripted_runs: Path, fixture_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "runs"
    names = _copy_runs(scripted_runs, root)
    names |= _copy_runs(fixture_root, root / "hand")  # clean, unconfirmed, no hidden log, …
    assert main(["reconstruct", str(root), "--validate"]) == 0
    lines = (root / "labels.jsonl").read_text(encoding="utf-8").splitlines()
    labels = [RunLabels.model_validate(json.loads(line)) for line in lines]
    assert len(labels) == len(names)
    assert {x.run_id for x in labels} == names
    out = capsys.readouterr().out
    assert "agreement with scripted ground truth (65 faulted scripted runs)" in out
    assert "mismatch" not in out


def test_reconstruct_out_option_and_rerun(fixture_root: Path, tmp_path: Path) -> None:
    root = tmp_path / "runs"
    names = _copy_runs(fixture_root, root)
    target = tmp_path / "elsewhere.jsonl"
    assert main(["reconstruct", str(root), "--out", str(target)]) == 0
    assert not (root / "labels.jsonl").exists()
    first = target.read_text(encoding="utf-8")
    assert len(first.splitlines()) == len(names)
    assert main(["reconstruct", str(root), "--out", str(target)]) == 0
    assert target.read_text(encoding="utf-8") == first  # deterministic, not appended


def test_reconstruct_validate_fails_on_a_mismatch(scripted_runs: Path, tmp_path: Path) -> None:
    """A hasty WriteEffect run adopts; drop its recorded uses and validation must object."""
    root = tmp_path / "runs"
    _copy_runs(scripted_runs, root)
    (root / "write_effect.airline.12.4-scripted.hasty-s0" / "truth.jsonl").write_text("")
    assert main(["reconstruct", str(root), "--validate"]) == 1


@pytest.mark.parametrize("kind", ["file", "missing"])
def test_reconstruct_rejects_a_non_directory(
    kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "labels.jsonl"
    if kind == "file":
        target.write_text("{}\n")
    assert main(["reconstruct", str(target), "--validate"]) == 2
    err = capsys.readouterr().err.strip()
    assert "is not a directory of runs" in err and len(err.splitlines()) == 1


def test_labelling_collects_rarely_and_puts_the_thresholds_back(
    fixture_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cyclic GC's young threshold is raised while runs are labelled, and the caller's
    thresholds are back afterwards (a command run in-process, an error inside)."""
    from sscbench.cli import rare_gc
    from sscbench.reconstruct import label

    seen: list[int] = []
    label_ledger = label.label_ledger

    def spy(*args: Any, **kwargs: Any) -> Any:
        seen.append(gc.get_threshold()[0])
        return label_ledger(*args, **kwargs)

    monkeypatch.setattr(label, "label_ledger", spy)
    before = gc.get_threshold()
    _copy_runs(fixture_root, tmp_path / "runs")
    assert main(["reconstruct", str(tmp_path / "runs")]) == 0
    assert seen and set(seen) == {rare_gc.YOUNG_THRESHOLD}
    assert gc.get_threshold() == before
    with pytest.raises(RuntimeError), rare_gc.rare_collections():
        raise RuntimeError
    assert gc.get_threshold() == before


@pytest.mark.parametrize(
    ("run_dir", "root"),
    [
        ("runs/a", "runs"),
        ("runs/a/b.c", "runs"),
        ("/tmp/x/runs/a", "/tmp/x/runs"),
        ("a", "."),
        ("/a", "/"),
        ("runs", "runs"),
        ("runs2/a", "runs"),
        ("runs//a/", "runs/"),
    ],
)
def test_a_runs_key_is_its_path_relative_to_the_root(run_dir: str, root: str) -> None:
    """The key cut from the path's text is ``relative_to``'s, and a path outside the root
    is ``relative_to``'s error."""
    from sscbench.cli.reconstruct import _run_key

    try:
        expected = Path(run_dir).relative_to(Path(root)).as_posix()
    except ValueError:
        with pytest.raises(ValueError):
            _run_key(Path(run_dir), Path(root))
        return
    assert _run_key(Path(run_dir), Path(root)) == expected
