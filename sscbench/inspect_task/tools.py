"""SSCBench's injected tools as Inspect tools, for any Inspect agent.

Each of the domain's τ² tools (τ²'s name, description and JSON schema) is an Inspect
tool whose call goes to the sample's run — through the one fault choke point, into the
ledger — and returns exactly the observation the run recorded (never truncated: what the
model sees is what the ledger says it saw). ``send_message_to_user`` is the conversation
(it returns the user's reply) and ``end_conversation`` ends it, as over MCP.

Inspect validates a call's arguments against the schema before a tool runs, so a call an
Inspect agent makes with malformed arguments is answered by Inspect and never reaches the
run; the built-in :func:`~sscbench.inspect_task.solver.tau2_agent` executes its calls
itself, so its runs record those too (docs/inspect.md).
"""

from __future__ import annotations

from typing import Any

from inspect_ai.tool import Tool, ToolDef, ToolError, ToolParams
from inspect_ai.util import store

from sscbench.agents.external.agent import END
from sscbench.agents.external.bridge import Action, ConversationOver, Reply
from sscbench.agents.external.mcp_server import SEND
from sscbench.agents.providers.scaffold import tool_schemas
from sscbench.envs.domain import DOMAINS
from sscbench.inspect_task.episodes import STORE_KEY, RunHandle


def current_run() -> RunHandle:
    """The run of the sample being executed."""
    return RunHandle.find(store().get(STORE_KEY))


async def _submit(action: Action) -> str:
    try:
        reply: Reply = await current_run().submit(action)
    except ConversationOver as over:
        raise ToolError(str(over)) from None
    if reply.ended and not reply.error:
        return f"{reply.content}\n\n[The conversation has ended: {reply.reason}.]"
    return reply.content


def _tau2_tool(name: str, description: str, parameters: dict[str, Any]) -> Tool:
    async def execute(**arguments: Any) -> str:
        return await _submit(Action(kind="call", name=name, arguments=arguments))

    return ToolDef(
        execute,
        name=name,
        description=description,
        parameters=ToolParams.model_validate(parameters),
        max_output=0,
    ).as_tool()


def _send_message() -> Tool:
    async def execute(message: str) -> str:
        return await _submit(Action(kind="say", text=message))

    return ToolDef(
        execute,
        name=SEND,
        description="Send a message to the customer and wait for the reply, which this "
        "tool returns. It is the only way to talk to the customer.",
        parameters=ToolParams.model_validate(
            {
                "type": "object",
                "properties": {
                    "message": {"type": "string", "description": "what to tell the customer"}
                },
                "required": ["message"],
            }
        ),
        max_output=0,
    ).as_tool()


def _end_conversation() -> Tool:
    async def execute() -> str:
        return await _submit(Action(kind="end", text=END))

    return ToolDef(
        execute,
        name=END,
        description="End the conversation with the customer. Nothing can be done after it.",
        parameters=ToolParams(),
        max_output=0,
    ).as_tool()


def run_tools(domain: str, read_back_hint: bool = False) -> list[Tool]:
    """The domain's τ² tools (with the run's interface variant), ``send_message_to_user``
    and ``end_conversation``."""
    if domain not in DOMAINS:
        raise ValueError(f"unknown domain {domain!r}; choose one of {', '.join(DOMAINS)}")
    tools = [
        _tau2_tool(
            schema["function"]["name"],
            schema["function"].get("description", ""),
            schema["function"].get("parameters") or {"type": "object", "properties": {}},
        )
        for schema in tool_schemas(domain, read_back_hint=read_back_hint)
    ]
    return [*tools, _send_message(), _end_conversation()]


class SSCBenchTools:
    """An Inspect ``ToolSource``: the tools of whichever sample asks, resolved when the agent
    lists its tools, so one ``react(tools=[sscbench_tools()])`` serves airline and retail
    samples alike."""

    async def tools(self) -> list[Tool]:
        """The current sample's tools."""
        context = current_run().context
        return run_tools(context.domain, bool(context.variants.get("read_back_hint")))


def sscbench_tools() -> SSCBenchTools:
    """The current sample's SSCBench tools, for any Inspect agent (module docstring)."""
    return SSCBenchTools()
