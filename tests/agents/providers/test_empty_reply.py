"""A model that keeps replying with nothing: the ledger records the empty reply and the run
ends as ``empty_reply``, never as ``agent_stop`` (which would claim the agent chose to stop)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sscbench.agents.providers import openai_compatible_agent
from sscbench.records.ledger import iter_jsonl, read_ledger
from sscbench.runs.episode import EpisodeSpec, run_episode
from sscbench.users import make_user


def test_a_run_ended_by_empty_replies_says_so(fake: Any, kit: Any, tmp_path: Path) -> None:
    fake.responder = lambda path, body: kit.openai_reply("")
    agent = openai_compatible_agent(model="m", base_url=fake.openai_url, empty_retries=2)
    run_dir = tmp_path / "run"
    spec = EpisodeSpec(domain="airline", task_id="7", seed=0, max_steps=30)
    end = run_episode(spec, agent, make_user("scripted"), run_dir, run_id="r")

    assert end.termination == "empty_reply", end.error
    assert end.failure is None and end.success is False  # graded like any finished run
    ledger = read_ledger(run_dir / "ledger.jsonl")
    kinds = [(e.kind, getattr(e, "content", None)) for e in ledger.events]
    assert kinds[-1] == ("agent_message", "")  # the reply, as it was, at its own step
    assert [k for k, _ in kinds] == ["agent_message", "user_message", "agent_message"]
    assert end.steps == 3
    calls = [obj for _, obj in iter_jsonl(run_dir / "provider_calls.jsonl")]
    assert [c["status"] for c in calls] == ["empty"] * 3  # the first ask and two re-asks
    assert all(c["step"] == 2 for c in calls)
    assert len(fake.requests) == 3
