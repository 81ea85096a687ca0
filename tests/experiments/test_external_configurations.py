"""Experiment files with external agents: what cannot work is refused before anything runs,
and the configuration's identity is the agent program, not the socket it is served on."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from sscbench.errors import ConfigError
from sscbench.experiments.identity import configuration_hash
from sscbench.experiments.load import load_experiment

Write = Callable[..., Path]
BASE = """
name = "x"
{extra}
[cases]
operators = ["write_effect"]
per_operator = 1
[[configurations]]
id = "mine"
agent = "external"
params = {params}
"""


@pytest.mark.parametrize(
    ("extra", "params", "problem"),
    [
        ('arrival_arms = ["none", "at_fault"]\nrepetitions = 2', '{ command = "x" }',
         "external agent's client would never see them"),
        ("", '{ transport = "stdio" }', "stdio serves one run per process"),
        ('executor = "ray"', "{ }", "waiting for clients needs the local executor"),
        ("", '{ port = 70000 }', "port"),
        ("", '{ idle_timeout = 0 }', "idle_timeout"),
        ("", '{ comand = "typo" }', "comand"),
    ],
)  # fmt: skip
def test_what_an_external_agent_cannot_run_with_is_one_line_naming_the_key(
    write: Write, extra: str, params: str, problem: str
) -> None:
    path = write(BASE.format(extra=extra, params=params))
    with pytest.raises(ConfigError) as raised:
        load_experiment(path)
    message = str(raised.value)
    assert problem in message
    assert "configurations[0]" in message or "configurations.0" in message or "line" in message


def test_a_launched_agent_on_ray_is_accepted(write: Write) -> None:
    experiment = load_experiment(
        write(BASE.format(extra='executor = "ray"', params='{ command = "python agent.py" }'))
    )
    assert experiment.configurations[0].params["command"] == "python agent.py"


def test_the_hash_is_the_program_not_the_socket() -> None:
    def digest(**params: object) -> str:
        return configuration_hash("external", dict(params), "scripted", {})

    same = digest(command="python a.py")
    assert digest(command="python a.py", port=8765, host="127.0.0.1", idle_timeout=5) == same
    assert digest(command="python a.py", transport="stdio", grace=1) == same
    assert digest(command="python b.py") != same
    assert digest(command="python a.py", time_limit=30) != same


def test_gate_none_runs_every_faulted_run_and_keeps_the_clean_ones(write: Write) -> None:
    from sscbench.experiments.plan import iter_plan

    text = BASE.format(extra="", params='{ command = "x" }')
    gated = list(iter_plan(load_experiment(write(text))))
    ungated = list(iter_plan(load_experiment(write('gate = "none"\n' + text, "ungated.toml"))))
    assert [r.key for r in gated] == [r.key for r in ungated]
    assert {r.condition for r in ungated} == {"clean", "fault"}
    assert all(r.gate is not None for r in gated if r.condition == "fault")
    assert all(r.gate is None for r in ungated)
