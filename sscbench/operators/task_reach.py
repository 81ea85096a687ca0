"""What a τ² task can reach and what it refers to, computed from its specification only.

Candidate frames come from task specifications and environment records before any agent
runs: the users a task is about (named in gold arguments or the scenario), their entities,
and every value the gold plan or the scenario mentions (for task-relevance checks).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import Any

from sscbench.envs import load_domain
from sscbench.json_paths import flatten

_USER_ID = re.compile(r"\b[a-z]+_[a-z]+_\d{3,5}\b")


@dataclass(frozen=True)
class TaskReach:
    """One task's users, gold actions, mentioned values and scenario text."""

    domain: str
    task_id: str
    users: tuple[str, ...]
    gold: tuple[tuple[str, dict[str, Any]], ...]
    gold_values: frozenset[str]
    scenario: str

    def mentions(self, value: str) -> bool:
        """True when the gold plan or the scenario refers to ``value``."""
        return value in self.gold_values or value.lower() in self.scenario.lower()


def _scenario_text(task: Any) -> str:
    instructions = task.user_scenario.instructions
    if isinstance(instructions, str):
        return instructions
    parts = (
        instructions.reason_for_call,
        instructions.known_info,
        instructions.unknown_info,
        instructions.task_instructions,
    )
    return "\n".join(p for p in parts if p)


@cache
def task_reach(domain_name: str, task_id: str) -> TaskReach:
    """The reach of one task (cached)."""
    domain = load_domain(domain_name)
    task = domain.task(task_id)
    actions = task.evaluation_criteria.actions if task.evaluation_criteria else None
    gold = tuple((a.name, dict(a.arguments)) for a in actions or [])
    values = frozenset(str(v) for _, args in gold for _, v in flatten(args) if v is not None)
    scenario = _scenario_text(task)
    users = {v for v in values if v in domain.base_db.users}
    users |= {m for m in _USER_ID.findall(scenario) if m in domain.base_db.users}
    for collection in ("reservations", "orders"):
        table = getattr(domain.base_db, collection, None)
        if table is None:
            continue
        users |= {table[v].user_id for v in values if v in table}
        users |= {table[m].user_id for m in re.findall(r"#?W?\w{6,8}", scenario) if m in table}
    return TaskReach(
        domain=domain_name,
        task_id=task_id,
        users=tuple(sorted(users)),
        gold=gold,
        gold_values=values,
        scenario=scenario,
    )
