"""The native suite's scripted solutions as a stand-alone MCP client program.

``python -m sscbench.native.client native:reference`` plays a native task served by
``sscbench serve --native`` (or ``sscbench native --agent external``) with one of the
scripted solutions (``native:SOLUTION``, :data:`sscbench.native.SOLUTIONS`): it learns the
task from ``sscbench://run``, checks that the ``conversation`` prompt holds that task's
instruction, and makes each of the solution's server calls as a ``tools/call`` — the
served server lives in the serving process, so nothing else reaches it. When the solution
is done it tells the user "Done.", which ends the task. Its verdicts must equal the
solution's in-process verdicts, which is how the served path is checked. Options as for
``python -m sscbench.agents.external.reference`` (``--url``, ``--sessions``).
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Sequence
from typing import Any

from sscbench.agents.external.reference import SEND, text_of
from sscbench.agents.external.reference import main as reference_main
from sscbench.native.solutions import SOLUTIONS
from sscbench.native.tasks import NativeTask, catalogue


class _RunEnded(Exception):
    """The served run ended while the solution was still calling tools."""


class _ServedTools:
    """The native server's tools as a scripted solution calls them (synchronously, from a
    worker thread), each call a ``tools/call`` on the session in the client's event loop.
    The served server lives in the serving process: the solution reaches it only this way."""

    def __init__(self, session: Any, loop: asyncio.AbstractEventLoop, task: NativeTask) -> None:
        self._session, self._loop, self.task = session, loop, task
        self.ended: str | None = None

    def _call(self, name: str, **arguments: Any) -> str:
        call = self._session.call_tool(name, arguments)
        result = asyncio.run_coroutine_threadsafe(call, self._loop).result()
        ended = (result.meta or {}).get("sscbench/conversation_ended")
        if ended:  # e.g. the step limit: the solution stops where the run did
            self.ended = str(ended)
            raise _RunEnded
        return text_of(result.content[0])

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


async def play_native(session: Any, agent_name: str, params: dict[str, Any] | None) -> str:
    """Play a native task with a scripted solution (``native:reference``, …) through the
    served tools, then report to the user, which ends the task; return how it ended."""
    import json

    run = json.loads(text_of((await session.read_resource("sscbench://run")).contents[0]))
    if run["domain"] != "native":
        raise SystemExit(f"not a native task but a {run['domain']} run: use the reference agents")
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



def main(argv: Sequence[str] | None = None) -> int:
    """Command line (module docstring)."""
    return reference_main(
        argv,
        player=play_native,
        prog="python -m sscbench.native.client",
        agents=f"native:SOLUTION, one of {', '.join(f'native:{s}' for s in SOLUTIONS)}",
    )


if __name__ == "__main__":
    sys.exit(main())
