"""The native suite played by any registered agent, through the agent interface ``run``
uses: the task's instruction as the user's message, the server's tools for the task's
family as the agent's tools (OpenAI-format schemas in :attr:`EpisodeContext.tools`,
:func:`tools_for`), every call answered
by the server on its virtual clock, and the hidden verifier's verdict at the end.

Provider agents (``openai``, ``anthropic``, ``openai-compatible``) and agents a plugin
registers can play it; the scripted reference agents cannot — they carry out a τ² task's
gold plan, and a native task has none (its scripted solutions are ``--solution``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

from sscbench.agents.base import GREETING, Agent, EpisodeContext
from sscbench.native.server import NativeServer
from sscbench.native.tasks import FAMILIES, Family, NativeTask, catalogue
from sscbench.native.verifier import Verdict, verify
from sscbench.records.events import (
    AgentMessage,
    AgentToolCall,
    ToolObservation,
    UserMessage,
    VisibleEvent,
)

DOMAIN = "native"
POLICY = (
    "You are an agent that exports and updates reports. Use the tools to do what the user asks; "
    "answer the user when you are done."
)
MAX_STEPS = 40


def _tool(name: str, description: str, properties: dict[str, Any]) -> dict[str, Any]:
    """One tool in the OpenAI function format, τ²'s own (every property required)."""
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {
                "type": "object",
                "properties": properties,
                "required": list(properties),
            },
        },
    }


TOOLS: tuple[dict[str, Any], ...] = (
    _tool("prepare_export", "Prepare the export (a slow step).", {}),
    _tool("issue_link", "Issue a signed download link for the report.", {}),
    _tool(
        "resolve_link",
        "The stored link for a handle, byte for byte, with its SHA-256.",
        {"handle": {"type": "string", "description": "the handle issue_link returned"}},
    ),
    _tool(
        "download",
        "Download the report with a signed link.",
        {"link": {"type": "string", "description": "the signed link, exactly as issued"}},
    ),
)
"""The signed-link family's tools."""
WAIT = _tool(
    "wait",
    "Let server time pass without calling the service.",
    {"seconds": {"type": "number", "description": "virtual seconds to wait (at most 3600)"}},
)
FAMILY_TOOLS: dict[Family, tuple[dict[str, Any], ...]] = {
    "link": TOOLS,
    "rate_limit": (*TOOLS, WAIT),
    "maintenance": (
        *TOOLS,
        _tool("service_status", "Whether the export service is up or in maintenance.", {}),
        WAIT,
    ),
    "version_conflict": (
        _tool("get_report", "The report's current version and notes.", {}),
        _tool(
            "update_report",
            "Replace the report's notes; saved only if `version` is still the current one.",
            {
                "version": {"type": "integer", "description": "the version you read"},
                "notes": {
                    "type": "array",
                    "items": {"type": "string"},
                    "description": "the full list of notes to store",
                },
            },
        ),
    ),
}


def tools_for(task: NativeTask) -> tuple[dict[str, Any], ...]:
    """The tools an agent gets for ``task``: those of its family."""
    return FAMILY_TOOLS[task.family]


def _answer(server: NativeServer, name: str, arguments: dict[str, Any]) -> tuple[str, bool]:
    """The server's answer to one call, and whether the call itself was malformed (a tool
    outside the task's family, a missing or ill-typed argument)."""
    if name not in {t["function"]["name"] for t in tools_for(server.task)}:
        return json.dumps({"error": f"unknown tool {name!r}"}), True
    try:
        if name == "wait":
            return server.wait(float(arguments["seconds"])), False
        if name == "service_status":
            return server.service_status(), False
        if name == "get_report":
            return server.get_report(), False
        if name == "update_report":
            notes = arguments["notes"]
            if not isinstance(notes, list):
                return json.dumps({"error": "notes must be a list of strings"}), True
            return server.update_report(int(arguments["version"]), [str(n) for n in notes]), False
        if name == "prepare_export":
            return server.prepare_export(), False
        if name == "issue_link":
            return server.issue_link(), False
        if name == "resolve_link":
            return server.resolve_link(str(arguments["handle"])), False
        if name == "download":
            return server.download(str(arguments["link"])), False
    except KeyError as exc:
        return json.dumps({"error": f"missing argument {exc.args[0]!r}"}), True
    except (TypeError, ValueError) as exc:
        return json.dumps({"error": f"ill-typed argument: {exc}"}), True
    return json.dumps({"error": f"unknown tool {name!r}"}), True


def run_agent(task: NativeTask, agent: Agent, max_steps: int = MAX_STEPS) -> Verdict:
    """One episode of ``task`` played by ``agent``, judged by the hidden verifier."""
    server = NativeServer(task)
    agent.start(
        EpisodeContext(
            domain=DOMAIN, task=task, seed=task.seed, policy=POLICY, tools=tools_for(task)
        )
    )
    history: list[VisibleEvent] = [
        AgentMessage(step=0, turn=0, content=GREETING),
        UserMessage(step=1, turn=1, content=task.instruction),
    ]
    turn = 2
    while len(history) < max_steps:
        reply = agent.next_turn(tuple(history))
        if reply.text is None and not reply.tool_calls:
            break
        if reply.text:
            history.append(AgentMessage(step=len(history), turn=turn, content=reply.text))
        for call in reply.tool_calls:
            history.append(
                AgentToolCall(
                    step=len(history),
                    turn=turn,
                    call_id=call.id,
                    name=call.name,
                    arguments=call.arguments,
                )
            )
        turn += 1
        if not reply.tool_calls:
            break  # the agent answered the user: the episode is over
        for call in reply.tool_calls:
            content, error = _answer(server, call.name, call.arguments)
            history.append(
                ToolObservation(
                    step=len(history), turn=turn, call_id=call.id, content=content, error=error
                )
            )
            turn += 1
    return verify(server)


def run_suite_with(
    make: Callable[[], Agent],
    seeds: Iterable[int] = range(10),
    families: Iterable[Family] = FAMILIES,
) -> list[Verdict]:
    """Every task of the catalogue (of ``families``) under every seed, each with a fresh
    agent."""
    wanted = tuple(families)
    return [run_agent(task, make()) for seed in seeds for task in catalogue(seed, wanted)]
