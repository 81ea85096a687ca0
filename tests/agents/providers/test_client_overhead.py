"""What a call's recorded latency holds, and what a client keeps between calls: the SDK's
import and client build happen before an attempt's clock starts, every connection to an
endpoint is kept alive, and the server's JSON is returned as sent."""

from __future__ import annotations

import time
from typing import Any

import pytest

from sscbench.agents.providers import ProviderAgent, anthropic_agent, openai_agent
from sscbench.llm import anthropic_messages, openai_chat
from sscbench.llm.transport import deadline_http_client


def _agent(kind: str, fake: Any, key: str) -> ProviderAgent:
    params = {"model": "fake-model", "api_key_env": key, "max_retries": 0}
    if kind == "openai":
        return openai_agent(base_url=fake.openai_url, **params)
    return anthropic_agent(base_url=fake.anthropic_url, **params)


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
def test_building_the_sdk_client_is_not_the_first_calls_latency(
    fake: Any, key: str, kit: Any, kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A slow first client build (the SDK's import takes 1–3 s) stays out of the recorded
    latency of the call that needed it."""
    module = openai_chat if kind == "openai" else anthropic_messages
    build = module._shared_client.__wrapped__

    def slow(*args: Any) -> Any:
        time.sleep(0.6)
        return build(*args)

    monkeypatch.setattr(module, "_shared_client", slow)
    reply = kit.openai_reply("hi") if kind == "openai" else kit.anthropic_reply("hi")
    fake.script(reply)
    agent = _agent(kind, fake, key)
    agent.start(kit.airline_context())
    start = time.monotonic()
    agent.next_turn(kit.opening())
    assert time.monotonic() - start >= 0.6  # the build did happen in this call
    (call,) = agent.provider_calls
    assert call.status == "ok" and call.latency_s < 0.4, call.latency_s


@pytest.mark.parametrize("sdk_name", ["openai", "anthropic"])
def test_every_connection_to_an_endpoint_is_kept_alive(sdk_name: str) -> None:
    """The SDKs keep 100 connections alive by default: 256 episodes in flight to one
    model server would reopen 156 connections on every round of calls."""
    sdk = pytest.importorskip(sdk_name)
    client = deadline_http_client(sdk)
    pool = client._transport._pool
    assert pool._max_keepalive_connections >= 1000 and pool._max_connections >= 1000
    client.close()


def test_the_servers_json_is_returned_as_sent(fake: Any, key: str, kit: Any) -> None:
    """The response is the server's JSON (fields sent as null stay null; unknown fields
    stay), not an SDK model dumped again — and ``parse`` reads nulls as absent."""
    reply = kit.openai_reply(None, calls=(("c1", "get_user_details", '{"user_id": "u"}'),))
    reply.body["choices"][0]["message"]["refusal"] = None
    reply.body["system_fingerprint"] = "fp_local"
    fake.script(reply)
    backend = _agent("openai", fake, key)._backend
    raw = backend.send({"params": {"model": "fake-model", "messages": []}, "extra_body": None})
    assert raw["system_fingerprint"] == "fp_local"
    assert raw["choices"][0]["message"]["refusal"] is None
    completion = backend.parse(raw)
    assert completion.text is None and [c.name for c in completion.calls] == ["get_user_details"]
