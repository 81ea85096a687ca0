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
from collections.abc import Sequence
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

    run = json.loads(_text((await session.read_resource("sscbench://run")).contents[0]))
    if run["domain"] == "native":
        return await play_native(session, agent_name, run)
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
            reply = _text(result.content[0])
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
                    content=_text(result.content[0]),
                    error=bool(result.is_error),
                )
            )
            turn += 2


class _RunEnded(Exception):
    """The served run ended while the solution was still calling tools."""


class _ServedTools:
    """The native server's tools as a scripted solution calls them (synchronously, from a
    worker thread), each call a ``tools/call`` on the session in the client's event loop.
    The served server lives in the serving process: the solution reaches it only this way."""

    def __init__(self, session: Any, loop: asyncio.AbstractEventLoop, task: Any) -> None:
        self._session, self._loop, self.task = session, loop, task
        self.ended: str | None = None

    def _call(self, name: str, **arguments: Any) -> str:
        call = self._session.call_tool(name, arguments)
        result = asyncio.run_coroutine_threadsafe(call, self._loop).result()
        ended = (result.meta or {}).get("sscbench/conversation_ended")
        if ended:  # e.g. the step limit: the solution stops where the run did
            self.ended = str(ended)
            raise _RunEnded
        return _text(result.content[0])

    def prepare_export(self) -> str:
        return self._call("prepare_export")

    def issue_link(self) -> str:
        return self._call("issue_link")

    def resolve_link(self, handle: str) -> str:
        return self._call("resolve_link", handle=handle)

    def download(self, link: str) -> str:
        return self._call("download", link=link)

    def wait(self, seconds: float) -> str:
        return self._call("wait", seconds=seconds)

    def service_status(self) -> str:
        return self._call("service_status")

    def get_report(self) -> str:
        return self._call("get_report")

    def update_report(self, version: int, notes: list[str]) -> str:
        return self._call("update_report", version=version, notes=notes)


async def play_native(session: Any, agent_name: str, run: dict[str, Any]) -> str:
    """Play a native task with a scripted solution (``native:reference``, …) through the
    served tools, then report to the user, which ends the task; return how it ended."""
    from sscbench.native.solutions import SOLUTIONS
    from sscbench.native.tasks import catalogue

    kind, _, name = agent_name.partition(":")
    if kind != "native" or name not in SOLUTIONS:
        raise SystemExit(
            f"a native task is played by native:SOLUTION (one of {', '.join(SOLUTIONS)}), "
            f"not {agent_name!r}"
        )
    seed = int(run["seed"])
    task = next((t for t in catalogue(seed) if t.task_id == run["task_id"]), None)
    opening = await session.get_prompt("conversation")
    said = [m.content.text for m in opening.messages if m.role == "user"]
    if task is None or said != [task.instruction]:
        raise SystemExit(f"the served task is not native task {run['task_id']!r}, seed {seed}")
    tools = _ServedTools(session, asyncio.get_running_loop(), task)
    try:
        await asyncio.to_thread(SOLUTIONS[name], tools)
    except _RunEnded:
        return str(tools.ended)
    result = await session.call_tool(SEND, {"message": "Done."})
    return str((result.meta or {}).get("sscbench/conversation_ended", "open"))


def _text(block: Any) -> str:
    text = getattr(block, "text", None)
    if not isinstance(text, str):
        raise SystemExit(f"expected text from the server, got {type(block).__name__}")
    return text


async def run_sessions(
    agent_name: str,
    *,
    url: str | None = None,
    stdio: Sequence[str] | None = None,
    sessions: int = 1,
    params: dict[str, Any] | None = None,
) -> list[str]:
    """Play ``sessions`` runs one after another; each is its own MCP session."""
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
            endings.append(await play(client, agent_name, params))
    return endings


def main(argv: Sequence[str] | None = None) -> int:
    """Command line (module docstring)."""
    parser = argparse.ArgumentParser(
        prog="python -m sscbench.agents.external.reference",
        description="Play a scripted reference agent against served SSCBench runs over MCP.",
    )
    parser.add_argument(
        "agent", help="scripted:gold, scripted:hasty, … (native tasks: native:reference, …)"
    )
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
        )
    )
    print(
        f"{len(endings)} session(s) in {time.monotonic() - started:.1f} s: {', '.join(endings)}",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
