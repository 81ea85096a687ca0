"""The sample's run (a setup solver) and the built-in τ² agent loop on Inspect's model.

``sscbench_episode`` starts the sample's SSCBench run and gives the agent what an MCP
client gets: τ²'s system prompt and policy (with a note on talking to the customer through
``send_message_to_user``), τ²'s greeting and the customer's opening message, and the
sample's tools. Any Inspect agent can follow it (``generate()`` with ``state.tools``,
``react()``, a custom ``@agent``).

``tau2_agent`` is τ²'s own protocol, as SSCBench's in-process provider agents run it: τ²'s
system prompt verbatim and τ²'s tool schemas; each model message is one turn — its text
goes to the customer, its tool calls to the environment (with the model's own call ids,
malformed arguments included, so the ledger records exactly what the model did); an empty
reply is asked again up to ``empty_retries`` times and then recorded as the empty reply it
was. It executes the calls itself rather than through Inspect's tool runner, so nothing a
model sends is answered before SSCBench sees it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageTool,
    ChatMessageUser,
    GenerateConfig,
    get_model,
)
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.tool import ToolInfo, ToolParams

from sscbench.agents.base import User
from sscbench.agents.external.bridge import Action, ConversationOver
from sscbench.agents.external.mcp_server import CONVERSATION_NOTE
from sscbench.agents.providers.scaffold import agent_system_prompt, tool_schemas
from sscbench.envs.calls import RAW_ARGUMENTS, ToolCall
from sscbench.fault_contracts.contract import FaultContract
from sscbench.inspect_task.episodes import STORE_KEY, RunHandle, start_run
from sscbench.inspect_task.tools import current_run, run_tools

UserFactory = Callable[[], User]
ERROR_FLAG = "sscbench_error"
"""A tool message's metadata key for τ²'s error flag (the model sees τ²'s text as is)."""


@solver
def sscbench_episode(run_dir: str, user: UserFactory) -> Solver:
    """Start the sample's run (module docstring); ``run_dir`` holds the runs, ``user`` makes
    the sample's user."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        meta = state.metadata
        contract = (
            None if meta.get("contract") is None else FaultContract.model_validate(meta["contract"])
        )
        handle = await asyncio.to_thread(
            start_run,
            domain=meta["domain"],
            task_id=meta["task_id"],
            contract=contract,
            seed=state.epoch - 1,
            max_steps=int(meta["max_steps"]),
            run_root=Path(run_dir),
            configuration=str(state.model),
            agent_params={"model": str(state.model)},
            user=user(),
            variants=meta.get("variants"),
        )
        state.store.set(STORE_KEY, handle.token)
        opening = await handle.conversation()
        system = agent_system_prompt(handle.context.policy)
        state.messages = [
            ChatMessageSystem(content=f"{system}\n{CONVERSATION_NOTE}"),
            *_conversation(opening),
        ]
        state.tools = list(
            run_tools(meta["domain"], bool(handle.context.variants.get("read_back_hint")))
        )
        return state

    return solve


def _conversation(events: Any) -> list[ChatMessage]:
    out: list[ChatMessage] = []
    for event in events:
        if event.kind == "agent_message":
            out.append(ChatMessageAssistant(content=event.content))
        else:
            out.append(ChatMessageUser(content=event.content))
    return out


def tau2_tool_info(handle: RunHandle) -> list[ToolInfo]:
    """τ²'s tool schemas (with the run's interface variant) as Inspect tool descriptions."""
    hint = bool(handle.context.variants.get("read_back_hint"))
    return [
        ToolInfo(
            name=s["function"]["name"],
            description=s["function"].get("description", ""),
            parameters=ToolParams.model_validate(
                s["function"].get("parameters") or {"type": "object", "properties": {}}
            ),
        )
        for s in tool_schemas(handle.context.domain, read_back_hint=hint)
    ]


def _call(call: Any) -> ToolCall:
    if call.parse_error:  # answered as τ² answers argument text that is not a JSON object
        return ToolCall(id=call.id, name=call.function, arguments={RAW_ARGUMENTS: call.parse_error})
    return ToolCall(id=call.id, name=call.function, arguments=dict(call.arguments))


@solver
def tau2_agent(empty_retries: int = 3) -> Solver:
    """τ²'s agent loop on the task's model (module docstring)."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        handle = current_run()
        model = get_model()
        tools = tau2_tool_info(handle)
        state.messages[0] = ChatMessageSystem(content=agent_system_prompt(handle.context.policy))
        config = GenerateConfig(seed=handle.spec.seed)
        while handle.bridge.ended is None:  # the user may end it before the agent speaks
            for _ in range(empty_retries + 1):
                output = await model.generate(state.messages, tools=tools, config=config)
                message = output.message
                text = message.text if message.text.strip() else ""
                if text or message.tool_calls:
                    break
            state.output = output
            state.messages.append(message)
            calls = tuple(_call(c) for c in message.tool_calls or ())
            try:
                if not text and not calls:
                    await handle.submit(Action(kind="empty"))
                    return state
                reply = await handle.submit(Action(kind="turn", text=text, calls=calls))
            except ConversationOver:  # it ended while the model was thinking
                return state
            if calls:
                for call, (content, error) in zip(calls, reply.observations, strict=False):
                    state.messages.append(  # τ²'s error text as content, as in-process
                        ChatMessageTool(
                            content=content,
                            tool_call_id=call.id,
                            function=call.name,
                            metadata={ERROR_FLAG: error},
                        )
                    )
            else:
                state.messages.append(ChatMessageUser(content=reply.content))
            if reply.ended:
                return state
        return state

    return solve

