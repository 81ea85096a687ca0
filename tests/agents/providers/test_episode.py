"""Whole episodes through ``run_episode`` against the loopback server: ledgers, provider-call
records, cache replay without HTTP, and the API key written nowhere."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sscbench.agents.base import EpisodeContext
from sscbench.agents.providers import (
    ProviderAgent,
    anthropic_agent,
    openai_agent,
    openai_compatible_agent,
)
from sscbench.agents.providers.scaffold import tool_schemas
from sscbench.envs import calls as calls_module
from sscbench.llm.arguments import RAW_ARGUMENTS
from sscbench.records.ledger import iter_jsonl, read_ledger
from sscbench.runs.episode import EpisodeSpec, run_episode
from sscbench.users import make_user
from sscbench.users.simulator import simulator_user

USER_ID = "daiki_muller_1116"  # airline task 7
CLOSING = "Your profile is in order. Is there anything else I can help you with?"


def _openai_policy(kit: Any, body: dict[str, Any], args: str) -> Any:
    """A tiny scripted agent: look the user up once, then close."""
    messages = body["messages"]
    if "tools" not in body:  # the user simulator (no tools, τ²'s guidelines)
        assert "User Simulation Guidelines" in messages[0]["content"]
        said = sum(m["role"] == "assistant" for m in messages)
        if said == 0:
            return kit.openai_reply(f"Hi, I need help. My user id is {USER_ID}.")
        return kit.openai_reply("No, that's all. Thanks! ###STOP###")
    if any(m["role"] == "tool" for m in messages):
        return kit.openai_reply(CLOSING)
    return kit.openai_reply(None, calls=(("call_1", "get_user_details", args),))


def _anthropic_policy(kit: Any, body: dict[str, Any]) -> Any:
    last = body["messages"][-1]["content"]
    if any(block["type"] == "tool_result" for block in last):
        return kit.anthropic_reply(CLOSING)
    return kit.anthropic_reply(
        "Let me check.", uses=(("toolu_1", "get_user_details", {"user_id": USER_ID}),)
    )


def _responder(kit: Any, args: str = json.dumps({"user_id": USER_ID})) -> Any:
    def respond(path: str, body: dict[str, Any]) -> Any:
        if path.endswith("/chat/completions"):
            return _openai_policy(kit, body, args)
        return _anthropic_policy(kit, body)

    return respond


def _agent(kind: str, fake: Any, key: str, cache: Path) -> ProviderAgent:
    common = {"model": "fake-model", "cache_dir": str(cache), "api_key_env": key}
    if kind == "openai":
        return openai_agent(base_url=fake.openai_url, **common)
    if kind == "anthropic":
        return anthropic_agent(base_url=fake.anthropic_url, **common)
    return openai_compatible_agent(base_url=fake.openai_url, **common)


def _run(agent: ProviderAgent, user: Any, run_dir: Path) -> Any:
    spec = EpisodeSpec(domain="airline", task_id="7", seed=0, max_steps=30)
    return run_episode(spec, agent, user, run_dir, run_id=run_dir.name)


def _all_text(*roots: Path) -> str:
    return "\n".join(
        p.read_text(encoding="utf-8") for root in roots for p in root.rglob("*") if p.is_file()
    )


def _without_ts(path: Path) -> list[dict[str, Any]]:
    return [{k: v for k, v in obj.items() if k != "ts"} for _, obj in iter_jsonl(path)]


@pytest.mark.parametrize("kind", ["openai", "anthropic", "compatible"])
def test_episode_runs_replays_from_cache_and_never_writes_the_key(
    fake: Any, key: str, kit: Any, tmp_path: Path, kind: str
) -> None:
    fake.responder = _responder(kit)
    cache = tmp_path / "cache"
    first = tmp_path / "runs" / "first"
    end = _run(_agent(kind, fake, key, cache), make_user("scripted"), first)
    assert end.termination == "user_stop", end.error

    ledger = read_ledger(first / "ledger.jsonl")
    calls = [e for e in ledger.events if e.kind == "tool_call"]
    assert [(c.name, c.arguments) for c in calls] == [("get_user_details", {"user_id": USER_ID})]
    observation = next(e for e in ledger.events if e.kind == "tool_observation")
    assert USER_ID in observation.content and not observation.error
    assert ledger.header.agent.params["model"] == "fake-model"

    records = [obj for _, obj in iter_jsonl(first / "provider_calls.jsonl")]
    assert [(r["role"], r["status"], r["attempt"]) for r in records] == [("agent", "ok", 1)] * 2
    assert len(fake.requests) == 2
    if kind != "compatible":  # the key really went out, in the header only
        assert kit.SECRET in json.dumps(fake.requests[0].headers)

    # the second request echoes the first reply's tool call exactly (history round trip)
    second = fake.requests[1].body["messages"]
    if kind == "anthropic":
        assert second[-2]["content"][-1] == {
            "type": "tool_use",
            "id": "toolu_1",
            "name": "get_user_details",
            "input": {"user_id": USER_ID},
        }
        assert second[-1]["content"][0]["tool_use_id"] == "toolu_1"
    else:
        assert second[-2]["tool_calls"][0]["function"]["arguments"] == json.dumps(
            {"user_id": USER_ID}
        )
        assert second[-1]["tool_call_id"] == "call_1"

    replay = tmp_path / "runs" / "replay"
    end = _run(_agent(kind, fake, key, cache), make_user("scripted"), replay)
    assert end.termination == "user_stop"
    assert len(fake.requests) == 2  # no HTTP at all on the re-run
    assert _without_ts(replay / "ledger.jsonl")[1:] == _without_ts(first / "ledger.jsonl")[1:]
    replayed = [obj for _, obj in iter_jsonl(replay / "provider_calls.jsonl")]
    assert [r["status"] for r in replayed] == ["cache_hit", "cache_hit"]
    assert [r["request_hash"] for r in replayed] == [r["request_hash"] for r in records]

    written = _all_text(tmp_path / "runs", cache)
    assert kit.SECRET not in written
    assert len(list(cache.rglob("*.json"))) == 2


def test_simulator_user_drives_an_episode(fake: Any, key: str, kit: Any, tmp_path: Path) -> None:
    fake.responder = _responder(kit)
    user = simulator_user(
        provider="openai-compatible", base_url=fake.openai_url, api_key_env=key, model="sim"
    )
    run_dir = tmp_path / "runs" / "sim"
    end = _run(_agent("openai", fake, key, tmp_path / "cache"), user, run_dir)
    assert end.termination == "user_stop", end.error
    ledger = read_ledger(run_dir / "ledger.jsonl")
    assert ledger.header.user.name == "simulator"
    assert ledger.header.user.params["provider"] == "openai-compatible"
    texts = [e.content for e in ledger.events if e.kind == "user_message"]
    assert texts == [
        f"Hi, I need help. My user id is {USER_ID}.",
        "No, that's all. Thanks! ###STOP###",
    ]
    records = [obj for _, obj in iter_jsonl(run_dir / "provider_calls.jsonl")]
    assert [r["role"] for r in records] == ["agent", "agent", "user", "user"]
    sim_requests = [s.body for s in fake.requests if "tools" not in s.body]
    assert sim_requests[1]["messages"][1:] == [
        {"role": "user", "content": "Hi! How can I help you today?"},
        {"role": "assistant", "content": f"Hi, I need help. My user id is {USER_ID}."},
        {"role": "user", "content": CLOSING},
    ]
    assert "<scenario>\nInstructions:" in sim_requests[0]["messages"][0]["content"]
    assert sim_requests[0]["temperature"] == 0.0 and sim_requests[0]["seed"] == 0
    assert kit.SECRET not in _all_text(tmp_path / "runs", tmp_path / "cache")


def test_malformed_tool_arguments_keep_the_episode_going(
    fake: Any, key: str, kit: Any, tmp_path: Path
) -> None:
    raw = '{"user_id": "daiki_muller_1116"'
    fake.responder = _responder(kit, args=raw)
    run_dir = tmp_path / "runs" / "bad"
    end = _run(_agent("openai", fake, key, tmp_path / "cache"), make_user("scripted"), run_dir)
    assert end.termination == "user_stop", end.error
    ledger = read_ledger(run_dir / "ledger.jsonl")
    call = next(e for e in ledger.events if e.kind == "tool_call")
    assert call.arguments == {RAW_ARGUMENTS: raw}  # exactly what the model wrote
    observation = next(e for e in ledger.events if e.kind == "tool_observation")
    assert observation.error and observation.content.startswith("Error: ")
    arguments_error = getattr(calls_module, "arguments_error", None)
    if arguments_error is not None:  # with the proposed sscbench.envs patch applied
        assert observation.content == arguments_error(raw)
        assert observation.content == "Error: Expecting ',' delimiter: line 1 column 32 (char 31)"
    assert fake.requests[1].body["messages"][-2]["tool_calls"][0]["function"]["arguments"] == raw


def test_read_back_hint_variant_reaches_the_tool_schemas(
    fake: Any, key: str, kit: Any, tmp_path: Path
) -> None:
    if "variants" not in EpisodeContext.__dataclass_fields__:
        pytest.skip("needs the proposed EpisodeContext.variants patch")
    fake.responder = _responder(kit)
    spec = EpisodeSpec(domain="airline", task_id="7", variants={"read_back_hint": True})
    agent = _agent("openai", fake, key, tmp_path / "cache")
    run_episode(spec, agent, make_user("scripted"), tmp_path / "run", run_id="hint")
    tools = fake.requests[0].body["tools"]
    assert tools == tool_schemas("airline", read_back_hint=True) != tool_schemas("airline")
