"""One invocation of an experiment: lock the directory, plan, run, summarise.

``DIR/experiment.json`` records the resolved experiment (configurations with their
hashes and parameters — never a key), ``DIR/schedule.jsonl`` the status of every run and
``DIR/summary.json`` the counts of the last session. The first two are what a reader needs
to interpret the run directories; the summary is a convenience, rewritten atomically.
"""

from __future__ import annotations

import asyncio
import json
import os
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence, Sized
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sscbench.errors import ConfigError, OutputError
from sscbench.experiments.budget import Budget, directory_spend
from sscbench.experiments.engine import OnRecord, run_schedule
from sscbench.experiments.executors import Executor, clear_staging, make_executor
from sscbench.experiments.load import Experiment
from sscbench.experiments.plan import Schedule, ScheduledRun, arrival_units
from sscbench.experiments.status import STATUS_FILE, RunRecord, StatusLog, exclusive
from sscbench.llm.local_server import keep_logs_in

EXPERIMENT_FILE = "experiment.json"
SUMMARY_FILE = "summary.json"
EXPERIMENT_SCHEMA = 1
"""Version of ``experiment.json`` and ``summary.json`` (files from before it was written
have no ``schema_version`` and are version 1)."""


FAILED_KEPT = 100
"""How many failed runs' records a session keeps to show (all are counted)."""


@dataclass
class Tally:
    """The counts of one session's records, kept as they arrive instead of the records
    themselves (what a summary needs, in memory that does not grow with the schedule)."""

    scheduled: int = 0
    configurations: dict[str, Counter[str]] = field(default_factory=dict)
    causes: Counter[str] = field(default_factory=Counter)
    failed: list[RunRecord] = field(default_factory=list)
    failed_count: int = 0

    def add(self, r: RunRecord) -> None:
        """Count one final record."""
        self.scheduled += 1
        row = self.configurations.setdefault(r.configuration, Counter())
        if r.state == "observed":
            row[f"{r.condition}_observed"] += 1
            if r.condition == "clean" and r.success:
                row["clean_solved"] += 1
        else:
            row[f"{r.condition}_missing_{r.cause}"] += 1
            self.causes[str(r.cause)] += 1
        if r.failed:
            self.failed_count += 1
            if len(self.failed) < FAILED_KEPT:
                self.failed.append(r)


@dataclass(frozen=True)
class SessionResult:
    """What one invocation did: its counts, and its records when they were kept
    (``run_experiment(keep_records=True)``, the default; large matrices pass False)."""

    out: Path
    tally: Tally
    records: tuple[RunRecord, ...]
    executed: int
    spent_usd: float
    unpriced: bool

    @property
    def scheduled(self) -> int:
        """How many runs the session brought to a final state."""
        return self.tally.scheduled

    @property
    def failed(self) -> list[RunRecord]:
        """Runs missing because something broke (the next invocation retries them); at
        most the first :data:`FAILED_KEPT` — :attr:`failed_count` counts them all."""
        return list(self.tally.failed)

    @property
    def failed_count(self) -> int:
        """How many runs failed."""
        return self.tally.failed_count

    def counts(self) -> dict[str, dict[str, int]]:
        """Per configuration: ``clean_solved``, ``clean_observed``, ``fault_observed`` and
        ``missing_<cause>`` counts."""
        table = self.tally.configurations
        return {name: dict(sorted(row.items())) for name, row in table.items()}


def _write_json(path: Path, obj: Any) -> None:
    """Write ``path`` whole or not at all: a temporary sibling renamed over it (removed if
    the disk fills first)."""
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    except OSError as exc:
        raise OutputError(path, exc) from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(obj, fh, indent=1, sort_keys=True, ensure_ascii=False)
            fh.write("\n")
        os.replace(tmp, path)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise OutputError(path, exc) from None


def describe(experiment: Experiment) -> dict[str, Any]:
    """The resolved experiment as written to ``experiment.json`` (no secrets in it)."""
    manifest = experiment.case_set.manifest
    return {
        "schema_version": EXPERIMENT_SCHEMA,
        "name": experiment.name,
        "source": str(experiment.source),
        "case_set": {
            "root": str(experiment.case_set.root),
            "name": manifest.name,
            "version": manifest.version,
            "cases": [c.entry.case_id for c in experiment.cases],
        },
        "seeds": list(experiment.seeds),
        "gate": experiment.gate,
        "concurrency": experiment.concurrency,
        "executor": experiment.executor,
        "step_limits": experiment.step_limits,
        "budget": experiment.budget.model_dump(),
        "user": {"name": experiment.user.name, "params": experiment.user.params},
        "configurations": [
            {
                "id": c.id,
                "agent": c.agent,
                "params": c.params,
                "hash": c.hash,
                "dir": c.dirname,
            }
            | ({} if c.mitigation is None else {"mitigation": c.mitigation})
            for c in experiment.configurations
        ],
    } | (
        {}
        if experiment.arrival is None
        else {"arrival": experiment.arrival.describe(arrival_units(experiment))}
    )


OPERATIONAL_SETTINGS = ("source", "name", "budget", "concurrency", "executor", "schema_version")
"""What may change between sessions of one experiment without making it another one."""


def check_same_experiment(out: Path, experiment: Experiment) -> None:
    """Refuse to run a different experiment into a directory that holds one: its
    ``experiment.json`` would be overwritten and one report would mix two experiments.

    The same file resumed (even edited: more repetitions, a new configuration) is the same
    experiment, and so is another file that differs only operationally (a raised budget,
    more concurrency); repeated command-line runs into one directory are fine too."""
    path = out / EXPERIMENT_FILE
    if not path.exists():
        return
    try:
        previous = json.loads(path.read_text(encoding="utf-8"))
        source = previous["source"]
    except (OSError, ValueError, TypeError, KeyError):
        raise ConfigError(
            f"{path} is unreadable; use a new --out, or remove the file if {out} holds no runs"
        ) from None
    current = describe(experiment)
    if source == current["source"]:
        return
    same = all(previous.get(k) == v for k, v in current.items() if k not in OPERATIONAL_SETTINGS)
    if not same:
        raise ConfigError(
            f"{out} holds runs of {source}, a different experiment from {experiment.source}; "
            "run it into a new --out"
        )


def run_experiment(
    experiment: Experiment,
    out: Path,
    *,
    runs: Sequence[ScheduledRun] | Schedule | None = None,
    on_start: Callable[[Sized, Budget], None] | None = None,
    on_record: OnRecord | None = None,
    executor: Executor | None = None,
    keep_records: bool = True,
) -> SessionResult:
    """Run (or resume) ``experiment`` into ``out``; ``runs`` overrides the planned schedule
    (a list, or a :class:`Schedule`, which is streamed),
    ``executor`` the one the experiment names (it is closed at the end either way).

    The planned schedule is streamed (:class:`Schedule`); with ``keep_records=False`` the
    result holds counts only, so the driver's memory stays flat however many runs there
    are (docs/ray.md)."""
    schedule: Sequence[ScheduledRun] | Schedule = Schedule(experiment) if runs is None else runs
    with exclusive(out):
        check_same_experiment(out, experiment)
        log = StatusLog(out / STATUS_FILE)  # a damaged status file stops us before any write
        tally = Tally()
        try:
            keep_logs_in(out)  # a managed local model server logs beside the runs it serves
            _write_json(out / EXPERIMENT_FILE, describe(experiment))
            log.session(str(experiment.source), experiment.name, len(schedule))
            budget = Budget(experiment.budget, *directory_spend(out))
            if on_start is not None:
                on_start(schedule, budget)
            executed = 0

            def record(rec: RunRecord, ran: bool) -> None:
                nonlocal executed
                executed += ran
                tally.add(rec)
                if on_record is not None:
                    on_record(rec, ran)

            executor = executor or make_executor(experiment)
            try:
                records = asyncio.run(
                    run_schedule(
                        experiment, schedule, out, log, budget, record, executor, keep=keep_records
                    )
                )
            finally:
                executor.close()
            clear_staging(out)  # only attempts of killed workers can be left there
        finally:
            log.close()
        result = SessionResult(
            out=out,
            tally=tally,
            records=tuple(records),
            executed=executed,
            spent_usd=budget.spent_usd,
            unpriced=budget.unpriced,
        )
        _write_json(
            out / SUMMARY_FILE,
            {
                "schema_version": EXPERIMENT_SCHEMA,
                "ts": time.time(),
                "scheduled": tally.scheduled,
                "executed_this_session": executed,
                "spent_usd": budget.spent_usd,
                "unpriced_calls": budget.unpriced,
                "configurations": result.counts(),
            },
        )
    return result
