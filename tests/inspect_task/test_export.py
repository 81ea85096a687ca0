"""Runs exported as Inspect logs: Inspect's own reader gets back the same labels and the
agent's conversation, and ``inspect view`` shows them in a real browser."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("inspect_ai")

from inspect_ai.log import read_eval_log

from sscbench.cases.caseset import load_case_set
from sscbench.cli.main import main
from sscbench.experiments.inline import command_line_experiment, fault_runs
from sscbench.experiments.session import run_experiment
from sscbench.inspect_task.export import export_inspect
from sscbench.llm.transcript import agent_transcript
from sscbench.reconstruct.label import label_dir
from sscbench.records.ledger import read_ledger

AGENTS = ("scripted:hasty", "scripted:careful")


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two configurations on one case of each of three operators, reconstructed."""
    root = tmp_path_factory.mktemp("export") / "runs"
    chosen: dict[str, object] = {}
    for case in load_case_set(None).cases:
        if case.contract.operator in ("return_date", "write_effect", "item_option"):
            chosen.setdefault(case.contract.operator, case.contract)
    experiment = command_line_experiment("x", [(a, {}) for a in AGENTS], seeds=(0,))
    run_experiment(experiment, root, runs=fault_runs(experiment, list(chosen.values())))
    assert main(["reconstruct", str(root)]) == 0
    return root


def test_reading_the_exported_logs_back_gives_the_same_labels(runs: Path, tmp_path: Path) -> None:
    logs = export_inspect(runs, tmp_path / "logs")
    assert len(logs) == len(AGENTS)
    expected = {x.run_id: x.model_dump(mode="json") for x in label_dir(runs)}
    seen = {}
    for path in logs:
        log = read_eval_log(str(path))
        assert log.status == "success" and log.eval.task.startswith("sscbench-scripted-")
        for sample in log.samples:
            score = sample.scores["archived_labels"]
            seen[sample.id] = score.metadata["labels"]
            run_dir = Path(score.metadata["run_dir"])
            history = read_ledger(run_dir / "ledger.jsonl").events
            transcript = agent_transcript(history)
            assert len(sample.messages) == len(transcript)
            tool_texts = [m.text for m in sample.messages if m.role == "tool"]
            assert tool_texts == [m.text for m in transcript if m.role == "tool"]
        metrics = log.results.scores[0].metrics
        assert metrics["triggered_runs"].value >= 1
    assert seen == expected


def test_a_directory_without_runs_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "not-runs").mkdir()
    (tmp_path / "not-runs" / "notes.txt").write_text("hello")
    command = ["export", "inspect", str(tmp_path / "not-runs"), "--out", str(tmp_path / "o")]
    assert main(command) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no SSCBench runs under" in err[0]
    assert not (tmp_path / "o").exists()


CHROMIUM = Path("/usr/bin/chromium")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def viewer(runs: Path, tmp_path: Path) -> Iterator[str]:
    """``inspect view`` over the exported logs, on a free port."""
    export_inspect(runs, tmp_path / "logs")
    port = _free_port()
    inspect = Path(sys.executable).parent / "inspect"
    process = subprocess.Popen(
        [str(inspect), "view", "--log-dir", str(tmp_path / "logs"), "--host", "127.0.0.1",
         "--port", str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        limit = time.monotonic() + 60
        while time.monotonic() < limit:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.2)
        yield f"http://127.0.0.1:{port}/"
    finally:
        process.terminate()
        process.wait(10)


@pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium")
def test_inspect_view_opens_the_exported_logs_in_a_browser(viewer: str) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM),
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync"],
        )  # fmt: skip
        try:
            page = browser.new_page()
            page.goto(viewer)
            page.get_by_text("sscbench-scripted-hasty").first.wait_for(timeout=30_000)
            page.get_by_text("sscbench-scripted-careful").first.wait_for(timeout=30_000)
            page.get_by_text("sscbench-scripted-hasty").first.click()
            page.get_by_text("return_date", exact=False).first.wait_for(timeout=30_000)
        finally:
            browser.close()
