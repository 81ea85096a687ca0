"""τ²'s user simulator on an Inspect model (the task's ``user`` model role).

The same prompt and conversation as SSCBench's own simulator
(:mod:`sscbench.users.simulator`): τ²'s template around τ²'s guidelines and the task's
scenario, the agent's messages to the user as ``user`` turns and the simulator's own as
``assistant`` turns, temperature 0 and the episode seed. Only the model call differs: it
goes to Inspect's model for the role, on the sample's event loop, so Inspect's providers,
retries, caching and usage accounting apply to the user as to the agent.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from sscbench.agents.base import EpisodeContext
from sscbench.errors import HarnessError, ServiceError
from sscbench.llm.transcript import user_transcript
from sscbench.records.events import ParticipantSpec, VisibleEvent
from sscbench.users.simulator import simulator_system_prompt


class InspectUser:
    """A :class:`~sscbench.agents.base.User` whose replies come from an Inspect model."""

    def __init__(self, model: Any, loop: asyncio.AbstractEventLoop, empty_retries: int = 3) -> None:
        self.model = model
        self.loop = loop
        self.empty_retries = empty_retries
        self.spec = ParticipantSpec(name="inspect:simulator", params={"model": str(model)})
        self._system: str | None = None
        self._seed = 0

    def start(self, ctx: EpisodeContext) -> None:
        """Build τ²'s system prompt from the task's user scenario."""
        self._system = simulator_system_prompt(str(ctx.task.user_scenario))
        self._seed = ctx.seed

    def next_message(self, history: Sequence[VisibleEvent]) -> str:
        """The simulated user's next message, from the role's model (on the sample's loop)."""
        if self._system is None:
            raise HarnessError("Inspect user: next_message before start")
        future = asyncio.run_coroutine_threadsafe(self._reply(history), self.loop)
        return future.result()

    async def _reply(self, history: Sequence[VisibleEvent]) -> str:
        from inspect_ai.model import (
            ChatMessage,
            ChatMessageAssistant,
            ChatMessageSystem,
            ChatMessageUser,
            GenerateConfig,
        )

        assert self._system is not None
        messages: list[ChatMessage] = [ChatMessageSystem(content=self._system)]
        for m in user_transcript(history):
            text = m.text or ""
            messages.append(
                ChatMessageUser(content=text)
                if m.role == "user"
                else ChatMessageAssistant(content=text)
            )
        config = GenerateConfig(temperature=0, seed=self._seed)
        for _ in range(self.empty_retries + 1):
            output = await self.model.generate(messages, config=config)
            if output.completion.strip():
                return str(output.completion)
        raise ServiceError(
            f"user model {self.model} replied with an empty message {self.empty_retries + 1} times"
        )
