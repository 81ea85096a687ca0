"""Experiments built in memory: what ``sscbench run --case/--contract/--domain`` and
``sscbench demo`` hand to the one executor.

Every episode SSCBench runs goes through :func:`~sscbench.experiments.session.run_experiment`,
so every entry point shares one resume rule (a finished run is kept; a failed or unfinished
one is set aside and run again), one failure classification and one status log. These
command-line experiments differ from an experiment file only in what they schedule: their
runs are not gated, and they keep the flat run directories (``<out>/<run id>``) and the
ledger headers (no configuration id) those commands always wrote, so earlier run
directories resume and their labels stay the same.

Checks happen before anything is written, with the experiment file's own code: unknown
agents or users, parameters an agent rejects, a provider key missing from the environment
(a one-line :class:`ConfigError`, exit 2).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sscbench.cases.caseset import CaseSet, load_case_set
from sscbench.errors import ConfigError
from sscbench.experiments.load import (
    Configuration,
    Experiment,
    resolve_configuration,
    resolve_user,
    with_mitigation,
)
from sscbench.experiments.locate import KeyLines
from sscbench.experiments.plan import RunKey, ScheduledRun, clean_item
from sscbench.experiments.source import Problems
from sscbench.experiments.spec import BudgetEntry
from sscbench.fault_contracts.contract import FaultContract
from sscbench.runs.layout import run_id_for

if TYPE_CHECKING:
    from sscbench.experiments.engine import OnRecord
    from sscbench.experiments.session import SessionResult

COMMAND_LINE = Path("command line")
DEFAULT_MAX_STEPS = 100


_OPTIONS = (
    (re.compile(r"^agents\[\d+\]\.params(\.(\w+))?"), "--agent-param"),
    (re.compile(r"^agents\[\d+\]\.agent"), "--agent"),
    (re.compile(r"^user\.params(\.(\w+))?"), "--user-param"),
    (re.compile(r"^user\.name"), "--user"),
)


class _OptionProblems(Problems):
    """Problems named by command-line option rather than by file key and line."""

    def raise_if_any(self) -> None:
        """Raise every problem as one line, each led by the option it concerns."""
        if not self.items:
            return
        texts = []
        for _, text in self.items:
            for pattern, option in _OPTIONS:
                found = pattern.match(text)
                if found:
                    key = found.group(2) if found.lastindex else None
                    text = (
                        f"{option} {key}" + text[found.end() :]
                        if key
                        else option + text[found.end() :]
                    )
                    break
            texts.append(text)
        raise ConfigError("; ".join(texts))


def command_line_experiment(
    name: str,
    agents: Sequence[tuple[str, dict[str, Any]]],
    *,
    seeds: Sequence[int],
    user: str = "scripted",
    user_params: dict[str, Any] | None = None,
    case_set: CaseSet | None = None,
    concurrency: int = 1,
    mitigations: Sequence[str] = (),
    unmitigated: bool = True,
) -> Experiment:
    """An ungated experiment of ``agents`` (registry name, parameters); one configuration
    per agent, named by it, as the ledgers of these commands always were — and, for each
    of ``mitigations``, the same agent behind it, named ``AGENT+MITIGATION`` (with
    ``unmitigated=False``, only those)."""
    if not seeds:
        raise ConfigError("no seed to run")
    if len(set(seeds)) != len(seeds):
        raise ConfigError("seeds must be distinct (a repeated seed is a replay)")
    problems = _OptionProblems(COMMAND_LINE, KeyLines({}))
    warnings: list[str] = []
    setting = resolve_user(problems, warnings, user, dict(user_params or {}))
    configurations: list[Configuration] = []
    for index, (agent, params) in enumerate(agents):
        config = resolve_configuration(
            problems, warnings, ("agents", index), agent, agent, dict(params), setting
        )
        if config is not None:
            if unmitigated or not mitigations:
                configurations.append(config)
            configurations.extend(
                with_mitigation(config, name, setting, problems) for name in mitigations
            )
    problems.raise_if_any()
    return Experiment(
        source=COMMAND_LINE,
        name=name,
        case_set=case_set or load_case_set(None),
        cases=(),
        configurations=tuple(configurations),
        user=setting,
        seeds=tuple(seeds),
        concurrency=concurrency,
        gate="per_case",
        step_limits={},
        budget=BudgetEntry(),
        warnings=tuple(warnings),
        records_configuration=False,
    )


def fault_runs(
    experiment: Experiment, contracts: Iterable[FaultContract], max_steps: int = DEFAULT_MAX_STEPS
) -> list[ScheduledRun]:
    """Every contract × configuration × seed under fault, ungated. A contract of an
    operator no installed package registers is refused: nothing could label its runs with
    that operator's rules or give them its step limit."""
    from sscbench.operators.registry import operator_names

    known = operator_names()
    runs = []
    for contract in contracts:
        if contract.operator not in known:
            raise ConfigError(
                f"contract {contract.contract_id}: operator {contract.operator!r} is not "
                f"registered (known: {', '.join(known)}); install the package that provides it"
            )
        for config in experiment.configurations:
            for rep, seed in enumerate(experiment.seeds):
                key = RunKey(contract.contract_id, max_steps, config.hash, rep, seed)
                runs.append(
                    ScheduledRun(
                        key=key,
                        condition="fault",
                        configuration=config,
                        domain=contract.domain,
                        task_id=contract.task_id,
                        variants=dict(contract.variant),
                        operator=contract.operator,
                        contract=contract,
                        run_id=run_id_for(
                            contract.domain,
                            contract.task_id,
                            config.id,
                            seed,
                            contract.contract_id,
                        ),
                    )
                )
    return runs


def clean_runs(
    experiment: Experiment,
    tasks: Iterable[tuple[str, str]],
    max_steps: int = DEFAULT_MAX_STEPS,
) -> list[ScheduledRun]:
    """Every (domain, task) × configuration × seed without a fault."""
    runs = []
    for domain, task_id in tasks:
        for config in experiment.configurations:
            for rep, seed in enumerate(experiment.seeds):
                key = RunKey(clean_item(domain, task_id, {}), max_steps, config.hash, rep, seed)
                runs.append(
                    ScheduledRun(
                        key=key,
                        condition="clean",
                        configuration=config,
                        domain=domain,
                        task_id=task_id,
                        variants={},
                        operator=None,
                        contract=None,
                        run_id=run_id_for(domain, task_id, config.id, seed),
                    )
                )
    return runs


def run_case_set(
    case_set: CaseSet,
    agents: Sequence[str],
    out: Path,
    *,
    seeds: Sequence[int] = (0,),
    agent_params: dict[str, Any] | None = None,
    on_record: OnRecord | None = None,
) -> SessionResult:
    """Every case of ``case_set`` under fault × every agent (all built with
    ``agent_params``, e.g. ``{"phrasing": "varied"}``) × every seed, into ``out``."""
    from sscbench.experiments.session import run_experiment

    experiment = command_line_experiment(
        case_set.manifest.name,
        [(agent, dict(agent_params or {})) for agent in agents],
        seeds=seeds,
        case_set=case_set,
    )
    runs = fault_runs(experiment, [c.contract for c in case_set.cases])
    return run_experiment(experiment, out, runs=runs, on_record=on_record)


def run_clean_tasks(
    tasks: Sequence[tuple[str, str]],
    agent: str,
    out: Path,
    *,
    on_record: OnRecord | None = None,
) -> SessionResult:
    """``agent`` once (seed 0) on each (domain, task) without a fault, into ``out``."""
    from sscbench.experiments.session import run_experiment

    experiment = command_line_experiment("clean tasks", [(agent, {})], seeds=(0,))
    return run_experiment(experiment, out, runs=clean_runs(experiment, tasks), on_record=on_record)


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
