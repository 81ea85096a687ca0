"""τ²'s own user simulator, driven by a configured model through the provider layer.

Fidelity to τ²'s ``UserSimulator`` (tau2/user/user_simulator.py) is kept by construction:

* the system prompt is τ²'s template around τ²'s guidelines file, read at run time from
  the installed τ² package (``data/tau2/user_simulator/simulation_guidelines.md``, the
  no-tools variant, in airline and retail, which give the user no tools; the tools variant
  ``simulation_guidelines_tools.md`` with τ²'s user tool schemas in telecom, where the
  customer holds a phone), and the scenario text is ``str(task.user_scenario)``, as τ²'s
  ``run_task`` passes it;
* the conversation is τ²'s flipped view (:func:`~sscbench.llm.transcript.
  user_transcript`): the greeting and every agent message addressed to the user arrive as
  ``user`` turns, the simulator's own messages are ``assistant`` turns, the agent's tool
  traffic is never shown; in telecom its own device calls are its ``assistant`` turns and
  the device's answers ``tool`` turns, and they go through the choke point as the user's;
* decoding follows τ²'s defaults (temperature 0, the episode seed as model seed, three
  re-asks after an empty reply) and the episode loop stops on τ²'s stop tokens.

The template is reproduced because ``tau2.user.user_simulator`` imports litellm (2.4 s);
a test compares it with the installed τ² source.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from importlib.resources import files
from typing import Any, Literal

from pydantic import Field

from sscbench.agents.base import EpisodeContext, User, UserTurn
from sscbench.envs.calls import ToolCall
from sscbench.envs.domain import load_domain
from sscbench.errors import ConfigError, HarnessError
from sscbench.llm.anthropic_messages import (
    DEFAULT_MAX_TOKENS,
    AnthropicMessagesBackend,
)
from sscbench.llm.arguments import parse_arguments
from sscbench.llm.client import Backend, ProviderClient
from sscbench.llm.config import ProviderConfig, parse_config
from sscbench.llm.errors import ProviderError
from sscbench.llm.openai_chat import OpenAIChatBackend
from sscbench.llm.records import ProviderCall
from sscbench.llm.transcript import Message, user_transcript
from sscbench.records.events import AgentToolCall, ParticipantSpec, VisibleEvent
from sscbench.registry import Registry

SYSTEM_PROMPT = """
{global_user_sim_guidelines}

<scenario>
{instructions}
</scenario>
""".strip()
"""τ² 26.3 ``tau2.user.user_simulator.SYSTEM_PROMPT``."""

GUIDELINES_FILE = ("data", "tau2", "user_simulator", "simulation_guidelines.md")
"""τ²'s global guidelines for a user without tools, relative to the ``tau2`` package."""
TOOLS_GUIDELINES_FILE = ("data", "tau2", "user_simulator", "simulation_guidelines_tools.md")
"""τ²'s global guidelines for a user with tools (telecom)."""

DEFAULT_MODEL = "gpt-4.1"
"""τ²'s ``DEFAULT_LLM_USER``."""

PROVIDERS = ("openai", "anthropic", "openai-compatible")


def simulation_guidelines(use_tools: bool = False) -> str:
    """τ²'s global user-simulation guidelines, read from the installed package."""
    path = files("tau2").joinpath(*(TOOLS_GUIDELINES_FILE if use_tools else GUIDELINES_FILE))
    return path.read_text(encoding="utf-8")


def simulator_system_prompt(instructions: str, use_tools: bool = False) -> str:
    """τ²'s ``UserSimulator.system_prompt`` for a scenario text."""
    return SYSTEM_PROMPT.format(
        global_user_sim_guidelines=simulation_guidelines(use_tools), instructions=instructions
    )


def device_tool_schemas(domain: str) -> list[dict[str, Any]]:
    """τ²'s OpenAI schemas of the customer's device tools, in τ²'s ``get_user_tools``
    order (empty where the user has no tools)."""
    loaded = load_domain(domain)
    if loaded.user_toolkit_class is None:
        return []
    toolkit = loaded.user_toolkit_class(loaded.user_base_db)
    return [tool.openai_schema for tool in toolkit.get_tools().values()]


def _backend(provider: str, config: ProviderConfig) -> Backend:
    if provider == "openai":
        return OpenAIChatBackend(config)
    if provider == "openai-compatible":
        if not config.base_url and config.endpoints is None:
            raise ConfigError("the openai-compatible user simulator needs base_url or endpoints")
        return OpenAIChatBackend(config, compatible=True)
    if provider == "anthropic":
        return AnthropicMessagesBackend(config)
    raise ConfigError(f"unknown provider {provider!r}; choose one of {', '.join(PROVIDERS)}")


class UserSimulator:
    """τ²'s LLM user simulator as an SSCBench :class:`~sscbench.agents.base.User`.

    A reply that stays empty after the re-asks raises :class:`ProviderError` (τ²'s
    orchestrator fails the simulation on it too): the run is then a harness failure, not
    a result about the agent.
    """

    def __init__(self, provider: str = "openai", config: ProviderConfig | None = None) -> None:
        config = config or ProviderConfig(model=DEFAULT_MODEL)
        if provider == "anthropic" and config.max_tokens is None:
            config = config.model_copy(update={"max_tokens": DEFAULT_MAX_TOKENS})
        self.config = config
        self.provider = provider
        self.spec = ParticipantSpec(
            name="simulator", params={"provider": provider, **config.params()}
        )
        self.provider_calls: list[ProviderCall] = []
        self._backend = _backend(provider, config)
        self._client = ProviderClient(self._backend, config, "user", self.provider_calls)
        self._system: str | None = None
        self._seed = 0
        self._tools: list[dict[str, Any]] = []
        self._device: dict[int, list[Message]] = {}
        self._step = 0

    def start(self, ctx: EpisodeContext) -> None:
        """Build the system prompt from the task's user scenario (and, in telecom, the
        device tools τ² gives the user)."""
        self._tools = device_tool_schemas(ctx.domain)
        self._system = simulator_system_prompt(str(ctx.task.user_scenario), bool(self._tools))
        self._seed = self.config.seed if self.config.seed is not None else ctx.seed
        self.provider_calls = []
        self._client = ProviderClient(self._backend, self.config, "user", self.provider_calls)
        self._device = {}

    def next_message(self, history: Sequence[VisibleEvent]) -> str:
        """The simulated user's next message (may contain a τ² stop token)."""
        turn = self.next_user_turn(history)
        if turn.tool_calls:
            raise HarnessError("user simulator: device calls in a domain without user tools")
        return turn.text or ""

    def next_user_turn(self, history: Sequence[VisibleEvent]) -> UserTurn:
        """The simulated user's next message, or its calls on its own device (telecom)."""
        if self._system is None:
            raise HarnessError("user simulator: next_message before start")
        request = self._backend.build_request(
            self._system,
            user_transcript(history, self._device),
            self._tools or None,
            self._seed,
        )
        self._step = len(history)
        completion = self._client.complete(request, seed=self._seed, step=len(history))
        if completion.calls and self._tools:
            calls = tuple(
                ToolCall(
                    id=c.id or f"user_call_{i}", name=c.name, arguments=parse_arguments(c.arguments)
                )
                for i, c in enumerate(completion.calls)
            )
            turn = len(history) + sum(len(v) for v in self._device.values())
            self._device.setdefault(self._step, []).append(
                Message(
                    "assistant",
                    completion.text or None,
                    calls=tuple(
                        AgentToolCall(
                            ts=0.0,
                            step=self._step,
                            turn=turn,
                            call_id=c.id,
                            name=c.name,
                            arguments=c.arguments,
                        )
                        for c in calls
                    ),
                    turn=turn,
                )
            )
            return UserTurn(tool_calls=calls)
        if completion.is_empty or completion.text is None:
            raise ProviderError(
                f"user simulator ({self.provider} {self.config.model}) replied with an "
                f"empty message {self.config.empty_retries + 1} times"
            )
        return UserTurn(text=completion.text)

    def device_result(self, call: ToolCall, content: str, error: bool) -> None:
        """The device's answer, shown to the simulator as τ² shows a user's tool result."""
        self._device.setdefault(self._step, []).append(
            Message("tool", content, call_id=call.id, error=error)
        )


def simulator_user(provider: str = "openai", **params: Any) -> UserSimulator:
    """Registry factory ``simulator``: ``make_user("simulator", provider=..., model=...)``.

    Without parameters it is τ²'s default user: OpenAI ``gpt-4.1`` at temperature 0.
    """
    return UserSimulator(provider, parse_config(params, model=DEFAULT_MODEL))


class SimulatorParams(ProviderConfig):
    """The simulator's parameters: a provider, and its model settings (τ²'s default user,
    OpenAI ``gpt-4.1``, when none are given)."""

    provider: Literal["openai", "anthropic", "openai-compatible"] = "openai"
    model: str = Field(default=DEFAULT_MODEL, min_length=1)


def register_simulator_user(registry: Registry[Callable[..., User]]) -> None:
    """Add ``simulator`` to a user registry (a duplicate name raises)."""
    registry.add("simulator", simulator_user, params=SimulatorParams)
