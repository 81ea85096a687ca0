"""Settings as they reach the wire and the ledger header: Anthropic's temperature,
``temperature=none`` from the command line and experiment files, the endpoint actually
used, and a credential in ``base_url`` refused with one line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from sscbench.agents.base import AgentTurn
from sscbench.agents.providers import anthropic_agent, openai_agent, openai_compatible_agent
from sscbench.cli.params import parse_params
from sscbench.errors import ConfigError
from sscbench.experiments import load_experiment
from sscbench.llm.anthropic_messages import AnthropicMessagesBackend
from sscbench.llm.config import ProviderConfig


def test_anthropic_temperature_is_a_field_of_its_own(fake: Any, key: str, kit: Any) -> None:
    backend = AnthropicMessagesBackend(ProviderConfig(model="m", temperature=0.2, max_tokens=9))
    request = backend.build_request("SYS", [], None, seed=0)
    assert request["params"]["temperature"] == 0.2
    assert "temperature" not in request["extra_body"]
    fake.script(kit.anthropic_reply("hi"))
    agent = anthropic_agent(
        model="m", base_url=fake.anthropic_url, api_key_env=key, temperature=0.2
    )
    agent.start(kit.airline_context())
    assert agent.next_turn(kit.opening()) == AgentTurn(text="hi")
    assert fake.requests[0].body["temperature"] == 0.2


@pytest.mark.parametrize("word", ["none", "None", "null"])
def test_temperature_none_from_the_command_line_is_omitted(
    fake: Any, key: str, kit: Any, word: str
) -> None:
    params = parse_params(
        [f"temperature={word}", f"base_url={fake.openai_url}", f"api_key_env={key}", "model=m"],
        "--agent-param",
    )
    for make, reply in ((openai_agent, kit.openai_reply), (anthropic_agent, kit.anthropic_reply)):
        if make is anthropic_agent:
            params["base_url"] = fake.anthropic_url
        agent = make(**params)
        assert agent.spec.params["temperature"] is None
        fake.script(reply("ok"))
        agent.start(kit.airline_context())
        agent.next_turn(kit.opening())
        assert "temperature" not in fake.requests[-1].body
    # "none" stays a valid reasoning_effort: only numeric fields read it as unset
    assert openai_agent(model="m", reasoning_effort="none").config.reasoning_effort == "none"


@pytest.mark.parametrize(
    ("name", "line"),
    [("exp.toml", 'temperature = "none"'), ("exp.yaml", None), ("exp.yml", None)],
)
def test_temperature_none_from_an_experiment_file(
    write: Any, key: str, name: str, line: str | None
) -> None:
    if name.endswith(".toml"):
        text = f"""
[cases]
per_operator = 1
controls = false
[[configurations]]
id = "claude"
agent = "anthropic"
params = {{ model = "claude-x", api_key_env = "{key}", {line} }}
"""
    else:
        text = f"""
cases: {{per_operator: 1, controls: false}}
configurations:
  - id: claude
    agent: anthropic
    params: {{model: claude-x, api_key_env: {key}, temperature: null}}
"""
    exp = load_experiment(write(text, name))
    (config,) = exp.configurations
    agent = anthropic_agent(**config.params)
    assert agent.config.temperature is None
    assert "temperature" not in agent._backend.build_request("S", [], None, 0)["params"]


@pytest.fixture
def write(tmp_path: Path) -> Any:
    def _write(text: str, name: str) -> Path:
        path = tmp_path / name
        path.write_text(text.lstrip("\n"), encoding="utf-8")
        return path

    return _write


def test_the_endpoint_from_the_environment_is_the_one_recorded(
    fake: Any, key: str, kit: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", fake.openai_url)
    agent = openai_agent(model="m", api_key_env=key)
    assert agent.spec.params["base_url"] == fake.openai_url
    fake.script(kit.openai_reply("from the env endpoint"))
    agent.start(kit.airline_context())
    assert agent.next_turn(kit.opening()) == AgentTurn(text="from the env endpoint")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.anthropic_url)
    assert anthropic_agent(model="m").spec.params["base_url"] == fake.anthropic_url
    monkeypatch.delenv("OPENAI_BASE_URL")
    monkeypatch.delenv("ANTHROPIC_BASE_URL")
    assert openai_agent(model="m").spec.params["base_url"] == "https://api.openai.com/v1"
    assert anthropic_agent(model="m").spec.params["base_url"] == "https://api.anthropic.com"


SECRET_URLS = [
    "https://proxy.example/v1?api_key={s}",
    "https://proxy.example/v1?key={s}",
    "https://proxy.example/v1?access_token={s}",
    "https://proxy.example/v1?x-api-key=abc",
    "https://proxy.example/v1?api-version=2024-06-01&code={s}",
    "https://proxy.example/v1?c=Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5",
    "https://u:{s}@proxy.example/v1",
]


@pytest.mark.parametrize("template", SECRET_URLS)
def test_a_credential_in_base_url_is_refused_without_repeating_it(
    kit: Any, template: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = template.format(s=kit.SECRET)
    for make in (openai_agent, anthropic_agent, openai_compatible_agent):
        with pytest.raises(ConfigError, match="base_url") as info:
            make(model="m", base_url=url)
        assert kit.SECRET not in str(info.value) and "\n" not in str(info.value)
    monkeypatch.setenv("OPENAI_BASE_URL", url)
    with pytest.raises(ConfigError, match="OPENAI_BASE_URL") as info:
        openai_agent(model="m")
    assert kit.SECRET not in str(info.value)


@pytest.mark.parametrize(
    "url",
    [
        "https://example.openai.azure.com/openai/v1?api-version=2024-06-01",
        "http://localhost:8000/v1?mode=fast",
        "http://localhost:11434/v1",
    ],
)
def test_ordinary_query_strings_pass(url: str) -> None:
    assert openai_compatible_agent(model="m", base_url=url).spec.params["base_url"] == url


def test_the_command_line_refuses_a_key_in_base_url_with_one_line(kit: Any, tmp_path: Path) -> None:
    url = f"http://127.0.0.1:9/v1?api_key={kit.SECRET}"
    command = [sys.executable, "-m", "sscbench.cli.main", "run", "--domain", "airline"]
    command += ["--tasks", "7", "--agent", "openai-compatible", "--agent-param", "model=m"]
    command += ["--agent-param", f"base_url={url}", "--out", str(tmp_path / "out")]
    result = subprocess.run(
        command,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "base_url" in lines[0] and "api_key" in lines[0]
    assert kit.SECRET not in result.stderr + result.stdout
