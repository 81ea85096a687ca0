"""τ²'s user simulator holding the customer's phone (telecom), offline against a fake
OpenAI-compatible server: τ²'s tools guidelines and user tool schemas go out, the
simulator's device calls run through the choke point as the user's, and their answers come
back to it as tool turns, never to the agent."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from sscbench.agents.registry import make_agent
from sscbench.envs import load_domain
from sscbench.records.device import DEVICE_FILE
from sscbench.runs.episode import EpisodeSpec, run_episode
from sscbench.users.simulator import device_tool_schemas, simulation_guidelines, simulator_user


def _customer(kit: Any, body: dict[str, Any]) -> Any:
    """A tiny simulated customer: runs the tool the agent names, then reads out its answer."""
    messages = body["messages"]
    last = messages[-1]
    if last["role"] == "tool":
        return kit.openai_reply(f"My phone says: {last['content']}")
    asked = re.search(r"`([a-z_]+)`", last.get("content") or "")
    said = sum(m["role"] == "assistant" for m in messages)
    if said == 0:
        return kit.openai_reply("Hi, my mobile data does not work. I am John Smith, 555-123-2002.")
    if asked:
        n = sum(1 for m in messages if m.get("tool_calls"))
        return kit.openai_reply(None, calls=((f"u{n}", asked.group(1), "{}"),))
    if "anything else" in (last.get("content") or ""):
        return kit.openai_reply("No, thanks. ###STOP###")
    return kit.openai_reply("I am John Smith, phone number 555-123-2002.")


def test_simulated_customer_works_the_phone_and_the_task_is_solved(
    fake: Any, key: str, kit: Any, tmp_path: Path
) -> None:
    fake.responder = lambda path, body: _customer(kit, body)
    user = simulator_user(
        provider="openai-compatible", base_url=fake.openai_url, api_key_env=key, model="sim"
    )
    task = load_domain("telecom").tasks[0]
    run = tmp_path / "r"
    end = run_episode(
        EpisodeSpec("telecom", task.id), make_agent("scripted:gold"), user, run, run_id="r"
    )
    assert (end.termination, end.success) == ("user_stop", True), end.error
    device = [json.loads(x) for x in (run / DEVICE_FILE).read_text().splitlines()]
    gold = [a.name for a in task.evaluation_criteria.actions if a.requestor == "user"]
    assert [d["name"] for d in device] == gold
    bodies = [r.body for r in fake.requests]
    assert all(b["tools"] == device_tool_schemas("telecom") for b in bodies)
    assert bodies[0]["messages"][0]["content"].count(simulation_guidelines(True)) == 1
    # the device's answer reaches the simulator as the tool result of its own call ...
    answered = [b for b in bodies if b["messages"][-1]["role"] == "tool"]
    assert answered[0]["messages"][-1]["content"] == device[0]["content"]
    assert answered[0]["messages"][-2]["tool_calls"][0]["function"]["name"] == gold[0]
    # ... and the agent sees only the customer's words
    ledger = (run / "ledger.jsonl").read_text()
    assert '"kind":"tool_call"' not in ledger
    assert "My phone says: " in ledger
    # the second device exchange comes after the first in the simulator's transcript
    late = [b for b in answered if len(b["messages"]) > len(answered[0]["messages"])]
    roles = [m["role"] for m in late[0]["messages"]]
    assert roles.count("tool") == 2


def test_airline_simulator_sends_no_tools(fake: Any, key: str, kit: Any, tmp_path: Path) -> None:
    fake.responder = lambda path, body: kit.openai_reply("Thanks, bye. ###STOP###")
    user = simulator_user(
        provider="openai-compatible", base_url=fake.openai_url, api_key_env=key, model="sim"
    )
    run_episode(
        EpisodeSpec("airline", "7"), make_agent("scripted:gold"), user, tmp_path / "a", run_id="a"
    )
    assert all("tools" not in r.body for r in fake.requests)
    assert not (tmp_path / "a" / DEVICE_FILE).exists()
