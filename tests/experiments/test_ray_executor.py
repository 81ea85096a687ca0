"""The Ray executor: the same experiment gives the same labels, and a worker killed
mid-episode loses and duplicates nothing. Skipped when Ray is not installed."""

from __future__ import annotations

import itertools
import json
import os
import signal
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from sscbench.experiments import load_experiment, read_status, run_experiment
from sscbench.experiments.executors import STAGING_DIR, with_executor
from sscbench.experiments.status import STATUS_FILE
from sscbench.reconstruct.label import label_dir
from sscbench.records.ledger import read_ledger

ray = pytest.importorskip("ray")

Write = Callable[..., Path]
EASY = "item_option/retail/0/#W2378156/2"


def test_same_labels_on_the_local_and_the_ray_executor(write: Write, tmp_path: Path) -> None:
    path = write(
        """
concurrency = 4
repetitions = 2
[cases]
operators = ["item_option", "write_effect"]
per_operator = 1
[[configurations]]
id = "hasty"
agent = "scripted:hasty"
[[configurations]]
id = "careful"
agent = "scripted:careful"
"""
    )
    experiment = load_experiment(path)
    local = run_experiment(experiment, tmp_path / "local")
    on_ray = run_experiment(with_executor(experiment, ("ray", None)), tmp_path / "ray")
    strip = {"ts", "ledger_sha256"}  # ledgers differ in their timestamps only
    for a, b in zip(local.records, on_ray.records, strict=True):
        da, db = a.model_dump(exclude=strip), b.model_dump(exclude=strip)
        assert da == db, {k: (da[k], db[k]) for k in da if da[k] != db[k]}
    assert all(r.ledger_sha256 for r in on_ray.records if r.state == "observed")
    assert label_dir(tmp_path / "local") == label_dir(tmp_path / "ray")
    assert not (tmp_path / "ray" / STAGING_DIR).exists(), "nothing left in staging"


def test_a_worker_killed_mid_episode_loses_and_duplicates_nothing(
    write: Write, tmp_path: Path, server: Any, key: str, lb: Any
) -> None:
    gold = lb.GoldResponder()

    def slow(path: str, body: dict[str, Any]) -> Any:
        time.sleep(0.25)  # an episode takes seconds: time to kill its worker
        return gold(path, body)

    server.responder = slow
    path = write(
        f"""
executor = "ray"
concurrency = 2
[cases]
ids = ["{EASY}"]
[[configurations]]
id = "oa"
agent = "openai"
params = {{ model = "fake-model", base_url = "{server.openai_url}", api_key_env = "{key}" }}
"""
    )
    out = tmp_path / "out"
    experiment = load_experiment(path)
    result: dict[str, Any] = {}
    thread = threading.Thread(target=lambda: result.update(r=run_experiment(experiment, out)))
    thread.start()
    killed = None
    deadline = time.monotonic() + 60
    while killed is None and time.monotonic() < deadline and thread.is_alive():
        for pid_file in (out / STAGING_DIR).glob("*.pid") if (out / STAGING_DIR).exists() else ():
            if (pid_file.with_suffix("") / "ledger.jsonl").exists():
                killed = int(pid_file.read_text())
                os.kill(killed, signal.SIGKILL)
                break
        time.sleep(0.05)
    thread.join(timeout=120)
    assert killed is not None, "no attempt was seen running"
    session = result["r"]
    assert [(r.condition, r.state) for r in session.records] == [
        ("clean", "observed"),
        ("fault", "observed"),
    ]
    latest = read_status(out / STATUS_FILE)
    assert len(latest) == 2
    runs = [r for r in (out / "clean").rglob("ledger.jsonl")]
    runs += [r for r in (out / "fault").rglob("ledger.jsonl")]
    assert len(runs) == 2, "one run directory per key, no duplicate"
    assert all(read_ledger(r).finished for r in runs)
    assert not (out / STAGING_DIR).exists()


def test_a_rate_limit_holds_across_worker_processes(
    write: Write, tmp_path: Path, server: Any, key: str, lb: Any
) -> None:
    server.responder = lb.GoldResponder()
    per_minute = 120.0  # one request every 0.5 s, for the whole cluster
    path = write(
        f"""
executor = "ray"
concurrency = 4
repetitions = 2
gate = "per_repetition"
[cases]
ids = ["{EASY}", "write_effect/airline/12/4"]
[[configurations]]
id = "oa"
agent = "openai"
params = {{ model = "fake-model", base_url = "{server.openai_url}", api_key_env = "{key}", \
requests_per_minute = {per_minute} }}
"""
    )
    out = tmp_path / "out"
    result = run_experiment(load_experiment(path), out)
    assert not result.failed
    starts = sorted(
        float(rec["ts"]) - float(rec["latency_s"])
        for calls in out.rglob("provider_calls.jsonl")
        for rec in (json.loads(line) for line in calls.read_text().splitlines())
    )
    assert len(starts) > 10
    gaps = [b - a for a, b in itertools.pairwise(starts)]
    # Two processes with limiters of their own interleave two 0.5 s streams: some gap is
    # at most half the interval; one shared schedule keeps every gap near the interval,
    # give or take scheduling jitter (0.2 s of it is tolerated: a loaded CI machine).
    assert min(gaps) > 0.6 * 60 / per_minute, f"requests {min(gaps):.3f} s apart"


def test_an_external_agent_launched_per_run_on_ray_gives_the_in_process_labels(
    write: Write, tmp_path: Path
) -> None:
    pytest.importorskip("mcp")
    import sys

    command = f"{sys.executable} -m sscbench.agents.external.reference scripted:hasty"
    path = write(
        f"""
concurrency = 2
[cases]
operators = ["item_option", "write_effect"]
per_operator = 1
[[configurations]]
id = "served"
agent = "external"
params = {{ command = "{command}" }}
[[configurations]]
id = "hasty"
agent = "scripted:hasty"
"""
    )
    result = run_experiment(with_executor(load_experiment(path), ("ray", None)), tmp_path / "ray")
    assert not result.failed
    labels = label_dir(tmp_path / "ray")

    def seen(configuration: str) -> list[str]:
        return sorted(
            x.model_copy(update={"run_id": "", "agent": "", "configuration": ""}).model_dump_json()
            for x in labels
            if x.configuration == configuration
        )

    assert seen("served") == seen("hasty") and len(seen("served")) == 4  # 2 clean, 2 faulted
    for run in (tmp_path / "ray" / "fault").glob("served-*/*/*"):
        assert (run / "client.jsonl").exists() and (run / "agent.log").exists()
