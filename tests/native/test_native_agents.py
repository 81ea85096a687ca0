"""The native suite played through the agent interface: a registered agent gets the task's
instruction and the server's tools, and the verifier judges what it did — an agent that
follows the contracts passes every seeded run, one that copies the delivered link fails
the integrity tasks; the scripted τ² agents are refused in one line."""

from __future__ import annotations

import json
from collections.abc import Sequence

import pytest

from sscbench.agents.base import AgentTurn, EpisodeContext
from sscbench.agents.providers.scaffold import agent_scaffold
from sscbench.agents.registry import AGENTS, register_builtin_agents
from sscbench.cli.main import main
from sscbench.envs.calls import ToolCall
from sscbench.native.agents import TOOLS, run_suite_with
from sscbench.records.events import (
    AgentToolCall,
    ParticipantSpec,
    ToolObservation,
    UserMessage,
    VisibleEvent,
)


class ContractAgent:
    """Follows the instruction the way the reference solution does, from the history."""

    def __init__(self, copy_delivered: bool = False) -> None:
        self.copy_delivered = copy_delivered
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

        def call(name: str, **arguments: str) -> AgentTurn:
            return AgentTurn(
                tool_calls=(ToolCall(id=f"c{len(calls)}", name=name, arguments=arguments),)
            )

        if "prepare_export" in instruction and "prepare_export" not in done:
            return call("prepare_export")
        last_name, last = answers[-1] if answers else ("", {})
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
    assert verdicts and all(v.success for v in verdicts), [v for v in verdicts if not v.success]
    assert all(a.tools == TOOLS for a in agents)  # the server's tools, not τ²'s


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
    assert "native suite, test:native" in out and "12/12 seeded runs succeeded" in out


@pytest.mark.parametrize(
    ("agent", "message"),
    [("scripted:gold", "gold plan"), ("nope", "unknown agent")],
)
def test_agents_that_cannot_play_are_one_line_exit_2(
    agent: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["native", "--agent", agent]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0], err
