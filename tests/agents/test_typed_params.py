"""Registered components validate their parameters through their own models: text from the
command line and typed values from a file give the same parameters and hash."""

from __future__ import annotations

from pathlib import Path

import pytest

from sscbench.agents import make_agent
from sscbench.agents.registry import AGENTS, register_builtin_agents
from sscbench.errors import ConfigError
from sscbench.experiments.inline import command_line_experiment
from sscbench.oracles.base import make_oracle
from sscbench.users import USERS, make_user


def test_text_is_typed_by_the_model_and_text_fields_stay_text() -> None:
    register_builtin_agents()
    assert AGENTS.validate("scripted:mixed", {"p": "0.3"}) == {"p": 0.3}
    params = AGENTS.validate("openai-compatible", {"model": "007", "temperature": "0"})
    assert params == {"model": "007", "temperature": 0.0}, "a model id is never a number"
    assert USERS.validate("simulator", {"model": "007"}) == {"model": "007"}


@pytest.mark.parametrize(
    ("agent", "params", "problem"),
    [
        ("scripted:gold", {"variant": "hasty"}, "variant: Extra inputs are not permitted"),
        ("scripted:mixed", {"p": "7"}, "p: Input should be less than or equal to 1"),
        ("scripted:mixed", {"p": "abc"}, "p: Input should be a valid number"),
        ("scripted:mixed", {"p": True}, "p must be a number from 0 to 1"),
        ("scripted:careful", {"phrasing": "shouty"}, "unknown phrasing 'shouty'"),
    ],
)
def test_bad_parameters_are_one_line_naming_the_parameter(
    agent: str, params: dict[str, object], problem: str
) -> None:
    with pytest.raises(ConfigError, match=problem) as info:
        make_agent(agent, **params)
    assert "\n" not in str(info.value) and agent in str(info.value)


def test_users_and_oracles_are_typed_too() -> None:
    with pytest.raises(ConfigError, match="user scripted: voice: Extra inputs"):
        make_user("scripted", voice="loud")
    with pytest.raises(ConfigError, match="oracle db_invariants: replay: Input should be"):
        make_oracle("db_invariants", replay="sometimes")
    assert make_oracle("db_invariants", replay="false").replay is False  # type: ignore[attr-defined]


def test_the_command_line_and_a_file_give_one_configuration_hash(tmp_path: Path) -> None:
    from sscbench.experiments import load_experiment

    typed = command_line_experiment("x", [("scripted:mixed", {"p": "0.3"})], seeds=(0,))
    path = tmp_path / "e.toml"
    path.write_text(
        '[[configurations]]\nid = "m"\nagent = "scripted:mixed"\nparams = { p = 0.3 }\n'
    )
    from_file = load_experiment(path)
    assert typed.configurations[0].hash == from_file.configurations[0].hash
    assert typed.configurations[0].params == {"p": 0.3}
