"""Arrival interventions in an experiment: the design, the arm of each unit, the replay plan.

``arrival_arms = [...]`` in an experiment file (docs/arrival-interventions.md) makes the
arrival time of a refutation an experimental factor. Every faulted run of a case whose
witness reads something (a refutation that is not co-delivered with the fault) is a *unit*
``(case, configuration, repetition)``; its main run is the unmanipulated run as today. Each
unit is assigned one arm at random — a seeded shuffle of the arms per (case, configuration),
dealt out over the repetitions, so that with as many repetitions as arms every arm is run
once per case and configuration. A unit whose arm is ``none`` is observed by its main run;
any other arm adds one run, tagged ``<case>+arrival.<arm>``, that delivers the witness's
reads at the arm's moment. ``before_use`` and ``after_use`` are placed on the unit's main
run (same seed: its twin), which the manipulated run replays up to the delivery point.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sscbench.cases.caseset import Case
from sscbench.envs import tool_kinds
from sscbench.errors import LedgerError
from sscbench.experiments.source import Problems
from sscbench.fault_contracts.contract import FaultContract
from sscbench.fault_contracts.variants import ARRIVAL_TAG
from sscbench.reconstruct.label import label_run
from sscbench.records.events import (
    AgentToolCall,
    SystemNotice,
    ToolObservation,
    VisibleEvent,
    by_agent,
)
from sscbench.records.ledger import iter_jsonl, read_ledger
from sscbench.runs.arrival import (
    REPLAY_ARMS,
    Arm,
    ArrivalPlan,
    DeliveryCall,
    Interface,
    recorded_prefix,
)
from sscbench.runs.episode import LEDGER_FILE

if TYPE_CHECKING:
    from sscbench.experiments.plan import ScheduledRun


@dataclass(frozen=True)
class ArrivalDesign:
    """The arrival factor of an experiment: its arms and how deliveries are made."""

    arms: tuple[Arm, ...]
    interface: Interface = "tool_call"
    k: int | None = None
    seed: int = 0

    def describe(self, units: list[dict[str, Any]]) -> dict[str, Any]:
        """The design and every unit's arm, as written to ``experiment.json``."""
        return {
            "units": units,
            "arms": list(self.arms),
            "interface": self.interface,
            "k": self.k,
            "seed": self.seed,
            "assignment": "seeded shuffle of the arms per (case, configuration), dealt "
            "over the repetitions",
        }


def tagged(case_id: str, arm: str) -> str:
    """The case id of a unit's manipulated run, e.g. ``write_effect/airline/11/0+arrival.at_k``."""
    return f"{case_id}+{ARRIVAL_TAG}{arm}"


def eligible(case: Case) -> bool:
    """A case takes the arrival factor when its witness delivers the refutation by reads
    (not co-delivered with the fault), it is not a target-value control, and it runs on the
    main interface (a paired-check variant of it is not a unit of its own). A witness that
    continues with a write (ResetLeak's gold request) cannot be delivered by the harness."""
    kinds = tool_kinds(case.entry.domain)
    reads = all(kinds.get(c.name) != "write" for c in case.witness.continuation)
    return (
        bool(case.witness.continuation)
        and reads
        and not case.entry.control
        and not case.contract.variant
    )


def delivery_calls(case: Case) -> tuple[DeliveryCall, ...]:
    """The reads the harness runs to deliver the case's refutation: its witness's."""
    return tuple(
        DeliveryCall(name=c.name, arguments=c.arguments) for c in case.witness.continuation
    )


def assign_arms(
    design: ArrivalDesign, case_id: str, config: str, reps: Sequence[int]
) -> dict[int, Arm]:
    """Each repetition's arm for one (case, configuration): seeded, reproducible, balanced."""
    rng = random.Random(f"arrival|{design.seed}|{case_id}|{config}")
    order = list(design.arms)
    rng.shuffle(order)
    return {rep: order[i % len(order)] for i, rep in enumerate(sorted(reps))}


def assignment(
    design: ArrivalDesign,
    cases: Sequence[Case],
    configurations: Sequence[tuple[str, str, int | None]],
    seeds: Sequence[int],
) -> list[dict[str, Any]]:
    """Every unit's arm, in a fixed order: ``configurations`` are (id, hash, repetitions)
    as the plan runs them (a configuration may run only the first k repetitions)."""
    out: list[dict[str, Any]] = []
    for ident, config_hash, count in configurations:
        reps = list(enumerate(seeds))[:count] if count else list(enumerate(seeds))
        for case in cases:
            if not eligible(case):
                continue
            arms = assign_arms(design, case.entry.case_id, config_hash, [r for r, _ in reps])
            out.extend(
                {
                    "case": case.entry.case_id,
                    "configuration": ident,
                    "config_hash": config_hash,
                    "repetition": rep,
                    "seed": seed,
                    "arm": arms[rep],
                }
                for rep, seed in reps
            )
    return out


def resolve_design(
    problems: Problems,
    arms: tuple[Arm, ...],
    interface: Interface,
    k: int | None,
    seed: int,
    cases: Sequence[Case],
) -> ArrivalDesign | None:
    """Check the arrival keys of an experiment file against its selected cases."""
    if not arms:
        if k is not None:
            problems.add(("arrival", "k"), "set arrival_arms too (k places the at_k arm)")
        return None
    for j, arm in enumerate(arms):
        if arm in arms[:j]:
            problems.add(("arrival_arms", j), f"arm {arm!r} is listed twice")
    if "at_k" in arms and k is None:
        problems.add(("arrival_arms",), "the at_k arm needs a step: set k in an [arrival] table")
    if not any(eligible(c) for c in cases):
        problems.add(
            ("arrival_arms",),
            "no selected case delivers its refutation by a read (arrival arms need a case "
            "whose witness has a continuation, e.g. write_effect or item_option)",
        )
    return ArrivalDesign(arms=arms, interface=interface, k=k, seed=seed)


def static_plan(
    design: ArrivalDesign, arm: Arm, calls: tuple[DeliveryCall, ...]
) -> ArrivalPlan | None:
    """The plan of an arm that needs no recorded run (``at_fault``, ``at_k``); None otherwise."""
    if arm == "at_fault":
        return ArrivalPlan(arm=arm, interface=design.interface, calls=calls, trigger="after_fault")
    if arm == "at_k":
        return ArrivalPlan(
            arm=arm, interface=design.interface, calls=calls, trigger="at_step", at_step=design.k
        )
    return None


def _turn_start(events: Sequence[VisibleEvent], step: int) -> int:
    """The first step of the agent turn holding ``step``."""
    turn = events[step].turn
    return min(e.step for e in events if e.turn == turn)


def delivery_point(arm: Arm, events: Sequence[VisibleEvent], t_s: int) -> int | None:
    """Where a replay arm delivers on a run whose first use is ``t_s``: before the agent
    turn holding the first use (``before_use``), or right after that turn and its
    observations, before the next message of the agent or the user (``after_use``); None
    when the run ended there."""
    if arm == "before_use":
        return _turn_start(events, t_s)
    after = events[t_s].turn
    for event in events:
        if event.step > t_s and event.turn != after and not _observation(event):
            return event.step
    return None


def _observation(event: VisibleEvent) -> bool:
    return isinstance(event, ToolObservation | SystemNotice) or (
        isinstance(event, AgentToolCall) and not by_agent(event)
    )


def replay_plan(
    arm: Arm, design: ArrivalDesign, calls: tuple[DeliveryCall, ...], source_dir: Path
) -> ArrivalPlan | str:
    """The plan of a replay arm placed on the recorded run in ``source_dir``, or why none
    can be placed (the reason is the missing run's detail)."""
    try:
        ledger = read_ledger(source_dir / LEDGER_FILE)
        labels = label_run(source_dir)
    except LedgerError as exc:
        return f"the unmanipulated twin cannot be read: {exc}"
    if labels.triggered is not True:
        return "the fault never triggered in the unmanipulated twin"
    if labels.t_s.status != "found" or labels.t_s.step is None:
        return f"the unmanipulated twin has no first use to place {arm} on ({labels.t_s.status})"
    at = delivery_point(arm, ledger.events, labels.t_s.step)
    if at is None:
        return f"the unmanipulated twin ended right after its first use (step {labels.t_s.step})"
    return ArrivalPlan(
        arm=arm,
        interface=design.interface,
        calls=calls,
        trigger="at_step",
        at_step=at,
        source_run_id=ledger.header.run_id,
        source_sha256=content_digest(source_dir / LEDGER_FILE),
        prefix=recorded_prefix(ledger.events, at),
    )


def content_digest(ledger: Path) -> str:
    """SHA-256 of a ledger's lines with wall-clock time dropped: names the twin's content
    without making the manipulated run's header depend on when the twin ran."""
    digest = hashlib.sha256()
    for _, obj in iter_jsonl(ledger):
        obj.pop("ts", None)
        digest.update(json.dumps(obj, sort_keys=True, ensure_ascii=False).encode() + b"\n")
    return digest.hexdigest()


def tagged_contract(contract: FaultContract, arm: str) -> FaultContract:
    """The contract a manipulated run records: the same fault under the tagged case id."""
    return contract.model_copy(update={"contract_id": tagged(contract.contract_id, arm)})


def with_replay(run: ScheduledRun, out: Path) -> ScheduledRun | str:
    """``run`` with its replay plan placed on its twin's finished ledger (or the reason)."""
    assert run.arrival is not None and run.source_run_id is not None
    plan = replay_plan(
        run.arrival.arm, _design_of(run.arrival), run.arrival.calls, out / run.source_run_id
    )
    return plan if isinstance(plan, str) else replace(run, arrival=plan)


def _design_of(plan: ArrivalPlan) -> ArrivalDesign:
    return ArrivalDesign(arms=(plan.arm,), interface=plan.interface)


def pending_plan(arm: Arm, design: ArrivalDesign, calls: tuple[DeliveryCall, ...]) -> ArrivalPlan:
    """A replay arm's plan before its twin has run (placed by :func:`with_replay`)."""
    assert arm in REPLAY_ARMS
    return ArrivalPlan(arm=arm, interface=design.interface, calls=calls, trigger="at_step")
