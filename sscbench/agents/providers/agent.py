"""Agents under test backed by a model provider: OpenAI, Anthropic, OpenAI-compatible.

All three share the τ² scaffold (system prompt, tool schemas, greeting and turn protocol)
and differ only in the wire format behind them. Each call of :meth:`next_turn` renders the
full model-visible history afresh (as τ²'s ``LLMAgent`` sends its full state each turn),
so what the model is shown is a function of the ledger alone.

Tool-call ids are unique within an episode: the ledger, the environment and every later
request pair an observation with its call by id, so an id the model repeats (some
OpenAI-compatible servers number calls per turn, or not at all) is renamed
``<id>#<n>`` (:func:`unique_call_ids`) before anything records it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any, ClassVar

from sscbench.agents.base import AgentTurn, EpisodeContext
from sscbench.agents.providers.scaffold import Scaffold, agent_scaffold
from sscbench.envs.calls import ToolCall
from sscbench.errors import ConfigError, HarnessError
from sscbench.llm.anthropic_messages import (
    AnthropicMessagesBackend,
)
from sscbench.llm.arguments import parse_arguments
from sscbench.llm.backends import with_anthropic_defaults
from sscbench.llm.client import Backend, ProviderClient
from sscbench.llm.config import ProviderConfig
from sscbench.llm.endpoints import resolved_base_url
from sscbench.llm.errors import EmptyReply
from sscbench.llm.openai_chat import OpenAIChatBackend
from sscbench.llm.records import Completion, ProviderCall
from sscbench.llm.transcript import Message, agent_transcript
from sscbench.records.events import AgentToolCall, ParticipantSpec, VisibleEvent


def unique_call_ids(ids: Sequence[str], taken: set[str]) -> list[str]:
    """``ids`` with each one already in ``taken`` (or earlier in ``ids``) renamed to the
    first free ``<id>#<n>``, n ≥ 2; ``taken`` gains the result. Deterministic, so a replay
    renames alike."""
    out: list[str] = []
    for call_id in ids:
        unique, n = call_id, 1
        while unique in taken:
            n += 1
            unique = f"{call_id}#{n}"
        taken.add(unique)
        out.append(unique)
    return out


class ProviderAgent:
    """An :class:`~sscbench.agents.base.Agent` whose turns come from a model provider.

    ``provider_calls`` holds one record per attempt of the current episode; the episode
    loop writes them to ``provider_calls.jsonl``. A reply still empty after τ²'s re-asks
    raises :class:`EmptyReply`: the loop records it and ends the run as ``empty_reply``,
    never as ``agent_stop`` (the model did not choose to stop).
    """

    name: ClassVar[str]

    def __init__(self, config: ProviderConfig, backend: Backend) -> None:
        self.config = config
        self.spec = ParticipantSpec(name=self.name, params=config.params())
        self.provider_calls: list[ProviderCall] = []
        self._backend = backend
        self._client = ProviderClient(backend, config, "agent", self.provider_calls)
        self._scaffold: Scaffold | None = None
        self._seed = 0
        self._reasoning: dict[tuple[str, ...], tuple[dict[str, Any], ...]] = {}

    def start(self, ctx: EpisodeContext) -> None:
        """Build the scaffold for the episode and start a fresh record list."""
        self._scaffold = agent_scaffold(ctx)
        self._seed = self.config.seed if self.config.seed is not None else ctx.seed
        self._reasoning = {}
        self.provider_calls = []
        self._client = ProviderClient(self._backend, self.config, "agent", self.provider_calls)

    def next_turn(self, history: Sequence[VisibleEvent]) -> AgentTurn:
        """Ask the model for the next turn given the full history."""
        if self._scaffold is None:
            raise HarnessError(f"{self.name} agent: next_turn before start")
        transcript = [self._with_reasoning(m) for m in agent_transcript(history)]
        request = self._backend.build_request(
            self._scaffold.system, transcript, self._scaffold.tool_list(), self._seed
        )
        completion = self._client.complete(request, seed=self._seed, step=len(history))
        taken = {e.call_id for e in history if isinstance(e, AgentToolCall)}
        return self._turn(completion, step=len(history), taken=taken)

    def _with_reasoning(self, message: Message) -> Message:
        if not message.calls:
            return message
        blocks = self._reasoning.get(tuple(c.call_id for c in message.calls), ())
        return replace(message, reasoning=tuple(dict(b) for b in blocks))

    def _turn(self, completion: Completion, step: int, taken: set[str]) -> AgentTurn:
        if completion.is_empty:
            raise EmptyReply(f"{self.name} model {self.config.model}: empty reply at step {step}")
        ids = unique_call_ids(
            [
                call.id or f"call_{step}_{index}"  # some local servers send no id
                for index, call in enumerate(completion.calls)
            ],
            taken,
        )
        calls = tuple(
            ToolCall(id=call_id, name=call.name, arguments=parse_arguments(call.arguments))
            for call_id, call in zip(ids, completion.calls, strict=True)
        )
        if calls and completion.reasoning:
            self._reasoning[tuple(c.id for c in calls)] = completion.reasoning
        text = completion.text if completion.text and completion.text.strip() else None
        return AgentTurn(text=text, tool_calls=calls)


class OpenAIAgent(ProviderAgent):
    """Chat completions with tool calling on the OpenAI API (key in ``OPENAI_API_KEY``)."""

    name = "openai"

    def __init__(self, config: ProviderConfig) -> None:
        if config.thinking_budget is not None:
            raise ConfigError("thinking_budget is Anthropic-only; use reasoning_effort")
        config = _with_endpoint(config, "openai")
        super().__init__(config, OpenAIChatBackend(config))


class OpenAICompatibleAgent(ProviderAgent):
    """Chat completions on an OpenAI-compatible server (vLLM, Ollama, llama.cpp, ...).

    ``base_url`` (a server already running) or ``server`` (one SSCBench starts and stops,
    :mod:`~sscbench.llm.local_server`) is required; ``api_key_env`` is
    optional (no key is sent without it).
    """

    name = "openai-compatible"

    def __init__(self, config: ProviderConfig) -> None:
        if not config.base_url and config.server is None and config.endpoints is None:
            raise ConfigError(
                "openai-compatible needs base_url, e.g. http://localhost:8000/v1, "
                "or server=llama.cpp"
            )
        if config.thinking_budget is not None:
            raise ConfigError("thinking_budget is Anthropic-only; use extra_body")
        self._chat = OpenAIChatBackend(config, compatible=True)
        super().__init__(config, self._chat)

    def start(self, ctx: EpisodeContext) -> None:
        """Start the managed server first (if any), so its start-up is not a request's;
        the key, if one is named, waits for the first request the cache cannot answer."""
        self._chat.start_server()
        super().start(ctx)


class AnthropicAgent(ProviderAgent):
    """Messages API with tool use (key in ``ANTHROPIC_API_KEY``)."""

    name = "anthropic"

    def __init__(self, config: ProviderConfig) -> None:
        if config.server is not None:
            raise ConfigError("server=llama.cpp is for openai-compatible participants")
        config = with_anthropic_defaults(config)  # max_tokens: required, recorded
        config = _with_endpoint(config, "anthropic")
        super().__init__(config, AnthropicMessagesBackend(config))


def _with_endpoint(config: ProviderConfig, sdk: str) -> ProviderConfig:
    """``base_url`` as the requests will use it, so the ledger header records the endpoint
    even when it came from the SDK's environment variable or default (with several
    ``endpoints``, those are recorded instead)."""
    if config.endpoints is not None:
        return config
    return config.model_copy(update={"base_url": resolved_base_url(sdk, config.base_url)})
