"""Grading on live state: oracle-integrity invariants and known-answer controls."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from sscbench.agents import AgentTurn, EpisodeContext, make_agent
from sscbench.envs import EpisodeEnvironment, ToolCall, load_domain
from sscbench.envs.grading import communicated, compute_gold_hashes, gold_hashes, grade
from sscbench.runs.episode import EpisodeSpec, run_episode
from sscbench.runs.events import AgentMessage, ParticipantSpec, VisibleEvent
from sscbench.runs.ledger import read_ledger
from sscbench.users import make_user


class SayOnly:
    """CTL-1: talks politely and does nothing."""

    spec = ParticipantSpec(name="test:say-only")

    def start(self, ctx: EpisodeContext) -> None:
        pass

    def next_turn(self, history: Sequence[VisibleEvent]) -> AgentTurn:
        return AgentTurn(text="I'm sorry, I cannot help with that. Is there anything else?")


def _needs_action(domain: str, task_id: str) -> bool:
    task = load_domain(domain).task(task_id)
    changes_state = gold_hashes(domain)[task_id] != EpisodeEnvironment.open(domain).state_hash()
    return changes_state or bool(task.evaluation_criteria.communicate_info)


@pytest.mark.parametrize("domain", ["airline", "retail"])
def test_shipped_gold_hashes_match_a_fresh_replay(domain: str) -> None:
    assert gold_hashes(domain) == compute_gold_hashes(domain)


@pytest.mark.parametrize("domain", ["airline", "retail"])
def test_gold_agent_solves_every_task_and_say_only_solves_none_needing_action(
    domain: str, tmp_path: Path
) -> None:
    say_only_solved = []
    for task in load_domain(domain).tasks:
        spec = EpisodeSpec(domain=domain, task_id=task.id)
        gold_end = run_episode(
            spec,
            make_agent("scripted:gold"),
            make_user("scripted"),
            tmp_path / f"g{task.id}",
            run_id="g",
        )
        assert gold_end.success, f"CTL-2 failed on {domain} task {task.id}: {gold_end}"
        idle_end = run_episode(
            spec, SayOnly(), make_user("scripted"), tmp_path / f"s{task.id}", run_id="s"
        )
        if idle_end.success:
            say_only_solved.append(task.id)
    assert not [t for t in say_only_solved if _needs_action(domain, t)], "CTL-1 failed"


def test_scoring_neither_mutates_nor_varies_and_state_survives_the_session(tmp_path: Path) -> None:
    domain = load_domain("airline")
    task = domain.task("7")
    env = EpisodeEnvironment.open("airline", task)
    end = run_episode(
        EpisodeSpec(domain="airline", task_id="7"),
        make_agent("scripted:careful"),
        make_user("scripted"),
        tmp_path / "r",
        run_id="r",
        env=env,
    )
    assert end.success
    # INV-5: after the session ends the environment still holds the agent's final state.
    assert env.state_hash() == end.final_state_hash
    # ... which a replay of the ledger's tool calls on a clean database re-derives.
    ledger = read_ledger(tmp_path / "r" / "ledger.jsonl")
    replay = EpisodeEnvironment.open("airline", task)
    for e in ledger.events:
        if e.kind == "tool_call":
            replay.execute(ToolCall(id=e.call_id, name=e.name, arguments=e.arguments), e.step)
    assert replay.state_hash() == end.final_state_hash
    texts = [e.content for e in ledger.events if isinstance(e, AgentMessage)]
    snapshot = env.state.canonical_json()
    verdicts = [grade(env, task, texts) for _ in range(3)]
    # INV-1: scoring does not change state; INV-2: repeated scoring gives the same verdict.
    assert env.state.canonical_json() == snapshot
    assert len(set(verdicts)) == 1 and verdicts[0].success


def test_communicate_rule_matches_tau2() -> None:
    from tau2.data_model.message import AssistantMessage
    from tau2.evaluator.evaluator_communicate import CommunicateEvaluator

    messages = ["The total is $1,628.", "Nothing here", "AMOUNT 42"]
    for required in (["1628"], ["1628", "42"], ["amount 42"], ["999"], []):
        ours = communicated(required, messages)
        theirs = CommunicateEvaluator.evaluate_communicate_info(
            [AssistantMessage(role="assistant", content=m) for m in messages], required
        )
        assert ours == all(c.met for c in theirs), required
