"""Registration into the agent and user registries, and the protocols they promise."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from sscbench.agents.base import Agent, User
from sscbench.agents.providers import (
    AnthropicAgent,
    OpenAIAgent,
    OpenAICompatibleAgent,
    register_provider_agents,
)
from sscbench.registry import DuplicateNameError, Registry
from sscbench.users.simulator import UserSimulator, register_simulator_user


def test_provider_agents_register_under_their_names() -> None:
    registry: Registry[Callable[..., Agent]] = Registry("agent")
    register_provider_agents(registry)
    assert registry.names() == ["anthropic", "openai", "openai-compatible"]
    assert isinstance(registry.get("openai")(model="m"), OpenAIAgent)
    assert isinstance(registry.get("anthropic")(model="m"), AnthropicAgent)
    compatible = registry.get("openai-compatible")(model="m", base_url="http://localhost:8000/v1")
    assert isinstance(compatible, OpenAICompatibleAgent)
    assert isinstance(compatible, Agent)
    with pytest.raises(DuplicateNameError):
        register_provider_agents(registry)


def test_simulator_registers_with_tau2_defaults() -> None:
    registry: Registry[Callable[..., User]] = Registry("user")
    register_simulator_user(registry)
    user = registry.get("simulator")()
    assert isinstance(user, UserSimulator) and isinstance(user, User)
    assert user.spec.name == "simulator"
    assert (user.spec.params["provider"], user.spec.params["model"]) == ("openai", "gpt-4.1")
    assert user.spec.params["temperature"] == 0.0
    claude = registry.get("simulator")(provider="anthropic", model="claude-x")
    assert claude.spec.params["max_tokens"] == 8192
