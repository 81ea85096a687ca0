"""The native suite played through the agent interface: a registered agent gets the task's
instruction and the server's tools, and the verifier judges what it did — an agent that
follows the contracts passes every seeded run — rate limits, maintenance windows and write
conflicts included, through the family's tools — one that copies the delivered link fails
the integrity tasks, one that takes a refusal at its word fails the time families; the
scripted τ² agents are refused in one line."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime

import pytest

from sscbench.agents.base import AgentTurn, EpisodeContext
from sscbench.agents.providers.scaffold import agent_scaffold
from sscbench.agents.registry import AGENTS, register_builtin_agents
from sscbench.cli.main import main
from sscbench.envs.calls import ToolCall
from sscbench.native.agents import TOOLS, run_agent, run_suite_with, tools_for
from sscbench.native.tasks import make_family_task
from sscbench.records.events import (
    AgentToolCall,
    ParticipantSpec,
    ToolObservation,
    UserMessage,
    VisibleEvent,
)


class ContractAgent:
    """Follows the instruction the way the reference solution does, from the history."""

    def __init__(self, copy_delivered: bool = False, hasty: bool = False) -> None:
        self.copy_delivered = copy_delivered
        self.hasty = hasty  # calls again at once after a refusal, and writes blindly
        self.spec = ParticipantSpec(name="test:native")
        self.tools: tuple[dict[str, object], ...] | None = None

    def start(self, ctx: EpisodeContext) -> None:
        self.tools = ctx.tools

    def next_turn(self, history: Sequence[VisibleEvent]) -> AgentTurn:
        instruction = next(e.content for e in history if isinstance(e, UserMessage))
        calls = {e.call_id: e.name for e in history if isinstance(e, AgentToolCall)}
        answers = [
            (calls[e.call_id], json.loads(e.content))
            for e in history
            if isinstance(e, ToolObservation)
        ]
        done = [name for name, _ in answers]

        def call(name: str, **arguments: object) -> AgentTurn:
            return AgentTurn(
                tool_calls=(ToolCall(id=f"c{len(calls)}", name=name, arguments=arguments),)
            )

        last_name, last = answers[-1] if answers else ("", {})
        if "update_report" in instruction:
            note = instruction.split("`")[1]
            if last_name == "update_report" and last.get("status") == "saved":
                return AgentTurn(text="Done.")
            if last_name == "update_report" and self.hasty:
                report = next(a for n, a in reversed(answers) if n == "get_report")
                if done.count("update_report") > 1:
                    return AgentTurn(text="Done.")
                return call(
                    "update_report", version=report["version"] + 1, notes=[*report["notes"], note]
                )
            if last_name == "get_report":
                return call("update_report", version=last["version"], notes=[*last["notes"], note])
            return call("get_report")
        if "service_status" in instruction and "service_status" not in done:
            return call("service_status")
        if last_name == "service_status" and last["status"] == "maintenance" and not self.hasty:
            seconds = (
                datetime.fromisoformat(last["until"]) - datetime.fromisoformat(last["server_time"])
            ).total_seconds()
            return call("wait", seconds=seconds)
        if last_name == "issue_link" and "error" in last:
            if self.hasty or "retry_after_seconds" not in last:
                return call("issue_link")
            return call("wait", seconds=last["retry_after_seconds"])
        if "prepare_export" in instruction and "prepare_export" not in done:
            return call("prepare_export")
        if last_name == "download":
            if "expired" in str(last.get("error", "")) and done.count("download") < 2:
                return call("issue_link")
            return AgentTurn(text="Done.")
        if last_name == "issue_link":
            if self.copy_delivered:
                return call("download", link=last["link"])
            return call("resolve_link", handle=last["handle"])
        if last_name == "resolve_link":
            return call("download", link=last["link"])
        return call("issue_link")


def test_an_agent_that_keeps_the_contracts_passes_every_seeded_run() -> None:
    agents: list[ContractAgent] = []

    def make() -> ContractAgent:
        agents.append(ContractAgent())
        return agents[-1]

    verdicts = run_suite_with(make, seeds=range(3))
    assert len(verdicts) == 75
    assert all(v.success for v in verdicts), [v for v in verdicts if not v.success]
    # the server's tools for the task's family, not τ²'s
    assert [a.tools for a in agents[:12]] == [TOOLS] * 12
    names = [{t["function"]["name"] for t in a.tools or ()} for a in agents[12:15]]  # type: ignore[index]
    assert names == [
        {"prepare_export", "issue_link", "resolve_link", "download", "wait"},
        {"prepare_export", "issue_link", "resolve_link", "download", "wait", "service_status"},
        {"get_report", "update_report"},
    ]


@pytest.mark.parametrize(
    ("family", "primary"),
    [
        ("rate_limit", "RETRY_BEFORE_ALLOWED"),
        ("maintenance", "ACTED_DURING_MAINTENANCE"),
        ("version_conflict", "STALE_WRITE"),
    ],
)
def test_a_hasty_agent_breaks_each_familys_contract(family: str, primary: str) -> None:
    task = make_family_task(family, 1)  # type: ignore[arg-type]
    assert run_agent(task, ContractAgent(hasty=True)).primary == primary
    assert run_agent(task, ContractAgent()).primary == "SUCCESS"


def test_a_tool_outside_the_familys_set_is_a_malformed_call() -> None:
    class Strays(ContractAgent):
        def next_turn(self, history: Sequence[VisibleEvent]) -> AgentTurn:
            if any(isinstance(e, ToolObservation) for e in history):
                self.seen = [e for e in history if isinstance(e, ToolObservation)]
                return AgentTurn(text="Done.")
            return AgentTurn(tool_calls=(ToolCall(id="c0", name="get_report", arguments={}),))

    agent = Strays()
    v = run_agent(make_family_task("rate_limit", 0), agent)
    assert agent.seen[0].error and "unknown tool" in agent.seen[0].content
    assert v.primary == "OTHER"
    assert tools_for(make_family_task("rate_limit", 0))[-1]["function"]["name"] == "wait"


def test_an_agent_that_copies_the_delivered_link_fails_the_integrity_tasks() -> None:
    verdicts = run_suite_with(lambda: ContractAgent(copy_delivered=True), seeds=range(2))
    failed = {v.task_id.split("-")[0] for v in verdicts if not v.success}
    assert failed and failed <= {"Q3", "Q4"}
    assert any(v.primary == "MUTATED_TOKEN" for v in verdicts)


def test_provider_agents_get_the_native_tools() -> None:
    ctx = EpisodeContext(domain="native", task=None, seed=0, policy="P", tools=TOOLS)
    assert agent_scaffold(ctx).tools == TOOLS


@pytest.fixture
def registered() -> str:
    register_builtin_agents()
    if "test:native" not in AGENTS:
        AGENTS.add("test:native", ContractAgent)
    return "test:native"


def test_the_command_plays_a_registered_agent(
    registered: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["native", "--agent", registered, "--seeds", "1"]) == 0
    out = capsys.readouterr().out
    assert "native suite, test:native" in out and "25/25 seeded runs succeeded" in out
    assert (
        main(["native", "--agent", registered, "--family", "version_conflict", "--seeds", "2"]) == 0
    )
    out = capsys.readouterr().out
    assert "Q3-version_conflict" in out and "2/2 seeded runs succeeded" in out


@pytest.mark.parametrize(
    ("agent", "message"),
    [
        ("scripted:gold", "gold plan"),
        ("nope", "unknown agent"),
        ("external?", "unknown agent"),
    ],
)
def test_agents_that_cannot_play_are_one_line_exit_2(
    agent: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["native", "--agent", agent]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0], err
