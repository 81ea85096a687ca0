"""Agents backed by model providers through their official SDKs.

``openai`` (chat completions), ``anthropic`` (messages) and ``openai-compatible``
(chat completions on vLLM, Ollama, llama.cpp server, ...) share τ²'s scaffold and one
request pipeline: response cache, rate limit, retries and per-attempt records. Importing
this package is cheap; an SDK is imported only when a request actually goes out.
See docs/providers.md.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sscbench.agents.base import Agent
from sscbench.agents.providers.agent import (
    AnthropicAgent,
    OpenAIAgent,
    OpenAICompatibleAgent,
    ProviderAgent,
)
from sscbench.llm.config import ProviderConfig, parse_config
from sscbench.llm.errors import ProviderError
from sscbench.llm.records import ProviderCall
from sscbench.registry import Registry

__all__ = [
    "AnthropicAgent",
    "OpenAIAgent",
    "OpenAICompatibleAgent",
    "ProviderAgent",
    "ProviderCall",
    "ProviderConfig",
    "ProviderError",
    "anthropic_agent",
    "openai_agent",
    "openai_compatible_agent",
    "register_provider_agents",
]


def openai_agent(**params: Any) -> OpenAIAgent:
    """Registry factory ``openai``: ``make_agent("openai", model="gpt-4.1", ...)``."""
    return OpenAIAgent(parse_config(params))


def anthropic_agent(**params: Any) -> AnthropicAgent:
    """Registry factory ``anthropic``: ``make_agent("anthropic", model="claude-...")``."""
    return AnthropicAgent(parse_config(params))


def openai_compatible_agent(**params: Any) -> OpenAICompatibleAgent:
    """Registry factory ``openai-compatible``: needs ``model`` and ``base_url``."""
    return OpenAICompatibleAgent(parse_config(params))


FACTORIES: dict[str, Callable[..., Agent]] = {
    "openai": openai_agent,
    "anthropic": anthropic_agent,
    "openai-compatible": openai_compatible_agent,
}


def register_provider_agents(registry: Registry[Callable[..., Agent]]) -> None:
    """Add the provider agents to ``registry`` (a duplicate name raises)."""
    for name, factory in FACTORIES.items():
        registry.add(name, factory, params=ProviderConfig)
