"""One wire-format backend by provider name, for every model caller that is not an agent
(the LLM classifier, the LLM judge) and for the Anthropic agent's token default."""

from __future__ import annotations

from sscbench.errors import ConfigError
from sscbench.llm.anthropic_messages import (
    DEFAULT_MAX_TOKENS,
    AnthropicMessagesBackend,
)
from sscbench.llm.client import Backend
from sscbench.llm.config import ProviderConfig
from sscbench.llm.openai_chat import OpenAIChatBackend

PROVIDERS = ("openai", "anthropic", "openai-compatible")


def with_anthropic_defaults(config: ProviderConfig) -> ProviderConfig:
    """``max_tokens`` is required by the messages API: make the default explicit (recorded)."""
    if config.max_tokens is None:
        return config.model_copy(update={"max_tokens": DEFAULT_MAX_TOKENS})
    return config


def make_backend(
    provider: str, config: ProviderConfig, what: str = "provider"
) -> tuple[Backend, ProviderConfig]:
    """The backend for ``provider`` and the configuration it actually uses."""
    if provider == "anthropic":
        if config.server is not None:
            raise ConfigError("server=llama.cpp is for openai-compatible participants")
        config = with_anthropic_defaults(config)
        return AnthropicMessagesBackend(config), config
    if provider in ("openai", "openai-compatible"):
        return OpenAIChatBackend(config, compatible=provider == "openai-compatible"), config
    raise ConfigError(f"unknown {what} {provider!r}: {', '.join(PROVIDERS)}")
