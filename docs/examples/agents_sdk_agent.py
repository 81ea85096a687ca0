"""An OpenAI Agents SDK agent, measured by SSCBench without changing the agent.

SSCBench launches this program once per run (``agent = "external"`` with this file as
its ``command``; see ``agents_sdk.toml`` beside it) and gives it the run's MCP endpoint in
``SSCBENCH_MCP_URL``. Everything else is the researcher's own agent: its model, its
instructions, its loop. Here the agent:

* loads the run's system prompt (τ²'s policy) and the customer's opening message from
  the server's prompts;
* answers the customer in plain text, as a chat agent does: the framework's final output
  of each turn goes to the customer with ``send_message_to_user``, and the customer's
  reply starts the next turn (the model may also call that tool itself);
* stops when the server says the conversation has ended, or when it runs out of turns.

The model is any OpenAI-compatible endpoint: ``AGENT_BASE_URL`` (e.g. a local llama.cpp or
vLLM server; unset: api.openai.com), ``AGENT_MODEL``, and the key in the variable named by
``AGENT_API_KEY_ENV`` (default ``OPENAI_API_KEY``; a local server needs none).
"""

from __future__ import annotations

import asyncio
import os
import sys
from typing import Any

from agents import (
    Agent,
    ModelSettings,
    OpenAIChatCompletionsModel,
    Runner,
    set_tracing_disabled,
)
from agents.exceptions import MaxTurnsExceeded
from agents.mcp import MCPServerStreamableHttp
from openai import AsyncOpenAI


def _text(result: Any) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)


async def main() -> int:
    set_tracing_disabled(True)  # no trace export: runs stay offline
    key = os.environ.get(os.environ.get("AGENT_API_KEY_ENV", "OPENAI_API_KEY"), "none")
    client = AsyncOpenAI(base_url=os.environ.get("AGENT_BASE_URL"), api_key=key)
    model = OpenAIChatCompletionsModel(
        model=os.environ.get("AGENT_MODEL", "gpt-4.1"), openai_client=client
    )
    settings = ModelSettings(
        max_tokens=int(os.environ["AGENT_MAX_TOKENS"]) if "AGENT_MAX_TOKENS" in os.environ else None
    )
    turns = int(os.environ.get("AGENT_MAX_TURNS", "30"))
    conversations = int(os.environ.get("AGENT_MAX_CONVERSATION_TURNS", "20"))
    server = MCPServerStreamableHttp(
        params={"url": os.environ["SSCBENCH_MCP_URL"], "timeout": 30},
        client_session_timeout_seconds=900,
        cache_tools_list=True,
        name="sscbench",
    )
    async with server:
        system = _text((await server.get_prompt("system_prompt")).messages[0])
        opening = await server.get_prompt("conversation")
        said = _text(opening.messages[-1])
        agent = Agent(
            name="customer-service",
            instructions=system,
            model=model,
            model_settings=settings,
            mcp_servers=[server],
        )
        items: list[Any] = []
        for _ in range(conversations):
            try:
                result = await Runner.run(
                    agent, [*items, {"role": "user", "content": said}], max_turns=turns
                )
            except MaxTurnsExceeded:
                return 0  # out of turns: the agent stops
            items = result.to_input_list()
            reply = await server.call_tool(
                "send_message_to_user", {"message": str(result.final_output or "")}
            )
            if (reply.meta or {}).get("sscbench/conversation_ended"):
                return 0
            said = _text(reply)
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
