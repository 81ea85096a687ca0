"""The database-invariant oracle: a run is flagged when its data stops being consistent.

It reads no contract. Three places are checked, and the earliest violation decides:

1. **Delivered observations** — every record in every tool result is checked against the
   invariants mined from the clean database (:mod:`sscbench.oracles.invariants`).
2. **Read-after-write** — a read of an entity must show what the last write to it
   returned, unless another call that names the entity came in between (a protocol
   invariant of any database, not mined: it is what a suppressed write breaks).
3. **The state after a replay** — the agent's write calls are replayed, in order, on a
   fresh *clean* environment of the domain, and the records they return (the
   authoritative state after each write) are checked against the mined invariants; this
   is where an agent's own action, not the tool's report, breaks the data.

A violation is a positive. Its localisation is the step where the agent could first have
acted on it: for a violation in an observation, the first agent event after it (an
observation itself is never a reliance); for a replayed write, that write's call step.
The oracle therefore detects *inconsistency*, not adoption — scoring it against the human
reference shows exactly how far apart those two are.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from sscbench.envs.calls import ToolCall
from sscbench.envs.environment import EpisodeEnvironment, tool_kinds
from sscbench.errors import SSCBenchError
from sscbench.fault_contracts.history import History
from sscbench.oracles.base import (
    OracleSetting,
    Trajectory,
    Verdict,
    history_of,
    next_agent_step,
    register_oracle,
    walked,
)
from sscbench.oracles.invariants import Mined, mine, record_kind, records
from sscbench.registry import Params

_ID_FIELDS = {"reservation": "reservation_id", "order": "order_id", "user": "user_id"}


@dataclass(frozen=True)
class Finding:
    """One violation: where it showed, which rule, and the step it localises to."""

    step: int
    localised: int | None
    where: str
    invariant: str
    detail: str


def _identity(data: Any) -> tuple[str, str] | None:
    kind = record_kind(data)
    if kind is None or not isinstance(data, dict):
        return None
    ident = data.get(_ID_FIELDS[kind])
    return (kind, str(ident)) if ident is not None else None


def observation_findings(history: History, domain: str, mined: Mined) -> list[Finding]:
    """Mined-invariant and read-after-write violations in delivered observations."""
    kinds = tool_kinds(domain)
    written: dict[tuple[str, str], tuple[int, Any]] = {}
    touched: set[tuple[str, str]] = set()
    findings = []
    for d in history.successes():
        after = next_agent_step(history.events, d.step)
        is_write = kinds.get(d.call.name) == "write"
        if d.parsed and mined.invariants:  # no invariant: no record can break one
            for kind, record in walked(records, d):
                ident = _identity(record)
                if is_write and ident is not None:
                    touched.add(ident)
                # A written entity is held only to invariants writes preserve.
                after_write = is_write or ident in touched
                for name, problem in mined.violations(kind, record, after_write=after_write):
                    findings.append(Finding(d.step, after, "observation", name, problem))
        args = json.dumps(d.call.arguments, sort_keys=True)
        if is_write:
            for key in [k for k in written if f'"{k[1]}"' in args]:
                del written[key]  # a write that names the entity: the memory is stale
            ident = _identity(d.data) if d.parsed else None
            if ident is not None:
                written[ident] = (d.step, d.data)
            continue
        ident = _identity(d.data) if d.parsed else None
        if ident is not None and ident in written and written[ident][1] != d.data:
            findings.append(
                Finding(
                    d.step,
                    after,
                    "observation",
                    "read_after_write",
                    f"{ident[0]} {ident[1]} read at step {d.step} differs from what the write "
                    f"at step {written[ident][0]} returned",
                )
            )
    return findings


def replay_findings(history: History, domain: str, mined: Mined) -> list[Finding]:
    """Mined-invariant violations in the state after replaying the agent's writes.

    None when no mined invariant is known to survive a write (telecom mines none): every
    replayed record would be checked against nothing, so the domain is not loaded."""
    if not mined.write_preserved:
        return []
    kinds = tool_kinds(domain)
    env = EpisodeEnvironment.open(domain)
    findings = []
    for call in history.tool_calls():
        if kinds.get(call.name) != "write":
            continue
        try:
            observation = env.execute(
                ToolCall(id=call.call_id, name=call.name, arguments=call.arguments), call.step
            )
        except SSCBenchError:
            continue  # the replay cannot run this call; the observations still count
        if observation.error:
            continue
        try:
            data = json.loads(observation.content)
        except json.JSONDecodeError:
            continue
        for kind, record in records(data):
            for name, problem in mined.violations(kind, record, after_write=True):
                findings.append(Finding(call.step, call.step, "replayed state", name, problem))
    return findings


class DbInvariantOracle:
    """Flags the first violation of a mined (or read-after-write) invariant."""

    name = "db_invariants"

    def __init__(self, replay: bool = True) -> None:
        self.replay = replay

    def judge(self, trajectory: Trajectory) -> Verdict:
        """Positive at the earliest violation; never abstains."""
        domain = trajectory.ledger.header.domain
        mined = mine(domain)
        history = history_of(trajectory)
        findings = observation_findings(history, domain, mined)
        if self.replay:
            findings += replay_findings(history, domain, mined)
        if not findings:
            return Verdict(adopted=False, reason="no invariant violated")
        first = min(findings, key=lambda f: (f.step, f.localised or f.step))
        return Verdict(
            adopted=True,
            t_u=first.localised,
            reason=f"{first.invariant} in {first.where} at step {first.step}: {first.detail}"[:300],
        )


class DbInvariantParams(Params):
    """``replay=False`` checks delivered observations only."""

    replay: bool = True


@register_oracle(
    "db_invariants",
    OracleSetting(
        baseline="B5",
        method="database-invariant checker",
        information="L-DB: invariants mined from the clean database, the agent's writes",
        positive="any invariant violation",
    ),
    DbInvariantParams,
)
def db_invariants(replay: bool = True) -> DbInvariantOracle:
    """Factory; ``replay=False`` checks delivered observations only."""
    return DbInvariantOracle(replay=replay)
