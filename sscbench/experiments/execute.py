"""One scheduled run, synchronously (the engine calls these in worker threads).

A directory holding a finished run of the same key is reused as is. Anything else in the
way — an unfinished ledger (a crash) or a failed one (provider or harness error) — is set
aside under ``<name>.incomplete-N`` (never deleted; reconstruction skips those names) and
the run starts afresh, so each key ends with exactly one run directory.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from pydantic import ValidationError

from sscbench.agents.mitigations import MITIGATIONS, mitigate
from sscbench.agents.providers import ProviderAgent
from sscbench.agents.providers.scaffold import tool_schemas
from sscbench.agents.registry import AGENTS, make_agent, register_builtin_agents
from sscbench.envs import EpisodeEnvironment, load_domain
from sscbench.envs.grading import gold_hashes
from sscbench.experiments.load import Experiment, UserSetting
from sscbench.experiments.plan import ScheduledRun
from sscbench.fault_contracts.injection import ContractIntervention
from sscbench.llm.cache import canonical_json
from sscbench.records.events import RECORD_ADAPTER, Header, RunEnd
from sscbench.records.ledger import read_regular
from sscbench.runs.episode import LEDGER_FILE, EpisodeSpec, run_episode
from sscbench.runs.layout import set_aside
from sscbench.users import USERS, UserSimulator, make_user

T = TypeVar("T")


class ParticipantPool:
    """Idle provider-backed agents and user simulators, for reuse by later episodes.

    Building a provider participant is cheap, but its first request builds an SDK client
    with a TLS context (~30 ms of CPU under the GIL) and a connection pool; with one new
    participant per episode that is paid on every episode. Provider participants reset all
    episode state in ``start`` (scaffold, seed, records), so an idle one is as good as new.
    Scripted participants are always built fresh. At most one participant per concurrent
    episode is ever alive per configuration; the pool lives as long as the process.
    """

    REUSABLE = (ProviderAgent, UserSimulator)

    def __init__(self) -> None:
        self._idle: dict[str, list[Any]] = {}
        self._lock = threading.Lock()

    @staticmethod
    def key(kind: str, name: str, params: dict[str, Any]) -> str:
        """Participants are interchangeable only with identical name and parameters."""
        return canonical_json([kind, name, params])

    def take(self, key: str, build: Callable[[], T]) -> T:
        """An idle participant for ``key``, or a new one."""
        with self._lock:
            idle = self._idle.get(key)
            if idle:
                found: T = idle.pop()
                return found
        return build()

    def give(self, key: str, participant: object) -> None:
        """Return a participant after its episode (kept only if it is reusable)."""
        if isinstance(participant, self.REUSABLE):
            with self._lock:
                self._idle.setdefault(key, []).append(participant)


POOL = ParticipantPool()


def ledger_digest(run_dir: Path) -> str | None:
    """SHA-256 of a run's ledger as it is now (None when it cannot be read)."""
    try:
        return hashlib.sha256((run_dir / LEDGER_FILE).read_bytes()).hexdigest()
    except OSError:
        return None


def finished_run(
    run_dir: Path, run_id: str, expected_sha256: str | None = None
) -> tuple[RunEnd, str] | None:
    """The end record and digest of a finished, non-failed run of ``run_id`` in
    ``run_dir``, else None.

    A finished ledger ends with ``run_end`` (the writer appends it last). Its integrity is
    checked cheaply when the status log recorded the ledger's digest at the end of the run
    — any change since, a corrupt middle line included, means it is not that run — and
    otherwise (a run from before digests, or one that finished just before a crash) by
    reading every line once.
    """
    path = run_dir / LEDGER_FILE
    try:
        data = read_regular(path)  # a named pipe in the ledger's place never blocks a resume
    except OSError:
        return None
    if not isinstance(data, bytes):
        return None
    lines = data.rstrip(b"\n").split(b"\n")
    if not data.endswith(b"\n") or len(lines) < 2:
        return None
    try:
        header = Header.model_validate(json.loads(lines[0]))
        end = RunEnd.model_validate(json.loads(lines[-1]))
    except (ValueError, ValidationError):
        return None
    if header.run_id != run_id or end.termination == "harness_error":
        return None
    digest = hashlib.sha256(data).hexdigest()
    if expected_sha256 is not None:
        return (end, digest) if digest == expected_sha256 else None
    try:
        for line in lines[1:-1]:
            RECORD_ADAPTER.validate_json(line)
    except ValueError:  # pydantic's ValidationError is a ValueError
        return None
    return end, digest


def prewarm(domain_name: str) -> None:
    """Build a domain's lazily cached data once: database, base state digests, gold hashes,
    tool schemas.

    These caches are ``functools.cache`` without a lock, so threads arriving cold at the
    same time would each build them (64 threads loading the airline domain at once cost
    seconds of GIL time). The engine calls this once per domain before the domain's first
    episode.
    """
    domain = load_domain(domain_name)
    if domain.tasks:
        EpisodeEnvironment.open(domain_name, domain.tasks[0]).state_hash()
    gold_hashes(domain_name)
    tool_schemas(domain_name)


def clear_stale(run_dir: Path) -> None:
    """Set aside whatever occupies a run's directory (called when the run is not finished
    there): its place then holds a finished run of its key or nothing, never a partial or
    failed one that a reader might take for a result."""
    if os.path.lexists(run_dir):  # a symbolic link too, even a looping or dangling one
        set_aside(run_dir)


def execute_run(
    run: ScheduledRun,
    experiment: Experiment,
    out: Path,
    on_ledger: Callable[[str | None], None] | None = None,
) -> RunEnd:
    """Run one episode into its directory (setting aside whatever was there); ``on_ledger``
    gets its ledger's SHA-256 as written (see :func:`execute_into`)."""
    run_dir = out / run.run_id
    clear_stale(run_dir)
    run_dir.parent.mkdir(parents=True, exist_ok=True)
    return execute_into(
        run, experiment.user, experiment.records_configuration, run_dir, on_ledger=on_ledger
    )


def episode_spec(run: ScheduledRun, configuration: str | None = None) -> EpisodeSpec:
    """The episode a scheduled run plays (``configuration``: the display id its ledger
    header records, or None)."""
    contract = run.contract
    return EpisodeSpec(
        domain=run.domain,
        task_id=run.task_id,
        seed=run.key.seed,
        max_steps=run.key.max_steps,
        case_id=None if contract is None else contract.contract_id,
        variants=dict(run.variants),
        fault=None if contract is None else contract.model_dump(mode="json"),
        configuration=configuration,
    )


def plays_briefly(run: ScheduledRun, user: UserSetting) -> bool:
    """Whether every participant of ``run`` — its agent, the mitigation it runs behind, the
    user — is registered as brief work in this process (the scripted ones: no model call,
    no network, no client to wait for). The engine then plays the episode on its own
    thread: handing a scripted episode to a worker thread and its outcome back cost about
    0.6 ms of CPU on the 2-core development machine, a tenth of the episode."""
    register_builtin_agents()
    config = run.configuration
    return (
        AGENTS.is_brief(config.agent)
        and USERS.is_brief(user.name)
        and (config.mitigation is None or MITIGATIONS.is_brief(config.mitigation))
    )


def execute_into(
    run: ScheduledRun,
    user_setting: UserSetting,
    records_configuration: bool,
    run_dir: Path,
    *,
    on_ledger: Callable[[str | None], None] | None = None,
) -> RunEnd:
    """Run one episode into ``run_dir`` (which must not hold a run). Takes only what the
    episode needs, so a remote worker can run it from a small, picklable job.
    ``on_ledger`` gets the finished ledger's SHA-256, hashed as its bytes were written
    (so the status line's digest costs no second read of the file)."""
    contract = run.contract
    config = run.configuration
    recorded = records_configuration or config.mitigation is not None
    spec = episode_spec(run, config.id if recorded else None)
    agent_key = POOL.key("agent", config.agent, config.params)
    user_key = POOL.key("user", user_setting.name, user_setting.params)
    agent = POOL.take(agent_key, lambda: make_agent(config.agent, **config.params))
    user = POOL.take(user_key, lambda: make_user(user_setting.name, **user_setting.params))
    end = run_episode(
        spec,
        mitigate(agent, config.mitigation),
        user,
        run_dir,
        run_id=run.run_id,
        intervention=None if contract is None else ContractIntervention(contract),
        arrival=run.arrival,
        on_ledger=on_ledger,
    )
    # Not after an exception: a broken participant is dropped. The inner agent goes back
    # to the pool; a mitigation is built per run.
    POOL.give(agent_key, agent)
    POOL.give(user_key, user)
    return end
