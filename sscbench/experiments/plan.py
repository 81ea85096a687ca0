"""The schedule: every run the protocol (docs/measurement.md §4) plans, with its key and its gate.

For each configuration the *clean* runs come first: the task of each selected case, with
the case's interface variants and the case operator's step limit, but no fault. A faulted
run of a case is gated by the matching clean run of the same configuration:

* ``per_case`` (default): one clean run per (configuration, clean task), at the first
  repetition's seed, gates every repetition of every case on that task. This reads the
  protocol (docs/measurement.md §4) literally — a *seed* (a case) is run under fault for a
  configuration only if that configuration solved the matching clean task — and keeps all
  repetitions of a seed–configuration pair together, as the per-pair repetition analysis
  (§6) needs.
* ``per_repetition``: a clean run per repetition; repetition ``rk`` of a case runs under
  fault only if clean ``rk`` was solved (same seed, so the two share a prefix).
* ``none``: the clean runs are still run (their pairing stays available) but gate nothing:
  every faulted run runs — for pilots and smoke tests of agents that rarely solve a task;
  claims under the protocol need a gate.

A run's key is (case, step limit, configuration hash, repetition, seed); its directory is
derived from the key alone, which is what makes a re-run find its finished work.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any, Literal

from sscbench.cases.caseset import Case, slug
from sscbench.experiments import arrival
from sscbench.experiments.load import Configuration, Experiment
from sscbench.fault_contracts.contract import FaultContract
from sscbench.runs.arrival import ArrivalPlan

Condition = Literal["clean", "fault"]
Reps = list[tuple[int, int]]
"""Repetitions as (index, seed)."""


@dataclass(frozen=True, order=True, slots=True)
class RunKey:
    """What identifies a scheduled run across sessions."""

    case: str
    max_steps: int
    config: str
    repetition: int
    seed: int

    def as_dict(self) -> dict[str, Any]:
        """The key as written to the status file."""
        return {
            "case": self.case,
            "max_steps": self.max_steps,
            "config": self.config,
            "repetition": self.repetition,
            "seed": self.seed,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunKey:
        """Read a key back from the status file."""
        return cls(  # a resumed session holds one per run: their strings are shared
            case=sys.intern(str(data["case"])),
            max_steps=int(data["max_steps"]),
            config=sys.intern(str(data["config"])),
            repetition=int(data["repetition"]),
            seed=int(data["seed"]),
        )


@dataclass(frozen=True)
class ScheduledRun:
    """One episode the protocol plans: a clean task or a case under fault."""

    key: RunKey
    condition: Condition
    configuration: Configuration
    domain: str
    task_id: str
    variants: dict[str, Any]
    operator: str | None
    contract: FaultContract | None
    run_id: str
    """Also the run directory, relative to the experiment's output directory."""
    gate: RunKey | None = None
    """The clean run that must be solved first (faulted runs only)."""
    arrival: ArrivalPlan | None = None
    """The delivered refutation of a run under an arrival arm (docs/arrival-interventions.md)."""
    source: RunKey | None = None
    source_run_id: str | None = None
    """The unmanipulated twin a replay arm is placed on (it must finish first)."""


def _variant_suffix(variants: dict[str, Any]) -> str:
    if not variants:
        return ""
    return "+" + ",".join(f"{k}={json.dumps(variants[k])}" for k in sorted(variants))


def clean_item(domain: str, task_id: str, variants: dict[str, Any]) -> str:
    """The ``case`` part of a clean run's key, e.g. ``clean:airline/7``."""
    return f"clean:{domain}/{task_id}{_variant_suffix(variants)}"


def _run_id(condition: Condition, config: Configuration, item: str, key: RunKey) -> str:
    return (
        f"{condition}/{config.dirname}/{slug(item)}.m{key.max_steps}/r{key.repetition}-s{key.seed}"
    )


@dataclass(frozen=True)
class _Cell:
    """One (configuration, case) pair of the matrix, with what both its clean and its
    faulted runs are keyed by."""

    config: Configuration
    reps: Reps
    """The configuration's repetitions (it may run only the first k, r0 first)."""
    clean_reps: Reps
    """Those with a clean run (all of them, or the first, by the gate setting)."""
    case: Case
    steps: int
    variants: dict[str, Any]
    item: str
    """The clean run's ``case`` key part."""


def _cells(experiment: Experiment) -> Iterator[_Cell]:
    """Configuration by configuration, every case of the experiment."""
    every = list(enumerate(experiment.seeds))
    for config in experiment.configurations:
        reps = every[: config.repetitions] if config.repetitions else every
        clean_reps = reps if experiment.gate == "per_repetition" else reps[:1]
        for case in experiment.cases:
            c = case.contract
            variants = dict(c.variant)
            yield _Cell(
                config=config,
                reps=reps,
                clean_reps=clean_reps,
                case=case,
                steps=experiment.step_limit(case.entry.operator),
                variants=variants,
                item=clean_item(c.domain, c.task_id, variants),
            )


def _clean_runs(experiment: Experiment) -> Iterator[ScheduledRun]:
    """Every clean run, configuration by configuration, in first-needed order."""
    planned: set[tuple[str, RunKey]] = set()  # per configuration, as its id is in none
    for cell in _cells(experiment):
        c, config = cell.case.contract, cell.config
        for rep, seed in cell.clean_reps:
            key = RunKey(cell.item, cell.steps, config.hash, rep, seed)
            if (config.id, key) in planned:
                continue
            planned.add((config.id, key))
            yield ScheduledRun(
                key=key,
                condition="clean",
                configuration=config,
                domain=c.domain,
                task_id=c.task_id,
                variants=cell.variants,
                operator=None,
                contract=None,
                run_id=_run_id(
                    "clean", config, f"{c.domain}-{c.task_id}{_variant_suffix(cell.variants)}", key
                ),
            )


def _fault_runs(experiment: Experiment) -> Iterator[ScheduledRun]:
    """Every faulted run, each gated by its configuration's clean run of the case's task."""
    for cell in _cells(experiment):
        c, config, case_id = cell.case.contract, cell.config, cell.case.entry.case_id
        for rep, seed in cell.reps:
            clean_reps = cell.clean_reps
            gate_rep, gate_seed = clean_reps[rep] if len(clean_reps) > 1 else clean_reps[0]
            key = RunKey(case_id, cell.steps, config.hash, rep, seed)
            yield ScheduledRun(
                key=key,
                condition="fault",
                configuration=config,
                domain=c.domain,
                task_id=c.task_id,
                variants=cell.variants,
                operator=cell.case.entry.operator,
                contract=c,
                run_id=_run_id("fault", config, case_id, key),
                gate=None
                if experiment.gate == "none"
                else RunKey(cell.item, cell.steps, config.hash, gate_rep, gate_seed),
            )


def iter_plan(experiment: Experiment) -> Iterator[ScheduledRun]:
    """Every scheduled run in a fixed order — all clean runs, then all faulted runs, then
    the runs under arrival arms — made one at a time, so a 100,000-run matrix is never held
    in memory (:class:`Schedule`)."""
    yield from _clean_runs(experiment)
    yield from _fault_runs(experiment)
    yield from _arrival_runs(experiment, _fault_runs(experiment))


def plan_runs(experiment: Experiment) -> list[ScheduledRun]:
    """Every scheduled run in :func:`iter_plan`'s order, as a list."""
    return list(iter_plan(experiment))


@dataclass(frozen=True)
class Schedule:
    """An experiment's planned runs, streamed: its length and the runs others wait for are
    known without holding the runs (what keeps the driver's memory flat on a large matrix).

    Its order is :func:`iter_plan`'s, so every run another waits for (its gate, its twin)
    comes before it."""

    experiment: Experiment

    def __iter__(self) -> Iterator[ScheduledRun]:
        return iter_plan(self.experiment)

    @cached_property
    def _walked(self) -> tuple[int, frozenset[RunKey]]:
        """One walk of the clean runs and the arrival arms' runs (the faulted ones are
        counted, not made): how many runs there are, and the keys others wait for."""
        clean = [run.key for run in _clean_runs(self.experiment)]
        faulted = sum(len(cell.reps) for cell in _cells(self.experiment))
        waited, arrival = set(clean), 0
        for run in _arrival_runs(self.experiment, _fault_runs(self.experiment)):
            arrival += 1
            if run.source is not None:
                waited.add(run.source)
        return len(clean) + faulted + arrival, frozenset(waited)

    def __len__(self) -> int:
        return self._walked[0]

    def depended_on(self) -> frozenset[RunKey]:
        """The keys other runs wait for: every clean run (a gate) and every twin a replay
        arm is placed on."""
        return self._walked[1]


def _arrival_runs(experiment: Experiment, fault: Iterable[ScheduledRun]) -> Iterator[ScheduledRun]:
    """One run per unit whose randomly assigned arm is not ``none`` (experiments/arrival.py)."""
    design = experiment.arrival
    if design is None:
        return
    cases = {c.entry.case_id: c for c in experiment.cases}
    arms = {
        (u["case"], u["config_hash"], u["repetition"]): u["arm"] for u in arrival_units(experiment)
    }
    for run in fault:
        arm = arms.get((run.key.case, run.key.config, run.key.repetition))
        if arm is None or arm == "none" or run.contract is None:
            continue  # not a unit, or observed by its main run
        calls = arrival.delivery_calls(cases[run.key.case])
        plan = arrival.static_plan(design, arm, calls) or arrival.pending_plan(arm, design, calls)
        replayed = plan.trigger == "at_step" and plan.at_step is None
        item = arrival.tagged(run.key.case, arm)
        key = RunKey(item, run.key.max_steps, run.key.config, run.key.repetition, run.key.seed)
        yield replace(
            run,
            key=key,
            contract=arrival.tagged_contract(run.contract, arm),
            run_id=_run_id("fault", run.configuration, item, key),
            arrival=plan,
            source=run.key if replayed else None,
            source_run_id=run.run_id if replayed else None,
        )


def arrival_units(experiment: Experiment) -> list[dict[str, Any]]:
    """Every arrival unit with its arm (empty without ``arrival_arms``)."""
    if experiment.arrival is None:
        return []
    configs = [(c.id, c.hash, c.repetitions) for c in experiment.configurations]
    return arrival.assignment(experiment.arrival, experiment.cases, configs, experiment.seeds)
