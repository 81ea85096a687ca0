"""The served interface as an MCP client meets it: tools, prompts, resources, the ledger.

Every test talks to a real streamable-HTTP server through the MCP SDK's own client, so a
shape the SDK cannot read, or an event the ledger does not record, fails here.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import pytest

pytest.importorskip("mcp")

from mcp import Client
from mcp.shared.exceptions import MCPError

from sscbench.agents.base import GREETING
from sscbench.agents.providers.scaffold import agent_system_prompt, tool_schemas
from sscbench.envs import load_domain

Serve = Callable[..., Any]
USER = "mia_li_3668"  # airline task 0's user


def leaves(exc: BaseException) -> str:
    """Every message inside an exception (group), the SDK's task groups wrap them."""
    if isinstance(exc, BaseExceptionGroup):
        return " | ".join(leaves(e) for e in exc.exceptions)
    return f"{type(exc).__name__}: {exc}"


def test_the_tools_are_tau2s_own_plus_the_conversation_tools(serve: Serve) -> None:
    run = serve()

    async def listed() -> Any:
        async with Client(run.url) as client:
            tools = (await client.list_tools()).tools
            await client.call_tool("end_conversation", {})
            return tools

    tools = asyncio.run(listed())
    run.end()
    tau2 = [s["function"] for s in tool_schemas("airline")]
    served = {t.name: t for t in tools}
    assert [t.name for t in tools] == [f["name"] for f in tau2] + [
        "send_message_to_user",
        "end_conversation",
    ]
    for function in tau2:
        tool = served[function["name"]]
        assert tool.description == function["description"]
        assert tool.input_schema == function["parameters"]
    assert served["get_reservation_details"].annotations.read_only_hint is True
    assert served["cancel_reservation"].annotations.read_only_hint is False
    assert served["send_message_to_user"].input_schema["required"] == ["message"]


def test_prompts_and_resources_give_the_policy_and_the_opening(serve: Serve) -> None:
    run = serve()
    policy = load_domain("airline").policy

    async def read() -> dict[str, Any]:
        async with Client(run.url) as client:
            got = {
                "prompts": [p.name for p in (await client.list_prompts()).prompts],
                "system": (await client.get_prompt("system_prompt")).messages[0].content.text,
                "tau2": (await client.get_prompt("tau2_system_prompt")).messages[0].content.text,
                "conversation": [
                    (m.role, m.content.text)
                    for m in (await client.get_prompt("conversation")).messages
                ],
                "resources": sorted(str(r.uri) for r in (await client.list_resources()).resources),
                "policy": (await client.read_resource("sscbench://policy")).contents[0].text,
                "run": json.loads(
                    (await client.read_resource("sscbench://run")).contents[0].text
                ),
            }
            with pytest.raises(MCPError, match="unknown prompt"):
                await client.get_prompt("nope")
            await client.call_tool("end_conversation", {})
            return got

    got = asyncio.run(read())
    run.end()
    assert got["prompts"] == ["system_prompt", "tau2_system_prompt", "conversation"]
    assert got["tau2"] == agent_system_prompt(policy)
    assert got["system"].startswith(agent_system_prompt(policy))
    assert "send_message_to_user" in got["system"][len(got["tau2"]) :]
    opening = run.events()[1]
    assert got["conversation"] == [("assistant", GREETING), ("user", opening["content"])]
    assert got["resources"] == [
        "sscbench://conversation",
        "sscbench://policy",
        "sscbench://run",
        "sscbench://system-prompt",
    ]
    assert got["policy"] == policy
    assert got["run"] == {"run_id": "run", "domain": "airline", "task_id": "0", "seed": 0}


def test_every_action_lands_in_the_ledger_as_for_an_in_process_agent(serve: Serve) -> None:
    run = serve()

    async def act() -> list[Any]:
        async with Client(run.url) as client:
            return [
                await client.call_tool("get_user_details", {"user_id": USER}),
                await client.call_tool("get_user_details", {"user_idx": 3}),  # wrong argument
                await client.call_tool("no_such_tool", {}),
                await client.call_tool("send_message_to_user", {"message": "Hello there."}),
                await client.call_tool("end_conversation", {}),
            ]

    found, wrong, unknown, said, ended = asyncio.run(act())
    end = run.end()
    assert not found.is_error and json.loads(found.content[0].text)["user_id"] == USER
    assert wrong.is_error and "unexpected keyword argument 'user_idx'" in wrong.content[0].text
    assert unknown.is_error and unknown.content[0].text == "Error: Tool 'no_such_tool' not found."
    assert not said.is_error
    assert ended.meta == {"sscbench/conversation_ended": "agent_stop"}
    assert end.termination == "agent_stop"
    events = run.events()
    kinds = [(e["kind"], e.get("name") or e.get("content", "")[:20]) for e in events]
    assert kinds[2:] == [
        ("tool_call", "get_user_details"),
        ("tool_observation", found.content[0].text[:20]),
        ("tool_call", "get_user_details"),
        ("tool_observation", wrong.content[0].text[:20]),
        ("tool_call", "no_such_tool"),
        ("tool_observation", unknown.content[0].text[:20]),
        ("agent_message", "Hello there."),
        ("user_message", said.content[0].text[:20]),
    ]
    assert [e["call_id"] for e in events if e["kind"] == "tool_call"] == [
        "call_0",
        "call_1",
        "call_2",
    ]
    assert [e["step"] for e in events] == list(range(len(events)))
    header = run.ledger()[0]
    assert header["agent"]["name"] == "external"
    assert header["client"]["transport"] == "streamable-http"
    assert header["client"]["name"] == "mcp"  # the SDK client's default clientInfo
    assert header["client"]["protocol_version"] == "2025-11-25"
    log = [e["event"] for e in run.client_log()]
    assert log[:2] == ["serving", "connected"] and "closed" in log


def test_a_call_after_the_end_is_a_protocol_error_the_client_can_read(serve: Serve) -> None:
    run = serve()

    async def late() -> str:
        async with Client(run.url) as client:
            await client.call_tool("end_conversation", {})
            with pytest.raises(MCPError) as raised:
                await client.call_tool("get_user_details", {"user_id": USER})
            return raised.value.error.message

    message = asyncio.run(late())
    run.end()
    assert "the conversation has ended (agent_stop)" in message
    assert not any(e.get("name") == "get_user_details" for e in run.events())
    rejected = [e for e in run.client_log() if e["event"] == "rejected"]
    assert rejected and "has ended" in rejected[0]["detail"]["why"]


def test_the_user_ending_the_conversation_reaches_the_client(serve: Serve) -> None:
    run = serve()

    async def talk() -> Any:
        async with Client(run.url) as client:
            for _ in range(10):  # the scripted user stops once told goodbye
                result = await client.call_tool("send_message_to_user", {"message": "Goodbye."})
                if result.meta:
                    return result
            raise AssertionError("the user never ended the conversation")

    result = asyncio.run(talk())
    end = run.end()
    assert end.termination == "user_stop"
    assert result.meta == {"sscbench/conversation_ended": "user_stop"}
    assert result.content[0].text.startswith(run.events()[-1]["content"])
    assert "###STOP###" in run.events()[-1]["content"]


def test_a_second_client_never_shares_a_run(serve: Serve) -> None:
    run = serve()

    async def two() -> str:
        async with Client(run.url) as first:
            with pytest.raises(Exception) as raised:
                async with Client(run.url) as second:
                    await second.list_tools()
            await first.call_tool("get_user_details", {"user_id": USER})
            await first.call_tool("end_conversation", {})
            return leaves(raised.value)

    refused = asyncio.run(two())
    run.end()
    assert "already has a client" in refused
    assert [e["name"] for e in run.events() if e["kind"] == "tool_call"] == ["get_user_details"]
    assert any(e["event"] == "refused" for e in run.client_log())


def test_concurrent_calls_are_run_one_at_a_time_each_with_its_own_answer(serve: Serve) -> None:
    run = serve()
    users = ["mia_li_3668", "olivia_gonzalez_2305", "chen_jackson_3290"]

    async def together() -> list[Any]:
        async with Client(run.url) as client:
            results = await asyncio.gather(
                *(client.call_tool("get_user_details", {"user_id": u}) for u in users)
            )
            await client.call_tool("end_conversation", {})
            return list(results)

    results = asyncio.run(together())
    run.end()
    assert [json.loads(r.content[0].text)["user_id"] for r in results] == users
    events = run.events()[2:]
    turns = [e["turn"] for e in events]
    assert turns == sorted(set(turns)), "each call and observation is a turn of its own"
    calls = [e for e in events if e["kind"] == "tool_call"]
    observations = {e["call_id"]: e for e in events if e["kind"] == "tool_observation"}
    for call in calls:
        record = json.loads(observations[call["call_id"]]["content"])
        assert record["user_id"] == call["arguments"]["user_id"]


def test_malformed_send_message_arguments_are_refused_without_reaching_the_user(
    serve: Serve,
) -> None:
    run = serve()

    async def bad() -> Any:
        async with Client(run.url) as client:
            result = await client.call_tool("send_message_to_user", {"text": "hi"})
            await client.call_tool("end_conversation", {})
            return result

    result = asyncio.run(bad())
    run.end()
    assert result.is_error and "takes one argument, message" in result.content[0].text
    assert [e["kind"] for e in run.events()] == ["agent_message", "user_message"]
    assert any(e["event"] == "rejected" for e in run.client_log())


@pytest.mark.parametrize(
    ("argv", "problem"),
    [
        (["--transport", "stdio", "--domain", "airline"], "stdio serves one run per process"),
        (["--transport", "stdio", "--case", "x", "--launch", "python a.py"], "--launch starts"),
        (["--case", "x", "--port", "70000"], "--port must be between 0 and 65535"),
        (["--case", "no/such/case"], "no case 'no/such/case'"),
    ],
)
def test_bad_serve_options_are_one_line_and_exit_2(
    argv: list[str], problem: str, tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    from sscbench.cli.main import main

    assert main(["serve", *argv, "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and problem in err[0], err
    assert not (tmp_path / "out").exists()


def test_a_busy_port_is_one_line_and_exit_2(
    tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    import socket

    from sscbench.cli.main import main

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        argv = ["serve", "--case", "return_date/airline/1/Q69X3R", "--port", str(port)]
        assert main([*argv, "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"cannot serve MCP on 127.0.0.1:{port}" in err[0], err
