"""What identifies a configuration and a run, so a re-run can tell finished work apart.

A configuration's hash covers what changes its behaviour — the agent's registry name, its
behavioural parameters and the user it talks to — and nothing operational: the API root,
key variable, timeouts, retries, rate limit, prices and response cache can change between
sessions (a different port, a new price list) without invalidating finished runs. This is
the same split the response cache makes for its keys. For provider-backed participants the
parameters are first validated, so ``temperature = 0`` and ``0.0`` hash alike, and values
equal to their defaults are dropped, so a new optional field does not orphan old runs.
"""

from __future__ import annotations

import hashlib
from typing import Any

from sscbench.agents.external.agent import behavioural_params
from sscbench.llm.cache import canonical_json
from sscbench.llm.config import ProviderConfig

PROVIDER_AGENTS = ("openai", "anthropic", "openai-compatible")
"""Agent registry names whose parameters are a :class:`ProviderConfig`."""

SIMULATOR_USER = "simulator"
EXTERNAL_AGENT = "external"
"""An agent in its own loop, served over MCP: its hash covers its program, not its socket."""

OPERATIONAL = frozenset(
    {
        "base_url",
        "api_key_env",
        "timeout",
        "max_retries",
        "retry_initial_wait",
        "retry_max_wait",
        "cache_dir",
        "requests_per_minute",
        "run_time_limit",
        "max_in_flight",
        "endpoints",
        "endpoint_policy",
        "input_price_per_mtok",
        "output_price_per_mtok",
    }
)
"""Provider parameters that do not change what the model is asked or how it decodes."""

KEY_ENV_DEFAULTS = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}
"""The variable each provider reads when ``api_key_env`` is not given."""


def behavioural_provider_params(params: dict[str, Any]) -> dict[str, Any]:
    """Validated provider parameters minus operational ones and minus defaults."""
    config = ProviderConfig.model_validate(params)
    dumped = config.model_dump(mode="json")
    defaults = ProviderConfig.model_construct().model_dump(mode="json", warnings=False)
    return {
        key: value
        for key, value in dumped.items()
        if key not in OPERATIONAL and (key == "model" or value != defaults.get(key))
    }


def agent_identity(agent: str, params: dict[str, Any]) -> dict[str, Any]:
    """The hashed description of an agent."""
    if agent in PROVIDER_AGENTS:
        return {"agent": agent, "params": behavioural_provider_params(params)}
    if agent == EXTERNAL_AGENT:
        return {"agent": agent, "params": behavioural_params(params)}
    return {"agent": agent, "params": params}


def user_identity(name: str, params: dict[str, Any]) -> dict[str, Any]:
    """The hashed description of a user."""
    if name == SIMULATOR_USER:
        rest = {k: v for k, v in params.items() if k != "provider"}
        rest.setdefault("model", "gpt-4.1")
        return {
            "user": name,
            "provider": params.get("provider", "openai"),
            "params": behavioural_provider_params(rest),
        }
    return {"user": name, "params": params}


def configuration_hash(
    agent: str,
    params: dict[str, Any],
    user: str,
    user_params: dict[str, Any],
    mitigation: str | None = None,
) -> str:
    """sha256 of the canonical agent and user identity, and of the mitigation when there is
    one (so every configuration without one keeps the hash it always had)."""
    identity: dict[str, Any] = {
        "agent": agent_identity(agent, params),
        "user": user_identity(user, user_params),
    }
    if mitigation is not None:
        identity["mitigation"] = mitigation
    return hashlib.sha256(canonical_json(identity).encode()).hexdigest()


def key_env(provider: str, params: dict[str, Any]) -> str | None:
    """The environment variable a provider participant reads its key from (None: none)."""
    name = params.get("api_key_env")
    if isinstance(name, str) and name:
        return name
    return KEY_ENV_DEFAULTS.get(provider)
