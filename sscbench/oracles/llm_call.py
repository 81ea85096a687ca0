"""What every LLM-based oracle shares: one cached provider call per trajectory.

Requests go through :class:`ProviderClient` like the LLM classifier's: cached (replays
need no key), retried, and recorded per attempt in ``provider_calls``; keys are read from
the environment only when a request really goes out and never written. Without a key (and
without a cache to replay from) the constructor raises :class:`OracleUnavailable`, so
``oracles evaluate`` reports the oracle as skipped instead of failing.

The prompt material is the same for every LLM oracle, so that their differences are in the
question, not in what they are shown: the domain policy, the tool schemas, optionally the
masked fault contract (L1), and the numbered model-visible conversation — the reviewers'
view, with no configuration, condition or run identity.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Literal

from sscbench.agents.providers.scaffold import tool_schemas
from sscbench.envs.domain import load_domain
from sscbench.llm.backends import make_backend
from sscbench.llm.client import ProviderClient
from sscbench.llm.config import ProviderConfig, parse_config
from sscbench.llm.records import ProviderCall
from sscbench.llm.transcript import Message
from sscbench.oracles.base import OracleUnavailable, Trajectory
from sscbench.records.events import AgentMessage, AgentToolCall
from sscbench.review.packet import masked_contract, render_steps, visible_steps

DEFAULT_KEY_ENV = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}


def prompt_material(trajectory: Trajectory, with_contract: bool) -> str:
    """Policy, tool schemas, (the masked contract,) and the numbered conversation."""
    domain = trajectory.ledger.header.domain
    policy = load_domain(domain).policy
    tools = json.dumps(tool_schemas(domain), separators=(",", ":"))
    parts = [f"<policy>\n{policy}\n</policy>", f"<tool_schemas>\n{tools}\n</tool_schemas>"]
    if with_contract:
        contract = masked_contract(trajectory.contract.model_dump(mode="json"))
        parts.append(f"<fault_contract>\n{json.dumps(contract, indent=1)}\n</fault_contract>")
    steps = render_steps(visible_steps(trajectory.ledger))
    parts.append(f"<conversation>\n{steps}\n</conversation>")
    return "\n\n".join(parts)


def agent_steps(trajectory: Trajectory) -> set[int]:
    """Steps at which the agent acted (the only steps a reliance can be at)."""
    return {e.step for e in trajectory.ledger.events if isinstance(e, AgentMessage | AgentToolCall)}


def json_object(text: str) -> dict[str, Any] | None:
    """The outermost JSON object in a reply, or None when there is none."""
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end < start:
        return None
    try:
        answer = json.loads(text[start : end + 1])
    except json.JSONDecodeError:
        return None
    return answer if isinstance(answer, dict) else None


def agent_step(value: Any, steps: set[int]) -> int | None:
    """``value`` if it is one of the agent's steps, else None (never a guess)."""
    if isinstance(value, int) and not isinstance(value, bool) and value in steps:
        return value
    return None


class LLMOracleParams(ProviderConfig):
    """An LLM oracle's parameters: the provider and its model settings (``--judge-param``).
    ``model`` is optional here so that a missing one reads as "unavailable", not a crash."""

    provider: Literal["openai", "anthropic", "openai-compatible"] = "openai"
    model: str = ""


class LLMOracle:
    """Base of the LLM oracles: holds the provider client and asks once per trajectory."""

    name = "llm"

    def __init__(self, provider: str = "openai", **params: Any) -> None:
        key_env = params.get("api_key_env") or DEFAULT_KEY_ENV.get(provider)
        no_key = key_env is not None and not os.environ.get(key_env, "").strip()
        cache = params.get("cache_dir")
        if no_key and not (cache and Path(str(cache)).is_dir()):
            raise OracleUnavailable(
                f"no API key in ${key_env} (and no cache_dir to replay from); "
                "set it and pass --judge-param model=..."
            )
        if not params.get("model"):
            raise OracleUnavailable("no model: pass --judge-param model=...")
        self.provider_calls: list[ProviderCall] = []
        self._backend, config = make_backend(provider, parse_config(params), "judge provider")
        self._client = ProviderClient(self._backend, config, "agent", self.provider_calls)

    def ask(self, system: str, prompt: str, trajectory: Trajectory) -> str:
        """One (cached) completion; the reply text, empty when the model said nothing."""
        request = self._backend.build_request(system, [Message(role="user", text=prompt)], None, 0)
        completion = self._client.complete(request, seed=0, step=len(trajectory.ledger.events))
        return completion.text or ""
