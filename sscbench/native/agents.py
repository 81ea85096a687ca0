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
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, cast

from sscbench.agents.base import GREETING, Agent, EpisodeContext, LimitReached, RunsOutside
from sscbench.errors import ConfigError, HarnessError
from sscbench.llm.errors import EmptyReply
from sscbench.native.server import NativeServer
from sscbench.native.tasks import FAMILIES, Family, NativeTask, catalogue
from sscbench.native.verifier import Verdict, verify
from sscbench.records.client import CLIENT_FILE
from sscbench.records.events import (
    AgentMessage,
    AgentToolCall,
    RunEnd,
    Termination,
    ToolObservation,
    UserMessage,
    VisibleEvent,
)
from sscbench.records.ledger import JsonlWriter

DOMAIN = "native"
POLICY = (
    "You are an agent that exports and updates reports. Use the tools to do what the user asks; "
    "answer the user when you are done."
)
MAX_STEPS = 100
"""Model-visible events an episode may hold, as for ``sscbench run`` (a scripted mistake
that polls through a maintenance window makes 26 calls)."""


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


TOOL_KINDS: dict[str, str] = {
    "prepare_export": "write",
    "issue_link": "write",
    "resolve_link": "read",
    "download": "write",
    "wait": "generic",
    "service_status": "read",
    "get_report": "read",
    "update_report": "write",
}
"""Each tool's effect in τ²'s terms (an MCP client sees the reads as read-only tools):
``issue_link`` stores a link and counts against a rate limit, ``download`` is the
consuming use the verifier judges, so neither is read-only (what the virtual clock charges
for a call is the server's business, :mod:`.server`)."""


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


def run_agent(
    task: NativeTask, agent: Agent, max_steps: int = MAX_STEPS, run_dir: Path | None = None
) -> Verdict:
    """One episode of ``task`` played by ``agent``, judged by the hidden verifier.

    An agent whose loop runs outside (``external``, an MCP client) is served the episode
    first and told how it ended last, exactly as in a τ² run; ``run_dir`` (required for it)
    then receives the client's session log and the run's verdict. A limit of the agent's
    own harness or an empty reply ends the episode, which is judged on what was done."""
    server = NativeServer(task)
    ctx = EpisodeContext(
        domain=DOMAIN,
        task=task,
        seed=task.seed,
        policy=POLICY,
        tools=tools_for(task),
        tool_kinds=dict(TOOL_KINDS),
    )
    outside = cast(RunsOutside, agent) if hasattr(agent, "connect") else None
    if outside is not None:
        if run_dir is None:
            raise HarnessError("an agent that runs outside plays the native suite into a run_dir")
        run_dir.mkdir(parents=True, exist_ok=False)
        outside.connect(ctx, run_dir)
    history: list[VisibleEvent] = [
        AgentMessage(step=0, turn=0, content=GREETING),
        UserMessage(step=1, turn=1, content=task.instruction),
    ]
    end: RunEnd | None = None
    try:
        agent.start(ctx)
        termination = _converse(server, agent, history, max_steps)
        verdict = verify(server)
        end = RunEnd(
            ts=time.time(),
            termination=termination,
            steps=len(history),
            success=verdict.success,
            db_match=None,
            communicate_ok=None,
            final_state_hash=None,
        )
    finally:
        if outside is not None:  # the client gets its last answer; its session closes
            outside.finish(tuple(history), end)
    if run_dir is not None:
        _write_run(run_dir, agent, verdict, end)
    return verdict


def _converse(
    server: NativeServer, agent: Agent, history: list[VisibleEvent], max_steps: int
) -> Termination:
    """Alternate the agent's turns and the server's answers until the agent answers the
    user (the task is over: the user has nothing more to say) or a limit ends it."""
    turn = 2
    while len(history) < max_steps:
        try:
            reply = agent.next_turn(tuple(history))
        except LimitReached as limit:
            return limit.termination
        except EmptyReply:
            return "empty_reply"
        if reply.text is None and not reply.tool_calls:
            return "agent_stop"
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
            return "user_stop"  # the agent answered the user: the episode is over
        for call in reply.tool_calls:
            content, error = _answer(server, call.name, call.arguments)
            history.append(
                ToolObservation(
                    step=len(history), turn=turn, call_id=call.id, content=content, error=error
                )
            )
            turn += 1
    return "max_steps"


RUN_FILE = "run.json"
"""A served native run's verdict and how it ended, beside ``client.jsonl`` and ``agent.log``."""


def _write_run(run_dir: Path, agent: Agent, verdict: Verdict, end: RunEnd | None) -> None:
    events = getattr(agent, "client_events", None)  # RecordsClientEvents
    if events is not None:
        with JsonlWriter(run_dir / CLIENT_FILE) as out:
            out.append_all(events)
    record = {
        "termination": None if end is None else end.termination,
        "steps": None if end is None else end.steps,
        "verdict": verdict.model_dump(mode="json"),
    }
    (run_dir / RUN_FILE).write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")


def run_suite_with(
    make: Callable[[], Agent],
    seeds: Iterable[int] = range(10),
    families: Iterable[Family] = FAMILIES,
    out: Path | None = None,
    max_steps: int = MAX_STEPS,
) -> list[Verdict]:
    """Every task of the catalogue (of ``families``) under every seed, each with a fresh
    agent; with ``out``, each run writes into ``out/<task>-s<seed>`` (:func:`run_dirs`)."""
    tasks = [task for seed in seeds for task in catalogue(seed, tuple(families))]
    dirs = run_dirs(tasks, out)
    return [
        run_agent(task, make(), max_steps, run_dir=d) for task, d in zip(tasks, dirs, strict=True)
    ]


def run_dirs(tasks: Sequence[NativeTask], out: Path | None) -> list[Path | None]:
    """Each task's run directory under ``out`` (None without one); a directory that already
    exists is refused before any run (a native run is not resumed and never overwritten)."""
    if out is None:
        return [None] * len(tasks)
    dirs = [out / f"{task.task_id}-s{task.seed}" for task in tasks]
    taken = next((d for d in dirs if d.exists()), None)
    if taken is not None:
        raise ConfigError(
            f"{taken} exists: a native run is never overwritten; choose another --out or "
            "remove it"
        )
    return list(dirs)
