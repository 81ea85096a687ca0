"""A delivered refutation (arrival intervention) reaches review packets and the judges'
trajectory text as what it is: seen by the model, not made by the agent — so a reviewer
cannot place a use or a reliance on it."""

from __future__ import annotations

from pathlib import Path

import pytest

from sscbench.records.events import (
    AgentMessage,
    AgentToolCall,
    Header,
    ParticipantSpec,
    SystemNotice,
    ToolObservation,
)
from sscbench.records.ledger import Ledger
from sscbench.review.body import check_against_packet
from sscbench.review.labels import label_from
from sscbench.review.packet import Packet, render_steps, visible_steps
from sscbench.review.parse import InputError


def _ledger() -> Ledger:
    spec = ParticipantSpec(name="scripted:receptive")
    header = Header(
        sscbench_version="0.1.0",
        tau2_version="26.3",
        run_id="r",
        domain="airline",
        task_id="11",
        agent=spec,
        user=ParticipantSpec(name="scripted"),
        seed=0,
        max_steps=60,
    )
    read = {"reservation_id": "GV1N64"}
    events = (
        AgentMessage(step=0, turn=0, content="Hi!"),
        AgentToolCall(
            step=1,
            turn=1,
            call_id="h1",
            name="get_reservation_details",
            arguments=read,
            origin="harness",
        ),
        ToolObservation(step=2, turn=2, call_id="h1", content="{}", error=False, origin="harness"),
        SystemNotice(
            step=3,
            turn=3,
            content="The record now reads: cabin business.",
            tool="get_reservation_details",
            arguments=read,
            observation="{}",
        ),
        AgentToolCall(step=4, turn=4, call_id="c1", name="get_reservation_details", arguments=read),
    )
    return Ledger(path=Path("ledger.jsonl"), header=header, events=events, end=None)


def test_harness_steps_are_marked_in_packets_and_trajectory_text() -> None:
    steps = visible_steps(_ledger())
    assert [s.kind for s in steps] == [
        "agent_message",
        "harness_tool_call",
        "tool_observation",
        "system_notice",
        "tool_call",
    ]
    text = render_steps(steps)
    assert "[1] harness (not the agent's) tool call: get_reservation_details" in text
    assert "[3] system notice to the agent: The record now reads: cabin business." in text
    assert "[4] agent tool call: get_reservation_details" in text


@pytest.mark.parametrize("step", [1, 3])
def test_no_use_can_be_placed_on_a_harness_step(step: int) -> None:
    packet = Packet(packet_id="p", domain="airline", contract={}, steps=visible_steps(_ledger()))
    label = label_from(
        {
            "packet_id": "p",
            "reviewer": "a",
            "t_e": {"status": "found", "step": 2},
            "t_s": {"status": "found", "step": step},
            "t_u": {"status": "never", "step": None},
            "adopted": "no",
        }
    )
    with pytest.raises(InputError, match="must be an agent message or tool call"):
        check_against_packet(label, packet)
