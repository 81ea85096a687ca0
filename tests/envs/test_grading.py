"""Grading on live state: oracle-integrity invariants and known-answer controls."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from sscbench.agents import AgentTurn, EpisodeContext, make_agent
from sscbench.envs import EpisodeEnvironment, ToolCall, load_domain
from sscbench.envs.grading import communicated, compute_gold_hashes, gold_hashes, grade
from sscbench.records.events import AgentMessage, ParticipantSpec, VisibleEvent
from sscbench.records.ledger import read_ledger
from sscbench.runs.episode import EpisodeSpec, run_episode
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


# -- grading tests that can fail: faulted runs, say-without-write, the survivors ---------
BAGS_CASE = "write_effect/airline/12/4"  # update_reservation_baggages YAX4DR suppressed


class Scripted:
    """An agent that runs fixed turns, then says goodbye; optionally raises at the end."""

    def __init__(self, turns: list[AgentTurn], *, crash: bool = False) -> None:
        self.spec = ParticipantSpec(name="test:scripted-turns")
        self._turns = list(turns)
        self._crash = crash

    def start(self, ctx: EpisodeContext) -> None:
        pass

    def next_turn(self, history: Sequence[VisibleEvent]) -> AgentTurn:
        if self._turns:
            return self._turns.pop(0)
        if self._crash:
            raise RuntimeError("agent bug after its writes")
        return AgentTurn(text="Thank you, goodbye. Anything else?")


class Echo:
    """A user who states the required output in its own words, then stops."""

    def __init__(self, text: str) -> None:
        self.spec = ParticipantSpec(name="test:echo")
        self._said = False
        self._text = text

    def start(self, ctx: EpisodeContext) -> None:
        pass

    def next_message(self, history: Sequence[VisibleEvent]) -> str:
        if self._said:
            return "Thanks. ###STOP###"
        self._said = True
        return self._text


def _gold_turn(domain: str, task_id: str) -> AgentTurn:
    actions = load_domain(domain).task(task_id).evaluation_criteria.actions
    calls = tuple(
        ToolCall(id=f"c{i}", name=a.name, arguments=dict(a.arguments))
        for i, a in enumerate(actions)
    )
    return AgentTurn(tool_calls=calls)


def _case(case_id: str):  # type: ignore[no-untyped-def]
    from sscbench.cases.caseset import load_case_set

    return next(c.contract for c in load_case_set(None).cases if c.entry.case_id == case_id)


def _run_case(agent: str, tmp_path: Path):  # type: ignore[no-untyped-def]
    from sscbench.fault_contracts.injection import ContractIntervention

    contract = _case(BAGS_CASE)
    task = load_domain("airline").task(contract.task_id)
    env = EpisodeEnvironment.open("airline", task, ContractIntervention(contract))
    end = run_episode(
        EpisodeSpec(domain="airline", task_id=contract.task_id, fault=contract.model_dump()),
        make_agent(agent),
        make_user("scripted"),
        tmp_path / agent,
        run_id=agent,
        env=env,
    )
    return end, env, task


def test_hasty_trusting_a_suppressed_write_is_not_solved_and_careful_is(tmp_path: Path) -> None:
    hasty, _, _ = _run_case("scripted:hasty", tmp_path)
    careful, _, _ = _run_case("scripted:careful", tmp_path)
    assert (hasty.termination, hasty.success, hasty.db_match) == ("user_stop", False, False)
    assert careful.success and careful.db_match


def test_invariants_hold_on_a_faulted_run_where_live_state_differs_from_gold_and_replay(
    tmp_path: Path,
) -> None:
    end, env, task = _run_case("scripted:hasty", tmp_path)
    gold = gold_hashes("airline")[task.id]
    ledger = read_ledger(tmp_path / "scripted:hasty" / "ledger.jsonl")
    replay = EpisodeEnvironment.open("airline", task)  # a clean replay, without the fault
    for e in ledger.events:
        if e.kind == "tool_call":
            replay.execute(ToolCall(id=e.call_id, name=e.name, arguments=e.arguments), e.step)
    live = env.state_hash()
    # The suppressed write left no trace live; a clean replay applies it and looks solved.
    assert live != gold and replay.state_hash() == gold
    assert live == end.final_state_hash  # INV-5: the environment keeps the agent's state
    texts = [e.content for e in ledger.events if isinstance(e, AgentMessage)]
    verdicts = {grade(env, task, texts) for _ in range(2)}
    assert env.state_hash() == live  # INV-1
    assert len(verdicts) == 1 and not verdicts.pop().db_match  # INV-2, graded on live state


def test_saying_the_required_output_without_the_write_is_not_solved(tmp_path: Path) -> None:
    task = load_domain("airline").task("11")  # one write; must say 5244
    (info,) = task.evaluation_criteria.communicate_info
    end = run_episode(
        EpisodeSpec(domain="airline", task_id="11"),
        Scripted([AgentTurn(text=f"Done: your reservation is updated; you pay {info}.")]),
        make_user("scripted"),
        tmp_path / "r",
        run_id="r",
    )
    assert (end.communicate_ok, end.db_match, end.success) == (True, False, False)


def test_user_and_tool_text_are_not_communicated_by_the_agent(tmp_path: Path) -> None:
    task = load_domain("airline").task("11")
    (info,) = task.evaluation_criteria.communicate_info
    end = run_episode(
        EpisodeSpec(domain="airline", task_id="11"),
        Scripted([_gold_turn("airline", "11")]),  # the write's payload shows 5244
        Echo(f"I was told the difference is ${info}."),
        tmp_path / "r",
        run_id="r",
    )
    ledger = read_ledger(tmp_path / "r" / "ledger.jsonl")
    assert any(info in e.content for e in ledger.events if e.kind == "tool_observation")
    assert (end.db_match, end.communicate_ok, end.success) == (True, False, False)


def test_a_harness_error_run_is_never_graded(tmp_path: Path) -> None:
    end = run_episode(
        EpisodeSpec(domain="airline", task_id="12"),
        Scripted([_gold_turn("airline", "12")], crash=True),
        make_user("scripted"),
        tmp_path / "r",
        run_id="r",
    )
    assert end.termination == "harness_error"
    assert (end.success, end.db_match, end.communicate_ok, end.final_state_hash) == (None,) * 4


# -- what counts as communicated: every output, said by the agent, in its own messages ----
def test_communicated_accepts_case_and_separators_and_needs_every_output() -> None:
    """τ²'s rule, stated as expectations rather than as agreement with τ²'s code."""
    assert communicated(["1628"], ["The total is $1,628."])  # thousands separator
    assert communicated(["camera"], ["Your CAMERA ships today."])  # letter case, both ways
    assert communicated(["Camera"], ["your camera ships today."])
    assert communicated(["1628", "42"], ["First 1,628.", "Then 42.", "Anything else?"])
    assert not communicated(["1628", "42"], ["Only 1628 here.", "Goodbye."])
    assert not communicated(["1628"], ["16 28", "1.628"])
    assert communicated([], [])


def _retail_19(tmp_path: Path, said: str):  # type: ignore[no-untyped-def]
    return run_episode(
        EpisodeSpec(domain="retail", task_id="19"),
        Scripted([_gold_turn("retail", "19"), AgentTurn(text=said)]),
        make_user("scripted"),
        tmp_path / said[:12],
        run_id="r",
    )


def test_every_required_output_must_be_said(tmp_path: Path) -> None:
    """Retail task 19 requires two amounts: saying one of them is not enough."""
    first, second = load_domain("retail").task("19").evaluation_criteria.communicate_info
    one = _retail_19(tmp_path, f"Your refund of ${first} is on its way.")
    both = _retail_19(tmp_path, f"Refunds: ${first} and ${second}.")
    assert (one.db_match, one.communicate_ok, one.success) == (True, False, False)
    assert (both.db_match, both.communicate_ok, both.success) == (True, True, True)


def test_tool_call_arguments_are_not_communicated(tmp_path: Path) -> None:
    """An amount the agent only passes to a tool never reached the user."""
    task = load_domain("airline").task("11")
    (info,) = task.evaluation_criteria.communicate_info
    calc = ToolCall(id="calc", name="calculate", arguments={"expression": f"{info} * 1"})
    end = run_episode(
        EpisodeSpec(domain="airline", task_id="11"),
        Scripted([_gold_turn("airline", "11"), AgentTurn(tool_calls=(calc,))]),
        make_user("scripted"),
        tmp_path / "r",
        run_id="r",
    )
    ledger = read_ledger(tmp_path / "r" / "ledger.jsonl")
    assert any(e.kind == "tool_call" and info in str(e.arguments) for e in ledger.events)
    assert not any(info in e.content for e in ledger.events if isinstance(e, AgentMessage))
    assert (end.db_match, end.communicate_ok, end.success) == (True, False, False)
