"""A trajectory anomaly detector (the paper's B1): flags what looks wrong in the tool traffic.

It is the kind of generic monitor a harness could run on any tool-using agent: it reads the
conversation and the tools' read/write kinds only — no fault contract, no database, no
domain invariants. Two anomalies are emitted:

* **tool error** — an observation the tool marked as an error;
* **unexplained change** — an entity (a JSON object whose first ``…_id`` field names it)
  shows a different value at some field than the last time it was observed, although no
  write call that names the entity came in between. Data that changes by itself is the
  generic symptom of a stale, corrupted or falsely acknowledged record.

Any anomaly is a positive verdict (as the paper scores B1); its localisation is the first
agent step after the observation that showed it, the earliest point the agent could act on
it. Scoring it against the reference shows how much of "adoption" a symptom monitor
recovers: it never reads the agent's own words.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from sscbench.envs.environment import tool_kinds
from sscbench.fault_contracts.history import Delivered, History
from sscbench.oracles.base import (
    OracleSetting,
    Trajectory,
    Verdict,
    history_of,
    next_agent_step,
    register_oracle,
    walked,
)
from sscbench.registry import Params


@dataclass(frozen=True)
class Anomaly:
    """One emitted anomaly: the observation step that showed it and what it was."""

    step: int
    kind: str
    detail: str


def entity(data: Any) -> str | None:
    """``"<key>=<id>"`` for a JSON object named by its first ``…_id`` field, else None."""
    if not isinstance(data, dict):
        return None
    for key, value in data.items():
        if key.endswith("_id") and isinstance(value, str | int) and not isinstance(value, bool):
            return f"{key}={value}"
    return None


def leaves(value: Any, path: str = "") -> dict[str, Any]:
    """path → scalar for every leaf of parsed JSON, list elements by position, in document
    order (a path met twice keeps its later value).

    Filled by plain recursion into one dict: a generator per level re-yielded every leaf
    through each level above it, the oracles' largest cost on search results."""
    found: dict[str, Any] = {}
    if isinstance(value, (dict, list)):
        _leaves_into(value, path, found)
    else:
        found[path] = value
    return found


def _leaves_into(value: Any, path: str, found: dict[str, Any]) -> None:
    # Called for containers only, a scalar child stored in place: a call per leaf was
    # most of the walk.
    children: Iterable[tuple[Any, Any]] = (
        value.items() if isinstance(value, dict) else enumerate(value)
    )
    for name, child in children:
        if isinstance(child, (dict, list)):
            _leaves_into(child, f"{path}/{name}", found)
        else:
            found[f"{path}/{name}"] = child


def _names(call_arguments: dict[str, Any], ident: str) -> bool:
    value = ident.split("=", 1)[1]
    return f'"{value}"' in json.dumps(call_arguments) or value in {
        str(v) for v in call_arguments.values() if isinstance(v, int | str)
    }


def anomalies(history: History, domain: str) -> list[Anomaly]:
    """Every anomaly in delivery order."""
    kinds = tool_kinds(domain)
    seen: dict[str, tuple[int, dict[str, Any]]] = {}  # entity → (step, leaves) last observed
    writes: list[tuple[int, dict[str, Any]]] = [
        (c.step, c.arguments) for c in history.tool_calls() if kinds.get(c.name) == "write"
    ]
    found: list[Anomaly] = []
    for d in history.delivered:
        if d.observation.error:
            found.append(Anomaly(d.step, "tool error", f"{d.call.name}: {d.observation.content}"))
            continue
        found.extend(_changes(d, seen, writes))
    return found


def _changes(
    d: Delivered, seen: dict[str, tuple[int, dict[str, Any]]], writes: list[tuple[int, Any]]
) -> Iterator[Anomaly]:
    ident = entity(d.data) if d.parsed else None
    if ident is None:
        return
    now = walked(leaves, d)  # read-only: the runs of a task share it
    previous = seen.get(ident)
    seen[ident] = (d.step, now)
    if previous is None:
        return
    since, before = previous
    if any(since < step <= d.call.step and _names(args, ident) for step, args in writes):
        return  # a write named the entity: a change is expected
    changed = sorted(p for p in now.keys() & before.keys() if now[p] != before[p])
    if changed:
        yield Anomaly(
            d.step,
            "unexplained change",
            f"{ident} changed at {', '.join(changed[:3])} since step {since} with no write to it",
        )


class AnomalyDetector:
    """Positive at the first anomaly; never abstains."""

    name = "anomaly_detector"

    def __init__(self, tool_errors: bool = True) -> None:
        self.tool_errors = tool_errors

    def judge(self, trajectory: Trajectory) -> Verdict:
        """The earliest anomaly, localised to the next agent step."""
        events = trajectory.ledger.events
        found = [
            a
            for a in anomalies(history_of(trajectory), trajectory.ledger.header.domain)
            if self.tool_errors or a.kind != "tool error"
        ]
        if not found:
            return Verdict(adopted=False, reason="no anomaly")
        first = found[0]
        after = next_agent_step(events, first.step)
        return Verdict(
            adopted=True,
            t_u=after,
            reason=f"{first.kind} at step {first.step}: {first.detail}"[:300],
        )


class AnomalyParams(Params):
    """``tool_errors=False`` emits unexplained changes only."""

    tool_errors: bool = True


@register_oracle(
    "anomaly_detector",
    OracleSetting(
        baseline="B1",
        method="trajectory anomaly detector",
        information="conversation and the tools' read/write kinds only",
        positive="any emitted anomaly (tool error, unexplained change of an entity)",
    ),
    AnomalyParams,
)
def anomaly_detector(tool_errors: bool = True) -> AnomalyDetector:
    """Factory; ``tool_errors=False`` emits unexplained changes only."""
    return AnomalyDetector(tool_errors=tool_errors)
