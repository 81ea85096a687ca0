"""The protocol (docs/measurement.md §4): clean runs first, gating, missing-with-cause, budget,
resume."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from sscbench.experiments import load_experiment, read_status, run_experiment
from sscbench.experiments.status import STATUS_FILE
from sscbench.records.ledger import TruncatedLineWarning, iter_jsonl, read_ledger

Write = Callable[..., Path]

HARD = "item_option/retail/20/#W9911714/0"  # scripted:careful runs out of its 30 steps
EASY = "item_option/retail/0/#W2378156/2"

SCRIPTED = f"""
repetitions = 2
concurrency = 2
[cases]
ids = ["{HARD}", "{EASY}"]
[[configurations]]
id = "careful"
agent = "scripted:careful"
[[configurations]]
id = "gold"
agent = "scripted:gold"
"""


def _by(records: Any, config: str, case: str) -> list[Any]:
    return sorted(
        (r for r in records if r.configuration == config and r.key["case"] == case),
        key=lambda r: r.key["repetition"],
    )


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_unsolved_clean_task_gates_its_faulted_runs(write: Write, tmp_path: Path) -> None:
    exp = load_experiment(write(SCRIPTED))
    out = tmp_path / "out"
    result = run_experiment(exp, out)
    records = result.records
    assert len(records) == 2 * 2 + 2 * 2 * 2  # clean tasks × configs + cases × configs × reps

    (hard_clean,) = _by(records, "careful", "clean:retail/20")
    assert hard_clean.state == "observed" and hard_clean.success is False
    assert hard_clean.termination == "max_steps" and hard_clean.key["max_steps"] == 30
    gated = _by(records, "careful", HARD)
    assert [(r.state, r.cause, r.key["repetition"]) for r in gated] == [
        ("missing", "gated", 0),
        ("missing", "gated", 1),
    ]
    assert "careful did not solve the clean task (max_steps)" in (gated[0].detail or "")
    assert gated[0].gate == hard_clean.key
    assert not (out / gated[0].run_id).exists()  # never run, never imputed
    assert all(r.state == "observed" for r in _by(records, "careful", EASY))
    assert all(r.state == "observed" for r in records if r.configuration == "gold")

    # the clean runs are recorded like any other run, without a fault
    ledger = read_ledger(out / hard_clean.run_id / "ledger.jsonl")
    assert ledger.header.fault is None and ledger.header.case_id is None
    assert ledger.header.run_id == hard_clean.run_id.replace("\\", "/")
    faulted = _by(records, "gold", HARD)[1]
    header = read_ledger(out / faulted.run_id / "ledger.jsonl").header
    assert header.case_id == HARD and header.seed == 1 and header.max_steps == 30

    log = _lines(out / STATUS_FILE)
    assert [r["kind"] for r in log].count("session") == 1
    keys = Counter(json.dumps(r["key"]) for r in log if r["kind"] == "run")
    assert set(keys.values()) == {1}
    assert result.counts()["careful"] == {
        "clean_observed": 2,
        "clean_solved": 1,
        "fault_missing_gated": 2,
        "fault_observed": 2,
    }
    summary = json.loads((out / "summary.json").read_text())
    assert summary["configurations"] == result.counts()
    described = json.loads((out / "experiment.json").read_text())
    assert [c["id"] for c in described["configurations"]] == ["careful", "gold"]

    # re-running the same command does nothing and appends only its session line
    again = run_experiment(exp, out)
    assert again.executed == 0
    assert [r.model_dump(exclude={"ts"}) for r in again.records] == [
        r.model_dump(exclude={"ts"}) for r in records
    ]
    assert len(_lines(out / STATUS_FILE)) == len(log) + 1


def test_per_repetition_gate_pairs_clean_and_faulted_seeds(write: Write, tmp_path: Path) -> None:
    exp = load_experiment(write('gate = "per_repetition"\n' + SCRIPTED))
    result = run_experiment(exp, tmp_path / "out")
    clean = [r for r in result.records if r.condition == "clean"]
    assert len(clean) == 2 * 2 * 2  # per configuration, task and repetition
    for r in result.records:
        if r.condition == "fault":
            assert r.gate is not None and r.gate["seed"] == r.key["seed"]


def test_run_budget_leaves_runs_missing_and_resume_finishes(write: Write, tmp_path: Path) -> None:
    serial = SCRIPTED.replace("concurrency = 2", "concurrency = 1")
    limited = write(serial + "[budget]\nmax_runs = 3\n")
    out = tmp_path / "out"
    first = run_experiment(load_experiment(limited), out)
    assert first.executed == 3
    causes = Counter(r.cause for r in first.records if r.state == "missing")
    assert causes["budget"] >= 1 and causes["clean_missing"] >= 1
    budget = [r for r in first.records if r.cause == "budget"]
    assert all("run budget spent: 3 of 3" in (r.detail or "") for r in budget)

    raised = write(SCRIPTED + "[budget]\nmax_runs = 100\n", "raised.toml")
    second = run_experiment(load_experiment(raised), out)
    assert second.executed == len(second.records) - 3 - 2  # earlier runs kept, 2 gated
    states = Counter((r.state, r.cause) for r in second.records)
    assert states == {("observed", None): 10, ("missing", "gated"): 2}
    latest = read_status(out / STATUS_FILE)
    assert {k: (v.state, v.cause) for k, v in latest.items()} == {
        r.run_key: (r.state, r.cause) for r in second.records
    }


def test_crash_leftovers_are_set_aside_and_redone(write: Write, tmp_path: Path) -> None:
    exp = load_experiment(write(SCRIPTED))
    out = tmp_path / "out"
    first = run_experiment(exp, out)
    victim = next(r for r in first.records if r.condition == "fault" and r.state == "observed")
    ledger = out / victim.run_id / "ledger.jsonl"
    original = [{k: v for k, v in o.items() if k != "ts"} for _, o in iter_jsonl(ledger)]
    lines = ledger.read_text().splitlines(keepends=True)
    ledger.write_text("".join(lines[:-1]) + lines[-1][:10])  # killed mid-line, no run_end
    status = out / STATUS_FILE
    status.write_bytes(status.read_bytes() + b'{"kind":"run","ts":1,"key":{"ca')

    with pytest.warns(TruncatedLineWarning, match="schedule.jsonl.cut-1"):
        second = run_experiment(exp, out)
    assert second.executed == 1
    redone = [{k: v for k, v in o.items() if k != "ts"} for _, o in iter_jsonl(ledger)]
    assert redone == original
    aside = out / f"{victim.run_id}.incomplete-1"
    assert (aside / "ledger.jsonl").exists()
    latest = read_status(status)
    assert latest[victim.run_key].state == "observed"
    unreadable = []
    for line in status.read_text().splitlines():
        try:
            json.loads(line)
        except ValueError:
            unreadable.append(line)
    # The cut bytes are set aside, not ended into a damaged middle line that `report`
    # could never read past.
    assert unreadable == []
    assert (out / f"{STATUS_FILE}.cut-1").read_bytes() == b'{"kind":"run","ts":1,"key":{"ca'


def test_provider_failures_are_missing_then_retried(
    write: Write, tmp_path: Path, server: Any, key: str, lb: Any
) -> None:
    broken = {"on": True}
    gold = lb.GoldResponder()

    def flaky(path: str, body: dict[str, Any]) -> Any:
        return lb.error_reply(400, "bad request") if broken["on"] else gold(path, body)

    server.responder = flaky
    path = write(
        f"""
concurrency = 2
[cases]
ids = ["{EASY}"]
[[configurations]]
id = "oa"
agent = "openai"
params = {{ model = "fake-model", base_url = "{server.openai_url}", api_key_env = "{key}", \
input_price_per_mtok = 2.0, output_price_per_mtok = 8.0 }}
"""
    )
    out = tmp_path / "out"
    exp = load_experiment(path)
    first = run_experiment(exp, out)
    assert [(r.condition, r.state, r.cause) for r in first.records] == [
        ("clean", "missing", "provider_error"),
        ("fault", "missing", "clean_missing"),
    ]
    assert "HTTP 400" in (first.records[0].detail or "") and first.failed
    assert "provider_error" in (first.records[1].detail or "")

    broken["on"] = False
    second = run_experiment(exp, out)
    assert [(r.condition, r.state) for r in second.records] == [
        ("clean", "observed"),
        ("fault", "observed"),
    ]
    assert second.records[0].success is True  # the loopback model plays the gold actions
    assert second.executed == 2 and not second.failed
    clean = second.records[0]
    assert (out / f"{clean.run_id}.incomplete-1" / "ledger.jsonl").exists()  # the failed try
    assert clean.provider_calls > 0 and (clean.cost_usd or 0) > 0
    assert second.spent_usd > 0
    calls = [o for _, o in iter_jsonl(out / clean.run_id / "provider_calls.jsonl")]
    assert all(c["input_tokens"] == 100 and c["output_tokens"] == 20 for c in calls)


def test_cost_budget_stops_new_runs(write: Write, tmp_path: Path, server: Any, key: str) -> None:
    path = write(
        f"""
concurrency = 1
[cases]
ids = ["{EASY}", "{HARD}"]
[budget]
max_cost_usd = 0.001
[[configurations]]
id = "oa"
agent = "openai"
params = {{ model = "fake-model", base_url = "{server.openai_url}", api_key_env = "{key}", \
input_price_per_mtok = 2.0, output_price_per_mtok = 8.0 }}
"""
    )
    result = run_experiment(load_experiment(path), tmp_path / "out")
    assert result.executed == 1  # one clean run costs more than the whole budget
    assert result.spent_usd >= 0.001
    causes = Counter((r.condition, r.cause) for r in result.records)
    assert causes == {
        ("clean", None): 1,
        ("clean", "budget"): 1,
        ("fault", "budget"): 1,
        ("fault", "clean_missing"): 1,
    }
