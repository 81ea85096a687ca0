"""Run a batch of clean episodes (tasks × seeds) for one agent and user into a directory.

Inputs are validated before anything is written. A finished run (its ledger ends with
``run_end``) is skipped on a re-run; an unfinished one (a crash) is kept aside under a
``.incomplete-N`` name and run again, so no ledger is ever rewritten or lost.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sscbench.agents.registry import AGENTS, make_agent, register_builtin_agents
from sscbench.envs import load_domain
from sscbench.envs.task_spec import parse_task_spec
from sscbench.errors import ConfigError, LedgerError
from sscbench.fault_contracts.contract import FaultContract
from sscbench.fault_contracts.injection import ContractIntervention
from sscbench.runs.episode import LEDGER_FILE, EpisodeSpec, run_episode
from sscbench.runs.events import RunEnd
from sscbench.runs.ledger import read_ledger
from sscbench.users import USERS, make_user


@dataclass(frozen=True)
class BatchPlan:
    """A validated batch: every (task, seed) episode to run and where."""

    domain: str
    task_ids: tuple[str, ...]
    seeds: tuple[int, ...]
    agent: str
    agent_params: dict[str, Any]
    user: str
    out: Path
    max_steps: int
    contract: FaultContract | None = None
    user_params: dict[str, Any] = field(default_factory=dict)

    def episodes(self) -> Iterator[tuple[str, EpisodeSpec]]:
        """``(run_id, spec)`` for each scheduled episode, in a fixed order."""
        c = self.contract
        for task_id in self.task_ids:
            for seed in self.seeds:
                spec = EpisodeSpec(
                    domain=self.domain,
                    task_id=task_id,
                    seed=seed,
                    max_steps=self.max_steps,
                    case_id=None if c is None else c.contract_id,
                    variants={} if c is None else dict(c.variant),
                    fault=None if c is None else c.model_dump(mode="json"),
                )
                yield run_id_for(self.domain, task_id, self.agent, seed, spec.case_id), spec


@dataclass(frozen=True)
class EpisodeOutcome:
    """What happened to one scheduled episode."""

    run_id: str
    end: RunEnd
    skipped: bool


def _safe(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.+-]", ".", text)


def run_id_for(domain: str, task_id: str, agent: str, seed: int, case_id: str | None = None) -> str:
    """A readable, filesystem-safe run id: ``airline-7-scripted.careful-s0`` for a clean
    run, ``return_date.airline.7.XEHM4B-scripted.hasty-s0`` for a case."""
    head = f"{domain}-{task_id}" if case_id is None else _safe(case_id)
    return f"{head}-{_safe(agent)}-s{seed}"


def plan_batch(
    *,
    domain: str,
    tasks: str,
    agent: str,
    user: str,
    out: Path,
    seeds: tuple[int, ...] = (0,),
    max_steps: int = 100,
    agent_params: dict[str, Any] | None = None,
    contract: FaultContract | None = None,
    user_params: dict[str, Any] | None = None,
) -> BatchPlan:
    """Validate every input (nothing is written) and return the batch plan.

    With a ``contract`` the batch runs that case: its domain and task replace ``domain``
    and ``tasks``, and every episode injects its fault.
    """
    if contract is not None:
        domain, tasks = contract.domain, contract.task_id
    load_domain(domain)
    task_ids = tuple(parse_task_spec(domain, tasks))
    register_builtin_agents()
    if agent not in AGENTS:
        raise ConfigError(f"unknown agent {agent!r}; known: {', '.join(AGENTS.names())}")
    if user not in USERS:
        raise ConfigError(f"unknown user {user!r}; known: {', '.join(USERS.names())}")
    if max_steps < 1:
        raise ConfigError(f"--max-steps must be at least 1, got {max_steps}")
    check_writable(out)
    return BatchPlan(
        domain=domain,
        task_ids=task_ids,
        seeds=seeds,
        agent=agent,
        agent_params=dict(agent_params or {}),
        user=user,
        out=out,
        max_steps=max_steps,
        contract=contract,
        user_params=dict(user_params or {}),
    )


def check_writable(out: Path) -> None:
    probe = out
    while not probe.exists():
        probe = probe.parent
    if not probe.is_dir():
        raise ConfigError(f"output path {out} is under {probe}, which is not a directory")
    if not os.access(probe, os.W_OK):
        raise ConfigError(f"output directory {probe} is not writable")


def finished_end(run_dir: Path) -> RunEnd | None:
    """The run_end of a finished run in ``run_dir``, else ``None``."""
    ledger = run_dir / LEDGER_FILE
    if not ledger.exists():
        return None
    try:
        return read_ledger(ledger).end
    except LedgerError:
        return None


def set_aside(run_dir: Path) -> None:
    """Rename an unfinished run directory to ``<name>.incomplete-N`` (never delete)."""
    n = 1
    while (target := run_dir.with_name(f"{run_dir.name}.incomplete-{n}")).exists():
        n += 1
    run_dir.rename(target)


def run_batch(
    plan: BatchPlan, on_done: Callable[[EpisodeOutcome], None] | None = None
) -> list[EpisodeOutcome]:
    """Run every episode of ``plan`` in order, skipping finished ones."""
    plan.out.mkdir(parents=True, exist_ok=True)
    outcomes = []
    for run_id, spec in plan.episodes():

        def execute(run_dir: Path, spec: EpisodeSpec = spec, run_id: str = run_id) -> RunEnd:
            c = plan.contract
            return run_episode(
                spec,
                make_agent(plan.agent, **plan.agent_params),
                make_user(plan.user, **plan.user_params),
                run_dir,
                run_id=run_id,
                intervention=None if c is None else ContractIntervention(c),
            )

        outcome = run_once(plan.out / run_id, execute)
        outcomes.append(outcome)
        if on_done is not None:
            on_done(outcome)
    return outcomes


def run_once(run_dir: Path, execute: Callable[[Path], RunEnd]) -> EpisodeOutcome:
    """Run into ``run_dir`` unless a finished run is there (an unfinished one is set aside)."""
    end = finished_end(run_dir)
    if end is not None:
        return EpisodeOutcome(run_id=run_dir.name, end=end, skipped=True)
    if run_dir.exists():
        set_aside(run_dir)
    return EpisodeOutcome(run_id=run_dir.name, end=execute(run_dir), skipped=False)
