"""Run a schedule: asyncio on top, synchronous episodes in worker threads.

Episodes are blocking code (the environment, the SDKs), so each runs in a thread through
:func:`asyncio.to_thread` (the local executor plays an episode of only scripted
participants on the loop's thread: no parallelism to gain, only hand-offs to pay); a
semaphore of ``concurrency`` slots bounds how many run at once and the loop's default
executor is sized to match (the stock one has only ``cpu + 4``
threads, far too few for latency-bound provider runs). Per-provider rate limits are
enforced inside the provider client and shared by all threads.

Each scheduled run is one coroutine. A faulted run first awaits its gating clean run's
record, so clean runs and faulted runs of other tasks overlap. Records are appended to the
status file from the event-loop thread only, right after their run ends: a crash loses at
most the runs in flight, whose directories the next session sets aside and redoes.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import time
import traceback
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from sscbench.errors import OutputError
from sscbench.experiments.arrival import with_replay
from sscbench.experiments.budget import Budget, CallCost, run_cost
from sscbench.experiments.execute import clear_stale, finished_run
from sscbench.experiments.executors import Executor, LocalExecutor
from sscbench.experiments.load import Experiment
from sscbench.experiments.plan import RunKey, Schedule, ScheduledRun
from sscbench.experiments.status import Cause, RunRecord, StatusLog
from sscbench.records.events import FailureKind, RunEnd

DETAIL_LIMIT = 300
CAUSES: dict[FailureKind, Cause] = {
    "provider": "provider_error",
    "config": "config_error",
    "harness": "harness_error",
}
"""A failed run's status cause, from its structured failure."""

OnRecord = Callable[[RunRecord, bool], None]
"""Called in the event-loop thread with each final record and whether it ran this session."""


@dataclass
class _Context:
    experiment: Experiment
    out: Path
    log: StatusLog
    budget: Budget
    semaphore: asyncio.Semaphore
    depended_on: frozenset[RunKey]
    """Scheduled runs others wait for (gates, twins): their records are kept for them."""
    on_record: OnRecord | None
    executor: Executor
    futures: dict[RunKey, asyncio.Future[RunRecord]] = field(default_factory=dict)
    warm_lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    warmed: set[str] = field(default_factory=set)

    def future(self, key: RunKey) -> asyncio.Future[RunRecord]:
        """The record-to-be of ``key`` (one of ``depended_on``), made by whichever of the
        run and its first waiter comes first."""
        if key not in self.futures:
            self.futures[key] = asyncio.get_running_loop().create_future()
        return self.futures[key]

    async def record_of(self, key: RunKey) -> RunRecord | None:
        """The final record of a run another waits for: this session's when it is
        scheduled, else the latest one in the status file (``None``: never run)."""
        if key in self.depended_on:
            return await self.future(key)
        return self.log.latest.get(key)


def _base(run: ScheduledRun) -> dict[str, object]:
    return {
        "ts": time.time(),
        "key": run.key.as_dict(),
        "condition": run.condition,
        "configuration": run.configuration.id,
        "domain": run.domain,
        "task_id": run.task_id,
        "operator": run.operator,
        "run_id": run.run_id,
        "gate": None if run.gate is None else run.gate.as_dict(),
    }


def missing(run: ScheduledRun, cause: Cause, detail: str) -> RunRecord:
    """A missing run's record."""
    return RunRecord.model_validate(
        {**_base(run), "state": "missing", "cause": cause, "detail": detail[:DETAIL_LIMIT]}
    )


def ended(run: ScheduledRun, end: RunEnd, cost: CallCost, digest: str | None = None) -> RunRecord:
    """The record of a run that has a ledger: observed (with the ledger's digest, which
    the next session checks before it trusts the run), or missing when it failed."""
    fields = {
        **_base(run),
        "termination": end.termination,
        "success": end.success,
        "steps": end.steps,
        "cost_usd": cost.cost_usd,
        "provider_calls": cost.requests,
    }
    if end.termination == "replay_divergence":  # excluded, never mixed (the hidden log says where)
        detail = "the replayed prefix differed from the unmanipulated twin's recording"
        return RunRecord.model_validate(
            {**fields, "state": "missing", "cause": "replay_divergence", "detail": detail}
        )
    if end.termination != "harness_error":
        return RunRecord.model_validate({**fields, "state": "observed", "ledger_sha256": digest})
    cause: Cause = CAUSES[end.failure.kind] if end.failure is not None else "harness_error"
    if end.failure is not None:
        detail = end.failure.message
    else:  # a ledger from before structured failures: the traceback's last line
        lines = (end.error or "").strip().splitlines()
        detail = lines[-1] if lines else "unknown error"
    return RunRecord.model_validate(
        {**fields, "state": "missing", "cause": cause, "detail": detail[:DETAIL_LIMIT]}
    )


async def _gate(ctx: _Context, run: ScheduledRun) -> RunRecord | None:
    """The missing record if the gate stops this run, else None."""
    assert run.gate is not None
    gate = await ctx.record_of(run.gate)
    if gate is None:
        return missing(run, "clean_missing", "the gating clean run is not scheduled")
    if gate.state == "missing":
        return missing(run, "clean_missing", f"clean run {gate.run_id} is missing ({gate.cause})")
    if not gate.success:
        why = gate.termination or "unknown"
        return missing(run, "gated", f"{run.configuration.id} did not solve the clean task ({why})")
    return None


async def _placed(ctx: _Context, run: ScheduledRun) -> RunRecord | ScheduledRun:
    """A replay arm's run placed on its finished twin, or its missing record."""
    assert run.source is not None
    twin = await ctx.record_of(run.source)
    if twin is None or twin.state == "missing":
        why = "not scheduled" if twin is None else f"{twin.run_id} is missing ({twin.cause})"
        return missing(run, "source_missing", f"the unmanipulated twin {why}")
    placed = await asyncio.to_thread(with_replay, run, ctx.out)
    return missing(run, "no_delivery_point", placed) if isinstance(placed, str) else placed


async def _warm(ctx: _Context, domain: str) -> None:
    if domain in ctx.warmed:
        return
    async with ctx.warm_lock:
        if domain not in ctx.warmed:
            await ctx.executor.warm(domain)
            ctx.warmed.add(domain)


async def _decide(ctx: _Context, run: ScheduledRun) -> tuple[RunRecord, bool]:
    if run.gate is not None and (stop := await _gate(ctx, run)) is not None:
        return stop, False
    if run.source is not None:
        placed = await _placed(ctx, run)
        if isinstance(placed, RunRecord):
            return placed, False
        run = placed
    run_dir = ctx.out / run.run_id
    prior = ctx.log.latest.get(run.key)
    expected = prior.ledger_sha256 if prior is not None else None
    # A run with no status record and nothing at its place has nothing to resume: it skips
    # the thread hop (about 0.15 ms of CPU on the 2-core development machine).
    done = None
    if prior is not None or os.path.lexists(run_dir):
        done = await asyncio.to_thread(finished_run, run_dir, run.run_id, expected)
    if done is not None:
        cost = await asyncio.to_thread(run_cost, run_dir)
        return ended(run, done[0], cost, done[1]), False
    await _warm(ctx, run.domain)
    async with ctx.semaphore:
        if (reason := ctx.budget.exhausted()) is not None:
            await asyncio.to_thread(clear_stale, run_dir)
            return missing(run, "budget", reason), False
        ctx.budget.start()
        end, cost, digest = await ctx.executor.run(run, ctx.experiment, ctx.out)
    ctx.budget.charge(cost)
    return ended(run, end, cost, digest), True


async def _one(ctx: _Context, run: ScheduledRun) -> RunRecord:
    try:
        record, executed = await _decide(ctx, run)
    except OutputError:
        raise  # a full disk: every later run would fail too; the session stops, resumable
    except Exception:  # a harness bug outside the episode: recorded, never fatal to others
        last = traceback.format_exc().strip().splitlines()[-1]
        record, executed = missing(run, "harness_error", last), True
    ctx.log.append(record)
    if run.key in ctx.depended_on:  # faulted runs gated on it, arms placed on it
        ctx.future(run.key).set_result(record)
    if ctx.on_record is not None:
        ctx.on_record(record, executed)
    return record


async def run_schedule(
    experiment: Experiment,
    runs: Iterable[ScheduledRun],
    out: Path,
    log: StatusLog,
    budget: Budget,
    on_record: OnRecord | None = None,
    executor: Executor | None = None,
    *,
    keep: bool = True,
) -> list[RunRecord]:
    """Bring every run of ``runs`` to its final state. Episodes run on ``executor``
    (default: worker threads of this process).

    ``runs`` is a list or a streamed :class:`Schedule`, which is consumed a window at a time
    and never held. Returns the records in schedule order when ``keep`` (``keep=False``:
    an empty list — the caller sees each record through ``on_record`` — so memory does not
    grow with the number of runs)."""
    loop = asyncio.get_running_loop()
    threads = ThreadPoolExecutor(
        max_workers=max(experiment.concurrency, 4), thread_name_prefix="sscbench-episode"
    )
    loop.set_default_executor(threads)
    if isinstance(runs, Schedule):
        ordered, depended_on = True, runs.depended_on()
    else:
        runs = list(runs)
        ordered, depended_on = _gates_first(runs), _depended_on(runs)
    ctx = _Context(
        experiment=experiment,
        out=out,
        log=log,
        budget=budget,
        semaphore=asyncio.Semaphore(experiment.concurrency),
        depended_on=depended_on,
        on_record=on_record,
        executor=executor or LocalExecutor(),
    )
    if not ordered:
        assert isinstance(runs, list)
        records = list(await asyncio.gather(*(_one(ctx, run) for run in runs)))
        return records if keep else []
    window = WINDOW_PER_SLOT * experiment.concurrency + WINDOW_EXTRA
    return await _windowed(ctx, runs, window, keep)


def _depended_on(runs: list[ScheduledRun]) -> frozenset[RunKey]:
    """The keys of ``runs`` that another of them waits for (its gate, its twin)."""
    keys = {run.key for run in runs}
    deps = {dep for run in runs for dep in (run.gate, run.source) if dep is not None}
    return frozenset(deps & keys)


WINDOW_PER_SLOT = 4
WINDOW_EXTRA = 256
"""How many runs are pending at once beyond those in flight (waiting for a slot, a gate or
the resume check): enough to keep every slot fed, few enough that a 100,000-run schedule
is not 100,000 coroutines."""


def _gates_first(runs: list[ScheduledRun]) -> bool:
    """Whether every run another waits for (its gate, its twin) comes before it
    (``plan_runs``' order: all clean runs first, twins before their arms) — then runs can be
    started in order, a window at a time."""
    position = {run.key: i for i, run in enumerate(runs)}
    return all(
        all(dep is None or position.get(dep, -1) < i for dep in (run.gate, run.source))
        for i, run in enumerate(runs)
    )


async def _windowed(
    ctx: _Context, runs: Iterable[ScheduledRun], window: int, keep: bool
) -> list[RunRecord]:
    """Every run, started in schedule order with at most ``window`` pending at once.

    A slot is taken before the next run is drawn and given back when a run settles, so the
    schedule is read at most ``window`` runs ahead. (``asyncio.wait`` over the pending set
    did the same at O(window) per finished run: half of the event loop's CPU in the
    demo.) No deadlock: a pending run waits only for its gate or its twin, which come
    earlier in the order and so are already pending or done."""
    records: list[RunRecord | None] = []
    slots = asyncio.Semaphore(window)
    pending: set[asyncio.Task[None]] = set()
    broken: list[asyncio.Task[None]] = []

    def settled(task: asyncio.Task[None]) -> None:
        pending.discard(task)
        slots.release()
        if not task.cancelled() and task.exception() is not None:
            broken.append(task)  # as a crash would: the runs in flight are abandoned
            for other in pending:  # before any of them starts an episode
                other.cancel()

    async def one(index: int, run: ScheduledRun) -> None:
        record = await _one(ctx, run)
        if keep:
            records[index] = record

    schedule = iter(runs)
    for index in itertools.count():
        await slots.acquire()
        if broken:
            break
        run = next(schedule, None)
        if run is None:
            break
        if keep:
            records.append(None)
        task = asyncio.create_task(one(index, run))
        pending.add(task)
        task.add_done_callback(settled)
    if broken:  # the next session sets aside what the abandoned runs left
        await asyncio.gather(*pending, return_exceptions=True)
        broken[0].result()  # _one records its failures: this is a full disk or a bug
    await asyncio.gather(*pending)
    assert all(r is not None for r in records)
    return [r for r in records if r is not None]
