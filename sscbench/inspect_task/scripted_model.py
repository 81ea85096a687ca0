"""``--model sscbench/scripted:gold``: a scripted reference agent as an Inspect model.

The reference agents decide from the model-visible history alone, so an Inspect model that
rebuilds that history from the messages it is given and asks the agent for its next turn
plays the agent inside Inspect's own loop: with the built-in ``tau2_agent`` solver its runs
must equal the in-process runs of the same agent and seed, which is how the Inspect path is
checked offline, without a key. Its gold plan comes from the sample's run (the task).
"""

from __future__ import annotations

from typing import Any

from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    GenerateConfig,
    ModelAPI,
    ModelOutput,
    modelapi,
)
from inspect_ai.tool import ToolCall, ToolChoice, ToolInfo

from sscbench.agents.registry import make_agent
from sscbench.inspect_task.solver import ERROR_FLAG
from sscbench.inspect_task.tools import current_run
from sscbench.records.events import (
    AgentMessage,
    AgentToolCall,
    ToolObservation,
    UserMessage,
    VisibleEvent,
)

AGENT = "scripted_agent"
"""The run's ``extras`` key of the agent playing it."""


def history_of(messages: list[ChatMessage]) -> list[VisibleEvent]:
    """The model-visible history the messages show, numbered as the episode loop numbers
    it: one turn per message, the calls of one message sharing its turn."""
    out: list[VisibleEvent] = []
    turn = 0
    for message in messages:
        if message.role == "system":
            continue
        if message.role == "user":
            out.append(UserMessage(step=len(out), turn=turn, content=message.text))
        elif message.role == "assistant":
            if message.text:
                out.append(AgentMessage(step=len(out), turn=turn, content=message.text))
            for call in message.tool_calls or ():
                out.append(
                    AgentToolCall(
                        step=len(out),
                        turn=turn,
                        call_id=call.id,
                        name=call.function,
                        arguments=dict(call.arguments),
                    )
                )
        elif message.role == "tool":
            error = bool((message.metadata or {}).get(ERROR_FLAG))
            out.append(
                ToolObservation(
                    step=len(out),
                    turn=turn,
                    call_id=message.tool_call_id or "",
                    content=message.text,
                    error=error,
                )
            )
        turn += 1
    return out


class ScriptedModel(ModelAPI):
    """A scripted reference agent behind Inspect's model interface (module docstring)."""

    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig | None = None,
        **model_args: Any,
    ) -> None:
        super().__init__(model_name, base_url, api_key, [], config or GenerateConfig())
        self.params = {k: str(v) for k, v in model_args.items()}
        make_agent(model_name, **self.params)  # an unknown agent fails here, at once

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        """The agent's next turn given the messages so far."""
        run = current_run()
        agent = run.extras.get(AGENT)
        if agent is None:
            agent = make_agent(self.model_name, **self.params)
            agent.start(run.context)
            run.extras[AGENT] = agent
        turn = agent.next_turn(tuple(history_of(input)))
        calls = [
            ToolCall(id=c.id, function=c.name, arguments=dict(c.arguments))
            for c in turn.tool_calls
        ]
        message = ChatMessageAssistant(
            content=turn.text or "", tool_calls=calls or None, model=self.model_name
        )
        return ModelOutput.from_message(message)


@modelapi(name="sscbench")
def sscbench_models() -> type[ModelAPI]:
    """The provider ``sscbench``: ``sscbench/<scripted agent name>``."""
    return ScriptedModel
