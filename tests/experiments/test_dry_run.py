"""``sscbench run --config X --dry-run``: the estimate against what a run then makes.

The loopback model plays each task's gold actions (the path the estimate assumes) and
reports as usage the size of each request it actually received and each reply it sent,
in characters over the estimate's characters-per-token; the estimate, made offline before
anything runs, must be within 25% of those calls and tokens, and priced.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from sscbench.cli.main import main
from sscbench.experiments.estimate import CHARS_PER_TOKEN, estimate_experiment, model_price
from sscbench.experiments.load import load_experiment

CASES = [
    "return_date/airline/7/XEHM4B",
    "write_effect/airline/7/2",
    "item_option/retail/0/#W2378156/2",
    "pay_source/airline/18/omar_davis_3817/gift_card_3481935",
]


@pytest.fixture
def measuring_server(lb: ModuleType) -> Iterator[Any]:
    gold = lb.GoldResponder()

    def respond(path: str, body: dict[str, Any]) -> Any:
        reply = gold(path, body)
        message = reply.body["choices"][0]["message"]
        sent = {"messages": body["messages"], "tools": body.get("tools")}
        calls = [c["function"] for c in message.get("tool_calls") or []]
        out = len(message.get("content") or "") + (len(json.dumps(calls)) if calls else 0)
        reply.body["usage"] = {
            "prompt_tokens": round(len(json.dumps(sent, ensure_ascii=False)) / CHARS_PER_TOKEN),
            "completion_tokens": round(out / CHARS_PER_TOKEN),
        }
        return reply

    server = lb.serve(respond)
    yield server
    server.close()


def test_the_estimate_is_within_25_percent_of_what_the_run_makes(
    measuring_server: Any,
    key: str,
    write: Callable[[str], Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = write(
        f"""
name = "pilot"
repetitions = 2
concurrency = 4
[cases]
ids = {json.dumps(CASES)}

[[configurations]]
id = "oa"
agent = "openai"
[configurations.params]
model = "gpt-4.1-mini"
base_url = "{measuring_server.openai_url}"
api_key_env = "{key}"
requests_per_minute = 6000
"""
    )
    estimate = estimate_experiment(load_experiment(path))
    assert main(["run", "--config", str(path), "--dry-run"]) == 0
    printed = capsys.readouterr().out
    assert "pilot: 11 scheduled runs: 3 clean, up to 8 faulted" in printed
    assert "litellm cost map" in printed and "wall time: about" in printed
    assert not (tmp_path / "runs").exists()

    assert main(["run", "--config", str(path), "--out", str(tmp_path / "runs")]) == 0
    records = [
        json.loads(line)
        for f in (tmp_path / "runs").rglob("provider_calls.jsonl")
        for line in f.read_text().splitlines()
    ]
    assert records and all(r["status"] == "ok" for r in records)
    line = estimate.lines[0]
    actual = {
        "calls": len(records),
        "input": sum(r["input_tokens"] for r in records),
        "output": sum(r["output_tokens"] for r in records),
    }
    predicted = {
        "calls": line.usage.calls,
        "input": line.usage.input_tokens,
        "output": line.usage.output_tokens,
    }
    for name, value in actual.items():
        assert abs(predicted[name] - value) <= 0.25 * value, (name, predicted, actual)
    price = model_price("openai", {"model": "gpt-4.1-mini"})
    assert price is not None and line.cost_usd == pytest.approx(
        (predicted["input"] * price.input_per_mtok + predicted["output"] * price.output_per_mtok)
        / 1e6
    )
    assert line.clean_runs == 3 and line.fault_runs == 8 == estimate.fault_runs


def test_prices_come_from_the_configuration_first_then_the_cost_map() -> None:
    given = model_price(
        "openai", {"model": "gpt-4.1", "input_price_per_mtok": 1.0, "output_price_per_mtok": 2.0}
    )
    assert given is not None and (given.input_per_mtok, given.source) == (1.0, "configuration")
    mapped = model_price("openai", {"model": "gpt-4.1"})
    assert mapped is not None and mapped.source == "litellm cost map"
    assert mapped.input_per_mtok > 0 and mapped.output_per_mtok > mapped.input_per_mtok
    assert model_price("openai", {"model": "no-such-model-anywhere"}) is None
    assert model_price("scripted:gold", {}) is None


def test_dry_run_needs_an_experiment_file(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--domain", "airline", "--tasks", "0", "--dry-run"]) == 2
    assert "--config" in capsys.readouterr().err
