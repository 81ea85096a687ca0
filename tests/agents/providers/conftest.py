"""A loopback HTTP server speaking the OpenAI chat-completions and Anthropic messages wire
formats with scripted replies, so the real SDKs are exercised end to end, offline.

It also misbehaves on request, the way real endpoints and proxies do: a 200 whose body is
not JSON (``raw``), a response dripped one byte at a time (``drip``), tool calls sharing an
id (plain replies), and a model echoing the API key it was sent (``KEY_PLACEHOLDER``).
"""

from __future__ import annotations

import json
import threading
import time
import types
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from sscbench.agents.base import GREETING, EpisodeContext
from sscbench.envs import load_domain
from sscbench.records.events import AgentMessage, UserMessage, VisibleEvent

SECRET = "sk-test-SECRET123"
KEY_ENV = "SSCBENCH_TEST_PROVIDER_KEY"
KEY_PLACEHOLDER = "{{ECHO_KEY}}"
"""Replaced in a reply body by the key the request carried (a model leaking its key)."""


@dataclass
class Reply:
    """One scripted HTTP response."""

    status: int = 200
    body: dict[str, Any] | None = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    raw: bytes | None = None
    """Sent verbatim instead of ``body`` (e.g. an HTML error page with status 200)."""
    content_type: str = "application/json"
    drip: float = 0.0
    """Seconds between single bytes of the whole response, status line included."""

    def payload(self, key: str | None) -> bytes:
        """The body bytes, with the request's key spliced in where the reply asks for it."""
        if self.raw is not None:
            return self.raw
        text = json.dumps(self.body or {})
        return text.replace(KEY_PLACEHOLDER, key or "").encode()


@dataclass(frozen=True)
class Seen:
    """One request the server received."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]


Responder = Callable[[str, dict[str, Any]], Reply]


class FakeProvider:
    """Scripted replies first (FIFO), then ``responder``; every request is kept."""

    def __init__(self) -> None:
        self.requests: list[Seen] = []
        self.queue: deque[Reply] = deque()
        self.responder: Responder | None = None
        self.closing = threading.Event()
        self._lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                reply = fake._next(self.path, dict(self.headers), body)
                if reply.delay:
                    time.sleep(reply.delay)
                data = reply.payload(_sent_key(dict(self.headers)))
                if reply.drip:
                    self._drip(reply, data)
                    return
                try:
                    self.send_response(reply.status)
                    self.send_header("content-type", reply.content_type)
                    self.send_header("content-length", str(len(data)))
                    for name, value in reply.headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client timed out and went away

            def _drip(self, reply: Reply, data: bytes) -> None:
                head = (
                    f"HTTP/1.1 {reply.status} OK\r\ncontent-type: {reply.content_type}\r\n"
                    f"content-length: {len(data)}\r\n\r\n"
                ).encode()
                try:
                    for byte in head + data:
                        if fake.closing.is_set():
                            return
                        self.wfile.write(bytes([byte]))
                        time.sleep(reply.drip)
                except OSError:
                    pass  # the client gave up: what a deadline is for
                self.close_connection = True

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self._thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self._thread.start()

    def _next(self, path: str, headers: dict[str, str], body: dict[str, Any]) -> Reply:
        with self._lock:
            self.requests.append(Seen(path, headers, body))
            if self.queue:
                return self.queue.popleft()
        if self.responder is not None:
            return self.responder(path, body)
        return Reply(500, {"error": {"message": "no scripted reply", "type": "server_error"}})

    @property
    def openai_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def anthropic_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def script(self, *replies: Reply) -> None:
        self.queue.extend(replies)

    def close(self) -> None:
        self.closing.set()
        self.server.shutdown()
        self.server.server_close()


def _sent_key(headers: dict[str, str]) -> str | None:
    lower = {k.lower(): v for k, v in headers.items()}
    if "x-api-key" in lower:
        return lower["x-api-key"]
    auth = lower.get("authorization", "")
    return auth.removeprefix("Bearer ") if auth else None


def openai_reply(
    content: str | None = None,
    calls: tuple[tuple[str, str, str], ...] = (),
    usage: tuple[int, int] = (100, 20),
) -> Reply:
    """A chat.completion with ``content`` and ``(id, name, arguments-text)`` tool calls."""
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if calls:
        message["tool_calls"] = [
            {"id": i, "type": "function", "function": {"name": n, "arguments": a}}
            for i, n, a in calls
        ]
    return Reply(
        body={
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 0,
            "model": "fake-model",
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": "tool_calls" if calls else "stop",
                }
            ],
            "usage": {
                "prompt_tokens": usage[0],
                "completion_tokens": usage[1],
                "total_tokens": sum(usage),
            },
        }
    )


def anthropic_reply(
    text: str | None = None,
    uses: tuple[tuple[str, str, dict[str, Any]], ...] = (),
    thinking: str | None = None,
    usage: tuple[int, int] = (100, 20),
) -> Reply:
    """A message with optional thinking, text and ``(id, name, input)`` tool uses."""
    content: list[dict[str, Any]] = []
    if thinking is not None:
        content.append({"type": "thinking", "thinking": thinking, "signature": "sig-1"})
    if text is not None:
        content.append({"type": "text", "text": text})
    content += [{"type": "tool_use", "id": i, "name": n, "input": a} for i, n, a in uses]
    return Reply(
        body={
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "fake-claude",
            "content": content,
            "stop_reason": "tool_use" if uses else "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": usage[0], "output_tokens": usage[1]},
        }
    )


def error_reply(status: int, message: str = "scripted failure", **headers: str) -> Reply:
    """An error body in the shape both APIs use."""
    return Reply(
        status=status,
        body={"type": "error", "error": {"type": "api_error", "message": message}},
        headers=dict(headers),
    )


@pytest.fixture
def fake() -> Iterator[FakeProvider]:
    server = FakeProvider()
    yield server
    server.close()


@pytest.fixture
def key(monkeypatch: pytest.MonkeyPatch) -> str:
    """A fake key in a test-only variable; the real provider variables are removed."""
    monkeypatch.setenv(KEY_ENV, SECRET)
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    return KEY_ENV


def airline_context(task_id: str = "7", seed: int = 0) -> EpisodeContext:
    domain = load_domain("airline")
    return EpisodeContext(
        domain="airline", task=domain.task(task_id), seed=seed, policy=domain.policy
    )


def opening(text: str = "Hi. I want to cancel a reservation.") -> list[VisibleEvent]:
    """The history at the agent's first turn: greeting and the user's first message."""
    return [
        AgentMessage(step=0, turn=0, content=GREETING),
        UserMessage(step=1, turn=1, content=text),
    ]


@pytest.fixture
def kit() -> types.SimpleNamespace:
    """The reply builders and context helpers above (test modules cannot import conftest)."""
    return types.SimpleNamespace(
        Reply=Reply,
        openai_reply=openai_reply,
        anthropic_reply=anthropic_reply,
        error_reply=error_reply,
        airline_context=airline_context,
        opening=opening,
        SECRET=SECRET,
        KEY_ENV=KEY_ENV,
        KEY_PLACEHOLDER=KEY_PLACEHOLDER,
    )
