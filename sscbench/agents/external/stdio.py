"""The stdio front end: this process's stdin and stdout are the run's MCP session.

For clients that spawn their server (``sscbench serve --case … --transport stdio`` in a
client's server list): the SDK's stdio transport takes over file descriptors 0 and 1 (it
points the process's own stdout at stderr, so nothing SSCBench prints can corrupt the
session) and one run is served on them. The client closing stdin ends its session; a run
still live then ends as the agent's stop.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Literal

from sscbench.agents.external.agent import ClientLog, ExternalParams
from sscbench.agents.external.bridge import Bridge
from sscbench.errors import ConfigError

if TYPE_CHECKING:
    from sscbench.agents.base import EpisodeContext


class StdioFrontEnd:
    """Serve one run on this process's stdin/stdout (module docstring)."""

    transport: Literal["stdio"] = "stdio"
    _taken: ClassVar[bool] = False
    _lock: ClassVar[threading.Lock] = threading.Lock()

    def __init__(self, params: ExternalParams) -> None:
        self.params = params
        self._thread: threading.Thread | None = None
        self._done = threading.Event()

    def open(self, bridge: Bridge, ctx: EpisodeContext, run_dir: Path, log: ClientLog) -> None:
        """Start the stdio session in a thread of its own."""
        with StdioFrontEnd._lock:
            if StdioFrontEnd._taken:
                raise ConfigError("stdio serves one run per process; run one case, one seed")
            StdioFrontEnd._taken = True
        from sscbench.agents.external.mcp_server import build_server

        server = build_server(bridge, ctx, log, "stdio", run_dir.name)

        def serve() -> None:
            import anyio
            from mcp.server.stdio import stdio_server

            async def main() -> None:
                async with stdio_server() as (read, write):
                    await server.run(read, write, server.create_initialization_options())

            try:
                anyio.run(main)
            finally:
                if bridge.ended is None:
                    log.add("closed", how="the client closed stdin")
                    bridge.detach("the client closed stdin", clean=True)
                self._done.set()

        log.add("serving", url="stdio")
        self._thread = threading.Thread(target=serve, name="sscbench-mcp-stdio", daemon=True)
        self._thread.start()

    def exited(self) -> int | None:
        """No program is launched: the client launched this process."""
        return None

    def close(self, bridge: Bridge, grace: float) -> None:
        """Give the client ``grace`` seconds to read its last answer and close stdin."""
        self._done.wait(grace)
