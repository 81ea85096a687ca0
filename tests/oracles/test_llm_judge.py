"""The LLM judge through the provider layer, against a loopback server (no key, offline)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from sscbench.fault_contracts.contract import FaultContract
from sscbench.oracles.base import OracleUnavailable, Trajectory, make_oracle
from sscbench.oracles.llm_judge import LLMJudge, parse_verdict
from sscbench.records.events import AgentMessage, AgentToolCall
from sscbench.records.ledger import read_ledger
from sscbench.runs.episode import LEDGER_FILE

PROVIDERS = Path(__file__).parents[1] / "agents" / "providers" / "conftest.py"
_spec = importlib.util.spec_from_file_location("oracle_provider_fakes", PROVIDERS)
assert _spec is not None and _spec.loader is not None
fakes = importlib.util.module_from_spec(_spec)
sys.modules["oracle_provider_fakes"] = fakes
_spec.loader.exec_module(fakes)
fake = fakes.fake
key = fakes.key


def first_run(root: Path, operator: str) -> Trajectory:
    path = next(
        p
        for p in sorted((root / "faulted").rglob(LEDGER_FILE))
        if p.parent.name.startswith(operator) and "hasty" in p.parent.name
    )
    ledger = read_ledger(path)
    contract = FaultContract.model_validate(ledger.header.fault)
    return Trajectory(ledger.header.run_id, path.parent, ledger, contract, clean=False)


def agent_step(t: Trajectory) -> int:
    return max(e.step for e in t.ledger.events if isinstance(e, AgentMessage | AgentToolCall))


def params(fake: Any, key: str, cache: Path) -> dict[str, Any]:
    return {
        "provider": "openai",
        "model": "judge",
        "base_url": fake.openai_url,
        "api_key_env": key,
        "cache_dir": str(cache),
    }


def test_l0_and_l1_prompts_differ_only_by_the_masked_contract(
    oracle_runs: Path, fake: Any, key: str, tmp_path: Path
) -> None:
    t = first_run(oracle_runs, "return_date")
    step = agent_step(t)
    reply = json.dumps({"adopted": True, "t_u": step, "reason": "uses the wrong date"})
    fake.responder = lambda path, body: fakes.openai_reply(reply)
    l0 = make_oracle("llm_judge_l0", **params(fake, key, tmp_path / "cache"))
    l1 = make_oracle("llm_judge_l1", **params(fake, key, tmp_path / "cache"))
    v0, v1 = l0.judge(t), l1.judge(t)
    assert v0.adopted is True and v0.t_u == step and v0.reason.startswith("llm:")
    assert v1 == v0
    body0, body1 = (json.dumps(r.body, ensure_ascii=False) for r in fake.requests)
    for body in (body0, body1):
        assert "<policy>" in body and "<tool_schemas>" in body and "<conversation>" in body
        assert f"[{step}]" in body
        # The judge is as blind as a reviewer: no configuration, condition or run identity.
        for secret in (t.item_id, t.contract.contract_id, t.ledger.header.agent.name):
            assert secret not in body
        assert '"control"' not in body
    assert "<fault_contract>" not in body0 and "injected_value" not in body0
    assert "<fault_contract>" in body1 and "injected_value" in body1


def test_verdicts_are_cached_and_replay_without_a_key(
    oracle_runs: Path, fake: Any, key: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    t = first_run(oracle_runs, "write_effect")
    fake.responder = lambda path, body: fakes.openai_reply('{"adopted": false, "t_u": null}')
    cache = tmp_path / "cache"
    first = make_oracle("llm_judge_l1", **params(fake, key, cache)).judge(t)
    sent = len(fake.requests)
    monkeypatch.delenv(key)
    again = make_oracle("llm_judge_l1", **params(fake, key, cache)).judge(t)
    assert again == first and first.adopted is False
    assert len(fake.requests) == sent, "a cached verdict sent a request"


def test_without_a_key_the_judge_is_unavailable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(OracleUnavailable, match="OPENAI_API_KEY"):
        LLMJudge("L0", model="judge")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-not-used")
    with pytest.raises(OracleUnavailable, match="model"):
        LLMJudge("L0")


def test_unreadable_or_out_of_range_replies() -> None:
    agent_steps = {4, 6}
    assert parse_verdict("I think so", agent_steps).adopted is None
    assert parse_verdict('{"adopted": "maybe"}', agent_steps).adopted is None
    v = parse_verdict('{"adopted": true, "t_u": 5, "reason": "x"}', agent_steps)
    assert v.adopted is True and v.t_u is None, "step 5 is not an agent step"
    v = parse_verdict('Sure: {"adopted": true, "t_u": 6}', agent_steps)
    assert (v.adopted, v.t_u) == (True, 6)
    v = parse_verdict('{"adopted": false, "t_u": 6}', agent_steps)
    assert (v.adopted, v.t_u) == (False, None)
    assert parse_verdict('{"adopted": null}', agent_steps).adopted is None
