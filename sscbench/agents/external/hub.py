"""The streamable-HTTP front end: one server per process, one endpoint and session per run.

A process that serves runs over HTTP starts one :class:`Hub` — uvicorn on 127.0.0.1 (by
default) in a daemon thread with its own event loop — and every run it serves gets:

* its own MCP server (:func:`~sscbench.agents.external.mcp_server.build_server`) behind its
  own ``StreamableHTTPSessionManager`` (the SDK's session handling, one session at most);
* its own address, ``/mcp/runs/<token>`` with an unguessable token: a launched program gets
  it in ``SSCBENCH_MCP_URL``, so each program reaches exactly its own run;
* when the run waits for clients instead, a place in the queue behind ``/mcp``: the next
  client that initialises a session there is bound to the oldest waiting run, and its later
  requests (which carry the session id) follow it there.

The endpoint refuses a second client while a run has one (409), a request body over the
configured size (413, by the SDK), requests to a run that has ended (404), and requests of
the stateless 2026-07-28 protocol era, which has no session to bind a run to (the SDK's
clients then fall back to the initialize handshake by themselves). Each refusal goes to
the run's ``client.jsonl``.
"""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import shlex
import signal
import socket
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from sscbench.agents.external.agent import ClientLog, ExternalParams
from sscbench.agents.external.bridge import Bridge
from sscbench.errors import ConfigError, HarnessError
from sscbench.records.ledger import redact_secrets

if TYPE_CHECKING:
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

    from sscbench.agents.base import EpisodeContext

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]

RUNS_PATH = "/mcp/runs/"
WAITING_PATH = "/mcp"
SESSION_HEADER = b"mcp-session-id"
VERSION_HEADER = b"mcp-protocol-version"
AGENT_LOG = "agent.log"
LOOPBACK = ("127.0.0.1", "localhost", "::1")
HOLD = 30.0
"""Seconds a new client on ``/mcp`` is held while no run waits for one (runs are being
started); after that it is refused with 503."""
ANSWER_WAIT = 5.0
"""Seconds a run's end waits for answers still being written before its address retires."""


async def _refuse(send: Send, status: int, message: str, code: int = -32600) -> None:
    """A JSON-RPC error body (no request id) with an HTTP status, as the SDK answers."""
    body = json.dumps(
        {"jsonrpc": "2.0", "id": None, "error": {"code": code, "message": message}}
    ).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"application/json")],
        }
    )
    await send({"type": "http.response.body", "body": body})


def _header(scope: Scope, name: bytes) -> str | None:
    return next((v.decode("latin-1") for k, v in scope["headers"] if k.lower() == name), None)


def _sessionless_era(scope: Scope) -> bool:
    """A request of a protocol era without sessions (2026-07-28 on): nothing to bind a run
    to. A handshake-era request carries a session id, or is the initialize that opens one."""
    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

    version = _header(scope, VERSION_HEADER)
    return (
        version is not None
        and version not in HANDSHAKE_PROTOCOL_VERSIONS
        and _header(scope, SESSION_HEADER) is None
    )


@dataclass
class _Run:
    """One served run on the hub."""

    token: str
    bridge: Bridge
    log: ClientLog
    manager: StreamableHTTPSessionManager
    stop: asyncio.Event
    task: asyncio.Task[None] | None = None
    sessions: set[str] = field(default_factory=set)
    closed: bool = False
    posts: int = 0
    """Requests being answered now (a run is retired only once its last answer is out)."""
    ends_on_close: bool = True
    """Whether the client closing its session ends the run as the agent's stop. Not for a
    launched program: it closes its session on the way out of a crash too, so its exit
    status decides."""

    async def handle(self, hub: Hub, scope: Scope, receive: Receive, send: Send) -> None:
        session = _header(scope, SESSION_HEADER)
        if session is None and scope["method"] == "POST" and self.bridge.client is not None:
            self.log.add("refused", why="a second client tried to open a session")
            await _refuse(
                send, 409, "this run already has a client; two clients never share a run"
            )
            return

        async def watch(message: MutableMapping[str, Any]) -> None:
            if message["type"] == "http.response.start":
                status = message["status"]
                if status == 413:
                    self.log.add(
                        "rejected", why="request body over the size limit", status=status
                    )
                for key, value in message.get("headers", []):
                    if key.lower() == SESSION_HEADER:
                        opened = value.decode("latin-1")
                        if opened not in self.sessions:
                            self.sessions.add(opened)
                            hub.sessions[opened] = self.token
            await send(message)

        post = scope["method"] == "POST"
        self.posts += post
        try:
            await self.manager.handle_request(scope, receive, watch)
        finally:
            self.posts -= post
        if scope["method"] == "DELETE" and session in self.sessions:
            self.closed = True
            live = self.bridge.ended is None
            self.log.add("closed", how="the client ended its session", during_run=live)
            if live and self.ends_on_close:
                self.bridge.detach("the client ended its session", clean=True)


class Hub:
    """The process's HTTP server for served runs (module docstring)."""

    _hubs: ClassVar[dict[tuple[str, int], Hub]] = {}
    _lock: ClassVar[threading.Lock] = threading.Lock()

    def __init__(self, host: str, port: int) -> None:
        self.host = host
        # IPPROTO_TCP, not 0: asyncio sets TCP_NODELAY only on sockets that say they are
        # TCP, and without it every answer waits ~40 ms for the client's delayed ACK.
        self._socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            self._socket.bind((host, port))
        except OSError as exc:
            raise ConfigError(f"cannot serve MCP on {host}:{port}: {exc.strerror}") from None
        self.port: int = self._socket.getsockname()[1]
        self.runs: dict[str, _Run] = {}
        self.sessions: dict[str, str] = {}
        self.waiting: deque[str] = deque()
        self._announced = False
        self.loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._serve, name="sscbench-mcp", daemon=True)
        self._thread.start()
        if not self._ready.wait(30):
            raise HarnessError("the MCP server did not start within 30 s")

    @classmethod
    def shared(cls, host: str, port: int) -> Hub:
        """The process's hub on ``host:port`` (started on first use; port 0: any port)."""
        with cls._lock:
            for (h, p), hub in cls._hubs.items():
                if h == host and (port == 0 or p == port):
                    return hub
            hub = cls(host, port)
            cls._hubs[(host, hub.port)] = hub
            if port == 0:
                cls._hubs[(host, 0)] = hub
            return hub

    def security(self) -> Any:
        """The SDK's DNS-rebinding protection on a loopback address (as its own apps set
        it): a page in a browser cannot reach a local run through a hostile host name."""
        from mcp.server.transport_security import TransportSecuritySettings

        if self.host not in LOOPBACK:
            return None
        return TransportSecuritySettings(
            enable_dns_rebinding_protection=True,
            allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*"],
            allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"],
        )

    def announce(self, resumes: bool = True) -> None:
        """Say once, on stderr, where clients connect (when the first run waits for one);
        ``resumes``: whether re-running the command resumes (τ² runs do, native tasks not)."""
        with Hub._lock:
            if self._announced:
                return
            self._announced = True
        print(
            f"serving MCP at {self.base_url}{WAITING_PATH}: each client session is the next "
            f"run (Ctrl-C stops{'; re-running resumes' if resumes else ''})",
            file=sys.stderr,
            flush=True,
        )

    @property
    def base_url(self) -> str:
        """``http://host:port``."""
        return f"http://{self.host}:{self.port}"

    def _serve(self) -> None:
        import uvicorn

        asyncio.set_event_loop(self.loop)
        config = uvicorn.Config(self, log_level="warning", lifespan="off", access_log=False)
        server = uvicorn.Server(config)  # off the main thread it installs no signal handlers

        async def main() -> None:
            serving = asyncio.ensure_future(server.serve(sockets=[self._socket]))
            while not server.started and not serving.done():
                await asyncio.sleep(0.01)
            self._ready.set()
            await serving

        self.loop.run_until_complete(main())

    def call(self, coro: Awaitable[Any], timeout: float = 30.0) -> Any:
        """Run ``coro`` on the hub's loop from another thread and return its result."""
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)  # type: ignore[arg-type]

    # -- ASGI ------------------------------------------------------------------------------
    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        if _sessionless_era(scope):
            await _refuse(
                send,
                400,
                "SSCBench runs are MCP sessions: connect with the initialize handshake "
                "(protocol revisions 2024-11-05 to 2025-11-25)",
                code=-32601,
            )
            return
        path = scope["path"].rstrip("/")
        run: _Run | None = None
        if path.startswith(RUNS_PATH.rstrip("/") + "/"):
            run = self.runs.get(path[len(RUNS_PATH) :])
        elif path == WAITING_PATH:
            session = _header(scope, SESSION_HEADER)
            if session is not None:
                run = self.runs.get(self.sessions.get(session, ""))
            elif scope["method"] == "POST":
                run = await self._next_waiting()
                if run is None:
                    await _refuse(send, 503, "no run is waiting for a client right now")
                    return
        else:
            await _refuse(send, 404, f"nothing is served at {scope['path']}")
            return
        if run is None:
            await _refuse(send, 404, "no live run at this address: it ended, or never existed")
            return
        await run.handle(self, scope, receive, send)

    async def _next_waiting(self) -> _Run | None:
        """The oldest run waiting for a client; a client that comes before the next run is
        ready (the experiment is still starting it) is held up to ``HOLD`` seconds."""
        limit = time.monotonic() + HOLD
        while True:
            while self.waiting:
                run = self.runs.get(self.waiting.popleft())
                if run is not None:
                    return run
            if time.monotonic() >= limit:
                return None
            await asyncio.sleep(0.05)

    # -- runs ------------------------------------------------------------------------------
    def open_run(
        self,
        bridge: Bridge,
        ctx: EpisodeContext,
        log: ClientLog,
        max_body: int,
        run_id: str,
        *,
        ends_on_close: bool = True,
    ) -> str:
        """Serve one run; returns its address (``…/mcp/runs/<token>``)."""
        from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

        from sscbench.agents.external.mcp_server import build_server

        token = secrets.token_urlsafe(16)
        server = build_server(bridge, ctx, log, "streamable-http", run_id)

        async def start() -> None:
            manager = StreamableHTTPSessionManager(
                app=server,
                session_idle_timeout=None,  # the run's own idle timeout decides
                max_request_body_size=max_body,
                max_sessions=1,
                json_response=True,
                security_settings=self.security(),
            )
            run = _Run(
                token=token,
                bridge=bridge,
                log=log,
                manager=manager,
                stop=asyncio.Event(),
                ends_on_close=ends_on_close,
            )
            ready = asyncio.Event()

            async def hold() -> None:
                async with manager.run():
                    ready.set()
                    await run.stop.wait()

            run.task = asyncio.ensure_future(hold())
            await ready.wait()
            self.runs[token] = run

        self.call(start())
        return f"{self.base_url}{RUNS_PATH}{token}"

    def wait_for_client(self, url: str) -> None:
        """Queue the run at ``url`` behind ``/mcp`` for the next client."""
        token = url.rsplit("/", 1)[-1]

        async def enqueue() -> None:
            self.waiting.append(token)

        self.call(enqueue())

    def retire(self, url: str) -> None:
        """Stop serving the run at ``url``: its session ends, its address answers 404."""
        token = url.rsplit("/", 1)[-1]

        async def stop() -> None:
            run = self.runs.pop(token, None)
            if token in self.waiting:
                self.waiting.remove(token)
            if run is None:
                return
            for session in run.sessions:
                self.sessions.pop(session, None)
            run.stop.set()
            if run.task is not None:
                await run.task

        self.call(stop())


class HttpFrontEnd:
    """Serve a run on the process's hub; launch its program, or queue it for a client."""

    transport: Literal["streamable-http"] = "streamable-http"

    def __init__(self, params: ExternalParams) -> None:
        self.params = params
        self._hub: Hub | None = None
        self._url: str | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self._status: int | None = None
        self._threads: list[threading.Thread] = []
        self._log: ClientLog | None = None

    def open(self, bridge: Bridge, ctx: EpisodeContext, run_dir: Path, log: ClientLog) -> None:
        """Open the run's endpoint; start the program or queue the run for a client."""
        hub = Hub.shared(self.params.host, self.params.port)
        self._hub = hub
        self._log = log
        self._url = hub.open_run(
            bridge,
            ctx,
            log,
            self.params.max_message_bytes,
            run_dir.name,
            ends_on_close=self.params.command is None,
        )
        if self.params.command is None:
            hub.wait_for_client(self._url)
            log.add("serving", url=f"{hub.base_url}{WAITING_PATH}", waiting=True)
            hub.announce(resumes=ctx.tools is None)  # a native task is not resumed
            return
        log.add("serving", url=self._url, waiting=False)
        self._launch(bridge, ctx, run_dir, log)

    def _launch(self, bridge: Bridge, ctx: EpisodeContext, run_dir: Path, log: ClientLog) -> None:
        assert self.params.command is not None and self._url is not None
        try:
            argv = shlex.split(self.params.command)
        except ValueError as exc:
            raise ConfigError(f"external agent: command cannot be split: {exc}") from None
        if not argv:
            raise ConfigError("external agent: command is empty")
        env = {
            **os.environ,
            # this Python's scripts first, so "python" and "sscbench" mean this install
            "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]),
            "SSCBENCH_MCP_URL": self._url,
            "SSCBENCH_MCP_TRANSPORT": "streamable-http",
            "SSCBENCH_RUN_ID": run_dir.name,
            "SSCBENCH_DOMAIN": ctx.domain,
            "SSCBENCH_TASK_ID": str(ctx.task.id),
            "SSCBENCH_SEED": str(ctx.seed),
        }
        try:
            process = subprocess.Popen(
                argv,
                cwd=self.params.cwd,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        except OSError as exc:
            raise ConfigError(
                f"external agent: cannot start {argv[0]!r}: {exc.strerror or exc}"
            ) from None
        self._process = process
        log.add("launched", command=self.params.command, pid=process.pid)
        copier = threading.Thread(
            target=_copy_output, args=(process, run_dir / AGENT_LOG), daemon=True
        )
        waiter = threading.Thread(target=self._wait, args=(process, bridge, log), daemon=True)
        self._threads = [copier, waiter]
        copier.start()
        waiter.start()

    def _wait(self, process: subprocess.Popen[bytes], bridge: Bridge, log: ClientLog) -> None:
        status = process.wait()
        self._status = status
        log.add("exited", status=status)
        bridge.detach(
            f"the agent program exited with status {status}"
            + ("" if status == 0 else " (its output is in agent.log)"),
            clean=status == 0,
        )

    def exited(self) -> int | None:
        """The launched program's exit status once it has ended."""
        return self._status

    def close(self, bridge: Bridge, grace: float) -> None:
        """Give the client ``grace`` seconds to leave, stop the program, retire the address."""
        limit = time.monotonic() + grace
        process = self._process
        if process is not None:
            try:
                process.wait(max(0.0, limit - time.monotonic()))
            except subprocess.TimeoutExpired:
                if self._log is not None:
                    self._log.add("stopped", why=f"still running {grace:g} s after the run ended")
                _stop(process)
        elif self._hub is not None and self._url is not None:
            run = self._hub.runs.get(self._url.rsplit("/", 1)[-1])
            while run is not None and not run.closed and time.monotonic() < limit:
                time.sleep(0.05)
        if self._hub is not None and self._url is not None:  # the last answer goes out first
            run = self._hub.runs.get(self._url.rsplit("/", 1)[-1])
            answered = time.monotonic() + ANSWER_WAIT
            while run is not None and run.posts and time.monotonic() < answered:
                time.sleep(0.01)
        for thread in self._threads:
            thread.join(5)
        if self._hub is not None and self._url is not None:
            self._hub.retire(self._url)
        self._hub, self._url, self._process = None, None, None


def _copy_output(process: subprocess.Popen[bytes], path: Path) -> None:
    """The program's output to ``agent.log``, line by line, secrets redacted."""
    assert process.stdout is not None
    with path.open("w", encoding="utf-8") as out:
        for raw in process.stdout:
            out.write(redact_secrets(raw.decode("utf-8", errors="replace")))
            out.flush()


def _stop(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM the program's process group; SIGKILL it 5 s later if it is still there."""
    if sys.platform == "win32":  # pragma: no cover
        process.kill()
        return
    for sig, wait in ((signal.SIGTERM, 5.0), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            return
        try:
            process.wait(wait)
            return
        except subprocess.TimeoutExpired:
            continue
