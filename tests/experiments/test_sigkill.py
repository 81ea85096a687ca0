"""Kill -9 an experiment mid-run, run the same command again: the result set is exactly
that of an uninterrupted run — same keys, same ledgers (timestamps aside), no duplicate
and no lost run."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sscbench.cli.main import main
from sscbench.experiments import read_status
from sscbench.experiments.status import STATUS_FILE
from sscbench.records.ledger import iter_jsonl

Write = Callable[..., Path]
CONCURRENCY = 2


def _experiment(server: Any, key: str) -> str:
    return f"""
repetitions = 2
concurrency = {CONCURRENCY}
[cases]
ids = ["item_option/retail/0/#W2378156/2", "return_date/airline/7/XEHM4B",
       "pay_source/airline/18/omar_davis_3817/gift_card_3481935"]
[[configurations]]
id = "careful"
agent = "scripted:careful"
[[configurations]]
id = "oa"
agent = "openai"
params = {{ model = "fake-gpt", base_url = "{server.openai_url}", api_key_env = "{key}" }}
"""


def _run_lines(out: Path) -> list[dict[str, Any]]:
    path = out / STATUS_FILE
    if not path.exists():
        return []
    lines = []
    for raw in path.read_bytes().splitlines():
        try:
            obj = json.loads(raw)
        except ValueError:
            continue
        if obj.get("kind") == "run":
            lines.append(obj)
    return lines


def _ledgers(out: Path) -> dict[str, list[dict[str, Any]]]:
    return {
        str(p.parent.relative_to(out)): [
            {k: v for k, v in obj.items() if k != "ts"} for _, obj in iter_jsonl(p)
        ]
        for p in sorted(out.rglob("ledger.jsonl"))
        if ".incomplete-" not in str(p)
    }


def _outcomes(out: Path) -> dict[Any, tuple[Any, ...]]:
    return {
        key: (r.run_id, r.state, r.cause, r.termination, r.success, r.steps)
        for key, r in read_status(out / STATUS_FILE).items()
    }


def test_sigkill_then_resume_equals_an_uninterrupted_run(
    write: Write, tmp_path: Path, server: Any, key: str, lb: Any
) -> None:
    server.responder = lb.Router({"": lb.GoldResponder(latency=0.03)})
    path = write(_experiment(server, key))
    killed = tmp_path / "killed"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "sscbench.cli.main",
            "run",
            "--config",
            str(path),
            "--out",
            str(killed),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ},
    )
    try:
        deadline = time.monotonic() + 60
        while not any(r["configuration"] == "oa" for r in _run_lines(killed)):
            assert proc.poll() is None, "the experiment ended before it could be killed"
            assert time.monotonic() < deadline, "no provider run finished in time"
            time.sleep(0.01)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    before = _run_lines(killed)
    assert 0 < len(before) < 18  # some runs finished, not all

    assert main(["run", "--config", str(path), "--out", str(killed)]) == 0
    fresh = tmp_path / "fresh"
    assert main(["run", "--config", str(path), "--out", str(fresh)]) == 0

    assert _outcomes(killed) == _outcomes(fresh)
    assert len(_outcomes(fresh)) == 18
    assert _ledgers(killed) == _ledgers(fresh)  # same run directories, same ledgers
    observed = Counter(json.dumps(r["key"]) for r in _run_lines(killed) if r["state"] == "observed")
    assert set(observed.values()) == {1}  # no run recorded (or run) twice
    leftovers = [p for p in killed.rglob("*.incomplete-*") if p.is_dir()]
    assert len(leftovers) <= CONCURRENCY  # at most the runs in flight were lost and redone
    assert lb.SECRET not in "".join(p.read_text() for p in killed.rglob("*") if p.is_file())
