"""A misbehaving endpoint: a 200 that is not JSON, a response dripped one byte at a time, a
run that would never end, and tool calls sharing one id. Each ends as a recorded, retried
provider failure or a correctly paired ledger, never as a harness bug or a hung run."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from sscbench.agents.base import AgentTurn
from sscbench.agents.providers import (
    ProviderAgent,
    ProviderError,
    anthropic_agent,
    openai_agent,
)
from sscbench.experiments.budget import CallCost
from sscbench.experiments.engine import ended
from sscbench.experiments.execute import finished_run
from sscbench.experiments.load import Configuration
from sscbench.experiments.plan import RunKey, ScheduledRun
from sscbench.records.ledger import iter_jsonl, read_ledger
from sscbench.runs.episode import EpisodeSpec, run_episode
from sscbench.users import make_user

FAST = {"retry_initial_wait": 0.01, "retry_max_wait": 0.05}
USER_ID = "daiki_muller_1116"  # airline task 7
RESERVATION = "XEHM4B"


def _agent(kind: str, fake: Any, key: str, **params: Any) -> ProviderAgent:
    params = {**FAST, "model": "fake-model", "api_key_env": key, **params}
    if kind == "openai":
        return openai_agent(base_url=fake.openai_url, **params)
    return anthropic_agent(base_url=fake.anthropic_url, **params)


def _ok(kit: Any, kind: str, text: str = "fine") -> Any:
    return kit.openai_reply(text) if kind == "openai" else kit.anthropic_reply(text)


def _first_turn(agent: ProviderAgent, kit: Any) -> AgentTurn:
    agent.start(kit.airline_context())
    return agent.next_turn(kit.opening())


def _episode(agent: ProviderAgent, run_dir: Path) -> Any:
    spec = EpisodeSpec(domain="airline", task_id="7", seed=0, max_steps=30)
    return run_episode(spec, agent, make_user("scripted"), run_dir, run_id=run_dir.name)


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
@pytest.mark.parametrize("content_type", ["application/json", "text/html"])
def test_a_200_that_is_not_json_is_a_recorded_retried_attempt(
    fake: Any, key: str, kit: Any, kind: str, content_type: str
) -> None:
    page = kit.Reply(raw=b"<html><body>502 Bad Gateway</body></html>", content_type=content_type)
    fake.script(page, _ok(kit, kind))
    agent = _agent(kind, fake, key)
    assert _first_turn(agent, kit) == AgentTurn(text="fine")
    first, second = agent.provider_calls
    assert (first.attempt, first.status, first.error_class) == (1, "error", "UnreadableResponse")
    assert first.http_status == 200 and "not JSON" in (first.error or "")
    assert (second.attempt, second.status) == (2, "ok")


def test_a_body_that_stays_unreadable_fails_the_run_as_a_provider_error(
    fake: Any, key: str, kit: Any, tmp_path: Path
) -> None:
    fake.responder = lambda path, body: kit.Reply(raw=b"not json at all")
    run_dir = tmp_path / "run"
    end = _episode(_agent("openai", fake, key, max_retries=2), run_dir)
    assert end.termination == "harness_error"
    last = (end.error or "").strip().splitlines()[-1]
    assert last.startswith("sscbench.llm.errors.ProviderError: openai model")
    assert "not JSON" in last
    records = [obj for _, obj in iter_jsonl(run_dir / "provider_calls.jsonl")]
    assert [(r["attempt"], r["error_class"]) for r in records] == [
        (n, "UnreadableResponse") for n in (1, 2, 3)
    ]


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
def test_the_attempt_deadline_bounds_a_slow_drip(fake: Any, key: str, kit: Any, kind: str) -> None:
    # ~600 bytes at 20 ms each: 12 s per attempt if only single reads were bounded
    slow = _ok(kit, kind, "x" * 300)
    slow.drip = 0.02
    fake.script(slow, slow)
    agent = _agent(kind, fake, key, timeout=0.4, max_retries=1)
    start = time.monotonic()
    with pytest.raises(ProviderError, match="APITimeoutError"):
        _first_turn(agent, kit)
    elapsed = time.monotonic() - start
    assert elapsed < 2.0, elapsed
    assert [(c.attempt, c.error_class) for c in agent.provider_calls] == [
        (1, "APITimeoutError"),
        (2, "APITimeoutError"),
    ]
    assert all(c.latency_s < 0.8 for c in agent.provider_calls)


def test_the_run_time_limit_ends_a_run_that_would_not_finish(
    fake: Any, key: str, kit: Any, tmp_path: Path
) -> None:
    def drip(path: str, body: dict[str, Any]) -> Any:
        reply = kit.openai_reply("x" * 300)
        reply.drip = 0.02
        return reply

    fake.responder = drip
    # each attempt alone may take 5 s and there are 6 of them; the run may take 1 s
    agent = _agent("openai", fake, key, timeout=5.0, max_retries=5, run_time_limit=1.0)
    run_dir = tmp_path / "fault" / "run"
    start = time.monotonic()
    end = _episode(agent, run_dir)
    elapsed = time.monotonic() - start
    assert elapsed < 3.0, elapsed
    assert end.termination == "harness_error"
    last = (end.error or "").strip().splitlines()[-1]
    assert "run wall-clock limit" in last and "run_time_limit=1.0" in last
    assert read_ledger(run_dir / "ledger.jsonl").end == end
    assert agent.spec.params["run_time_limit"] == 1.0
    # an experiment counts it as a provider failure and runs it again on resume
    assert finished_run(run_dir, "run") is None
    record = ended(_scheduled(), end, CallCost(cost_usd=None, requests=2))
    assert (record.state, record.cause) == ("missing", "provider_error")


def _scheduled() -> ScheduledRun:
    """A clean scheduled run for ``ended`` (which only copies its fields)."""
    config = Configuration("c", "openai", {"model": "fake-model"}, "0" * 64)
    return ScheduledRun(
        key=RunKey(case="clean:airline/7", max_steps=30, config="c", repetition=0, seed=0),
        condition="clean",
        configuration=config,
        domain="airline",
        task_id="7",
        variants={},
        operator=None,
        contract=None,
        run_id="run",
    )


def _duplicate_ids_policy(kit: Any, kind: str) -> Any:
    """Two calls with one id in one turn, then the same id again next turn, then close."""
    first = (
        ("dup", "get_user_details", {"user_id": USER_ID}),
        ("dup", "get_reservation_details", {"reservation_id": RESERVATION}),
    )
    again = (("dup", "get_user_details", {"user_id": USER_ID}),)

    def respond(path: str, body: dict[str, Any]) -> Any:
        messages = body["messages"]
        if kind == "openai":
            results = sum(m["role"] == "tool" for m in messages)
            calls = first if results == 0 else again if results == 2 else None
            if calls is None:
                return kit.openai_reply("All checked.")
            return kit.openai_reply(None, calls=tuple((i, n, json.dumps(a)) for i, n, a in calls))
        results = sum(
            block.get("type") == "tool_result"
            for m in messages
            if isinstance(m["content"], list)
            for block in m["content"]
        )
        uses = first if results == 0 else again if results == 2 else None
        return (
            kit.anthropic_reply("All checked.")
            if uses is None
            else kit.anthropic_reply(None, uses=uses)
        )

    return respond


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
def test_repeated_tool_call_ids_are_disambiguated_never_mispaired(
    fake: Any, key: str, kit: Any, kind: str, tmp_path: Path
) -> None:
    fake.responder = _duplicate_ids_policy(kit, kind)
    run_dir = tmp_path / "run"
    end = _episode(_agent(kind, fake, key), run_dir)
    assert end.termination == "user_stop", end.error
    events = read_ledger(run_dir / "ledger.jsonl").events
    calls = [e for e in events if e.kind == "tool_call"]
    assert [c.call_id for c in calls] == ["dup", "dup#2", "dup#3"]
    by_id = {c.call_id: c for c in calls}
    for obs in (e for e in events if e.kind == "tool_observation"):
        call = by_id[obs.call_id]
        wanted = USER_ID if call.name == "get_user_details" else RESERVATION
        assert wanted in obs.content and not obs.error
    # the model is shown the same pairing as the ledger: each result under its own call
    last = fake.requests[-1].body["messages"]
    if kind == "openai":
        sent = [c["id"] for m in last for c in m.get("tool_calls") or []]
        answered = [m["tool_call_id"] for m in last if m["role"] == "tool"]
    else:
        blocks = [b for m in last if isinstance(m["content"], list) for b in m["content"]]
        sent = [b["id"] for b in blocks if b["type"] == "tool_use"]
        answered = [b["tool_use_id"] for b in blocks if b["type"] == "tool_result"]
    assert sent == answered == ["dup", "dup#2", "dup#3"]
