"""The virtual clock: declared costs, determinism under a seed, the half-open window, and
its record in the ledger (header spec, per-event ``vt``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sscbench.agents.registry import make_agent
from sscbench.cases.caseset import load_case_set
from sscbench.envs import tool_kinds
from sscbench.envs.clock import ClockSpec, CostModel, VirtualClock, event_times, in_window, iso
from sscbench.fault_contracts.injection import ContractIntervention
from sscbench.records.events import (
    SCHEMA_VERSION,
    AgentMessage,
    AgentToolCall,
    ToolObservation,
    UserMessage,
)
from sscbench.records.ledger import read_ledger
from sscbench.runs.episode import EpisodeSpec, run_episode
from sscbench.users import make_user

KINDS = {"get_order_details": "read", "cancel_pending_order": "write"}
EVENTS = (
    AgentMessage(step=0, turn=0, content="hi"),
    UserMessage(step=1, turn=1, content="hello"),
    AgentToolCall(step=2, turn=2, call_id="c", name="get_order_details", arguments={}),
    ToolObservation(step=3, turn=3, call_id="c", content="{}", error=False),
    AgentToolCall(step=4, turn=4, call_id="d", name="cancel_pending_order", arguments={}),
    ToolObservation(step=5, turn=5, call_id="d", content="{}", error=False),
)


def test_costs_follow_the_declared_model_and_never_wall_time() -> None:
    spec = ClockSpec(
        cost=CostModel(agent_message=1, user_message=2, tool_call={"read": 4, "write": 8})
    )
    # each item happens at the time its predecessors' costs add up to; an observation
    # arrives when its call's cost has passed
    assert event_times(EVENTS, spec, KINDS) == [0, 1, 3, 7, 7, 15]
    clock = VirtualClock(spec, KINDS)
    assert [clock.observe(e) for e in EVENTS] == event_times(EVENTS, spec, KINDS)
    assert clock.now == 15
    assert iso(spec, 90) == "2024-05-15T15:01:30"


def test_jitter_is_deterministic_under_a_seed_and_differs_across_seeds() -> None:
    cost = CostModel(jitter=0.5)
    a = event_times(EVENTS, ClockSpec(cost=cost, seed=1), KINDS)
    assert a == event_times(EVENTS, ClockSpec(cost=cost, seed=1), KINDS)
    assert a != event_times(EVENTS, ClockSpec(cost=cost, seed=2), KINDS)
    assert a != event_times(EVENTS, ClockSpec(), KINDS)


@pytest.mark.parametrize(
    ("t_use", "valid"),
    [(99.999, False), (100.0, True), (129.999, True), (130.0, False), (130.001, False)],
)
def test_the_window_is_half_open(t_use: float, valid: bool) -> None:
    """[t_issue, t_issue + τ): the issue instant is inside, the expiry instant is not."""
    assert in_window(100.0, 30.0, t_use) is valid


def test_a_clocked_run_records_the_clock_and_is_byte_identical_on_rerun(tmp_path: Path) -> None:
    case = next(c for c in load_case_set(None).cases if c.entry.operator == "expiry")
    lines = []
    for name in ("a", "b"):
        run_episode(
            EpisodeSpec(
                domain=case.contract.domain,
                task_id=case.contract.task_id,
                fault=case.contract.model_dump(mode="json"),
            ),
            make_agent("scripted:hasty"),
            make_user("scripted"),
            tmp_path / name,
            run_id="r",
            intervention=ContractIntervention(case.contract),
        )
        text = (tmp_path / name / "ledger.jsonl").read_text()
        lines.append(
            [{k: v for k, v in json.loads(x).items() if k != "ts"} for x in text.splitlines()]
        )
    assert lines[0] == lines[1]
    ledger = read_ledger(tmp_path / "a" / "ledger.jsonl")
    assert ledger.header.clock is not None and ledger.header.schema_version == SCHEMA_VERSION
    spec = ClockSpec.model_validate(ledger.header.clock)
    kinds = tool_kinds(case.contract.domain)
    assert [e.vt for e in ledger.events] == event_times(ledger.events, spec, kinds)


def test_an_unclocked_run_writes_no_clock_fields(tmp_path: Path) -> None:
    run_episode(
        EpisodeSpec(domain="airline", task_id="19"),
        make_agent("scripted:gold"),
        make_user("scripted"),
        tmp_path / "r",
        run_id="r",
    )
    text = (tmp_path / "r" / "ledger.jsonl").read_text()
    assert '"vt"' not in text and '"clock"' not in text
