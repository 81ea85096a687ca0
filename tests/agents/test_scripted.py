"""Scripted reference agents: they solve clean tasks, differ in evidence habits, use only
what they saw, and keep private ground truth."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sscbench.agents import make_agent
from sscbench.envs import CallContext, Observation, ToolCall, WriteDecision
from sscbench.records.ledger import iter_jsonl, read_ledger
from sscbench.runs.episode import EpisodeSpec, run_episode
from sscbench.users import make_user


def _run(tmp_path: Path, agent: str, domain: str, task: str, seed: int = 0, **kw: object) -> Path:
    run_dir = tmp_path / f"{agent.replace(':', '.')}-{domain}-{task}-{seed}"
    params = {k: v for k, v in kw.items() if k != "intervention"}
    end = run_episode(
        EpisodeSpec(domain=domain, task_id=task, seed=seed),
        make_agent(agent, **params),
        make_user("scripted"),
        run_dir,
        run_id=run_dir.name,
        intervention=kw.get("intervention"),  # type: ignore[arg-type]
    )
    assert end.termination == "user_stop", end
    return run_dir


def _calls(run_dir: Path) -> list[tuple[str, dict[str, object]]]:
    return [
        (e.name, e.arguments)
        for e in read_ledger(run_dir / "ledger.jsonl").events
        if e.kind == "tool_call"
    ]


@pytest.mark.parametrize("agent", ["scripted:careful", "scripted:hasty", "scripted:mixed"])
@pytest.mark.parametrize(
    ("domain", "tasks"), [("airline", range(0, 50, 7)), ("retail", range(0, 114, 13))]
)
def test_every_variant_solves_clean_tasks(
    agent: str, domain: str, tasks: range, tmp_path: Path
) -> None:
    for task in tasks:
        run_dir = _run(tmp_path, agent, domain, str(task))
        assert read_ledger(run_dir / "ledger.jsonl").end.success, (agent, domain, task)  # type: ignore[union-attr]


def test_careful_reads_back_every_write_and_hasty_never_rereads(tmp_path: Path) -> None:
    careful = _calls(_run(tmp_path, "scripted:careful", "airline", "7"))
    hasty = _calls(_run(tmp_path, "scripted:hasty", "airline", "7"))
    gold = _calls(_run(tmp_path, "scripted:gold", "airline", "7"))
    assert hasty == gold
    writes = [i for i, (name, _) in enumerate(careful) if name.startswith(("update", "cancel"))]
    for i in writes:
        assert careful[i + 1][0] == "get_reservation_details"
        assert careful[i + 1][1]["reservation_id"] == careful[i][1]["reservation_id"]
    assert len(careful) > len(gold)


def test_mixed_is_deterministic_per_seed_and_varies_across_seeds(tmp_path: Path) -> None:
    runs = {
        seed: _calls(_run(tmp_path, "scripted:mixed", "airline", "7", seed=seed))
        for seed in range(6)
    }
    again = _calls(_run(tmp_path / "again", "scripted:mixed", "airline", "7", seed=3))
    assert again == runs[3]
    assert len({json.dumps(c) for c in runs.values()}) > 1


def test_truth_sidecar_points_at_delivered_observations(tmp_path: Path) -> None:
    run_dir = _run(tmp_path, "scripted:careful", "airline", "7")
    events = read_ledger(run_dir / "ledger.jsonl").events
    truth = [obj for _, obj in iter_jsonl(run_dir / "truth.jsonl")]
    uses = [t for t in truth if t["kind"] == "fact_use"]
    assert {u["use"] for u in uses} == {"argument", "mention"}
    for use in uses:
        source = events[use["source_step"]]
        assert source.kind == "tool_observation" and use["source_step"] < use["step"]
        assert use["entity_id"] in source.content
        assert events[use["step"]].kind in {"tool_call", "agent_message"}
    # the ground truth never enters the model-visible ledger
    assert "fact_use" not in (run_dir / "ledger.jsonl").read_text()


class ShiftReturnDate:
    """Rewrite the return flight date of XEHM4B in every delivered reservation record."""

    def decide_write(self, call: ToolCall, ctx: CallContext) -> WriteDecision:
        return WriteDecision.PROCEED

    def rewrite(
        self, call: ToolCall, observation: Observation, ctx: CallContext
    ) -> Observation | None:
        if (
            call.name != "get_reservation_details"
            or call.arguments.get("reservation_id") != "XEHM4B"
        ):
            return None
        data = json.loads(observation.content)
        data["flights"][1]["date"] = "2024-05-18"
        return observation.model_copy(update={"content": json.dumps(data)})


def test_an_injected_value_flows_into_the_hasty_agents_action(tmp_path: Path) -> None:
    run_dir = _run(tmp_path, "scripted:hasty", "airline", "7", intervention=ShiftReturnDate())
    update = next(args for name, args in _calls(run_dir) if name == "update_reservation_flights")
    assert update["flights"][1]["date"] == "2024-05-18"  # type: ignore[index]
    truth = [obj for _, obj in iter_jsonl(run_dir / "truth.jsonl")]
    used = [t for t in truth if t["path"] == "flights.1.date" and t["use"] == "argument"]
    assert used and used[0]["value"] == "2024-05-18"
    hidden = [obj for _, obj in iter_jsonl(run_dir / "hidden.jsonl")]
    assert any(h["kind"] == "observation_rewritten" for h in hidden)
    assert "observation_rewritten" not in (run_dir / "ledger.jsonl").read_text()


def test_scripted_user_follows_the_scenario(tmp_path: Path) -> None:
    events = read_ledger(_run(tmp_path, "scripted:gold", "retail", "0") / "ledger.jsonl").events
    users = [e.content for e in events if e.kind == "user_message"]
    assert users[0].startswith("Hi. I received my order #W2378156")
    assert "I am Yusuf Rossi in zip code 19122" in users[1]
    assert users[-1].endswith("###STOP###")


def test_a_shared_parse_gives_each_knowledge_base_what_a_fresh_walk_gives() -> None:
    """Observation texts are parsed once per process; two knowledge bases that see the same
    text get the same sightings (their own step and tool) as a walk of a fresh parse, and
    a record's leaves are its flattened fields."""
    from sscbench.agents.scripted import facts
    from sscbench.json_paths import flatten

    content = json.dumps(
        {
            "order_id": "#W1",
            "items": [{"item_id": "1", "options": {"color": "red"}}],
            "status": "pending",
        }
    )
    facts._PARSED.clear()
    first, second = facts.KnowledgeBase(), facts.KnowledgeBase()
    assert first.observe("get_order_details", {"order_id": "#W1"}, content, 3) == [("order", "#W1")]
    second.observe("cancel_pending_order", {"order_id": "#W1"}, content, 7)
    assert len(facts._PARSED) == 1
    expected = list(flatten(json.loads(content)))
    for kb, step, tool, authoritative in (
        (first, 3, "get_order_details", True),
        (second, 7, "cancel_pending_order", False),
    ):
        assert {path: seen for (_, path), seen in kb.sightings.items()} == {
            path: [facts.Sighting(value, step, tool, authoritative)] for path, value in expected
        }
        data = kb.records[("order", "#W1")][0][2]
        assert kb.leaves(data) == dict(expected)
    assert first.leaves({"a": {"b": 1}}) == {"a.b": 1}  # a record it never saw: walked now
