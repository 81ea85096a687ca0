"""Every entry point runs through the experiment executor, with one resume rule."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from sscbench.cli.main import main
from sscbench.experiments import load_experiment, read_status, run_experiment
from sscbench.experiments.execute import POOL
from sscbench.experiments.status import STATUS_FILE
from sscbench.records.ledger import read_ledger

Write = Callable[..., Path]
EASY = "item_option/retail/0/#W2378156/2"
RUN_DIR = "item_option.retail.0..W2378156.2-openai-s0"


def _cli(server: Any, out: Path, key: str) -> list[str]:
    return [
        "run",
        "--case",
        EASY,
        "--agent",
        "openai",
        "--agent-param",
        "model=fake-model",
        "--agent-param",
        f"base_url={server.openai_url}",
        "--agent-param",
        f"api_key_env={key}",
        "--out",
        str(out),
    ]


def test_keyless_then_key_then_provider_failure_then_success(
    tmp_path: Path,
    server: Any,
    key: str,
    lb: Any,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = tmp_path / "out"
    secret = lb.SECRET
    monkeypatch.delenv(key)
    # Without the key: refused before anything is written, with one line.
    assert main(_cli(server, out, key)) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"environment variable {key} is not set" in err[0]
    assert not out.exists()

    # With the key, a provider that fails: a failed run, recorded with its cause.
    monkeypatch.setenv(key, secret)
    broken = {"on": True}
    gold = lb.GoldResponder()
    server.responder = lambda path, body: (
        lb.error_reply(400, "bad request") if broken["on"] else gold(path, body)
    )
    assert main(_cli(server, out, key)) == 1
    assert "failed" in capsys.readouterr().err
    end = read_ledger(out / RUN_DIR / "ledger.jsonl").end
    assert end is not None and end.termination == "harness_error"
    assert end.failure is not None and end.failure.kind == "provider" and end.failure.retryable
    (record,) = read_status(out / STATUS_FILE).values()
    assert record.cause == "provider_error" and "HTTP 400" in (record.detail or "")

    # The same command again, once the provider works: the failed run is run again (never
    # "already done"), the failed attempt kept aside.
    broken["on"] = False
    assert main(_cli(server, out, key)) == 0
    printed = capsys.readouterr().err
    assert "0 already done" in printed and "0 failed" in printed
    end = read_ledger(out / RUN_DIR / "ledger.jsonl").end
    assert end is not None and end.termination != "harness_error" and end.failure is None
    assert (out / f"{RUN_DIR}.incomplete-1" / "ledger.jsonl").exists()
    # A third time: finished, nothing runs.
    assert main(_cli(server, out, key)) == 0
    assert "1 already done" in capsys.readouterr().err


def test_a_corrupt_middle_line_is_not_a_finished_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    args = ["run", "--case", EASY, "--agent", "scripted:hasty", "--out", str(out)]
    assert main(args) == 0
    ledger = out / "item_option.retail.0..W2378156.2-scripted.hasty-s0" / "ledger.jsonl"
    lines = ledger.read_text().splitlines()
    lines[3] = lines[3][: len(lines[3]) // 2]  # first and last lines intact
    ledger.write_text("\n".join(lines) + "\n")
    capsys.readouterr()
    assert main(args) == 0
    assert "0 already done" in capsys.readouterr().err, "the damaged run was run again"
    assert read_ledger(ledger).finished
    assert (ledger.parent.with_name(ledger.parent.name + ".incomplete-1")).is_dir()
    # Without a recorded digest (a directory from before digests), every line is checked.
    status = out / STATUS_FILE
    status.write_text(status.read_text().replace('"ledger_sha256":', '"_":'))
    status.write_text(
        "\n".join(x for x in status.read_text().splitlines() if '"_":' not in x) + "\n"
    )
    lines = ledger.read_text().splitlines()
    lines[3] = "{not json"
    ledger.write_text("\n".join(lines) + "\n")
    assert main(args) == 0
    assert "0 already done" in capsys.readouterr().err


def test_a_different_experiment_into_the_same_directory_is_refused(
    write: Write, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    body = f"""
[cases]
ids = ["{EASY}"]
[[configurations]]
id = "hasty"
agent = "scripted:hasty"
"""
    first = write(body, "first.toml")
    second = write(body.replace("scripted:hasty", "scripted:careful"), "second.toml")
    raised = write(body + "[budget]\nmax_runs = 5\n", "raised.toml")
    out = tmp_path / "out"
    run_experiment(load_experiment(first), out)
    before = (out / "experiment.json").read_bytes()
    assert main(["run", "--config", str(second), "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, "the refusal is the only line"
    assert "first.toml" in err[0] and "second.toml" in err[0]
    assert (out / "experiment.json").read_bytes() == before, "nothing overwritten"
    # The same experiment under another file name, with a raised budget, is not another one.
    assert main(["run", "--config", str(raised), "--out", str(out)]) == 0
    before = (out / "experiment.json").read_bytes()
    # Command-line runs into an experiment's directory are refused the same way.
    capsys.readouterr()
    assert main(["run", "--case", EASY, "--agent", "scripted:gold", "--out", str(out)]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1
    assert json.loads(before)["source"].endswith("raised.toml"), "the latest file is named"


@pytest.mark.parametrize("agent", ["openai", "openai-compatible"])
def test_a_fully_cached_replay_runs_without_the_key(
    agent: str,
    tmp_path: Path,
    server: Any,
    key: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The key is resolved at the first request the cache cannot answer: a warm cache
    replays a run with the key unset; a cold one fails that run with the one-line
    missing-key message (cause ``config_error``), and nothing reaches the server."""

    def argv(out: Path, cache: Path) -> list[str]:
        return [
            "run",
            "--case",
            EASY,
            "--agent",
            agent,
            *("--agent-param", "model=fake-model"),
            *("--agent-param", f"base_url={server.openai_url}"),
            *("--agent-param", f"api_key_env={key}"),
            *("--agent-param", f"cache_dir={cache}"),
            "--out",
            str(out),
        ]

    assert main(argv(tmp_path / "first", tmp_path / "cache")) == 0
    sent = len(server.requests)
    assert sent > 0
    monkeypatch.delenv(key)
    monkeypatch.setattr(POOL, "_idle", {})  # a new process: no participant built with the key
    capsys.readouterr()
    assert main(argv(tmp_path / "replay", tmp_path / "cache")) == 0
    assert len(server.requests) == sent  # every reply came from the cache
    (replayed,) = read_status(tmp_path / "replay" / STATUS_FILE).values()
    (first,) = read_status(tmp_path / "first" / STATUS_FILE).values()
    assert (replayed.state, replayed.success, replayed.steps) == (
        "observed",
        first.success,
        first.steps,
    )

    assert main(argv(tmp_path / "cold", tmp_path / "cold-cache")) == 1
    assert len(server.requests) == sent
    (failed,) = read_status(tmp_path / "cold" / STATUS_FILE).values()
    assert failed.cause == "config_error"
    assert failed.detail is not None and f"environment variable {key} is not set" in failed.detail
    assert len(failed.detail.splitlines()) == 1
