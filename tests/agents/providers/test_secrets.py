"""A model that echoes the API key it was sent (in a message, in a tool-call argument, as
the simulated user) leaves no trace of it: not in the ledger, the provider-call records,
the other sidecars or the response cache, and not in a replay from that cache."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sscbench.agents.providers import ProviderAgent, anthropic_agent, openai_agent
from sscbench.records.events import RunEnd
from sscbench.records.ledger import JsonlWriter, read_ledger
from sscbench.runs.episode import EpisodeSpec, run_episode
from sscbench.users.simulator import simulator_user

USER_ID = "daiki_muller_1116"


def _echoing(kit: Any) -> Any:
    """Agent: looks the user up with the key as an extra argument, then says the key;
    user simulator: says the key, then stops."""
    leak = kit.KEY_PLACEHOLDER
    args = {"user_id": USER_ID, "note": f"auth {leak}"}

    def respond(path: str, body: dict[str, Any]) -> Any:
        messages = body["messages"]
        if path.endswith("/chat/completions") and "tools" not in body:  # the simulator
            if sum(m["role"] == "assistant" for m in messages) == 0:
                return kit.openai_reply(f"Hi, my user id is {USER_ID}, my key is {leak}.")
            return kit.openai_reply(f"Thanks, that's all ({leak}). ###STOP###")
        if path.endswith("/chat/completions"):
            if any(m["role"] == "tool" for m in messages):
                return kit.openai_reply(f"Your key is {leak}. Anything else?")
            return kit.openai_reply(None, calls=(("c1", "get_user_details", json.dumps(args)),))
        last = messages[-1]["content"]
        if any(block.get("type") == "tool_result" for block in last):
            return kit.anthropic_reply(f"Your key is {leak}. Anything else?")
        return kit.anthropic_reply(None, uses=(("t1", "get_user_details", args),))

    return respond


def _agent(kind: str, fake: Any, key: str, cache: Path) -> ProviderAgent:
    common = {"model": "fake-model", "cache_dir": str(cache), "api_key_env": key}
    if kind == "openai":
        return openai_agent(base_url=fake.openai_url, **common)
    return anthropic_agent(base_url=fake.anthropic_url, **common)


def _files(*roots: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for root in roots for p in root.rglob("*") if p.is_file()}


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
def test_an_echoed_key_is_written_nowhere(
    fake: Any, key: str, kit: Any, tmp_path: Path, kind: str
) -> None:
    fake.responder = _echoing(kit)
    cache = tmp_path / "cache"
    runs = tmp_path / "runs"
    spec = EpisodeSpec(domain="airline", task_id="7", seed=0, max_steps=30)

    def episode(name: str) -> Any:
        user = simulator_user(
            provider="openai-compatible",
            base_url=fake.openai_url,
            api_key_env=key,
            model="sim",
            cache_dir=str(cache),
        )
        agent = _agent(kind, fake, key, cache)
        return run_episode(spec, agent, user, runs / name, run_id=name)

    end = episode("live")
    assert end.termination == "user_stop", end.error
    assert len(fake.requests) == 4  # two agent and two simulator requests, each answered

    secret = kit.SECRET.encode()
    written = _files(runs, cache)
    assert written and not [p for p, data in written.items() if secret in data]

    events = read_ledger(runs / "live" / "ledger.jsonl").events
    call = next(e for e in events if e.kind == "tool_call")
    assert call.arguments == {"user_id": USER_ID, "note": "auth [REDACTED]"}
    said = [e.content for e in events if e.kind in ("agent_message", "user_message")]
    assert "Your key is [REDACTED]. Anything else?" in said
    assert f"Hi, my user id is {USER_ID}, my key is [REDACTED]." in said
    # the model's own later turns are shown the redacted text: what the ledger says it saw
    assert kit.SECRET not in json.dumps([s.body for s in fake.requests])

    replay = episode("replay")  # from the cache: same ledger, still nothing to leak
    assert replay.termination == "user_stop" and len(fake.requests) == 4
    replayed = read_ledger(runs / "replay" / "ledger.jsonl").events
    assert [e.model_copy(update={"ts": None}) for e in replayed] == [
        e.model_copy(update={"ts": None}) for e in events
    ]
    assert not [p for p, data in _files(runs, cache).items() if secret in data]


def test_the_ledger_writer_redacts_whatever_reaches_it(key: str, kit: Any, tmp_path: Path) -> None:
    from sscbench.llm.credentials import read_api_key

    read_api_key(key)  # registers the key, as the first request of a run does
    path = tmp_path / "ledger.jsonl"
    error = f'Traceback ...\nRuntimeError: bad header "Bearer {kit.SECRET}"'
    with JsonlWriter(path) as out:
        out.append(
            RunEnd(
                termination="harness_error",
                steps=0,
                success=None,
                db_match=None,
                communicate_ok=None,
                final_state_hash=None,
                error=error,
            )
        )
    text = path.read_text(encoding="utf-8")
    assert kit.SECRET not in text and "Bearer [REDACTED]" in text


class _LeakyAgent:
    """An agent whose failure message carries the key (as an SDK error might)."""

    def __init__(self, secret: str) -> None:
        from sscbench.records.events import ParticipantSpec

        self.spec = ParticipantSpec(name="leaky")
        self._secret = secret

    def start(self, ctx: Any) -> None:
        pass

    def next_turn(self, history: Any) -> Any:
        raise RuntimeError(f"request failed: Authorization: Bearer {self._secret}")


def test_a_failure_message_with_the_key_is_redacted_where_it_is_returned(
    key: str, kit: Any, tmp_path: Path
) -> None:
    from sscbench.llm.credentials import read_api_key
    from sscbench.users import make_user

    read_api_key(key)
    spec = EpisodeSpec(domain="airline", task_id="7")
    end = run_episode(
        spec, _LeakyAgent(kit.SECRET), make_user("scripted"), tmp_path / "r", run_id="r"
    )
    assert end.termination == "harness_error"
    assert kit.SECRET not in (end.error or "") and "Bearer [REDACTED]" in (end.error or "")
    assert not [p for p, data in _files(tmp_path).items() if kit.SECRET.encode() in data]
