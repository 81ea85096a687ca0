"""Telecom through the choke point: byte-transparent to raw τ², for the agent's tools and
the customer's device tools, on every gold run of τ²'s base task set; graded like τ²."""

from __future__ import annotations

import importlib
import pickle
from typing import Any

import pytest

from sscbench.envs import EpisodeEnvironment, ToolCall, load_domain
from sscbench.envs.environment import user_tool_kinds
from sscbench.envs.grading import grade, replay_gold
from sscbench.envs.state import DualState
from sscbench.envs.tau2_runtime import prepare_tau2
from sscbench.errors import ConfigError


def _raw(task: Any) -> Any:
    """A raw τ² telecom environment with the task's initial state, as τ²'s evaluator
    builds one (``set_state`` with no message history)."""
    prepare_tau2()
    module = importlib.import_module("tau2.domains.telecom.environment")
    domain = load_domain("telecom")
    env = module.get_environment(
        db=pickle.loads(pickle.dumps(domain.base_db)),
        user_db=pickle.loads(pickle.dumps(domain.user_base_db)),
    )
    initial = task.initial_state
    env.set_state(initial.initialization_data, initial.initialization_actions, [])
    return env


def _phone(task: Any) -> str:
    for action in task.initial_state.initialization_actions:
        if action.func_name == "set_user_info":
            phone: str = action.arguments["phone_number"]
            return phone
    raise AssertionError(task.id)


def _probes(task: Any) -> list[tuple[str, str, dict[str, Any]]]:
    """Reads beyond the gold actions: every argument-free device read, and the agent's
    look-ups of the task's customer and their lines."""
    reads = [
        ("user", name, {})
        for name, kind in sorted(user_tool_kinds("telecom").items())
        if kind == "read" and name not in ("check_app_status", "check_app_permissions")
    ]
    reads += [("user", "check_app_permissions", {"app_name": "messaging"})]
    reads += [("assistant", "get_customer_by_phone", {"phone_number": _phone(task)})]
    return reads


def test_every_gold_run_is_byte_identical_to_raw_tau2_and_graded_like_tau2() -> None:
    from tau2.data_model.message import AssistantMessage, ToolMessage, UserMessage
    from tau2.data_model.message import ToolCall as Tau2ToolCall
    from tau2.domains.telecom.environment import get_environment
    from tau2.evaluator.evaluator_env import EnvironmentEvaluator
    from tau2.utils.utils import get_dict_hash

    domain = load_domain("telecom")
    assert len(domain.tasks) == 114
    base_hash = get_dict_hash(domain.base_db.model_dump())
    calls = errors = 0
    for task in domain.tasks:
        raw = _raw(task)
        ours = EpisodeEnvironment.open("telecom", task)
        assert isinstance(ours.state, DualState)
        assert raw.get_user_db_hash() == get_dict_hash(ours.state.user_db.model_dump()), task.id
        trajectory: list[Any] = []
        steps = [(a.requestor, a.name, a.arguments) for a in task.evaluation_criteria.actions]
        steps += _probes(task)
        for i, (who, name, args) in enumerate(steps):
            expected = raw.get_response(
                Tau2ToolCall(id=f"c{i}", name=name, arguments=args, requestor=who)
            )
            got = ours.execute(ToolCall(id=f"c{i}", name=name, arguments=args), i, requestor=who)
            assert (got.content, got.error) == (expected.content, expected.error), (
                f"telecom task {task.id} call {i} {who} {name}"
            )
            calls += 1
            errors += got.error
            message = AssistantMessage if who == "assistant" else UserMessage
            trajectory.append(
                message(
                    role=who,
                    tool_calls=[Tau2ToolCall(id=f"c{i}", name=name, arguments=args, requestor=who)],
                )
            )
            trajectory.append(
                ToolMessage(id=f"c{i}", role="tool", content=got.content, requestor=who)
            )
        # τ²'s own hashes of both databases equal the raw environment's.
        assert raw.get_db_hash() == get_dict_hash(ours.state.db.model_dump()), task.id
        assert raw.get_user_db_hash() == get_dict_hash(ours.state.user_db.model_dump()), task.id
        # τ²'s own grading of the final state, user-side assertions included, agrees.
        reward = EnvironmentEvaluator.calculate_reward(get_environment, task, trajectory)
        assert reward.reward == 1.0, task.id
        assert all(check.met for check in reward.env_assertions or []), task.id
        ours_grade = grade(ours, task, [])
        assert ours_grade.success and ours_grade.env_assertions_ok, task.id
    assert calls > 114 * 15
    assert errors == 0
    assert get_dict_hash(domain.base_db.model_dump()) == base_hash, "base database was mutated"


def test_a_task_without_its_gold_device_action_fails_like_tau2() -> None:
    """The grader is not always-true: dropping the user's device action fails τ²'s
    assertions and ours; dropping an agent action of an ACTION task fails ACTION."""
    domain = load_domain("telecom")
    task = domain.tasks[0]
    env = EpisodeEnvironment.open("telecom", task)
    assert grade(env, task, []).success is False
    assert grade(env, task, []).env_assertions_ok is False
    action_tasks = [t for t in domain.tasks if "ACTION" in str(t.evaluation_criteria.reward_basis)]
    assert len(action_tasks) == 20
    gold = replay_gold("telecom", action_tasks[0].id)
    assert grade(gold, action_tasks[0], []).actions_ok is True
    gold.calls.pop(next(i for i, (who, _) in enumerate(gold.calls) if who == "assistant"))
    assert grade(gold, action_tasks[0], []).actions_ok is False


def test_suppressed_device_write_leaves_both_databases_unchanged() -> None:
    from sscbench.envs.intervention import WriteDecision

    class Suppress:
        def decide_write(self, call: ToolCall, ctx: Any) -> WriteDecision:
            return WriteDecision.SUPPRESS

        def rewrite(self, call: ToolCall, observation: Any, ctx: Any) -> None:
            return None

    task = load_domain("telecom").tasks[0]
    env = EpisodeEnvironment.open("telecom", task, Suppress())
    before = env.state_hash()
    action = task.evaluation_criteria.actions[0]
    obs = env.execute(ToolCall(id="u0", name=action.name, arguments={}), 0, requestor="user")
    assert not obs.error
    assert env.state_hash() == before
    assert [r.kind for r in env.intervention_log] == ["write_suppressed"]
    assert env.intervention_log[0].detail["requestor"] == "user"
    # the toolkits follow the restored state: a second, unsuppressed toggle really toggles
    env.intervention = None
    env.execute(ToolCall(id="u1", name=action.name, arguments={}), 1, requestor="user")
    assert env.state_hash() != before


def test_user_call_in_a_domain_without_user_tools_is_a_harness_error() -> None:
    from sscbench.errors import HarnessError

    with pytest.raises(HarnessError, match="has none"):
        EpisodeEnvironment.open("airline").execute(
            ToolCall(id="u", name="check_status_bar", arguments={}), 0, requestor="user"
        )


def test_initial_state_outside_telecom_is_refused() -> None:
    task = load_domain("telecom").tasks[0]

    class Fake:
        id = "x"
        initial_state = task.initial_state

    with pytest.raises(ConfigError, match="only in telecom"):
        EpisodeEnvironment.open("airline", Fake())


def test_the_telecom_tasks_are_tau2s_own_base_split() -> None:
    """Only the base split's tasks are validated on load; they must be exactly what τ²'s
    ``get_tasks`` gives, in its order."""
    from tau2.domains.telecom.environment import get_tasks, get_tasks_split

    domain = load_domain("telecom")
    base = set(get_tasks_split()["base"])
    expected = [t for t in get_tasks(None) if t.id in base]
    assert list(domain.tasks) == expected
    assert [t.id for t in domain.tasks] == [t.id for t in expected]
    assert len(domain.tasks) == len(base)
