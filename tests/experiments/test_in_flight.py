"""max_in_flight bounds the requests in flight to one endpoint across every participant —
in one process, and across a Ray cluster's worker processes."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from sscbench.experiments import load_experiment, run_experiment

Write = Callable[..., Path]
CASES = '["item_option/retail/0/#W2378156/2", "write_effect/airline/12/4"]'


def _counting(lb: Any) -> tuple[Callable[[str, dict[str, Any]], Any], dict[str, int]]:
    gold = lb.GoldResponder()
    seen = {"now": 0, "most": 0}
    lock = threading.Lock()

    def respond(path: str, body: dict[str, Any]) -> Any:
        with lock:
            seen["now"] += 1
            seen["most"] = max(seen["most"], seen["now"])
        time.sleep(0.03)
        with lock:
            seen["now"] -= 1
        return gold(path, body)

    return respond, seen


def _experiment(write: Write, server: Any, key: str, executor: str, cap: str) -> Path:
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
params = {{ model = "m", base_url = "{server.openai_url}", api_key_env = "{key}"{cap} }}
"""
    )


@pytest.mark.parametrize("cap", [None, 1, 2])
def test_in_one_process(
    write: Write, tmp_path: Path, server: Any, key: str, lb: Any, cap: int | None
) -> None:
    server.responder, seen = _counting(lb)
    extra = "" if cap is None else f", max_in_flight = {cap}"
    result = run_experiment(
        load_experiment(_experiment(write, server, key, "local", extra)), tmp_path / "out"
    )
    assert not result.failed
    if cap is None:
        assert seen["most"] > 2, "without a cap, concurrent episodes overlap their requests"
    else:
        assert seen["most"] <= cap


def test_across_a_ray_cluster(write: Write, tmp_path: Path, server: Any, key: str, lb: Any) -> None:
    pytest.importorskip("ray")
    server.responder, seen = _counting(lb)
    path = _experiment(write, server, key, "ray", ", max_in_flight = 1")
    result = run_experiment(load_experiment(path), tmp_path / "out")
    assert not result.failed
    assert seen["most"] == 1, "two worker processes must share one place"
