"""Experiment files: defaults, and every kind of mistake reported as ``file:line``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from sscbench.cli.main import main
from sscbench.errors import ConfigError
from sscbench.experiments import load_experiment, plan_runs
from sscbench.experiments.identity import configuration_hash
from sscbench.experiments.locate import toml_key_lines

Write = Callable[..., Path]

MINIMAL = """
[[configurations]]
id = "careful"
agent = "scripted:careful"
"""


def _error(path: Path) -> str:
    with pytest.raises(ConfigError) as info:
        load_experiment(path)
    return str(info.value)


def test_minimal_file_gets_the_protocol_defaults(write: Write) -> None:
    exp = load_experiment(write(MINIMAL))
    assert len(exp.cases) == 334 and exp.seeds == (0,) and exp.gate == "per_case"
    assert exp.step_limits == {
        "return_date": 60,
        "write_effect": 60,
        "pay_source": 40,
        "item_option": 30,
        "expiry": 60,
        "transport": 60,
        "partial_effect": 60,
        "ignored_argument": 60,
        "unenforced_precondition": 60,
        "invariant_break": 60,
        "reset_leak": 60,
        "line_usage": 60,
        "device_reading": 60,
    }
    assert exp.user.name == "scripted" and exp.concurrency == 4
    runs = plan_runs(exp)
    clean = [r for r in runs if r.condition == "clean"]
    fault = [r for r in runs if r.condition == "fault"]
    assert len(fault) == 334
    # one clean run per (task, step limit): some tasks under two operators' limits; 60 of
    # them are telecom tasks (LineUsage's 30 and DeviceReading's 30, none shared)
    assert len(clean) == len({(r.domain, r.task_id, r.key.max_steps) for r in clean}) == 166
    assert all(r.gate in {c.key for c in clean} for r in fault)
    assert runs[: len(clean)] == clean  # clean runs are scheduled first


def test_filters_repetitions_seeds_and_per_repetition_gate(write: Write) -> None:
    exp = load_experiment(
        write(
            """
repetitions = 3
seeds = [7, 8, 9]
gate = "per_repetition"
[cases]
operators = ["write_effect", "pay_source"]
per_operator = 2
controls = false
[step_limits]
pay_source = 45
"""
            + MINIMAL
        )
    )
    assert [c.entry.operator for c in exp.cases] == ["pay_source"] * 2 + ["write_effect"] * 2
    runs = plan_runs(exp)
    fault = [r for r in runs if r.condition == "fault"]
    assert [(r.key.repetition, r.key.seed) for r in fault[:3]] == [(0, 7), (1, 8), (2, 9)]
    assert all(r.gate is not None and r.gate.seed == r.key.seed for r in fault)
    assert {r.key.max_steps for r in fault if r.operator == "pay_source"} == {45}
    assert fault[0].run_id.startswith("fault/careful-") and fault[0].run_id.endswith("/r0-s7")


@pytest.mark.parametrize(
    ("text", "line", "needle"),
    [
        ('repetitions = "three"\n' + MINIMAL, 1, "repetitions: Input should be a valid integer"),
        (MINIMAL + "temprature = 0\n", 4, "configurations[0].temprature: Extra inputs"),
        (MINIMAL.replace("scripted:careful", "scripted:reckless"), 3, "unknown agent"),
        (MINIMAL + '[[configurations]]\nid = "x"\n', 4, "configurations[1].agent: Field required"),
        (MINIMAL + '[[configurations]]\nid = "careful"\nagent = "scripted:gold"\n', 5, "duplicate"),
        (MINIMAL + "params = { p = 0.5 }\n", 4, "rejects these parameters"),
        (
            MINIMAL + '[[configurations]]\nid = "o"\nagent = "openai"\n'
            '[configurations.params]\nmodel = "m"\napi_key_env = "K"\ntemperature = -1\n',
            10,
            "configurations[1].params.temperature: Input should be greater than or equal to 0",
        ),
        (MINIMAL + '[cases]\noperators = ["retrun_date"]\n', 5, "no 'retrun_date' cases"),
        (MINIMAL + '[cases]\nids = ["nope"]\n', 5, "no case 'nope'"),
        (MINIMAL + "[cases]\nper_operator = 0\n", 5, "greater than 0"),
        (MINIMAL + "[step_limits]\nitem_optoin = 3\n", 5, "unknown operator 'item_optoin'"),
        ("seeds = [1, 2]\n" + MINIMAL, 1, "2 seeds for 1 repetitions"),
        (MINIMAL + '[user]\nname = "robot"\n', 5, "unknown user 'robot'"),
        (MINIMAL + "[budget]\nmax_cost_usd = -1\n", 5, "greater than 0"),
        (MINIMAL + "concurrency = [\n", 4, "invalid TOML"),
        ('gate = "sometimes"\n' + MINIMAL, 1, "per_case"),
    ],
)
def test_errors_name_file_and_line(write: Write, text: str, line: int, needle: str) -> None:
    path = write(text)
    message = _error(path)
    assert f"{path}:{line}:" in message, message
    assert needle in message, message


def test_every_problem_is_reported_at_once(write: Write) -> None:
    path = write(
        'repetitions = 2\nseeds = [1]\n[[configurations]]\nid = "a"\nagent = "nope"\n'
        '[[configurations]]\nid = "a"\nagent = "scripted:gold"\n'
    )
    message = _error(path)
    assert f"{path}:2: seeds" in message
    assert f"{path}:5: configurations[0].agent" in message
    assert f"{path}:7: configurations[1].id: duplicate" in message


def test_yaml_errors_have_lines_too(write: Write) -> None:
    good = write(
        "repetitions: 2\nconfigurations:\n  - id: careful\n    agent: scripted:careful\n",
        "exp.yaml",
    )
    assert load_experiment(good).seeds == (0, 1)
    bad = write(
        "configurations:\n  - id: careful\n    agent: scripted:careful\n"
        "  - id: o\n    agent: openai\n    params:\n      model: m\n"
        "      api_key_env: K\n      timeout: -3\n",
        "bad.yaml",
    )
    message = _error(bad)
    assert f"{bad}:9: configurations[1].params.timeout" in message
    broken = write("configurations: [\n", "broken.yml")
    assert f"{broken}:2: invalid YAML" in _error(broken)


def test_a_pasted_key_is_never_echoed(write: Write) -> None:
    secret = "sk-live-THIS-IS-A-KEY-0123456789"
    path = write(
        MINIMAL + f'[[configurations]]\nid = "o"\nagent = "openai"\n'
        f'params = {{ model = "m", api_key_env = "{secret}" }}\n'
    )
    message = _error(path)
    assert f"{path}:7: configurations[1].params.api_key_env" in message
    assert secret not in message


def test_missing_key_variable_fails_early_unless_a_cache_can_replay(
    write: Write, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SSCBENCH_NOT_SET", raising=False)
    entry = (
        '[[configurations]]\nid = "o"\nagent = "openai"\n'
        'params = { model = "m", api_key_env = "SSCBENCH_NOT_SET"%s }\n'
    )
    path = write(MINIMAL + entry % "")
    assert "SSCBENCH_NOT_SET is not set" in _error(path)
    cached = load_experiment(write(MINIMAL + entry % ', cache_dir = "cache"'))
    assert any("SSCBENCH_NOT_SET" in w for w in cached.warnings)
    params: dict[str, Any] = cached.configurations[1].params
    assert params["cache_dir"] == str(path.parent / "cache")  # relative to the file


def test_cli_exits_2_with_file_and_line(
    write: Write, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write("bogus = 1\n" + MINIMAL)
    code = main(["run", "--config", str(path), "--out", str(tmp_path / "out")])
    assert code == 2
    assert f"{path}:1: bogus: Extra inputs are not permitted" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()  # nothing written for an invalid file


def test_configuration_hash_ignores_operational_parameters() -> None:
    base = {"model": "m", "temperature": 0}
    h = configuration_hash("openai", base, "scripted", {})
    operational = {
        **base,
        "temperature": 0.0,
        "base_url": "http://127.0.0.1:9/v1",
        "api_key_env": "K",
        "cache_dir": "/tmp/c",
        "requests_per_minute": 60,
        "max_retries": 1,
        "run_time_limit": 600,
        "input_price_per_mtok": 1.0,
    }
    assert configuration_hash("openai", operational, "scripted", {}) == h
    assert configuration_hash("openai", {**base, "temperature": 0.5}, "scripted", {}) != h
    assert configuration_hash("anthropic", base, "scripted", {}) != h
    assert configuration_hash("openai", base, "simulator", {"model": "gpt-4.1"}) != h


def test_toml_locator_handles_nested_array_tables_and_dotted_keys() -> None:
    lines = toml_key_lines(
        'a = 1\n[[c]]\nid = "x"\n[c.params]\nm = 1\n[[c]]\nid = "y"\nparams.m = 2\n'
        '[[c.sub]]\nz = 1\ns = """\nq = 1\n"""\n'
    )
    assert lines.line_of(("a",)) == 1
    assert lines.line_of(("c", 0, "params", "m")) == 5
    assert lines.line_of(("c", 1, "id")) == 7
    assert lines.line_of(("c", 1, "params", "m")) == 8
    assert lines.line_of(("c", 1, "sub", 0, "z")) == 10
    assert lines.line_of(("c", 1, "sub", 0, "q")) == 9  # inside a string: not a key
    assert lines.line_of(("c", 1, "missing")) == 6
    assert lines.line_of(("nowhere",)) is None
