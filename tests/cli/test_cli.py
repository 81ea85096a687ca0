"""``sscbench run`` and ``sscbench show``: happy path, resume, and bad input."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sscbench.cli.main import main


def _run(*args: str) -> int:
    return main(["run", *args])


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--domain", "banking", "--tasks", "0"], "unknown domain 'banking'"),
        (["--domain", "airline", "--tasks", "999"], "unknown airline task '999'"),
        (["--domain", "airline", "--tasks", "3-1"], "bad task range '3-1'"),
        (["--domain", "airline", "--tasks", "0", "--agent", "gpt-9"], "unknown agent 'gpt-9'"),
        (["--domain", "airline", "--tasks", "0", "--user", "robot"], "unknown user 'robot'"),
        (
            ["--domain", "airline", "--tasks", "0", "--max-steps", "0"],
            "--max-steps must be at least 1",
        ),
        (["--domain", "airline", "--tasks", "0", "--agent-param", "p"], "must look like KEY=VALUE"),
    ],
)
def test_bad_input_is_one_line_exit_2_and_writes_nothing(
    args: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    assert _run(*args, "--out", str(out)) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1
    assert not out.exists()


def test_unwritable_output_is_rejected(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert _run("--domain", "airline", "--tasks", "0", "--out", str(blocker / "runs")) == 2
    assert "not a directory" in capsys.readouterr().err


def test_run_show_and_rerun_skips_finished_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    assert (
        _run(
            "--domain",
            "retail",
            "--tasks",
            "0-1",
            "--agent",
            "scripted:hasty",
            "--out",
            str(out),
            "--seed",
            "0,1",
        )
        == 0
    )
    runs = sorted(p.name for p in out.iterdir() if p.is_dir())
    assert runs == [f"retail-{t}-scripted.hasty-s{s}" for t in (0, 1) for s in (0, 1)]
    # The executor's status log and description sit beside the run directories.
    assert {"experiment.json", "schedule.jsonl", "summary.json"} <= {p.name for p in out.iterdir()}
    assert "4 solved" in capsys.readouterr().err
    ledger = out / runs[0] / "ledger.jsonl"
    before = ledger.read_bytes()
    assert (
        _run(
            "--domain",
            "retail",
            "--tasks",
            "0-1",
            "--agent",
            "scripted:hasty",
            "--out",
            str(out),
            "--seed",
            "0,1",
        )
        == 0
    )
    assert "4 already done" in capsys.readouterr().err
    assert ledger.read_bytes() == before
    assert main(["show", str(out / runs[0])]) == 0
    shown = capsys.readouterr().out
    assert "exchange_delivered_order_items" in shown and "user_stop" in shown


def test_an_unfinished_run_is_set_aside_and_rerun(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    assert _run("--domain", "airline", "--tasks", "7", "--out", str(out)) == 0
    run_dir = out / "airline-7-scripted.careful-s0"
    lines = (run_dir / "ledger.jsonl").read_text().splitlines(keepends=True)
    (run_dir / "ledger.jsonl").write_text("".join(lines[:5]) + lines[5][:20])  # a crash mid-line
    assert _run("--domain", "airline", "--tasks", "7", "--out", str(out)) == 0
    assert (out / "airline-7-scripted.careful-s0.incomplete-1" / "ledger.jsonl").exists()
    assert (run_dir / "ledger.jsonl").read_text().count('"kind":"run_end"') == 1


def test_show_reports_a_corrupt_ledger_with_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "ledger.jsonl"
    bad.write_text('{"kind":"user_message","step":0,"turn":0,"content":"hi"}\n')
    assert main(["show", str(bad)]) == 2
    assert f"{bad}:1: first line must be the header" in capsys.readouterr().err


def test_import_sscbench_is_cheap_and_never_imports_litellm() -> None:
    code = (
        "import sys, sscbench, sscbench.envs, sscbench.runs.episode; "
        "print('litellm' in sys.modules)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "False"


# --------------------------------------------------------------------------- --help


def test_every_help_is_fast_and_imports_nothing_heavy() -> None:
    """Each ``--help`` imports only its own command module: no numpy, matplotlib, τ² or
    SDK (a generous wall-clock bound, so a busy machine does not make it flaky)."""
    from sscbench.cli.main import COMMANDS

    probe = (
        "import sys, time; from sscbench.cli.main import main; t = time.perf_counter()\n"
        "try:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
        "heavy = [m for m in ('numpy', 'matplotlib', 'tau2', 'openai', 'anthropic', "
        "'sscbench.agents.scripted') if m in sys.modules]\n"
        "print(heavy, file=sys.stderr)"
    )
    for command in ["", *COMMANDS]:
        argv = [command, "--help"] if command else ["--help"]
        started = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-c", probe, *argv], capture_output=True, text=True, check=True
        )
        elapsed = time.perf_counter() - started
        assert done.stderr.strip().splitlines()[-1] == "[]", (command, done.stderr)
        assert elapsed < 1.5, (command, elapsed)


def test_run_help_lists_every_builtin_agent() -> None:
    from sscbench.agents.registry import AGENTS, register_builtin_agents
    from sscbench.cli.run import BUILTIN_AGENTS

    register_builtin_agents()
    assert set(BUILTIN_AGENTS) == set(AGENTS.names())
    out = subprocess.run(
        [sys.executable, "-m", "sscbench.cli.main", "run", "--help"],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "COLUMNS": "400"},
    ).stdout
    for name in BUILTIN_AGENTS:
        assert name in out


def test_help_texts_and_written_out_defaults_match_their_sources() -> None:
    from sscbench.analysis.population import SENSITIVITIES
    from sscbench.cli import build, report, review, run
    from sscbench.cli.main import ALL, COMMANDS, build_parser
    from sscbench.fault_contracts.variants import VARIANTS
    from sscbench.review.access import DEFAULT_URL
    from sscbench.review.agreement import ADJUDICATOR, REVIEWERS
    from sscbench.witnesses.record import SearchLimits

    parser = build_parser(ALL)
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    registered = {a.dest: a.help for a in sub._choices_actions}
    assert registered == {name: text for name, (_, text) in COMMANDS.items()}
    assert report.SENSITIVITY_CHOICES == SENSITIVITIES
    assert run.INTERFACE_VARIANTS == VARIANTS
    assert (review.DEFAULT_URL, review.REVIEWERS, review.ADJUDICATOR) == (
        DEFAULT_URL,
        REVIEWERS,
        ADJUDICATOR,
    )
    assert (
        SearchLimits.max_depth,
        SearchLimits.max_branching,
    ) == (build.MAX_DEPTH, build.MAX_BRANCHING)
