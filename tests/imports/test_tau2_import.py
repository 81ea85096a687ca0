"""``sscbench import tau2``: τ² simulation results → ledgers, with the replay check.

The τ² results used here are written by the test from a committed imported ledger (a
recorded gpt-4.1-mini run, see tests/fixtures/reconstruction_corpus/README.md), turned back
into τ²'s message format — so the round trip is checked too.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sscbench.cli.main import main
from sscbench.imports import import_tau2_results
from sscbench.imports.tau2_results import IMPORT_FILE, ImportRecord
from sscbench.records.events import AgentMessage, AgentToolCall, ToolObservation, UserMessage
from sscbench.records.ledger import read_ledger

CORPUS = Path(__file__).parents[1] / "fixtures" / "reconstruction_corpus" / "runs"
RUN = "tau2.airline.19.trial0"


def _messages(run: str) -> list[dict[str, Any]]:
    ledger = read_ledger(CORPUS / run / "ledger.jsonl")
    out: list[dict[str, Any]] = []
    for e in ledger.events:
        if isinstance(e, UserMessage):
            out.append({"role": "user", "content": e.content, "turn_idx": e.turn})
        elif isinstance(e, AgentMessage):
            out.append({"role": "assistant", "content": e.content, "turn_idx": e.turn})
        elif isinstance(e, AgentToolCall):
            if out and out[-1]["role"] == "assistant" and out[-1].get("tool_calls"):
                out[-1]["tool_calls"].append(
                    {"id": e.call_id, "name": e.name, "arguments": e.arguments}
                )
            else:
                out.append(
                    {
                        "role": "assistant",
                        "content": None,
                        "turn_idx": e.turn,
                        "tool_calls": [{"id": e.call_id, "name": e.name, "arguments": e.arguments}],
                    }
                )
        elif isinstance(e, ToolObservation):
            out.append({"role": "tool", "id": e.call_id, "content": e.content, "turn_idx": e.turn})
    return out


def _results(
    tmp: Path,
    messages: list[dict[str, Any]],
    *,
    sim_id: str = "sim-1",
    termination: str = "user_stop",
    name: str = "results.json",
) -> Path:
    data = {
        "info": {
            "git_commit": "abc",
            "seed": 300,
            "max_steps": 200,
            "environment_info": {"domain_name": "airline"},
            "agent_info": {
                "implementation": "llm_agent",
                "llm": "model-x",
                "llm_args": {"temperature": 0.0},
            },
            "user_info": {"implementation": "user_simulator", "llm": "model-y"},
        },
        "tasks": [],
        "simulations": [
            {
                "id": sim_id,
                "task_id": "19",
                "trial": 0,
                "messages": messages,
                "termination_reason": termination,
                "reward_info": {"reward": 1.0, "db_check": {"db_match": True}},
            }
        ],
    }
    path = tmp / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_round_trip_is_byte_identical_and_replayed(tmp_path: Path) -> None:
    original = read_ledger(CORPUS / RUN / "ledger.jsonl")
    source = _results(tmp_path, _messages(RUN))
    summary = import_tau2_results(source, tmp_path / "out")
    assert summary.imported == ["tau2.airline.19.trial0"] and not summary.skipped
    assert summary.observations == summary.identical > 0 and summary.differing == 0
    run = tmp_path / "out" / "tau2.airline.19.trial0"
    ledger = read_ledger(run / "ledger.jsonl")
    assert ledger.finished and ledger.header.fault is None
    assert ledger.header.agent.params == {"llm": "model-x", "llm_args": {"temperature": 0.0}}
    strip = [e.model_copy(update={"ts": None}) for e in ledger.events]
    assert strip == [e.model_copy(update={"ts": None}) for e in original.events]
    record = ImportRecord.model_validate_json((run / IMPORT_FILE).read_text())
    assert record.simulation_id == "sim-1" and record.differences == []
    # Importing again keeps what is there.
    again = import_tau2_results(source, tmp_path / "out")
    assert again.skipped == ["tau2.airline.19.trial0"] and not again.imported


def test_a_recorded_observation_the_replay_does_not_reproduce_is_reported(
    tmp_path: Path,
) -> None:
    messages = _messages(RUN)
    tool = next(m for m in messages if m["role"] == "tool")
    tool["content"] = tool["content"].replace('"James"', '"Jimmy"', 1)
    summary = import_tau2_results(_results(tmp_path, messages), tmp_path / "out")
    assert summary.differing == 1 and summary.identical == summary.observations - 1
    run = tmp_path / "out" / "tau2.airline.19.trial0"
    record = ImportRecord.model_validate_json((run / IMPORT_FILE).read_text())
    (diff,) = record.differences
    assert diff.kind == "content" and "Jimmy" in diff.recorded and "Jimmy" not in diff.replayed
    # The ledger keeps what the model saw: the recorded text.
    seen = [e for e in read_ledger(run / "ledger.jsonl").events if e.step == diff.step]
    assert isinstance(seen[0], ToolObservation) and "Jimmy" in seen[0].content


def test_validation_error_text_differing_only_in_the_pydantic_link_is_counted_apart(
    tmp_path: Path,
) -> None:
    bad = {
        "reservation_id": "GV1N64",
        "cabin": "economy",
        "flights": [{"bad": 1}],
        "payment_id": "gift_card_1642017",
    }
    recorded = (
        "Error: 2 validation errors for FlightInfo\nflight_number\n  Field required "
        "[type=missing, input_value={'bad': 1}, input_type=dict]\n    For further information "
        "visit https://errors.pydantic.dev/2.11/v/missing\ndate\n  Field required "
        "[type=missing, input_value={'bad': 1}, input_type=dict]\n    For further information "
        "visit https://errors.pydantic.dev/2.11/v/missing"
    )
    messages = [
        *_messages(RUN)[:2],
        {
            "role": "assistant",
            "content": None,
            "turn_idx": 2,
            "tool_calls": [{"id": "c1", "name": "update_reservation_flights", "arguments": bad}],
        },
        {"role": "tool", "id": "c1", "content": recorded, "turn_idx": 3},
    ]
    summary = import_tau2_results(_results(tmp_path, messages), tmp_path / "out")
    assert (summary.observations, summary.link_only, summary.differing) == (1, 1, 0)
    run = tmp_path / "out" / "tau2.airline.19.trial0"
    (diff,) = ImportRecord.model_validate_json((run / IMPORT_FILE).read_text()).differences
    assert diff.kind == "validation_error_link"
    observation = read_ledger(run / "ledger.jsonl").events[-1]
    assert isinstance(observation, ToolObservation) and observation.error
    assert observation.content == recorded


def test_bad_input_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    not_json = tmp_path / "x.json"
    not_json.write_text("{nope", encoding="utf-8")
    assert main(["import", "tau2", str(not_json), "--out", str(tmp_path / "o")]) == 2
    assert "is not JSON" in capsys.readouterr().err
    odd = _results(tmp_path, _messages(RUN), termination="teleported", name="odd.json")
    assert main(["import", "tau2", str(odd), "--out", str(tmp_path / "o2")]) == 2
    err = capsys.readouterr().err.strip()
    assert "teleported" in err and len(err.splitlines()) == 1
    assert not (tmp_path / "o2").exists() or not any((tmp_path / "o2").iterdir())


def test_a_directory_holding_another_simulation_is_refused(tmp_path: Path) -> None:
    import_tau2_results(_results(tmp_path, _messages(RUN)), tmp_path / "out")
    other = _results(tmp_path, _messages(RUN), sim_id="sim-2", name="other.json")
    assert main(["import", "tau2", str(other), "--out", str(tmp_path / "out")]) == 2
