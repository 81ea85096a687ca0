"""``--classifier rules+llm`` against the real llama.cpp server with SmolLM2: the plumbing of
the adjudicator end to end (only the low-confidence run's use steps reach the server, the
answer is recorded with the model, a cached re-run replays without a request). SmolLM2
proves the plumbing, not the accuracy: nothing here checks what the model answered.

Skipped without the ``local`` extra or the model package, except where
``SSCBENCH_REQUIRE_LOCAL_SERVER=1`` (CI) makes that a failure.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sscbench.errors import ConfigError
from sscbench.llm import local_server
from sscbench.reconstruct.adjudicate import Adjudicator
from sscbench.reconstruct.label import label_run
from sscbench.reconstruct.llm_classifier import LLMClassifier


def _missing() -> str | None:
    if importlib.util.find_spec("llama_cpp") is None:
        return "llama-cpp-python is not installed (pip install 'sscbench[local]')"
    try:
        local_server.resolve_model("smollm2")
    except ConfigError as exc:
        return str(exc)
    return None


MISSING = _missing()
if MISSING and os.environ.get("SSCBENCH_REQUIRE_LOCAL_SERVER") == "1":
    pytest.fail(f"the llama.cpp server tests must run here: {MISSING}", pytrace=False)
pytestmark = [
    pytest.mark.local_server,
    pytest.mark.skipif(MISSING is not None, reason=MISSING or ""),
]

NATURAL = Path(__file__).parents[1] / "fixtures" / "reconstruction_natural"
LOW = NATURAL / "rd_gv_doubt_handoff"  # confidence 0.73: adjudicated
HIGH = NATURAL / "rd_gv_search_call"  # confidence 0.93: the rules decide
SMOL: dict[str, Any] = {"model": "smollm2", "server": "llama.cpp", "max_tokens": 64, "timeout": 600}


@pytest.fixture(scope="module", autouse=True)
def server_logs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    directory = tmp_path_factory.mktemp("server-logs")
    local_server.keep_logs_in(directory)
    yield directory
    local_server.stop_all()
    local_server.keep_logs_in(None)


def _posts(logs: Path) -> int:
    (log,) = logs.glob("llama-server-*.log")
    return log.read_text(encoding="utf-8").count('"POST /v1/chat/completions HTTP/1.1" 200')


def test_only_the_low_confidence_uses_reach_smollm2_and_replay_from_the_cache(
    tmp_path: Path, server_logs: Path
) -> None:
    for run in (LOW, HIGH):
        shutil.copytree(run, tmp_path / "runs" / run.name)
    params = {**SMOL, "cache_dir": str(tmp_path / "cache")}
    classifier = LLMClassifier("openai-compatible", **params)
    adjudicator = Adjudicator(classifier)

    high = label_run(tmp_path / "runs" / HIGH.name, second_pass=adjudicator)
    assert high.adjudication is not None and high.adjudication["decided_by"] == "rules"
    assert classifier.provider_calls == []

    rule_steps = sorted({int(str(u["step"])) for u in label_run(LOW).uses})
    low = label_run(tmp_path / "runs" / LOW.name, second_pass=adjudicator)
    assert low.adjudication is not None
    assert low.adjudication["decided_by"] == "llm-adjudicated"
    assert low.adjudication["model"] == "smollm2"
    assert low.adjudication["steps"] == rule_steps
    calls = classifier.provider_calls
    assert sorted(c.step for c in calls) == rule_steps
    assert {c.status for c in calls} <= {"ok", "empty"}
    assert all(c.provider == "openai-compatible" and c.input_tokens for c in calls)
    assert _posts(server_logs) == len(calls)

    replay = LLMClassifier("openai-compatible", **params)
    again = label_run(tmp_path / "runs" / LOW.name, second_pass=Adjudicator(replay))
    assert again == low
    assert {c.status for c in replay.provider_calls} == {"cache_hit"}
    assert _posts(server_logs) == len(calls), "a cached re-run reached the server"
