"""Several endpoints per configuration: requests spread over loopback servers under each
one's cap, the endpoint is recorded per call, and nothing the measurement reads (the
configuration hash, the ledgers, the cache keys) depends on which server answered."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from sscbench.errors import ConfigError
from sscbench.experiments import load_experiment, run_experiment
from sscbench.llm.spread import EndpointLoad
from sscbench.records.ledger import read_ledger

Write = Callable[..., Path]
CASES = '["item_option/retail/0/#W2378156/2", "write_effect/airline/12/4"]'


def test_least_in_flight_fills_the_emptiest_endpoint_under_its_cap() -> None:
    load = EndpointLoad()
    names, caps = ["a", "b"], [2, 1]
    picks = [load.pick(names, caps, "least_in_flight") for _ in range(4)]
    assert picks == ["a", "b", "a", None], "a cap of 1 on b, 2 on a; then all are full"
    load.done("b")
    assert load.pick(names, caps, "least_in_flight") == "b"


def test_round_robin_takes_turns_and_skips_a_full_endpoint() -> None:
    load = EndpointLoad()
    names: list[str] = ["a", "b", "c"]
    caps: list[int | None] = [None, 1, None]
    picks = [load.pick(names, caps, "round_robin") for _ in range(5)]
    assert picks == ["a", "b", "c", "a", "c"]


def test_the_command_line_gives_endpoints_as_a_comma_list() -> None:
    from sscbench.llm.config import parse_config

    config = parse_config({"model": "m", "endpoints": "http://a/v1, http://b/v1"})
    assert config.endpoint_caps() == (("http://a/v1", "http://b/v1"), (None, None))
    assert parse_config({"model": "m", "max_in_flight": "3", "endpoints": "http://a/v1"})
    with pytest.raises(ConfigError, match="endpoints is empty"):
        parse_config({"model": "m", "endpoints": " , "})


class _Counting:
    """A gold responder that counts requests in flight at once."""

    def __init__(self, lb: Any) -> None:
        self.gold = lb.GoldResponder()
        self.now = self.most = self.total = 0
        self.lock = threading.Lock()

    def __call__(self, path: str, body: dict[str, Any]) -> Any:
        with self.lock:
            self.now += 1
            self.total += 1
            self.most = max(self.most, self.now)
        time.sleep(0.02)
        with self.lock:
            self.now -= 1
        return self.gold(path, body)


@pytest.fixture
def two(lb: Any) -> Iterator[list[Any]]:
    """Two loopback servers serving the same (gold) model."""
    servers = [lb.serve(_Counting(lb)) for _ in range(2)]
    yield servers
    for s in servers:
        s.close()


def _file(write: Write, key: str, target: str, executor: str = "local", name: str = "e") -> Path:
    return write(
        f"""
executor = "{executor}"
concurrency = 4
repetitions = 2
gate = "per_repetition"
[cases]
ids = {CASES}
[[configurations]]
id = "oa"
agent = "openai"
params = {{ model = "m", api_key_env = "{key}", {target} }}
""",
        name=f"{name}.toml",
    )


def _calls(out: Path) -> list[dict[str, Any]]:
    return [
        json.loads(line)
        for path in sorted(out.rglob("provider_calls.jsonl"))
        for line in path.read_text().splitlines()
    ]


def _visible(out: Path) -> list[list[dict[str, Any]]]:
    """Every ledger's records without timestamps, in run order."""
    return [
        [
            {k: v for k, v in rec.model_dump(mode="json").items() if k not in ("ts", "params")}
            for rec in read_ledger(path).events
        ]
        for path in sorted(out.rglob("ledger.jsonl"))
    ]


def test_spread_over_two_servers_under_their_caps(
    write: Write, tmp_path: Path, two: list[Any], key: str, server: Any
) -> None:
    urls = [s.openai_url for s in two]
    spread = _file(
        write,
        key,
        f'endpoints = ["{urls[0]}", {{ url = "{urls[1]}", max_in_flight = 1 }}], max_in_flight = 2',
    )
    single = _file(write, key, f'base_url = "{server.openai_url}"', name="single")
    experiment = load_experiment(spread)
    assert experiment.configurations[0].hash == load_experiment(single).configurations[0].hash
    result = run_experiment(experiment, tmp_path / "spread")
    assert not result.failed
    assert two[0].responder.most <= 2 and two[1].responder.most <= 1, "caps per endpoint"
    assert two[0].responder.total > 0 and two[1].responder.total > 0, "both endpoints used"
    calls = _calls(tmp_path / "spread")
    assert {c["endpoint"] for c in calls} == set(urls)
    assert len(calls) == two[0].responder.total + two[1].responder.total
    # The same experiment on one server: the same ledgers, the same request hashes.
    run_experiment(load_experiment(single), tmp_path / "single")
    assert _visible(tmp_path / "spread") == _visible(tmp_path / "single")
    plain = _calls(tmp_path / "single")
    assert "endpoint" not in plain[0], "single-endpoint records keep their old form"
    assert [c["request_hash"] for c in calls] == [c["request_hash"] for c in plain]


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ('endpoints = ["ftp://h/v1"]', "params.endpoints[0].url: Value error, an endpoint is"),
        ('endpoints = ["http://h/v1", "http://h/v1"]', "lists an API root twice"),
        ('endpoints = ["http://h/v1"], base_url = "http://g/v1"', "set endpoints or base_url"),
        ("endpoints = []", "endpoints is empty"),
        ('endpoints = [{ url = "http://h/v1", max_in_flight = 0 }]', "endpoints[0].max_in_flight"),
        ('endpoints = ["http://h/v1"], endpoint_policy = "random"', "endpoint_policy"),
    ],
)
def test_bad_endpoints_are_one_line_errors(
    write: Write, key: str, target: str, message: str
) -> None:
    with pytest.raises(ConfigError) as err:
        load_experiment(_file(write, key, target))
    lines = str(err.value).splitlines()
    assert len(lines) == 2 and lines[0] == "invalid experiment file", lines
    assert lines[1].split(": ")[0].endswith("e.toml:10"), lines[1]
    assert ": configurations[0].params" in lines[1]
    assert message in lines[1]


def test_spread_across_a_ray_cluster(
    write: Write, tmp_path: Path, two: list[Any], key: str
) -> None:
    pytest.importorskip("ray")
    urls = [s.openai_url for s in two]
    path = _file(write, key, f'endpoints = ["{urls[0]}", "{urls[1]}"], max_in_flight = 1', "ray")
    result = run_experiment(load_experiment(path), tmp_path / "out")
    assert not result.failed
    assert [s.responder.most for s in two] == [1, 1], "one place per server, cluster-wide"
    assert all(s.responder.total > 0 for s in two)
    assert {c["endpoint"] for c in _calls(tmp_path / "out")} == set(urls)
