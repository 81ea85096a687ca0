"""The three adapters against a loopback server speaking the real wire formats: request
bodies, replies, retries, timeouts, malformed output, empty replies and key handling."""

from __future__ import annotations

import json
import types
from pathlib import Path
from typing import Any

import pytest

from sscbench.agents.base import AgentTurn
from sscbench.agents.providers import (
    ProviderAgent,
    ProviderError,
    anthropic_agent,
    openai_agent,
    openai_compatible_agent,
)
from sscbench.agents.providers.scaffold import agent_system_prompt, tool_schemas
from sscbench.envs import ToolCall, load_domain
from sscbench.errors import ConfigError
from sscbench.llm.anthropic_messages import to_anthropic_tools
from sscbench.llm.arguments import RAW_ARGUMENTS
from sscbench.llm.errors import EmptyReply

FAST = {"retry_initial_wait": 0.01, "retry_max_wait": 0.05}


def _agent(kind: str, fake: Any, key_env: str | None, **params: Any) -> ProviderAgent:
    params = {**FAST, "model": "fake-model", **params}
    if key_env is not None:
        params.setdefault("api_key_env", key_env)
    if kind == "openai":
        return openai_agent(base_url=fake.openai_url, **params)
    if kind == "compatible":
        return openai_compatible_agent(base_url=fake.openai_url, **params)
    return anthropic_agent(base_url=fake.anthropic_url, **params)


def _first_turn(agent: ProviderAgent, kit: types.SimpleNamespace, seed: int = 0) -> AgentTurn:
    agent.start(kit.airline_context(seed=seed))
    return agent.next_turn(kit.opening())


def test_openai_request_carries_tau2_scaffold_and_decoding(fake: Any, key: str, kit: Any) -> None:
    fake.script(kit.openai_reply("Hello!"))
    agent = _agent("openai", fake, key, max_tokens=300)
    turn = _first_turn(agent, kit, seed=7)
    assert turn == AgentTurn(text="Hello!")
    (seen,) = fake.requests
    assert seen.path == "/v1/chat/completions"
    assert seen.headers["authorization"] == f"Bearer {kit.SECRET}"
    assert seen.headers["x-stainless-retry-count"] == "0"  # the SDK's own retries are off
    body = seen.body
    policy = load_domain("airline").policy
    assert body["messages"] == [
        {"role": "system", "content": agent_system_prompt(policy)},
        {"role": "assistant", "content": "Hi! How can I help you today?"},
        {"role": "user", "content": "Hi. I want to cancel a reservation."},
    ]
    assert body["tools"] == tool_schemas("airline")
    assert body["tool_choice"] == "auto"
    assert body["temperature"] == 0.0
    assert body["seed"] == 7  # τ²: the run seed is the model seed
    assert body["max_completion_tokens"] == 300
    (record,) = agent.provider_calls
    assert (record.status, record.attempt, record.role, record.provider) == (
        "ok",
        1,
        "agent",
        "openai",
    )
    assert (record.input_tokens, record.output_tokens, record.step) == (100, 20, 2)


def test_compatible_server_gets_max_tokens_and_no_key(fake: Any, key: str, kit: Any) -> None:
    fake.script(kit.openai_reply("Hi"))
    agent = _agent("compatible", fake, None, max_tokens=64)
    _first_turn(agent, kit)
    (seen,) = fake.requests
    assert seen.body["max_tokens"] == 64 and "max_completion_tokens" not in seen.body
    assert kit.SECRET not in json.dumps(seen.headers)
    assert agent.provider_calls[0].provider == "openai-compatible"


def test_anthropic_request_carries_tau2_scaffold(fake: Any, key: str, kit: Any) -> None:
    fake.script(kit.anthropic_reply("Hello!"))
    agent = _agent("anthropic", fake, key, thinking_budget=2048, temperature=None)
    assert _first_turn(agent, kit) == AgentTurn(text="Hello!")
    (seen,) = fake.requests
    assert seen.path == "/v1/messages"
    body = seen.body
    assert body["system"] == agent_system_prompt(load_domain("airline").policy)
    assert body["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "."}]},  # opens with the user
        {
            "role": "assistant",
            "content": [{"type": "text", "text": "Hi! How can I help you today?"}],
        },
        {
            "role": "user",
            "content": [{"type": "text", "text": "Hi. I want to cancel a reservation."}],
        },
    ]
    assert body["tools"] == to_anthropic_tools(tool_schemas("airline"))
    assert body["tool_choice"] == {"type": "auto"}
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    assert body["max_tokens"] == agent.spec.params["max_tokens"] == 8192
    assert "temperature" not in body and "seed" not in body


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
def test_tool_calls_become_tool_calls(fake: Any, key: str, kit: Any, kind: str) -> None:
    if kind == "openai":
        fake.script(
            kit.openai_reply(
                None,
                calls=(
                    ("call_a", "get_user_details", '{"user_id": "daiki_muller_1116"}'),
                    ("call_b", "get_reservation_details", '{"reservation_id": "XEHM4B"}'),
                ),
            )
        )
    else:
        fake.script(
            kit.anthropic_reply(
                "Checking.",
                uses=(
                    ("call_a", "get_user_details", {"user_id": "daiki_muller_1116"}),
                    ("call_b", "get_reservation_details", {"reservation_id": "XEHM4B"}),
                ),
            )
        )
    turn = _first_turn(_agent(kind, fake, key), kit)
    assert turn.tool_calls == (
        ToolCall(id="call_a", name="get_user_details", arguments={"user_id": "daiki_muller_1116"}),
        ToolCall(
            id="call_b", name="get_reservation_details", arguments={"reservation_id": "XEHM4B"}
        ),
    )
    assert turn.text == (None if kind == "openai" else "Checking.")


def test_malformed_arguments_and_unknown_tools_never_crash(fake: Any, key: str, kit: Any) -> None:
    fake.script(
        kit.openai_reply(
            None,
            calls=(
                ("c1", "get_user_details", '{"user_id": "daiki'),
                ("c2", "no_such_tool", "{}"),
                ("", "list_all_airports", ""),
            ),
        )
    )
    turn = _first_turn(_agent("compatible", fake, None), kit)
    assert turn.tool_calls == (
        ToolCall(id="c1", name="get_user_details", arguments={RAW_ARGUMENTS: '{"user_id": "daiki'}),
        ToolCall(id="c2", name="no_such_tool", arguments={}),
        ToolCall(id="call_2_2", name="list_all_airports", arguments={}),
    )


@pytest.mark.parametrize(
    ("kind", "status", "error_class"),
    [
        ("openai", 429, "RateLimitError"),
        ("openai", 503, "InternalServerError"),
        ("anthropic", 429, "RateLimitError"),
        ("anthropic", 529, "OverloadedError"),
    ],
)
def test_transient_errors_are_retried_and_recorded(
    fake: Any, key: str, kit: Any, kind: str, status: int, error_class: str
) -> None:
    ok = kit.openai_reply("fine") if kind == "openai" else kit.anthropic_reply("fine")
    fake.script(kit.error_reply(status, **{"retry-after": "0"}), ok)
    agent = _agent(kind, fake, key)
    assert _first_turn(agent, kit) == AgentTurn(text="fine")
    assert len(fake.requests) == 2
    first, second = agent.provider_calls
    assert (first.attempt, first.status, first.http_status) == (1, "error", status)
    assert first.error_class == error_class
    assert (second.attempt, second.status) == (2, "ok")
    assert first.request_hash == second.request_hash


def test_retries_are_bounded(fake: Any, key: str, kit: Any) -> None:
    fake.script(*[kit.error_reply(500) for _ in range(3)])
    agent = _agent("openai", fake, key, max_retries=2)
    with pytest.raises(ProviderError, match=r"after retries.*HTTP 500"):
        _first_turn(agent, kit)
    assert [c.attempt for c in agent.provider_calls] == [1, 2, 3]
    assert {c.status for c in agent.provider_calls} == {"error"}


def test_client_errors_are_not_retried(fake: Any, key: str, kit: Any) -> None:
    fake.script(kit.error_reply(400, "bad request"))
    agent = _agent("anthropic", fake, key)
    with pytest.raises(ProviderError, match=r"not retryable.*HTTP 400"):
        _first_turn(agent, kit)
    assert len(fake.requests) == 1 and len(agent.provider_calls) == 1


def test_timeouts_are_retried(fake: Any, key: str, kit: Any) -> None:
    fake.script(kit.Reply(delay=1.0, body={}), kit.openai_reply("late but fine"))
    agent = _agent("openai", fake, key, timeout=0.25)
    assert _first_turn(agent, kit) == AgentTurn(text="late but fine")
    first, second = agent.provider_calls
    assert first.error_class == "APITimeoutError" and first.http_status is None
    assert second.status == "ok"


def test_connection_errors_are_retried_then_raised(key: str, kit: Any) -> None:
    dead = types.SimpleNamespace(openai_url="http://127.0.0.1:9/v1")  # discard port: refused
    agent = _agent("openai", dead, key, max_retries=1)
    with pytest.raises(ProviderError, match="APIConnectionError"):
        _first_turn(agent, kit)
    assert [c.error_class for c in agent.provider_calls] == ["APIConnectionError"] * 2


def test_empty_replies_are_reasked_then_end_the_agents_part(
    fake: Any, key: str, kit: Any, tmp_path: Path
) -> None:
    fake.script(kit.openai_reply(""), kit.openai_reply("  "), kit.openai_reply("there"))
    agent = _agent("openai", fake, key, cache_dir=str(tmp_path))
    assert _first_turn(agent, kit) == AgentTurn(text="there")
    assert [c.status for c in agent.provider_calls] == ["empty", "empty", "ok"]
    assert len({c.request_hash for c in agent.provider_calls}) == 3  # one cache key each

    replay = _agent("openai", fake, key, cache_dir=str(tmp_path))
    assert _first_turn(replay, kit) == AgentTurn(text="there")
    assert [c.status for c in replay.provider_calls] == ["cache_hit"] * 3
    assert len(fake.requests) == 3

    fake.script(*[kit.openai_reply("") for _ in range(2)])
    stubborn = _agent("openai", fake, key, empty_retries=1)
    with pytest.raises(EmptyReply):  # the loop records it and ends the run as empty_reply
        _first_turn(stubborn, kit)


def test_anthropic_thinking_blocks_go_back_with_their_tool_use(
    fake: Any, key: str, kit: Any
) -> None:
    fake.script(
        kit.anthropic_reply(
            None, uses=(("tu_1", "get_user_details", {"user_id": "u"}),), thinking="hmm"
        ),
        kit.anthropic_reply("Found you."),
    )
    agent = _agent("anthropic", fake, key, thinking_budget=1024, temperature=None)
    turn = _first_turn(agent, kit)
    from sscbench.records.events import AgentToolCall, ToolObservation

    history = [
        *kit.opening(),
        AgentToolCall(
            step=2, turn=2, call_id="tu_1", name="get_user_details", arguments={"user_id": "u"}
        ),
        ToolObservation(step=3, turn=3, call_id="tu_1", content="{}", error=False),
    ]
    assert turn.tool_calls[0].id == "tu_1"
    agent.next_turn(history)
    assistant = fake.requests[1].body["messages"][3]  # after ".", greeting, user
    assert assistant["content"][0] == {"type": "thinking", "thinking": "hmm", "signature": "sig-1"}
    assert assistant["content"][1]["type"] == "tool_use"


@pytest.mark.parametrize("kind", ["openai", "compatible", "anthropic"])
def test_key_is_read_only_when_a_request_goes_out(
    kind: str, fake: Any, kit: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cold cache without the key fails at the first request with the one-line message;
    a warm cache replays without it (an OpenAI-compatible server behind a key included:
    starting the agent must not read the key)."""
    monkeypatch.delenv("SSCBENCH_UNSET_KEY", raising=False)
    agent = _agent(kind, fake, "SSCBENCH_UNSET_KEY", cache_dir=str(tmp_path))
    with pytest.raises(ConfigError, match="SSCBENCH_UNSET_KEY is not set") as info:
        _first_turn(agent, kit)
    assert len(str(info.value).splitlines()) == 1
    assert fake.requests == []
    monkeypatch.setenv("SSCBENCH_UNSET_KEY", kit.SECRET)
    reply = kit.anthropic_reply if kind == "anthropic" else kit.openai_reply
    fake.script(reply("cached"))
    _first_turn(_agent(kind, fake, "SSCBENCH_UNSET_KEY", cache_dir=str(tmp_path)), kit)
    monkeypatch.delenv("SSCBENCH_UNSET_KEY")
    replay = _agent(kind, fake, "SSCBENCH_UNSET_KEY", cache_dir=str(tmp_path))
    assert _first_turn(replay, kit) == AgentTurn(text="cached")  # no key needed to replay
    assert [c.status for c in replay.provider_calls] == ["cache_hit"]
    assert len(fake.requests) == 1


def test_key_echoed_by_the_provider_is_redacted(fake: Any, key: str, kit: Any) -> None:
    fake.script(kit.error_reply(401, f"Incorrect API key provided: {kit.SECRET}"))
    agent = _agent("openai", fake, key)
    with pytest.raises(ProviderError) as info:
        _first_turn(agent, kit)
    assert kit.SECRET not in str(info.value) and "[REDACTED]" in str(info.value)
    assert info.value.__cause__ is None and info.value.__suppress_context__
    (record,) = agent.provider_calls
    assert kit.SECRET not in record.model_dump_json() and record.http_status == 401


def test_configuration_errors_are_config_errors_without_values(fake: Any, kit: Any) -> None:
    with pytest.raises(ConfigError, match="NAME of the environment variable") as info:
        openai_agent(model="m", api_key_env=kit.SECRET)
    assert kit.SECRET not in str(info.value)
    with pytest.raises(ConfigError, match="base_url"):
        openai_compatible_agent(model="m")
    with pytest.raises(ConfigError, match="credentials"):
        openai_agent(model="m", base_url=f"https://user:{kit.SECRET}@example.com/v1")
    with pytest.raises(ConfigError, match="Anthropic-only"):
        openai_agent(model="m", thinking_budget=2048)
    with pytest.raises(ConfigError, match="model"):
        openai_agent()


def test_spec_params_record_decoding_settings_but_no_key(fake: Any, key: str, kit: Any) -> None:
    agent = _agent("openai", fake, key, temperature=0.3, seed=11, reasoning_effort="low")
    params = agent.spec.params
    assert (params["model"], params["temperature"], params["seed"]) == ("fake-model", 0.3, 11)
    assert params["reasoning_effort"] == "low" and params["api_key_env"] == key
    assert kit.SECRET not in json.dumps(params)
    fake.script(kit.openai_reply("x"))
    _first_turn(agent, kit, seed=3)
    assert fake.requests[0].body["seed"] == 11  # a configured seed overrides the run seed
    assert fake.requests[0].body["reasoning_effort"] == "low"


def test_cost_uses_configured_prices(fake: Any, key: str, kit: Any) -> None:
    fake.script(kit.openai_reply("x", usage=(1_000_000, 500_000)))
    agent = _agent("openai", fake, key, input_price_per_mtok=2.0, output_price_per_mtok=8.0)
    _first_turn(agent, kit)
    assert agent.provider_calls[0].cost_usd == pytest.approx(6.0)
