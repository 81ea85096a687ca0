"""A damaged truth.jsonl stops validation with one line naming it; it never validates
against a ground truth with a hole in it."""

from __future__ import annotations

from pathlib import Path

import pytest

from sscbench.cli.main import main


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("truth") / "runs"
    args = ["run", "--case", "write_effect/airline/12/4", "--agent", "scripted:hasty"]
    assert main([*args, "--out", str(out)]) == 0
    (run,) = [p for p in out.iterdir() if p.is_dir()]
    return run


@pytest.mark.parametrize(
    ("damage", "problem"),
    [
        (lambda lines: [*lines[:2], "{not json", *lines[3:]], "truth.jsonl:3: not valid JSON"),
        (lambda lines: [*lines[:2], "{}", *lines[3:]], "truth.jsonl:3: not a truth record"),
        (lambda lines: [*lines[:2], '{"kind":"fact_use"}', *lines[3:]], "not a truth record"),
    ],
)
def test_damaged_truth_is_one_line_and_exit_2(
    run_dir: Path, damage: object, problem: str, capsys: pytest.CaptureFixture[str]
) -> None:
    truth = run_dir / "truth.jsonl"
    original = truth.read_text()
    try:
        truth.write_text("\n".join(damage(original.splitlines())) + "\n")  # type: ignore[operator]
        assert main(["reconstruct", str(run_dir.parent), "--validate"]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and problem in err[0]
        assert not (run_dir.parent / "labels.jsonl").exists(), "nothing written"
        truth.write_text(original[:-10])  # a cut last line
        assert main(["reconstruct", str(run_dir.parent), "--validate"]) == 2
        assert "cut off" in capsys.readouterr().err
    finally:
        truth.write_text(original)
    assert main(["reconstruct", str(run_dir.parent), "--validate"]) == 0
    (run_dir.parent / "labels.jsonl").unlink()
