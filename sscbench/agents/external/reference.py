"""The scripted reference agents as a stand-alone MCP client program.

``python -m sscbench.agents.external.reference scripted:gold`` plays a scripted reference
agent against a served run, speaking only MCP: it learns the task from the run's
``sscbench://run`` resource, the opening from the ``conversation`` prompt, and everything
else from the results of its own tool calls; it never touches the environment, the
ledger or the server's objects (it imports the scripted agents' decision code and nothing
of the run machinery — a test checks). Because the scripted agents decide from the
model-visible history alone, its runs must equal the in-process runs of the same agent and
seed event for event, which is how the served interface is checked against the loop.

Where it connects: ``--url`` (default ``SSCBENCH_MCP_URL``, which a launched program is
given) over streamable HTTP, or ``--stdio "sscbench serve …"``, a server it spawns.
``--sessions N`` plays N runs one after another (a waiting endpoint binds each new session
to the next run).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shlex
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from sscbench.agents.base import EpisodeContext
from sscbench.records.events import (
    AgentMessage,
    AgentToolCall,
    ToolObservation,
    UserMessage,
    VisibleEvent,
)

SEND = "send_message_to_user"
END = "end_conversation"
CLIENT_NAME = "sscbench-reference-agent"


async def play(session: Any, agent_name: str, params: dict[str, Any] | None = None) -> str:
    """Play one run on an initialised MCP ``session``; return how it ended."""
    from sscbench.agents.registry import make_agent
    from sscbench.envs.domain import load_domain

    run = json.loads(text_of((await session.read_resource("sscbench://run")).contents[0]))
    if run["domain"] == "native":
        raise SystemExit(
            "a native task: play it with python -m sscbench.native.client native:SOLUTION"
        )
    domain = load_domain(run["domain"])
    agent = make_agent(agent_name, **(params or {}))
    agent.start(
        EpisodeContext(
            domain=run["domain"],
            task=domain.task(run["task_id"]),
            seed=int(run["seed"]),
            policy=domain.policy,
        )
    )
    opening = await session.get_prompt("conversation")
    history: list[VisibleEvent] = []
    turn = 0
    for message in opening.messages:
        kind = AgentMessage if message.role == "assistant" else UserMessage
        history.append(kind(step=len(history), turn=turn, content=message.content.text))
        turn += 1
    while True:
        decided = agent.next_turn(tuple(history))
        if decided.text is None and not decided.tool_calls:
            await session.call_tool(END, {})
            return "agent_stop"
        if decided.text is not None and decided.tool_calls:
            raise SystemExit("a reference agent spoke and called tools in one turn")
        if decided.text is not None:
            result = await session.call_tool(SEND, {"message": decided.text})
            history.append(AgentMessage(step=len(history), turn=turn, content=decided.text))
            reply = text_of(result.content[0])
            history.append(UserMessage(step=len(history), turn=turn + 1, content=reply))
            turn += 2
            ended = (result.meta or {}).get("sscbench/conversation_ended")
            if ended:
                return str(ended)
            continue
        for call in decided.tool_calls:
            result = await session.call_tool(call.name, call.arguments)
            ended = (result.meta or {}).get("sscbench/conversation_ended")
            if ended:
                return str(ended)
            history.append(
                AgentToolCall(
                    step=len(history),
                    turn=turn,
                    call_id=call.id,
                    name=call.name,
                    arguments=call.arguments,
                )
            )
            history.append(
                ToolObservation(
                    step=len(history),
                    turn=turn + 1,
                    call_id=call.id,
                    content=text_of(result.content[0]),
                    error=bool(result.is_error),
                )
            )
            turn += 2


def text_of(block: Any) -> str:
    """The text of one content block of a server answer (a client program exits on any
    other kind)."""
    text = getattr(block, "text", None)
    if not isinstance(text, str):
        raise SystemExit(f"expected text from the server, got {type(block).__name__}")
    return text


Player = Callable[[Any, str, "dict[str, Any] | None"], Awaitable[str]]
"""Plays one run on an initialised session: (session, agent name, parameters) → ending."""


async def run_sessions(
    agent_name: str,
    *,
    url: str | None = None,
    stdio: Sequence[str] | None = None,
    sessions: int = 1,
    params: dict[str, Any] | None = None,
    player: Player | None = None,
) -> list[str]:
    """Play ``sessions`` runs one after another; each is its own MCP session (``player``:
    how a run is played, :func:`play` by default)."""
    from mcp import Client
    from mcp_types import Implementation

    from sscbench import __version__

    info = Implementation(name=CLIENT_NAME, version=__version__)
    endings = []
    for _ in range(sessions):
        if stdio is not None:
            from mcp.client.stdio import StdioServerParameters

            target: Any = StdioServerParameters(command=stdio[0], args=list(stdio[1:]))
        else:
            assert url is not None
            target = url
        async with Client(target, client_info=info) as client:
            endings.append(await (player or play)(client, agent_name, params))
    return endings


def main(
    argv: Sequence[str] | None = None,
    player: Player | None = None,
    prog: str = "python -m sscbench.agents.external.reference",
    agents: str = "scripted:gold, scripted:hasty, …",
) -> int:
    """Command line (module docstring); ``player``, ``prog`` and ``agents`` let another
    client program (the native suite's) reuse it."""
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Play a scripted reference agent against served SSCBench runs over MCP.",
    )
    parser.add_argument("agent", help=agents)
    parser.add_argument("--url", default=os.environ.get("SSCBENCH_MCP_URL"))
    parser.add_argument("--stdio", help="spawn this server command and talk to it over stdio")
    parser.add_argument("--sessions", type=int, default=1, help="runs to play in a row")
    parser.add_argument("--param", action="append", default=[], metavar="KEY=VALUE")
    args = parser.parse_args(argv)
    if args.url is None and args.stdio is None:
        parser.error("give --url (or set SSCBENCH_MCP_URL) or --stdio")
    params = dict(p.split("=", 1) for p in args.param)
    started = time.monotonic()
    endings = asyncio.run(
        run_sessions(
            args.agent,
            url=args.url,
            stdio=None if args.stdio is None else shlex.split(args.stdio),
            sessions=args.sessions,
            params=params,
            player=player,
        )
    )
    print(
        f"{len(endings)} session(s) in {time.monotonic() - started:.1f} s: {', '.join(endings)}",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
