"""Run agents over a case set: every (case, agent, seed) episode with its fault injected.

Finished runs are skipped on a re-run (a ledger that ends with ``run_end``); unfinished
ones are set aside and run again, as for clean batches.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from sscbench.agents import make_agent
from sscbench.fault_contracts.contract import FaultContract
from sscbench.fault_contracts.injection import ContractIntervention
from sscbench.runs.episode import EpisodeSpec, run_episode
from sscbench.runs.events import RunEnd
from sscbench.runs.runner import EpisodeOutcome, run_id_for, run_once
from sscbench.users import make_user
from sscbench.witnesses.caseset import CaseSet


def run_cases(
    case_set: CaseSet,
    agents: Iterable[str],
    out: Path,
    *,
    seeds: Iterable[int] = (0,),
    user: str = "scripted",
    on_done: Callable[[EpisodeOutcome], None] | None = None,
    agent_params: dict[str, Any] | None = None,
) -> list[EpisodeOutcome]:
    """Run every case of ``case_set`` with every agent and seed into ``out`` (every agent
    built with ``agent_params``, e.g. ``{"phrasing": "varied"}`` for scripted agents)."""
    out.mkdir(parents=True, exist_ok=True)
    outcomes = []
    for case in case_set.cases:
        c = case.contract
        for agent in agents:
            for seed in seeds:
                run_id = run_id_for(c.domain, c.task_id, agent, seed, c.contract_id)
                spec = EpisodeSpec(
                    domain=c.domain,
                    task_id=c.task_id,
                    seed=seed,
                    case_id=c.contract_id,
                    variants=dict(c.variant),
                    fault=c.model_dump(mode="json"),
                )

                def execute(
                    run_dir: Path,
                    spec: EpisodeSpec = spec,
                    agent: str = agent,
                    contract: FaultContract = c,
                ) -> RunEnd:
                    return run_episode(
                        spec,
                        make_agent(agent, **(agent_params or {})),
                        make_user(user),
                        run_dir,
                        run_id=run_dir.name,
                        intervention=ContractIntervention(contract),
                    )

                outcome = run_once(out / run_id, execute)
                outcomes.append(outcome)
                if on_done is not None:
                    on_done(outcome)
    return outcomes


def control_tasks(case_set: CaseSet, per_operator: int) -> list[tuple[str, str]]:
    """(domain, task id) of the clean negative controls: for each operator, the first
    ``per_operator`` distinct tasks of its (non-control) cases in case-set order — the
    paper's "ten clean trajectories per operator", chosen without looking at any run."""
    chosen: list[tuple[str, str]] = []
    counts: dict[str, int] = {}
    for case in case_set.cases:
        c = case.contract
        task = (c.domain, c.task_id)
        if c.control or task in chosen or counts.get(c.operator, 0) >= per_operator:
            continue
        chosen.append(task)
        counts[c.operator] = counts.get(c.operator, 0) + 1
    return chosen


def run_clean_controls(
    tasks: Iterable[tuple[str, str]],
    agent: str,
    out: Path,
    *,
    user: str = "scripted",
    on_done: Callable[[EpisodeOutcome], None] | None = None,
) -> list[EpisodeOutcome]:
    """Run ``agent`` once (seed 0) on each task without a fault, into ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    outcomes = []
    for domain, task_id in tasks:
        spec = EpisodeSpec(domain=domain, task_id=task_id)

        def execute(run_dir: Path, spec: EpisodeSpec = spec) -> RunEnd:
            return run_episode(
                spec, make_agent(agent), make_user(user), run_dir, run_id=run_dir.name
            )

        outcome = run_once(out / run_id_for(domain, task_id, agent, 0), execute)
        outcomes.append(outcome)
        if on_done is not None:
            on_done(outcome)
    return outcomes
