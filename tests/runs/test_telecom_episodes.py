"""Telecom episodes: the scripted customer works their phone in τ²'s order, every
reference agent solves every base task, and the device log is the customer's channel."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sscbench.agents.registry import make_agent
from sscbench.envs import load_domain
from sscbench.records.device import DEVICE_FILE
from sscbench.runs.episode import EpisodeSpec, run_episode
from sscbench.users import make_user
from sscbench.users.device import requested_calls

AGENTS = ["scripted:gold", "scripted:careful", "scripted:hasty", "scripted:eager", "scripted:mixed"]


def _device_calls(run: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in (run / DEVICE_FILE).read_text().splitlines()]


def test_gold_plays_every_device_step_in_tau2_order_and_solves_every_task(tmp_path: Path) -> None:
    domain = load_domain("telecom")
    for i, task in enumerate(domain.tasks):
        run = tmp_path / str(i)
        end = run_episode(
            EpisodeSpec("telecom", task.id),
            make_agent("scripted:gold"),
            make_user("scripted"),
            run,
            run_id=f"t{i}",
        )
        assert (end.termination, end.success) == ("user_stop", True), task.id
        gold = [(a.name, a.arguments) for a in task.evaluation_criteria.actions]
        done = [(c["name"], c["arguments"]) for c in _device_calls(run)]
        assert done == [
            g
            for g, a in zip(gold, task.evaluation_criteria.actions, strict=True)
            if a.requestor == "user"
        ], task.id
        ledger = (run / "ledger.jsonl").read_text()
        for call in _device_calls(run):  # each answer reaches the agent in the customer's words
            assert json.dumps(call["content"], ensure_ascii=False)[1:-1] in ledger, task.id


@pytest.mark.parametrize("agent", AGENTS[1:])
def test_every_reference_agent_solves_the_telecom_tasks(agent: str, tmp_path: Path) -> None:
    domain = load_domain("telecom")
    for i, task in enumerate(domain.tasks[::12]):
        end = run_episode(
            EpisodeSpec("telecom", task.id),
            make_agent(agent),
            make_user("scripted"),
            tmp_path / str(i),
            run_id=f"t{i}",
        )
        assert (end.termination, end.success) == ("user_stop", True), (agent, task.id)


def test_careful_reads_the_line_before_acting_on_it(tmp_path: Path) -> None:
    task = next(
        t
        for t in load_domain("telecom").tasks
        if any(a.name == "refuel_data" for a in t.evaluation_criteria.actions)
    )
    names = {}
    for agent in ("scripted:gold", "scripted:careful"):
        run = tmp_path / agent
        run_episode(
            EpisodeSpec("telecom", task.id),
            make_agent(agent),
            make_user("scripted"),
            run,
            run_id=agent,
        )
        events = [json.loads(x) for x in (run / "ledger.jsonl").read_text().splitlines()]
        names[agent] = [e["name"] for e in events if e.get("kind") == "tool_call"]
    assert "get_details_by_id" not in names["scripted:gold"]
    assert "get_details_by_id" in names["scripted:careful"]


def test_without_its_device_steps_a_telecom_task_fails(tmp_path: Path) -> None:
    """A customer who ignores device requests leaves the phone broken: the grade says so."""
    from sscbench.users.scripted import ScriptedUser

    class Deaf(ScriptedUser):
        def next_user_turn(self, history):  # type: ignore[no-untyped-def]
            from sscbench.agents.base import UserTurn

            return UserTurn(text=self.next_message(history))

    task = load_domain("telecom").tasks[0]
    end = run_episode(
        EpisodeSpec("telecom", task.id),
        make_agent("scripted:gold"),
        Deaf(),
        tmp_path / "r",
        run_id="r",
    )
    assert end.success is False
    assert _device_calls(tmp_path / "r") == []


def test_device_requests_in_other_words() -> None:
    tools = ["check_status_bar", "run_speed_test", "set_network_mode_preference", "toggle_data"]
    assert requested_calls("What does your status bar show right now?", tools) == [
        ("check_status_bar", {})
    ]
    assert requested_calls("Could you run a quick speed test?", tools) == [("run_speed_test", {})]
    assert requested_calls(
        'please run `set_network_mode_preference` {"mode": "4g_5g_preferred"} now', tools
    ) == [("set_network_mode_preference", {"mode": "4g_5g_preferred"})]
    assert requested_calls("Please do `toggle_data` and `check_status_bar`.", tools) == [
        ("toggle_data", {}),
        ("check_status_bar", {}),
    ]
    assert requested_calls("Is there anything else I can help you with?", tools) == []
    assert requested_calls("Run `rm_rf` please", tools) == []
