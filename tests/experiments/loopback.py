"""Loopback model servers that play whole τ² episodes, for experiment tests and benchmarks.

The HTTP server is the providers tests' ``FakeProvider`` (real OpenAI and Anthropic wire
formats on 127.0.0.1), loaded from its file; what is added here are *responders* that
answer a whole episode:

* :class:`GoldResponder` — recognises the task from the scripted user's opening message
  and answers with the task's gold actions as tool calls, one per turn, then closes with
  the task's communicate-info and "anything else?" (so the scripted user stops). It never
  reads observations, so under a fault it carries on regardless.
* :class:`TextResponder` — only closes: the scripted user stops, tasks with writes fail.
* :class:`UserResponder` — a user simulator's model: one request, then τ²'s stop token.
* :class:`ReadsResponder` — exactly ``calls`` model calls per episode (reads, then close),
  for latency benchmarks with a known bound.

``python tests/experiments/loopback.py --responder reads --calls 4 --latency 1`` serves in
its own process (printing the port), so a benchmark's server does not share the GIL with
the episodes it times; it stops when its stdin closes. ``--event-loop`` serves from one
asyncio loop (HTTP/1.1 keep-alive) instead of a thread per connection.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import sys
import threading
from http.server import ThreadingHTTPServer
from pathlib import Path
from types import ModuleType
from typing import Any

from sscbench.agents.base import EpisodeContext
from sscbench.envs import load_domain
from sscbench.llm.anthropic_messages import OPENING_USER_TURN
from sscbench.users.scripted import ScriptedUser

CLOSING = "Is there anything else I can help you with?"
PROVIDERS_CONFTEST = Path(__file__).resolve().parents[1] / "agents" / "providers" / "conftest.py"


def _load_fake() -> ModuleType:
    name = "sscbench_tests_fake_provider"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, PROVIDERS_CONFTEST)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


fake = _load_fake()


class _WideBacklogServer(ThreadingHTTPServer):
    """The stock listen backlog is 5: 64 simultaneous connects would see SYNs dropped and
    retried a second later, which is the client's latency, not the server's."""

    request_queue_size = 256


setattr(fake, "ThreadingHTTPServer", _WideBacklogServer)  # noqa: B010  (what FakeProvider uses)
FakeProvider = fake.FakeProvider
Reply = fake.Reply
openai_reply = fake.openai_reply
anthropic_reply = fake.anthropic_reply
error_reply = fake.error_reply
SECRET = fake.SECRET
KEY_ENV = fake.KEY_ENV


def _first_user_text(body: dict[str, Any]) -> str:
    for message in body.get("messages", []):
        if message.get("role") != "user":
            continue
        content = message.get("content")
        if isinstance(content, str):
            return content
        for block in content or []:
            if block.get("type") == "text" and block["text"] != OPENING_USER_TURN:
                return str(block["text"])  # Anthropic's neutral opening turn is not the user's
    return ""


def _calls_so_far(body: dict[str, Any]) -> int:
    count = 0
    for message in body.get("messages", []):
        if message.get("role") != "assistant":
            continue
        count += len(message.get("tool_calls") or [])
        content = message.get("content")
        if isinstance(content, list):
            count += sum(1 for block in content if block.get("type") == "tool_use")
    return count


def _reply(path: str, text: str | None, call: tuple[str, dict[str, Any]] | None, n: int) -> Any:
    if path.endswith("/chat/completions"):
        calls = () if call is None else ((f"call_{n}", call[0], json.dumps(call[1])),)
        return openai_reply(text, calls=calls)
    uses = () if call is None else ((f"toolu_{n}", call[0], call[1]),)
    return anthropic_reply(text, uses=uses)


class _Responder:
    latency = 0.0

    def __call__(self, path: str, body: dict[str, Any]) -> Any:
        reply = self.respond(path, body)
        reply.delay = self.latency
        return reply

    def respond(self, path: str, body: dict[str, Any]) -> Any:
        raise NotImplementedError


class GoldResponder(_Responder):
    """The task's gold actions, then a closing message with its communicate-info."""

    def __init__(self, latency: float = 0.0) -> None:
        self.latency = latency
        self._plans: dict[str, tuple[list[tuple[str, dict[str, Any]]], list[str]]] = {}
        self._lock = threading.Lock()

    def _index(self) -> None:
        for name in ("airline", "retail"):
            domain = load_domain(name)
            for task in domain.tasks:
                user = ScriptedUser()
                user.start(EpisodeContext(name, task, 0, domain.policy))
                criteria = task.evaluation_criteria
                actions = [(a.name, dict(a.arguments)) for a in (criteria.actions or [])]
                self._plans[user.next_message([])] = (
                    actions,
                    list(criteria.communicate_info or []),
                )

    def respond(self, path: str, body: dict[str, Any]) -> Any:
        with self._lock:
            if not self._plans:
                self._index()
        actions, info = self._plans.get(_first_user_text(body), ([], []))
        n = _calls_so_far(body)
        if n < len(actions):
            return _reply(path, None, actions[n], n)
        return _reply(path, " ".join([*info, CLOSING]), None, n)


class TextResponder(_Responder):
    """Closes at once."""

    def __init__(self, latency: float = 0.0) -> None:
        self.latency = latency

    def respond(self, path: str, body: dict[str, Any]) -> Any:
        return _reply(path, CLOSING, None, 0)


class ReadsResponder(_Responder):
    """``calls - 1`` harmless reads, then the closing message: ``calls`` model calls."""

    def __init__(self, calls: int, latency: float = 0.0) -> None:
        self.calls = calls
        self.latency = latency

    def respond(self, path: str, body: dict[str, Any]) -> Any:
        n = _calls_so_far(body)
        if n < self.calls - 1:
            return _reply(path, None, ("get_user_details", {"user_id": "nobody_0000"}), n)
        return _reply(path, CLOSING, None, n)


class UserResponder(_Responder):
    """A τ² user simulator's model: states a need, then ends the conversation."""

    def respond(self, path: str, body: dict[str, Any]) -> Any:
        said = sum(m.get("role") == "assistant" for m in body.get("messages", []))
        text = "Hi, I need help with my order." if said == 0 else "Thanks, bye. ###STOP###"
        return _reply(path, text, None, 0)


class Router(_Responder):
    """Dispatch on the URL path: the first prefix that matches wins (``""`` matches all)."""

    def __init__(self, routes: dict[str, _Responder]) -> None:
        self.routes = routes

    def __call__(self, path: str, body: dict[str, Any]) -> Any:
        for prefix, responder in self.routes.items():
            if path.startswith(prefix):
                return responder(path, body)
        raise AssertionError(f"no route for {path}")


def serve(responder: _Responder) -> Any:
    """A started loopback server answering with ``responder``."""
    server = FakeProvider()
    server.responder = responder
    return server


async def _answer(
    responder: _Responder, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
) -> None:
    """Serve one kept-alive connection: read a request, wait its reply's delay without
    holding anything, answer, repeat until the client closes."""
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            path = lines[0].split(" ")[1]
            headers = dict(line.split(": ", 1) for line in lines[1:] if ": " in line)
            length = int({k.lower(): v for k, v in headers.items()}.get("content-length", 0))
            body = json.loads(await reader.readexactly(length) or b"{}")
            reply = responder(path, body)
            if reply.delay:
                await asyncio.sleep(reply.delay)
            data = reply.payload(None)
            writer.write(
                f"HTTP/1.1 {reply.status} OK\r\ncontent-type: {reply.content_type}\r\n"
                f"content-length: {len(data)}\r\n\r\n".encode()
                + data
            )
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionResetError, BrokenPipeError):
        pass  # the client closed the connection
    finally:
        writer.close()


def serve_asyncio(responder: _Responder) -> None:
    """Serve ``responder`` on an event loop (one thread, no thread per connection) until
    stdin closes, printing the port first: hundreds of concurrent kept-alive clients cost
    the server a few hundred microseconds of CPU per request, not a thread switch storm,
    so a latency benchmark measures the client."""

    async def run() -> None:
        server = await asyncio.start_server(
            lambda r, w: _answer(responder, r, w), "127.0.0.1", 0, backlog=1024
        )
        print(server.sockets[0].getsockname()[1], flush=True)
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
        server.close()

    asyncio.run(run())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--responder", choices=("gold", "text", "reads"), default="gold")
    parser.add_argument("--calls", type=int, default=4)
    parser.add_argument("--latency", type=float, default=0.0)
    parser.add_argument(
        "--keep-alive",
        action="store_true",
        help="HTTP/1.1 persistent connections, as model servers keep them (every reply has a "
        "content-length); without it each request opens a connection and a server thread",
    )
    parser.add_argument(
        "--event-loop",
        action="store_true",
        help="serve kept-alive connections from one asyncio event loop instead of a thread "
        "per connection (what the latency benchmark uses)",
    )
    args = parser.parse_args()
    if args.keep_alive:  # this process serves nothing else: the class attribute is ours
        from http.server import BaseHTTPRequestHandler

        BaseHTTPRequestHandler.protocol_version = "HTTP/1.1"
        # Headers and body go out in separate writes: without TCP_NODELAY the body waits
        # for the client's delayed ACK (~40 ms) on every reply of a kept-alive connection.
        BaseHTTPRequestHandler.disable_nagle_algorithm = True
    responder: _Responder
    if args.responder == "gold":
        responder = GoldResponder(args.latency)
    elif args.responder == "text":
        responder = TextResponder(args.latency)
    else:
        responder = ReadsResponder(args.calls, args.latency)
    if args.event_loop:
        serve_asyncio(responder)
        return
    server = serve(responder)
    print(server.port, flush=True)
    sys.stdin.read()  # serve until the parent closes our stdin
    server.close()


if __name__ == "__main__":
    main()
