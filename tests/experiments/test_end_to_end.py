"""A whole experiment through ``sscbench run --config``: scripted, OpenAI-format and
Anthropic-format configurations (served on loopback), gating, cache replay, and no key
anywhere on disk."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sscbench.cli.main import main
from sscbench.experiments import load_experiment, read_status, run_experiment
from sscbench.experiments.status import STATUS_FILE
from sscbench.records.ledger import iter_jsonl, read_ledger

Write = Callable[..., Path]

CASES = [
    "item_option/retail/0/#W2378156/2",
    "return_date/airline/7/XEHM4B",
    "pay_source/airline/18/omar_davis_3817/gift_card_3481935",
]


def experiment_text(server: Any, key: str) -> str:
    common = f'api_key_env = "{key}", cache_dir = "cache"'
    return f"""
name = "e2e"
repetitions = 2
concurrency = 4
[cases]
ids = {json.dumps(CASES)}

[[configurations]]
id = "careful"
agent = "scripted:careful"

[[configurations]]
id = "oa"
agent = "openai"
params = {{ model = "fake-gpt", base_url = "{server.openai_url}", {common}, \
input_price_per_mtok = 2.0, output_price_per_mtok = 8.0 }}

[[configurations]]
id = "an"
agent = "anthropic"
[configurations.params]
model = "fake-claude"
base_url = "{server.anthropic_url}"
api_key_env = "{key}"
cache_dir = "cache"

[[configurations]]
id = "lazy"
agent = "openai-compatible"
params = {{ model = "fake-small", base_url = "{server.openai_url.replace("/v1", "/lazy/v1")}" }}
"""


def _files_text(*roots: Path) -> str:
    return "\n".join(
        p.read_text(encoding="utf-8", errors="replace")
        for root in roots
        for p in root.rglob("*")
        if p.is_file()
    )


def _ledgers(out: Path) -> dict[str, list[dict[str, Any]]]:
    return {
        str(p.parent.relative_to(out)): [
            {k: v for k, v in obj.items() if k != "ts"} for _, obj in iter_jsonl(p)
        ]
        for p in sorted(out.rglob("ledger.jsonl"))
    }


def test_experiment_runs_the_protocol_end_to_end(
    write: Write, tmp_path: Path, server: Any, key: str, lb: Any
) -> None:
    path = write(experiment_text(server, key))
    out = tmp_path / "out"
    assert main(["run", "--config", str(path), "--out", str(out)]) == 0

    latest = read_status(out / STATUS_FILE)
    assert len(latest) == 4 * (3 + 3 * 2)  # configurations × (clean tasks + cases × reps)
    by_config: dict[str, Counter[tuple[str, str, str | None]]] = {}
    for record in latest.values():
        counter = by_config.setdefault(record.configuration, Counter())
        counter[(record.condition, record.state, record.cause)] += 1
        if record.state == "observed":
            assert (out / record.run_id / "ledger.jsonl").exists()
    # the loopback models play the gold actions: every clean task solved, every case run
    for config in ("oa", "an"):
        assert by_config[config] == {("clean", "observed", None): 3, ("fault", "observed", None): 6}
    # scripted:careful runs out of steps on the PaySource task (40 steps): that case is gated
    assert by_config["careful"][("fault", "missing", "gated")] == 2
    # a model that only says goodbye solves no task with writes: all its cases are gated
    assert by_config["lazy"] == {("clean", "observed", None): 3, ("fault", "missing", "gated"): 6}

    oa = next(r for r in latest.values() if r.configuration == "oa" and r.condition == "fault")
    ledger = read_ledger(out / oa.run_id / "ledger.jsonl")
    assert ledger.header.agent.name == "openai" and ledger.header.fault is not None
    assert ledger.header.agent.params["api_key_env"] == key
    calls = [o for _, o in iter_jsonl(out / oa.run_id / "provider_calls.jsonl")]
    assert {c["provider"] for c in calls} == {"openai"} and all(c["input_tokens"] for c in calls)
    an_ids = [r for r in latest.values() if r.configuration == "an" and r.provider_calls]
    assert an_ids, "the Anthropic-format configuration made real HTTP calls"
    assert any("/v1/messages" in s.path for s in server.requests)
    assert any(lb.SECRET in json.dumps(s.headers) for s in server.requests)  # really sent

    # the key is nowhere on disk: runs, status, summaries, cache
    assert lb.SECRET not in _files_text(out, tmp_path / "cache")
    assert (tmp_path / "cache").is_dir()

    # same command again: nothing runs, no HTTP
    sent = len(server.requests)
    assert main(["run", "--config", str(path), "--out", str(out)]) == 0
    assert len(server.requests) == sent
    assert read_status(out / STATUS_FILE) == latest

    # a fresh directory replays every provider run from the cache: same ledgers, no HTTP
    replay = tmp_path / "replay"
    result = run_experiment(load_experiment(path), replay)
    assert len(server.requests) == sent + 3  # only the uncached `lazy` configuration calls
    assert _ledgers(replay) == _ledgers(out)
    replayed = [r for r in result.records if r.configuration in ("oa", "an") and r.run_id]
    assert all(r.provider_calls == 0 for r in replayed)
    assert lb.SECRET not in _files_text(replay)


def test_user_simulator_is_configured_from_the_file(
    write: Write, tmp_path: Path, server: Any, key: str
) -> None:
    sim_url = server.openai_url.replace("/v1", "/sim/v1")
    path = write(
        f"""
[cases]
ids = ["{CASES[0]}"]
[user]
name = "simulator"
params = {{ provider = "openai-compatible", model = "fake-user", base_url = "{sim_url}" }}
[[configurations]]
id = "gold"
agent = "scripted:gold"
"""
    )
    result = run_experiment(load_experiment(path), tmp_path / "out")
    clean = result.records[0]
    assert clean.state == "observed" and clean.termination == "user_stop"
    header = read_ledger(tmp_path / "out" / clean.run_id / "ledger.jsonl").header
    assert header.user.name == "simulator" and header.user.params["model"] == "fake-user"
    calls = [o for _, o in iter_jsonl(tmp_path / "out" / clean.run_id / "provider_calls.jsonl")]
    assert [c["role"] for c in calls] == ["user", "user"]
