"""Bad clients: each gets an error it can read, the run records it where it belongs, and a
client that breaks its session leaves a failed run (retried), never a result."""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

pytest.importorskip("mcp")

from mcp import Client
from mcp.shared.exceptions import MCPError

from sscbench.records.ledger import register_secret

Serve = Callable[..., Any]
USER = "mia_li_3668"
ACCEPT = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


def _initialize(http: httpx.Client, url: str) -> str:
    """Open a session by hand (initialize + initialized); return its id."""
    opened = http.post(
        url,
        headers=ACCEPT,
        json={
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "raw-test-client", "version": "9.9"},
            },
        },
    )
    assert opened.status_code == 200, opened.text
    session = opened.headers["mcp-session-id"]
    http.post(
        url,
        headers={**ACCEPT, "mcp-session-id": session, "mcp-protocol-version": "2025-06-18"},
        json={"jsonrpc": "2.0", "method": "notifications/initialized"},
    )
    return session


def _rpc(http: httpx.Client, url: str, session: str, ident: int, method: str, params: Any) -> Any:
    reply = http.post(
        url,
        headers={**ACCEPT, "mcp-session-id": session, "mcp-protocol-version": "2025-06-18"},
        json={"jsonrpc": "2.0", "id": ident, "method": method, "params": params},
    )
    for line in reply.text.splitlines():  # an SSE stream or a JSON body
        if line.startswith("data:"):
            return json.loads(line[5:])
    return reply.json()


def test_a_client_that_connects_and_goes_silent_fails_the_run(serve: Serve) -> None:
    run = serve(idle_timeout=0.5)

    async def silent() -> None:
        async with Client(run.url) as client:
            await client.list_tools()
            await asyncio.sleep(1.5)

    asyncio.run(silent())
    end = run.end()
    assert end.termination == "harness_error"
    assert end.failure.kind == "client" and end.failure.retryable
    assert "idle timeout" in end.failure.message


def test_no_client_at_all_fails_the_run_after_the_connect_timeout(serve: Serve) -> None:
    run = serve(connect_timeout=0.5)
    end = run.end()
    assert end.failure.kind == "client"
    assert "no client connected within 0.5 s" in end.failure.message
    assert run.ledger()[0].get("client") is None
    assert [e["kind"] for e in run.ledger()] == ["header", "run_end"]


def test_an_oversized_request_is_refused_and_the_run_goes_on(serve: Serve) -> None:
    run = serve(max_message_bytes=4096)

    async def big() -> str:
        async with Client(run.url) as client:
            with pytest.raises(Exception) as raised:
                await client.call_tool("send_message_to_user", {"message": "x" * 20_000})
            found = await client.call_tool("get_user_details", {"user_id": USER})
            assert not found.is_error
            await client.call_tool("end_conversation", {})
            return repr(raised.value)

    asyncio.run(big())
    run.end()
    assert [e["kind"] for e in run.events()[2:]] == ["tool_call", "tool_observation"]
    assert any(
        e["event"] == "rejected" and e["detail"].get("status") == 413 for e in run.client_log()
    )


def test_malformed_request_params_get_a_json_rpc_error_and_touch_nothing(serve: Serve) -> None:
    run = serve()
    with httpx.Client(timeout=30) as http:
        session = _initialize(http, run.url)
        bad = _rpc(http, run.url, session, 2, "tools/call", {"name": "calculate", "arguments": [1]})
        missing = _rpc(http, run.url, session, 3, "tools/call", {"arguments": {}})
        ok = _rpc(http, run.url, session, 4, "tools/call", {"name": "end_conversation"})
    run.end()
    assert bad["error"]["code"] == -32602
    assert missing["error"]["code"] == -32602
    assert "result" in ok
    assert [e["kind"] for e in run.events()] == ["agent_message", "user_message"]
    assert run.ledger()[0]["client"]["name"] == "raw-test-client"
    assert run.ledger()[0]["client"]["protocol_version"] == "2025-06-18"
    assert sum(e["event"] == "rejected" for e in run.client_log()) == 2


def test_the_stateless_protocol_era_is_refused_over_http(serve: Serve) -> None:
    run = serve()
    with httpx.Client(timeout=30) as http:
        reply = http.post(
            run.url,
            headers={**ACCEPT, "mcp-protocol-version": "2026-07-28"},
            json={"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}},
        )
    assert reply.status_code == 400
    assert "initialize handshake" in reply.json()["error"]["message"]

    async def fallback() -> None:  # the SDK's client in auto mode falls back by itself
        async with Client(run.url) as client:
            await client.call_tool("end_conversation", {})

    asyncio.run(fallback())
    assert run.end().termination == "agent_stop"


def test_the_time_limit_ends_the_run_as_a_result(serve: Serve) -> None:
    run = serve(time_limit=0.5)

    async def slow() -> str:
        async with Client(run.url) as client:
            await client.list_tools()
            await asyncio.sleep(1.2)
            with pytest.raises(MCPError) as raised:
                await client.call_tool("get_user_details", {"user_id": USER})
            return raised.value.error.message

    message = asyncio.run(slow())
    end = run.end()
    assert end.termination == "time_limit" and end.failure is None
    assert end.success is not None  # graded like any result
    assert "(time_limit)" in message


def test_the_step_limit_answers_the_call_it_stopped(serve: Serve) -> None:
    run = serve(max_steps=5)

    async def many() -> Any:
        async with Client(run.url) as client:
            for _ in range(5):
                result = await client.call_tool("get_user_details", {"user_id": USER})
                if result.meta:
                    return result
            raise AssertionError("the step limit never ended the run")

    last = asyncio.run(many())
    end = run.end()
    assert end.termination == "max_steps"
    assert last.is_error and "step limit" in last.content[0].text
    assert last.meta == {"sscbench/conversation_ended": "max_steps"}


def test_an_address_of_an_ended_run_answers_404(serve: Serve) -> None:
    run = serve()  # the run's address retires once the client has closed its session
    url = run.url

    async def done() -> None:
        async with Client(url) as client:
            await client.call_tool("end_conversation", {})

    asyncio.run(done())
    run.end()
    with httpx.Client(timeout=10) as http:
        reply = http.post(url, headers=ACCEPT, json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
    assert reply.status_code == 404
    assert "no live run at this address" in reply.json()["error"]["message"]


def _program(tmp_path: Path, body: str) -> str:
    script = tmp_path / "agent_program.py"
    script.write_text(body, encoding="utf-8")
    return f"{sys.executable} {script}"


CONNECT_THEN = """
import asyncio, os, sys
from mcp import Client
async def main():
    async with Client(os.environ["SSCBENCH_MCP_URL"]) as client:
        await client.call_tool("get_user_details", {{"user_id": "mia_li_3668"}})
        print("my key is", os.environ["SSCBENCH_TEST_SECRET"], flush=True)
    {ending}
asyncio.run(main())
"""


def test_a_launched_program_that_crashes_leaves_a_failed_run(
    serve: Serve, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = "sk-test-abcdefghijklmnopqrstuvwxyz0123"
    monkeypatch.setenv("SSCBENCH_TEST_SECRET", secret)
    register_secret(secret)
    run = serve(command=_program(tmp_path, CONNECT_THEN.format(ending="sys.exit(3)")))
    end = run.end()
    assert end.termination == "harness_error"
    assert end.failure.kind == "client" and end.failure.retryable
    assert "exited with status 3" in end.failure.message
    log = (run.run_dir / "agent.log").read_text(encoding="utf-8")
    assert "my key is [REDACTED]" in log and secret not in log
    assert [e["event"] for e in run.client_log()][-1] == "exited"
    assert [e["name"] for e in run.events() if e["kind"] == "tool_call"] == ["get_user_details"]


def test_a_launched_program_that_exits_cleanly_has_stopped(serve: Serve, tmp_path: Path) -> None:
    tell = (
        'print("first on PATH", os.environ["PATH"].split(os.pathsep)[0]); '
        'print("task", os.environ["SSCBENCH_DOMAIN"], os.environ["SSCBENCH_TASK_ID"])'
    )
    body = CONNECT_THEN.format(ending="").replace(
        'print("my key is", os.environ["SSCBENCH_TEST_SECRET"], flush=True)', tell
    )
    run = serve(command=_program(tmp_path, body))
    end = run.end()
    assert end.termination == "agent_stop" and end.failure is None
    log = (run.run_dir / "agent.log").read_text(encoding="utf-8")
    assert f"first on PATH {Path(sys.executable).parent}" in log
    assert "task airline 0" in log


def test_a_launched_program_that_never_connects_is_stopped(serve: Serve, tmp_path: Path) -> None:
    started = time.monotonic()
    run = serve(
        command=_program(tmp_path, "import time\ntime.sleep(60)\n"), connect_timeout=1, grace=0
    )
    end = run.end()
    assert time.monotonic() - started < 20
    assert "no client connected within 1 s" in end.failure.message
    events = [e["event"] for e in run.client_log()]
    assert "launched" in events and "stopped" in events
    process = run.front._process
    assert process is None or process.poll() is not None


def test_a_hostile_host_name_cannot_reach_a_local_run(serve: Serve) -> None:
    run = serve()
    with httpx.Client(timeout=30) as http:
        reply = http.post(
            run.url,
            headers={**ACCEPT, "host": "attacker.example:8765"},
            json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}},
        )
    assert reply.status_code in (400, 403, 421)

    async def done() -> None:
        async with Client(run.url) as client:
            await client.call_tool("end_conversation", {})

    asyncio.run(done())
    assert run.end().termination == "agent_stop"
