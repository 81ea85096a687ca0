"""Where episodes run: in this process's worker threads, or as tasks on a Ray cluster.

The engine (:mod:`sscbench.experiments.engine`) decides *what* runs — the protocol, gating,
budget, resume — and stays the only writer of ``schedule.jsonl`` and of the run
directories' final places. An executor only runs one episode and hands back its outcome:

* :class:`LocalExecutor` runs it in this process (a worker thread, or the loop's own thread
  for scripted participants), straight into its directory.
* :class:`RayExecutor` runs it as a Ray task that writes into a private staging directory
  (``DIR/.staging/<run>.<attempt id>``) on storage the driver can see; the driver then
  moves the staged run into place with one rename. A worker killed mid-episode leaves only
  an orphaned staging directory; Ray runs the task again (a fresh attempt id), and the run
  is recorded once. Output directories on a cluster must be on shared storage.

Ray is an optional dependency (``pip install 'sscbench[ray]'``); it is imported only when
the Ray executor is chosen.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import os
import resource
import shutil
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from sscbench.errors import ConfigError
from sscbench.experiments.budget import CallCost, run_cost
from sscbench.experiments.execute import (
    clear_stale,
    execute_into,
    execute_run,
    ledger_digest,
    plays_briefly,
    prewarm,
)
from sscbench.experiments.load import Experiment, UserSetting
from sscbench.experiments.plan import ScheduledRun
from sscbench.llm.rate_limit import (
    Gate,
    GateFactory,
    Limiter,
    LimiterFactory,
    RateLimiter,
    use_gates,
    use_limiters,
)
from sscbench.llm.spread import (
    EndpointLoad,
    Policy,
    Spreader,
    endpoint_name,
    use_spreader,
)
from sscbench.records.events import RunEnd

STAGING_DIR = ".staging"
Outcome = tuple[RunEnd, CallCost, str | None]
"""What an executor hands back: the run's end, its provider cost, its ledger's digest."""
Episode = Callable[[ScheduledRun, UserSetting, bool, Path], RunEnd]
"""Runs one episode into an empty directory (:func:`execute_into`; a benchmark may pass
:func:`~sscbench.experiments.simulated.simulated_episode`)."""


class Executor(Protocol):
    """Runs one scheduled episode to its end."""

    async def run(self, run: ScheduledRun, experiment: Experiment, out: Path) -> Outcome:
        """Run ``run`` into ``out / run.run_id`` and return its outcome."""
        ...

    async def warm(self, domain: str) -> None:
        """Build a domain's lazily cached data wherever episodes will run, once, before
        its first episode (see :func:`~sscbench.experiments.execute.prewarm`)."""
        ...

    def close(self) -> None:
        """Release what the executor holds (threads, a cluster connection)."""
        ...


def _local(run: ScheduledRun, experiment: Experiment, out: Path, episode: Episode) -> Outcome:
    written: list[str | None] = []
    if episode is execute_into:  # its ledger's digest is computed while it is written
        end = execute_run(run, experiment, out, on_ledger=written.append)
    else:
        run_dir = out / run.run_id
        clear_stale(run_dir)
        run_dir.parent.mkdir(parents=True, exist_ok=True)
        end = episode(run, experiment.user, experiment.records_configuration, run_dir)
    digest = written[0] if written and written[0] is not None else None
    return end, run_cost(out / run.run_id), digest or ledger_digest(out / run.run_id)


class LocalExecutor:
    """Episodes in this process (the default): in worker threads, or — when every
    participant is brief work here (:func:`~sscbench.experiments.execute.plays_briefly`:
    the scripted agents and user) — on the event loop's own thread, where a thread gives
    no parallelism (the GIL) and its hand-offs only cost CPU."""

    def __init__(self, episode: Episode = execute_into) -> None:
        self._episode = episode

    async def run(self, run: ScheduledRun, experiment: Experiment, out: Path) -> Outcome:
        """One episode, on this thread if it plays briefly, else in a worker thread."""
        if self._episode is execute_into and plays_briefly(run, experiment.user):
            return _local(run, experiment, out, self._episode)
        return await asyncio.to_thread(_local, run, experiment, out, self._episode)

    async def warm(self, domain: str) -> None:
        """The domain's caches in this process."""
        await asyncio.to_thread(prewarm, domain)

    def close(self) -> None:
        """Nothing to release (the loop owns its thread pool)."""


@dataclass(frozen=True)
class EpisodeJob:
    """What a remote worker needs to run one episode (small and picklable)."""

    run: ScheduledRun
    user: UserSetting
    records_configuration: bool
    out: str


def staging_path(out: Path, run_id: str) -> Path:
    """A fresh staging directory for one attempt of ``run_id`` (an attempt Ray retries
    after a worker died gets a new one, so it never meets the dead attempt's files)."""
    flat = run_id.replace("/", "__")
    return out / STAGING_DIR / f"{flat}.{uuid.uuid4().hex[:12]}"


def run_job(job: EpisodeJob, episode: Episode = execute_into) -> tuple[str, str, str | None]:
    """Run an episode into a fresh staging directory (in a Ray worker); returns the run's
    end as JSON, where it was staged, and its ledger's SHA-256 as the writer hashed it
    (None from an episode that does not report it: the driver then reads the file)."""
    staging = staging_path(Path(job.out), job.run.run_id)
    staging.parent.mkdir(parents=True, exist_ok=True)
    # Beside the staged run, never in it: which process holds the attempt (for operators
    # of a cluster, and for the test that kills a worker mid-episode).
    staging.with_name(staging.name + ".pid").write_text(str(os.getpid()), encoding="utf-8")
    written: list[str | None] = []
    if episode is execute_into:  # its ledger's digest is computed while it is written
        end = execute_into(
            job.run, job.user, job.records_configuration, staging, on_ledger=written.append
        )
    else:
        end = episode(job.run, job.user, job.records_configuration, staging)
    return end.model_dump_json(), str(staging), written[0] if written else None


def commit(staged: Path, run_dir: Path) -> None:
    """Move a staged run into its place (whatever occupied it is set aside first), and
    drop its attempt's pid note: the staging area then holds only unfinished attempts,
    not one file per run of a 100,000-run matrix."""
    clear_stale(run_dir)
    run_dir.parent.mkdir(parents=True, exist_ok=True)
    staged.rename(run_dir)
    staged.with_name(staged.name + ".pid").unlink(missing_ok=True)


LIMITER_PREFIX = "sscbench-rate-limit"


class ClusterRateLimit:
    """A Ray actor holding one provider endpoint's request schedule for the whole cluster:
    every worker reserves its slot here, so the rate is the account's, not each process's."""

    def __init__(self, per_minute: float) -> None:
        self._limiter = RateLimiter(per_minute, clock=time.time)

    def reserve(self, per_minute: float) -> float:
        """Claim the next slot (at the strictest rate asked); the slot's wall-clock time.

        An absolute time, not a delay: the reply may reach the worker late (a loaded
        machine, a busy network), and a delay counted from its arrival would shift the
        request and crowd the next one."""
        self._limiter.tighten(per_minute)
        return time.time() + self._limiter.reserve()


@dataclass
class _RemoteLimiter:
    """A worker's handle on a :class:`ClusterRateLimit` actor."""

    actor: Any
    per_minute: float
    ray: Any

    def acquire(self) -> None:
        """Wait for this request's slot in the cluster-wide schedule."""
        slot = float(self.ray.get(self.actor.reserve.remote(self.per_minute)))
        delay = slot - time.time()  # machines of a cluster share wall-clock time (NTP)
        if delay > 0:
            time.sleep(delay)


def cluster_limiters(ray: Any) -> LimiterFactory:
    """Limiters backed by one named actor per provider endpoint (created on first use)."""

    def factory(provider: str, endpoint: str, per_minute: float) -> Limiter:
        name = f"{LIMITER_PREFIX}:{provider}:{endpoint}"
        actor = (
            ray.remote(ClusterRateLimit)
            .options(name=name, get_if_exists=True, lifetime="detached", num_cpus=0)
            .remote(per_minute)
        )
        return _RemoteLimiter(actor, per_minute, ray)

    return factory


class ClusterGate:
    """A Ray actor (async) bounding the requests in flight to one endpoint across the
    cluster: a worker acquires before each attempt and releases after it."""

    def __init__(self, max_in_flight: int) -> None:
        self._semaphore = asyncio.Semaphore(max_in_flight)

    async def acquire(self) -> None:
        """Wait for a free place."""
        await self._semaphore.acquire()

    async def release(self) -> None:
        """Give the place back."""
        self._semaphore.release()


@dataclass
class _RemoteGate:
    """A worker's handle on a :class:`ClusterGate` actor."""

    actor: Any
    ray: Any

    def acquire(self) -> None:
        """Block until the cluster has a free place for this endpoint."""
        self.ray.get(self.actor.acquire.remote())

    def release(self) -> None:
        """Give the place back (waits for the actor, so the order holds)."""
        self.ray.get(self.actor.release.remote())


def cluster_gates(ray: Any) -> GateFactory:
    """In-flight gates backed by one named async actor per provider endpoint."""

    def factory(provider: str, endpoint: str, max_in_flight: int) -> Gate:
        name = f"{LIMITER_PREFIX}:gate:{provider}:{endpoint}"
        actor = (
            ray.remote(ClusterGate)
            .options(
                name=name,
                get_if_exists=True,
                lifetime="detached",
                num_cpus=0,
                max_concurrency=1000,
            )
            .remote(max_in_flight)
        )
        return _RemoteGate(actor, ray)

    return factory


class ClusterSpreader:
    """A Ray actor (async) holding the in-flight count of every endpoint of the cluster's
    configurations with several ``endpoints``: each attempt asks it which endpoint to use
    and tells it when it is over, so caps and least-in-flight hold cluster-wide."""

    def __init__(self) -> None:
        self._load = EndpointLoad()
        self._changed = asyncio.Condition()

    async def acquire(
        self, provider: str, urls: list[str], caps: list[int | None], policy: Policy
    ) -> str:
        """Wait for room on one of ``urls``; the chosen URL."""
        names = [endpoint_name(provider, u) for u in urls]
        async with self._changed:
            while (chosen := self._load.pick(names, caps, policy)) is None:
                await self._changed.wait()
        return urls[names.index(chosen)]

    async def release(self, provider: str, url: str) -> None:
        """Free the place and wake the waiters."""
        async with self._changed:
            self._load.done(endpoint_name(provider, url))
            self._changed.notify_all()

    async def in_flight(self) -> dict[str, int]:
        """Current counts per endpoint (for tests)."""
        return dict(self._load.in_flight)


SPREADER_NAME = f"{LIMITER_PREFIX}:endpoints"


@dataclass
class _RemoteSpreader:
    """A worker's handle on the :class:`ClusterSpreader` actor."""

    actor: Any
    ray: Any

    def acquire(
        self, provider: str, urls: Sequence[str], caps: Sequence[int | None], policy: Policy
    ) -> str:
        """Block until the cluster has room on one of ``urls``."""
        reply = self.actor.acquire.remote(provider, list(urls), list(caps), policy)
        return str(self.ray.get(reply))

    def release(self, provider: str, url: str) -> None:
        """Give the place back (waits for the actor, so the order holds)."""
        self.ray.get(self.actor.release.remote(provider, url))


def cluster_spreader(ray: Any) -> Spreader:
    """The cluster's one endpoint spreader (a named async actor, created on first use)."""
    actor = (
        ray.remote(ClusterSpreader)
        .options(
            name=SPREADER_NAME,
            get_if_exists=True,
            lifetime="detached",
            num_cpus=0,
            max_concurrency=1000,
        )
        .remote()
    )
    return _RemoteSpreader(actor, ray)


class EpisodeWorker:
    """A Ray actor: one process with its own τ² caches and participant pool, running
    several episodes at once in threads (provider-bound episodes mostly wait). Its provider
    clients take their rate limits from the cluster-wide limiters."""

    def __init__(self, episode: Episode = execute_into) -> None:
        import ray

        self._episode = episode
        use_limiters(cluster_limiters(ray))
        use_gates(cluster_gates(ray))
        use_spreader(cluster_spreader(ray))

    def run(self, job: EpisodeJob) -> tuple[str, str, str | None]:
        """One episode (see :func:`run_job`)."""
        return run_job(job, self._episode)

    def warm(self, domain: str) -> None:
        """The domain's caches in this actor, before its threads arrive at them cold."""
        prewarm(domain)

    def peak_rss_mib(self) -> float:
        """This actor's peak resident memory (for benchmarks of large matrices)."""
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


class RayExecutor:
    """Episodes on a pool of Ray actors (``address``: an existing cluster; None: a local
    one). ``workers`` actors (default: one per CPU of the cluster) each run up to
    ``threads`` episodes at once; a dead actor is restarted and its episodes retried."""

    def __init__(
        self,
        address: str | None,
        concurrency: int,
        workers: int | None = None,
        episode: Episode = execute_into,
    ) -> None:
        try:
            import ray
        except ImportError:
            raise ConfigError(
                "the Ray executor needs Ray: pip install 'sscbench[ray]' (or choose "
                'executor = "local")'
            ) from None
        self._ray: Any = ray  # Ray's own annotations are partial: used through Any
        self._owns = not self._ray.is_initialized()
        if self._owns:
            self._ray.init(
                address=address,
                include_dashboard=False,
                logging_level=logging.ERROR,
                log_to_driver=False,
            )
        cpus = max(1.0, float(self._ray.cluster_resources().get("CPU", 1)))
        count = workers or int(cpus)
        threads = max(1, -(-concurrency // count))
        # More actors than CPUs share them (latency-bound episodes mostly wait). Restarted
        # after a worker's death, and the episodes it held retried; an exception raised by
        # an episode itself never reaches here (run_episode records it).
        share = min(1.0, cpus / count)
        actor = self._ray.remote(num_cpus=share, max_restarts=-1, max_task_retries=3)(EpisodeWorker)
        self._actors: list[Any] = [
            actor.options(max_concurrency=threads).remote(episode) for _ in range(count)
        ]
        self._next = 0

    async def warm(self, domain: str) -> None:
        """The domain's caches in every actor (each is its own process)."""
        await asyncio.gather(*(actor.warm.remote(domain) for actor in self._actors))

    async def run(self, run: ScheduledRun, experiment: Experiment, out: Path) -> Outcome:
        """One episode on the next actor; the staged run is moved into place here."""
        job = EpisodeJob(run, experiment.user, experiment.records_configuration, str(out))
        actor = self._actors[self._next % len(self._actors)]
        self._next += 1
        end_json, staged, digest = await actor.run.remote(job)
        end = RunEnd.model_validate_json(end_json)
        run_dir = out / run.run_id
        await asyncio.to_thread(commit, Path(staged), run_dir)
        # The digest travels with the end: the ledger is not read back (a rename moves it
        # unchanged).
        return end, run_cost(run_dir), digest or ledger_digest(run_dir)

    def close(self) -> None:
        """Stop the actors and the rate limiters, and the local cluster if this executor
        started it."""
        for actor in self._actors:
            self._ray.kill(actor)
        for name in _limiter_names(self._ray):
            self._ray.kill(self._ray.get_actor(name))
        if self._owns:
            self._ray.shutdown()


def _limiter_names(ray: Any) -> list[str]:
    """The cluster-wide rate limiters this session's workers created (named actors)."""
    return [
        name
        for name in ray.util.list_named_actors()
        if isinstance(name, str) and name.startswith(LIMITER_PREFIX)
    ]


def make_executor(experiment: Experiment) -> Executor:
    """The executor an experiment asks for."""
    kind = experiment.executor
    if kind == "local":
        return LocalExecutor()
    if kind == "ray":
        return RayExecutor(experiment.executor_address, experiment.concurrency)
    raise ConfigError(f"unknown executor {kind!r}; choose local or ray")


def with_executor(experiment: Experiment, choice: tuple[str, str | None] | None) -> Experiment:
    """``experiment`` on the executor chosen on the command line (None: as the file says)."""
    if choice is None:
        return experiment
    return dataclasses.replace(experiment, executor=choice[0], executor_address=choice[1])


def clear_staging(out: Path) -> None:
    """Remove the staging area of a finished session: only attempts that never completed
    are left there (a killed worker's), and none of them is any run's result."""
    shutil.rmtree(out / STAGING_DIR, ignore_errors=True)
