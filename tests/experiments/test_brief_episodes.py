"""Episodes of only brief participants (the scripted agents and user, the built-in
mitigations) play on the engine's own thread; any other episode keeps its worker thread;
the run files are the same either way."""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from sscbench.experiments import execute, load_experiment, run_experiment
from sscbench.experiments.executors import LocalExecutor

Write = Callable[..., Path]

EASY = "item_option/retail/0/#W2378156/2"
TS = re.compile(rb'"ts":[0-9.e+-]+')


def _threads(monkeypatch: pytest.MonkeyPatch) -> dict[str, set[bool]]:
    """Per agent name, whether its episodes ran on the main thread (the event loop's)."""
    seen: dict[str, set[bool]] = {}
    episode = execute.run_episode

    def noted(spec: Any, agent: Any, *args: Any, **kwargs: Any) -> Any:
        on_main = threading.current_thread() is threading.main_thread()
        seen.setdefault(agent.spec.name, set()).add(on_main)
        return episode(spec, agent, *args, **kwargs)

    monkeypatch.setattr(execute, "run_episode", noted)
    return seen


def test_scripted_episodes_skip_the_worker_thread_and_provider_ones_keep_it(
    write: Write, tmp_path: Path, server: Any, key: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write(
        f"""
concurrency = 2
mitigations = ["read_back_after_write"]
[cases]
ids = ["{EASY}"]
[[configurations]]
id = "gold"
agent = "scripted:gold"
[[configurations]]
id = "oa"
agent = "openai"
params = {{ model = "fake-model", base_url = "{server.openai_url}", api_key_env = "{key}" }}
"""
    )
    seen = _threads(monkeypatch)
    session = run_experiment(load_experiment(path), tmp_path / "out")
    assert not session.failed and session.executed == 8  # 2 agents × 2 mitigations × 2 runs
    assert seen["scripted:gold"] == {True}  # bare and behind the mitigation
    assert seen["openai"] == {False}


def test_the_run_files_do_not_depend_on_the_thread(
    write: Write, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write(
        """
concurrency = 1
mitigations = ["verify_before_write"]
[cases]
per_operator = 1
[[configurations]]
id = "careful"
agent = "scripted:careful"
"""
    )
    experiment = load_experiment(path)
    seen = _threads(monkeypatch)
    run_experiment(experiment, tmp_path / "inline")
    assert seen == {"scripted:careful": {True}}
    monkeypatch.setattr(LocalExecutor, "run", _always_threaded)
    seen.clear()
    run_experiment(experiment, tmp_path / "threads")
    assert seen == {"scripted:careful": {False}}

    def files(root: Path) -> dict[str, bytes]:
        return {
            p.relative_to(root).as_posix(): TS.sub(b'"ts":0', p.read_bytes())
            for p in sorted(root.rglob("*.jsonl"))
            if p.name != "schedule.jsonl"  # its lines carry the ledgers' digests (of ts)
        }

    inline, threaded = files(tmp_path / "inline"), files(tmp_path / "threads")
    assert len(inline) > 20 and inline == threaded


async def _always_threaded(self: LocalExecutor, run: Any, experiment: Any, out: Path) -> Any:
    """LocalExecutor.run as it was before brief episodes: every episode in a thread."""
    import asyncio

    from sscbench.experiments.executors import _local

    return await asyncio.to_thread(_local, run, experiment, out, execute.execute_into)
