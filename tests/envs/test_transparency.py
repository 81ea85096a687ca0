"""Fault-free transparency: the adapter delivers exactly what raw τ² delivers, on every task."""

from __future__ import annotations

import gc
import importlib
import pickle
from typing import Any

import pytest

from sscbench.envs import EpisodeEnvironment, ToolCall, load_domain, state_hash_of
from sscbench.envs.tau2_runtime import prepare_tau2


def _raw_env_factory(domain: str) -> Any:
    prepare_tau2()
    module = importlib.import_module(f"tau2.domains.{domain}.environment")
    blob = pickle.dumps(load_domain(domain).base_db)
    return lambda: module.get_environment(db=pickle.loads(blob))


@pytest.mark.slow
@pytest.mark.parametrize(
    ("domain", "n_tasks", "n_errors"), [("airline", 50, 0), ("retail", 114, 23)]
)
def test_gold_replay_is_byte_identical_to_raw_tau2(
    domain: str, n_tasks: int, n_errors: int
) -> None:
    from tau2.data_model.message import ToolCall as Tau2ToolCall
    from tau2.utils.utils import get_dict_hash

    loaded = load_domain(domain)
    new_raw = _raw_env_factory(domain)
    base_hash = get_dict_hash(loaded.base_db.model_dump())
    errors = 0
    assert len(loaded.tasks) == n_tasks
    gc.disable()  # raw τ² environments are ~10^5 objects each; GC passes dominate otherwise
    try:
        for task in loaded.tasks:
            raw = new_raw()
            ours = EpisodeEnvironment.open(domain, task)
            for i, action in enumerate(task.evaluation_criteria.actions or []):
                expected = raw.get_response(
                    Tau2ToolCall(id=f"c{i}", name=action.name, arguments=action.arguments)
                )
                got = ours.execute(
                    ToolCall(id=f"c{i}", name=action.name, arguments=action.arguments), i
                )
                assert (got.content, got.error) == (expected.content, expected.error), (
                    f"{domain} task {task.id} action {i} {action.name}"
                )
                errors += expected.error
            if ours.state.owned:
                # τ²'s own hash of our episode database equals the raw environment's.
                assert raw.get_db_hash() == get_dict_hash(ours.state.db.model_dump()), task.id
            else:
                assert raw.tools.db == ours.state.db, task.id
    finally:
        gc.enable()
    assert errors == n_errors
    assert get_dict_hash(loaded.base_db.model_dump()) == base_hash, "base database was mutated"


@pytest.mark.parametrize("domain", ["airline", "retail"])
def test_incremental_state_hash_matches_full_recomputation(domain: str) -> None:
    loaded = load_domain(domain)
    writers = [
        t
        for t in loaded.tasks
        if any(
            a.name.startswith(("update", "cancel", "book", "modify", "exchange", "return", "send"))
            for a in t.evaluation_criteria.actions or []
        )
    ]
    for task in writers[:5]:
        env = EpisodeEnvironment.open(domain, task)
        for i, action in enumerate(task.evaluation_criteria.actions or []):
            env.execute(ToolCall(id=f"c{i}", name=action.name, arguments=action.arguments), i)
        assert env.state.owned, task.id
        assert env.state_hash() == state_hash_of(env.state.db, loaded.collections), task.id


def test_unknown_tool_and_bad_arguments_error_like_tau2() -> None:
    from tau2.data_model.message import ToolCall as Tau2ToolCall

    raw = _raw_env_factory("airline")()
    ours = EpisodeEnvironment.open("airline")
    cases = [
        ("no_such_tool", {}),
        ("get_reservation_details", {}),
        ("get_reservation_details", {"reservation_id": "NOPE00"}),
        ("get_reservation_details", {"reservation_id": "XEHM4B", "extra": 1}),
        (
            "update_reservation_flights",
            {
                "reservation_id": "XEHM4B",
                "cabin": "economy",
                "flights": ["HAT005"],
                "payment_id": "x",
            },
        ),
        ("calculate", {"expression": "2 + 2"}),
        ("calculate", {"expression": "import os"}),
    ]
    for i, (name, args) in enumerate(cases):
        expected = raw.get_response(Tau2ToolCall(id=str(i), name=name, arguments=args))
        got = ours.execute(ToolCall(id=str(i), name=name, arguments=args), i)
        assert (got.content, got.error) == (expected.content, expected.error), name


def test_a_base_entitys_text_is_reused_and_a_changed_ones_is_not() -> None:
    """Reads of an entity no episode has copied reuse its text; once a write copies and
    changes it, every read shows the change, also after a second change of the copy."""
    from tau2.environment.environment import Environment

    def read(env: EpisodeEnvironment, n: int) -> str:
        call = ToolCall(id=f"r{n}", name="get_user_details", arguments={"user_id": user})
        return env.execute(call, step=n).content

    loaded = load_domain("retail")
    user = next(iter(loaded.base_db.users))
    fresh = Environment.to_json_str(loaded.base_db.users[user])
    first, second = EpisodeEnvironment.open("retail"), EpisodeEnvironment.open("retail")
    assert read(first, 0) == read(second, 0) == fresh
    for n, city in enumerate(("Springfield", "Shelbyville"), start=1):
        address = {
            "address1": f"{n} Main St",
            "address2": "",
            "city": city,
            "state": "IL",
            "country": "USA",
            "zip": "62701",
        }
        write = ToolCall(
            id=f"w{n}", name="modify_user_address", arguments={"user_id": user, **address}
        )
        first.execute(write, step=10 + n)
        shown = read(first, 20 + n)
        assert city in shown and shown == Environment.to_json_str(first.state.db.users[user])
    assert read(second, 30) == fresh  # the other episode still sees the base


@pytest.mark.parametrize("domain", ["airline", "retail", "telecom"])
def test_the_base_database_is_what_tau2_loads(domain: str) -> None:
    """The base database is parsed and validated in one pass where it is JSON; it must be
    τ²'s own ``DB.load`` of the same file, value for value and type for type."""
    from sscbench.envs.domain import _TAU2_NAMES

    prepare_tau2()
    db_name, _, path_name = _TAU2_NAMES[domain]
    db_class = getattr(importlib.import_module(f"tau2.domains.{domain}.data_model"), db_name)
    path = getattr(importlib.import_module(f"tau2.domains.{domain}.utils"), path_name)
    ours, theirs = load_domain(domain).base_db, db_class.load(path)
    assert type(ours) is type(theirs)
    assert ours == theirs
    assert ours.model_dump_json() == theirs.model_dump_json()
