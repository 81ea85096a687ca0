"""Large schedules: the engine starts runs a window at a time without deadlocking on
gates, records every run once, and resumes; simulated episodes (no τ²) keep it fast."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from sscbench.experiments import (
    RunRecord,
    Schedule,
    ScheduledRun,
    engine,
    load_experiment,
    plan_runs,
    read_status,
    run_experiment,
)
from sscbench.experiments.executors import LocalExecutor
from sscbench.experiments.simulated import simulated_episode
from sscbench.experiments.status import STATUS_FILE

Write = Callable[..., Path]


def test_a_narrow_window_gives_the_same_records_and_resumes(
    write: Write, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write(
        """
concurrency = 1
repetitions = 3
gate = "per_repetition"
[cases]
per_operator = 3
[[configurations]]
id = "hasty"
agent = "scripted:hasty"
[[configurations]]
id = "gold"
agent = "scripted:gold"
"""
    )
    experiment = load_experiment(path)
    runs = plan_runs(experiment)
    wide = run_experiment(experiment, tmp_path / "wide", executor=LocalExecutor(simulated_episode))
    monkeypatch.setattr(engine, "WINDOW_EXTRA", 0)  # 4 pending at once, ~100 runs
    narrow = run_experiment(
        experiment, tmp_path / "narrow", executor=LocalExecutor(simulated_episode)
    )
    assert len(runs) > 20 * (engine.WINDOW_PER_SLOT * experiment.concurrency)
    strip = {"ts", "ledger_sha256"}
    assert [r.model_dump(exclude=strip) for r in narrow.records] == [
        r.model_dump(exclude=strip) for r in wide.records
    ]
    states = {(r.condition, r.state, r.cause) for r in narrow.records}
    assert ("fault", "missing", "gated") in states and ("fault", "observed", None) in states
    again = run_experiment(
        experiment, tmp_path / "narrow", executor=LocalExecutor(simulated_episode)
    )
    assert again.executed == 0 and len(again.records) == len(runs)


ARRIVAL = """
repetitions = 5
gate = "per_repetition"
arrival_arms = ["none", "at_fault", "before_use", "after_use", "at_k"]
[arrival]
k = 9
[cases]
ids = ["write_effect/airline/11/0", "write_effect/airline/12/4"]
[[configurations]]
id = "hasty"
agent = "scripted:hasty"
[[configurations]]
id = "gold"
agent = "scripted:gold"
repetitions = 3
"""


def test_the_streamed_schedule_is_the_plan(write: Write) -> None:
    """Length, order and the keys others wait for, without holding the runs — including
    runs under arrival arms (twins) and a configuration with fewer repetitions."""
    experiment = load_experiment(write(ARRIVAL))
    runs = plan_runs(experiment)
    schedule = Schedule(experiment)
    assert list(schedule) == runs
    assert len(schedule) == len(runs)
    waited = {dep for run in runs for dep in (run.gate, run.source) if dep is not None}
    assert schedule.depended_on() == waited
    assert any(run.source is not None for run in runs)  # the twins are in it


def test_a_streamed_session_keeps_counts_not_records(
    write: Write, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``keep_records=False`` gives the same status file and counts, holds no records,
    and draws runs from the schedule only a window ahead of the finished ones."""
    experiment = load_experiment(write(ARRIVAL))
    kept = run_experiment(experiment, tmp_path / "kept", executor=LocalExecutor(simulated_episode))

    drawn = finished = lead = 0

    class Watched(Schedule):
        def __iter__(self) -> Iterator[ScheduledRun]:
            nonlocal drawn, lead
            for run in super().__iter__():
                drawn += 1
                lead = max(lead, drawn - finished)
                yield run

    def done(record: RunRecord, ran: bool) -> None:
        nonlocal finished
        finished += 1

    monkeypatch.setattr(engine, "WINDOW_EXTRA", 0)
    streamed = run_experiment(
        experiment,
        tmp_path / "streamed",
        runs=Watched(experiment),
        on_record=done,
        executor=LocalExecutor(simulated_episode),
        keep_records=False,
    )
    assert streamed.records == () and len(kept.records) == streamed.scheduled == drawn
    assert streamed.counts() == kept.counts() and streamed.tally.causes == kept.tally.causes
    assert kept.failed_count == streamed.failed_count == 0
    window = engine.WINDOW_PER_SLOT * experiment.concurrency  # + the one drawn before waiting
    assert lead <= window + 1 < drawn // 2

    def status(out: Path) -> list[dict[str, object]]:
        latest = read_status(out / STATUS_FILE)
        strip = {"ts", "ledger_sha256"}
        return sorted((r.model_dump(exclude=strip) for r in latest.values()), key=str)

    assert status(tmp_path / "streamed") == status(tmp_path / "kept")


def test_a_resumed_session_holds_earlier_records_as_lines(tmp_path: Path) -> None:
    """The status log's view of earlier sessions is :func:`read_status`'s — latest valid
    record per key, session lines and cut or foreign lines skipped — held as raw lines and
    forgotten as the session settles each key."""
    from sscbench.experiments.status import PriorRecords, RunRecord

    def record(case: str, state: str, ts: float) -> RunRecord:
        key = {"case": case, "max_steps": 30, "config": "h", "repetition": 0, "seed": 0}
        return RunRecord.model_validate(
            {
                "ts": ts,
                "key": key,
                "condition": "clean",
                "configuration": "x",
                "domain": "retail",
                "task_id": "0",
                "run_id": f"clean/{case}",
                "state": state,
                "cause": None if state == "observed" else "harness_error",
            }
        )

    path = tmp_path / STATUS_FILE
    lines = [
        '{"kind": "session", "ts": 1.0, "experiment": "e", "name": "e", "scheduled": 2, "pid": 1}',
        record("a", "missing", 2.0).model_dump_json(),
        record("b", "observed", 3.0).model_dump_json(),
        record("a", "observed", 4.0).model_dump_json(),
        '{"kind": "run", "ts": 5.0, "key": {"case": "b"}}',  # not a record: the last valid stays
        record("c", "observed", 6.0).model_dump_json()[:40],  # cut by a crash
    ]
    path.write_text("\n".join(lines), encoding="utf-8")
    prior, expected = PriorRecords(path), read_status(path)
    assert len(prior) == len(expected) == 2
    for key, want in expected.items():
        assert prior.get(key) == want
    a = record("a", "observed", 0).run_key
    assert prior.pop(a) == expected[a] and prior.get(a) is None and len(prior) == 1


def test_a_full_disk_stops_drawing_runs_and_leaves_those_in_flight(
    write: Write, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run that cannot write its files stops the session at once: no run is started
    after it, the runs already pending are abandoned as a crash would leave them, and the
    error is the one raised."""
    import errno
    import signal

    from sscbench.errors import OutputError

    experiment = load_experiment(write("concurrency = 1\n" + ARRIVAL))
    started = 0

    def fills_the_disk(
        run: ScheduledRun, user: object, records_configuration: bool, run_dir: Path
    ) -> object:
        nonlocal started
        started += 1
        if started == 6:
            raise OutputError(run_dir / "ledger.jsonl", OSError(errno.ENOSPC, "No space"))
        return simulated_episode(run, user, records_configuration, run_dir)  # type: ignore[arg-type]

    def hung(signum: int, frame: object) -> None:
        raise AssertionError("the session hung after the failure (a gate never settled)")

    monkeypatch.setattr(engine, "WINDOW_EXTRA", 0)
    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(60)
    try:
        with pytest.raises(OutputError, match=r"ledger\.jsonl"):
            run_experiment(
                experiment,
                tmp_path / "full",
                executor=LocalExecutor(fills_the_disk),  # type: ignore[arg-type]
                keep_records=False,
            )
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    # Concurrency 1: at most the run already handed its slot when the failure surfaced.
    assert started <= 7
    assert len(read_status(tmp_path / "full" / STATUS_FILE)) == 5
