"""The paper's baselines as oracles: B1 anomaly detector, B3 diagnosis, B4 attribution."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

from sscbench.fault_contracts.history import History
from sscbench.oracles.anomaly import anomalies, entity
from sscbench.oracles.base import make_oracle, oracle_setting
from sscbench.oracles.dataset import build_items
from sscbench.oracles.diagnosis import parse_attribution, parse_diagnosis
from sscbench.oracles.evaluate import run_oracle
from sscbench.records.events import AgentToolCall, ToolObservation

PROVIDERS = Path(__file__).parents[1] / "agents" / "providers" / "conftest.py"
_spec = importlib.util.spec_from_file_location("baseline_provider_fakes", PROVIDERS)
assert _spec is not None and _spec.loader is not None
fakes = importlib.util.module_from_spec(_spec)
sys.modules["baseline_provider_fakes"] = fakes
_spec.loader.exec_module(fakes)
fake = fakes.fake
key = fakes.key


def call(step: int, name: str, **arguments: Any) -> AgentToolCall:
    return AgentToolCall(step=step, turn=step, call_id=f"c{step}", name=name, arguments=arguments)


def obs(step: int, data: Any, error: bool = False) -> ToolObservation:
    content = data if isinstance(data, str) else json.dumps(data)
    return ToolObservation(
        step=step, turn=step - 1, call_id=f"c{step - 1}", content=content, error=error
    )


RES = {"reservation_id": "ABC123", "user_id": "u1", "cabin": "economy", "flights": []}


def test_entity_is_named_by_its_first_id_field() -> None:
    assert entity(RES) == "reservation_id=ABC123"
    assert entity([RES]) is None and entity({"cabin": "x"}) is None


def test_unexplained_change_is_an_anomaly_and_a_write_explains_it() -> None:
    changed = {**RES, "cabin": "business"}
    unexplained = History(
        [
            call(0, "get_reservation_details", reservation_id="ABC123"),
            obs(1, RES),
            call(2, "get_user_details", user_id="u1"),
            obs(3, {"user_id": "u1", "name": "x"}),
            call(4, "get_reservation_details", reservation_id="ABC123"),
            obs(5, changed),
        ]
    )
    found = anomalies(unexplained, "airline")
    assert [(a.step, a.kind) for a in found] == [(5, "unexplained change")]
    assert "/cabin" in found[0].detail
    explained = History(
        [
            call(0, "get_reservation_details", reservation_id="ABC123"),
            obs(1, RES),
            call(
                2,
                "update_reservation_flights",
                reservation_id="ABC123",
                cabin="business",
                flights=[],
                payment_id="p",
            ),
            obs(3, changed),
            call(4, "get_reservation_details", reservation_id="ABC123"),
            obs(5, changed),
        ]
    )
    assert anomalies(explained, "airline") == []
    # A write's acknowledgement that a later read contradicts (a suppressed write).
    suppressed = History(
        [
            *explained.events[:4],
            call(4, "get_reservation_details", reservation_id="ABC123"),
            obs(5, RES),
        ]
    )
    assert [a.step for a in anomalies(suppressed, "airline")] == [5]


def test_tool_errors_are_anomalies_localised_to_the_next_agent_step(oracle_runs: Path) -> None:
    history = History(
        [call(0, "get_user_details", user_id="nobody"), obs(1, "Error: user not found", error=True)]
    )
    assert [a.kind for a in anomalies(history, "airline")] == ["tool error"]
    items, _ = build_items(oracle_runs / "faulted", "truth", [oracle_runs / "clean"])
    b1 = make_oracle("anomaly_detector")
    for item in items:
        verdict = b1.judge(item.trajectory)
        assert verdict.adopted is not None, "B1 never abstains"
        if verdict.adopted and verdict.t_u is not None:
            events = item.trajectory.ledger.events
            kinds = {e.step: e.kind for e in events}
            assert kinds[verdict.t_u] in ("agent_message", "tool_call")


def test_diagnosis_and_attribution_replies() -> None:
    steps = {2, 4}
    v = parse_diagnosis('{"failed": true, "critical_step": 4, "category": "x"}', steps)
    assert (v.adopted, v.t_u) == (True, 4)
    assert parse_diagnosis('{"failed": true, "critical_step": 3}', steps).t_u is None
    assert parse_diagnosis('{"failed": false, "critical_step": 4}', steps).t_u is None
    assert parse_diagnosis("no idea", steps).adopted is None
    assert parse_diagnosis('{"failed": "yes"}', steps).adopted is None
    a = parse_attribution('{"decisive_step": 2}', steps)
    assert (a.adopted, a.t_u) == (None, 2), "attribution never answers adoption"
    assert parse_attribution('{"decisive_step": 5}', steps).t_u is None


def params(fake: Any, key: str, cache: Path) -> dict[str, Any]:
    return {
        "provider": "openai",
        "model": "m",
        "base_url": fake.openai_url,
        "api_key_env": key,
        "cache_dir": str(cache),
    }


def test_llm_baselines_through_the_provider_layer(
    oracle_runs: Path, fake: Any, key: str, tmp_path: Path
) -> None:
    items, _ = build_items(oracle_runs / "faulted", "truth", [oracle_runs / "clean"])
    bodies: list[str] = []

    def respond(path: str, body: dict[str, Any]) -> Any:
        text = json.dumps(body)
        bodies.append(text)
        if "DECISIVE ERROR STEP" in text:
            return fakes.openai_reply('{"decisive_step": null, "reason": "-"}')
        return fakes.openai_reply('{"failed": false, "critical_step": null}')

    fake.responder = respond
    native = make_oracle("diagnosis_native", **params(fake, key, tmp_path / "c"))
    result = run_oracle(
        "diagnosis_native", native, items, setting=oracle_setting("diagnosis_native")
    )
    ops = {i.reference.operator for i in result.items}
    assert ops == {"item_option"}, "B3-native judges ItemOption runs only"
    assert len(result.verdicts) == len(result.items) < len(items)
    # One request per distinct prompt: without a contract, a clean run's pairings share one.
    assert 0 < len(bodies) <= len(result.items)
    assert all("<example_run>" in b and "<fault_contract>" not in b for b in bodies)
    bodies.clear()
    saa = make_oracle("diagnosis_saa", **params(fake, key, tmp_path / "c"))
    one = next(i for i in items if not i.reference.clean)
    assert saa.judge(one.trajectory).adopted is False
    assert "<fault_contract>" in bodies[0] and "<example_run>" not in bodies[0]
    b4 = make_oracle("attribution_all_at_once", **params(fake, key, tmp_path / "c"))
    scored = run_oracle("b4", b4, items, setting=oracle_setting("attribution_all_at_once"))
    overall = dict(scored.scores)["all"]
    assert overall.step_only and overall.precision.den == 0 and overall.recall.value is None
    assert overall.t_u_exact.den == overall.counts.localisable > 0
