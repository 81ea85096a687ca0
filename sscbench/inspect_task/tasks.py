"""The Inspect tasks: ``sscbench/adoption`` (fault cases) and ``sscbench/clean`` (controls).

    inspect eval sscbench/adoption --model openai/gpt-4.1 -T operator=write_effect
    inspect eval sscbench/clean --model openai/gpt-4.1 -T operator=write_effect

Each sample is one SSCBench run written to ``run_dir`` (default ``runs/inspect``): the
ledger, hidden log and session log every SSCBench run has, so ``sscbench reconstruct``,
``report`` and the review workflow work on it. Epoch ``e`` is repetition ``e - 1`` (its
seed). The solver is τ²'s loop on the task's model unless the task is given another (any
Inspect solver or agent works after the task's setup; see docs/inspect.md).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from inspect_ai import Epochs, Task, task
from inspect_ai.dataset import Dataset
from inspect_ai.model import get_model
from inspect_ai.scorer import Scorer
from inspect_ai.solver import Solver

from sscbench.agents.base import User
from sscbench.errors import ConfigError
from sscbench.inspect_task.dataset import case_samples, clean_samples, select_cases
from sscbench.inspect_task.scorer import first_repetition, reconstruction, task_success
from sscbench.inspect_task.solver import sscbench_episode, tau2_agent
from sscbench.inspect_task.user import InspectUser
from sscbench.users import make_user

USERS = ("scripted", "simulator")


def _user(kind: str) -> Callable[[], User]:
    if kind not in USERS:
        raise ConfigError(f"unknown user {kind!r}; choose one of {', '.join(USERS)}")
    if kind == "scripted":
        return lambda: make_user("scripted")
    return lambda: InspectUser(get_model(role="user", required=True), asyncio.get_running_loop())


def _task(
    kind: str,
    dataset: Dataset,
    scorer: Scorer,
    run_dir: str,
    user: str,
    solver: Solver | None,
) -> Task:
    """A task whose samples are SSCBench runs in ``run_dir``."""
    return Task(
        dataset=dataset,
        setup=sscbench_episode(run_dir, _user(user)),
        solver=solver or tau2_agent(),
        scorer=scorer,
        epochs=Epochs(1, reducer=first_repetition()),
        metadata={"sscbench": kind, "run_dir": run_dir},
    )


@task
def adoption(
    operator: str | None = None,
    domain: str | None = None,
    case: str | None = None,
    controls: bool = True,
    per_operator: int | None = None,
    cases_dir: str | None = None,
    user: str = "scripted",
    run_dir: str = "runs/inspect",
    max_steps: int | None = None,
    solver: Solver | None = None,
) -> Task:
    """Fault adoption stratified by refutation arrival, one sample per fault case."""
    cases = select_cases(
        operator=operator,
        domain=domain,
        case=case,
        controls=controls,
        per_operator=per_operator,
        cases_dir=cases_dir,
    )
    samples = case_samples(cases, max_steps)
    return _task("adoption", samples, reconstruction(), run_dir, user, solver)


@task
def clean(
    operator: str | None = None,
    domain: str | None = None,
    case: str | None = None,
    per_operator: int | None = None,
    cases_dir: str | None = None,
    user: str = "scripted",
    run_dir: str = "runs/inspect",
    max_steps: int | None = None,
    solver: Solver | None = None,
) -> Task:
    """The clean control tasks of the selected cases: τ²'s task success without a fault."""
    cases = select_cases(
        operator=operator,
        domain=domain,
        case=case,
        controls=False,
        per_operator=per_operator,
        cases_dir=cases_dir,
    )
    return _task("clean", clean_samples(cases, max_steps), task_success(), run_dir, user, solver)
